//! What the fuzz targets share: the C header's view of a bundle, through the
//! `tpb_dump` shim that `build.rs` generates from `tpb_isa` and compiles.
//! `c_layout` compares it with the Rust decoder alone; `roundtrip` as step
//! 3 of its chain (`tpb_isa::props::chain`).

use std::os::raw::{c_char, c_int};
use tpb_isa::bundle::Raw;

extern "C" {
    /// Writes the `path=value` dump of one 64-byte bundle into `out` (at most
    /// `cap` bytes, NUL-terminated); returns its length, or -1 if `cap` is too small.
    fn tpb_dump(bundle: *const u8, out: *mut c_char, cap: usize) -> c_int;
}

/// Room for the longest dump (the opaque body: ~70 short lines) many times over.
const DUMP_CAP: usize = 1 << 16;

thread_local! {
    /// The dump buffer, kept across bundles and inputs: zeroing 64 KiB per
    /// bundle was a fixed cost on every one.
    static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The C header's reading of `raw`: `tpb_dump`'s `path=value` lines, or why
/// there are none.
pub fn c_dump(raw: &Raw) -> Result<String, String> {
    BUF.with_borrow_mut(|buf| {
        buf.resize(DUMP_CAP, 0);
        // SAFETY: the one FFI call. `raw` is 64 readable bytes, exactly what
        // tpb_dump reads; `buf` is `buf.len()` writable bytes and tpb_dump never
        // writes past `cap` (it returns -1 instead). Nothing is retained after return.
        let n = unsafe { tpb_dump(raw.as_ptr(), buf.as_mut_ptr().cast::<c_char>(), buf.len()) };
        let n = usize::try_from(n).map_err(|_| format!("tpb_dump: {DUMP_CAP}-byte buffer too small"))?;
        let text = buf.get(..n).ok_or_else(|| format!("tpb_dump returned {n}, past its {DUMP_CAP}-byte buffer"))?;
        String::from_utf8(text.to_vec()).map_err(|e| format!("tpb_dump printed non-UTF-8: {e}"))
    })
}
