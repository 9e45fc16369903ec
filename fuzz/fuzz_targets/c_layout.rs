//! Differential decode through the generated C header: for arbitrary bytes
//! (taken as 64-byte bundles, the last one zero-padded), every field C reads
//! through `NEURON_ISA_TPB_INST_UNION` must equal what the Rust decoder reports.
//! The C side is `tpb_dump`, generated and compiled by `fuzz/build.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};

fuzz_target!(|data: &[u8]| {
    for chunk in data.chunks(BUNDLE_BYTES) {
        let mut raw: Raw = [0; BUNDLE_BYTES];
        raw[..chunk.len()].copy_from_slice(chunk);
        tpb_isa::props::c_step(&raw, &mut tpb_fuzz::c_dump).unwrap_or_else(|e| panic!("{e}"));
    }
});
