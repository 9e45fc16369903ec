//! The whole chain on every input (`tpb_isa::props::chain`): raw bundles, or
//! generator choices when the first byte is `props::GENERATED`, through
//! decode → encode → decode, disassemble → assemble, the C header's view (the
//! shim `build.rs` compiles), the validator on every generation under both
//! profiles (fast path, full checks, every stream kernel), and for generated
//! bundles one mutation that must raise exactly the check it names.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tpb_isa::props::chain(data, Some(&mut tpb_fuzz::c_dump)).unwrap_or_else(|e| panic!("{e}")));
