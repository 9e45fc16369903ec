//! The library oracle (ELF / wheel reader and every fact check) on arbitrary bytes: never panics.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tpb_oracle::walrus::fuzz_elf(data);
});
