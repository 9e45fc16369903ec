//! Generated (`arbitrary`) bundles encode → decode to themselves and validate clean on their generation.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tpb_isa::props::structured(data).unwrap_or_else(|e| panic!("{e}")));
