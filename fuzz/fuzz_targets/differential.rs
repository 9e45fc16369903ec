//! Your own decoder, encoder or validator against the description, on libFuzzer's bundles:
//! TPB_DIFFER_LIB=./libmine.so or TPB_DIFFER_CMD="python3 mine.py" (docs/differential.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tpb_differ::fuzz::differential(data).unwrap_or_else(|e| panic!("{e}")));
