//! Raw bytes → decode → encode → decode: bytes and typed values must match.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tpb_isa::props::roundtrip(data).unwrap_or_else(|e| panic!("{e}")));
