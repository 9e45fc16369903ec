//! The NEFF container reader and conformance on arbitrary bytes: never panics, memory capped.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tpb_oracle::conform::fuzz_neff(data);
});
