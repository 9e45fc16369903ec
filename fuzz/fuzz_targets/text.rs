//! Disassemble → assemble gives identical bytes (and text → bytes → text the same line).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tpb_isa::props::text_roundtrip(data).unwrap_or_else(|e| panic!("{e}")));
