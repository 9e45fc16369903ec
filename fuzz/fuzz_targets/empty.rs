//! Does nothing: the exec/s floor of libFuzzer itself (input generation,
//! coverage bookkeeping), against which `fuzz/bench.sh` rates `roundtrip`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    std::hint::black_box(data);
});
