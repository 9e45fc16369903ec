//! Differential decode through the generated C header: for arbitrary bytes
//! (taken as 64-byte bundles, the last one zero-padded), every field C reads
//! through `NEURON_ISA_TPB_INST_UNION` must equal what the Rust decoder reports.
//! The C side is `tpb_dump`, generated and compiled by `fuzz/build.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::os::raw::{c_char, c_int};
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};
use tpb_isa::c_header::shim;

extern "C" {
    /// Writes the `path=value` dump of one 64-byte bundle into `out` (at most
    /// `cap` bytes, NUL-terminated); returns its length, or -1 if `cap` is too small.
    fn tpb_dump(bundle: *const u8, out: *mut c_char, cap: usize) -> c_int;
}

/// Room for the longest dump (the opaque body: ~70 short lines) many times over.
const DUMP_CAP: usize = 1 << 16;

/// `buf` is reused across an input's bundles: zeroing 64 KiB per bundle was a
/// fixed cost on every one.
fn c_dump(raw: &Raw, buf: &mut Vec<u8>) -> String {
    buf.resize(DUMP_CAP, 0);
    // SAFETY: the one FFI call. `raw` is 64 readable bytes, exactly what
    // tpb_dump reads; `buf` is `buf.len()` writable bytes and tpb_dump never
    // writes past `cap` (it returns -1 instead). Nothing is retained after return.
    let n = unsafe { tpb_dump(raw.as_ptr(), buf.as_mut_ptr().cast::<c_char>(), buf.len()) };
    let n = usize::try_from(n).unwrap_or_else(|_| panic!("tpb_dump: {DUMP_CAP}-byte buffer too small"));
    String::from_utf8(buf[..n].to_vec()).unwrap_or_else(|e| panic!("tpb_dump printed non-UTF-8: {e}"))
}

fuzz_target!(|data: &[u8]| {
    let mut buf = Vec::new();
    for chunk in data.chunks(BUNDLE_BYTES) {
        let mut raw: Raw = [0; BUNDLE_BYTES];
        raw[..chunk.len()].copy_from_slice(chunk);
        if let Some(msg) = shim::compare_dump(&raw, &c_dump(&raw, &mut buf)) {
            panic!("C header and Rust decoder disagree: {msg}");
        }
    }
});
