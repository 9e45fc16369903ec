//! Any bytes through the validator (findings name real fields and offsets), then
//! the same bytes as generator + single-mutation input (exactly the named check).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tpb_isa::props::validate_any(data)
    .and_then(|()| tpb_isa::props::mutation(data))
    .unwrap_or_else(|e| panic!("{e}")));
