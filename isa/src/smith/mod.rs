//! The generator ("smith"): builds, from arbitrary bytes, bundles that are
//! valid for a chosen generation — for every family the spec types — the way
//! wasm-smith builds valid modules; and a mutator that breaks exactly one
//! invariant and names the check the validator must report.
//!
//! Generation starts from fully random bytes and then fixes only the fields
//! the spec constrains, so every unconstrained byte is exercised too: a
//! validator that rejects a field the spec leaves free fails the property.

mod generate;
mod mutate;

pub use generate::{bundle, bundle_for, candidate_opcodes};
pub use mutate::{applicable, break_claim, mutate, Mutation};

use crate::bundle::Raw;
use crate::layout::Layout;

/// Writes `v` little-endian into the field at `path` (a leaf or array element).
pub(crate) fn put(raw: &mut Raw, layout: &Layout, path: &str, v: u64) {
    put_at(raw, 0, layout, path, v);
}

/// [`put`] into a view of the bytes at `base` (a slot read through another
/// layout, such as an MX operand read as MXINDIRECT16B).
pub(crate) fn put_at(raw: &mut Raw, base: usize, layout: &Layout, path: &str, v: u64) {
    if let Some((off, size)) = layout.resolve(path) {
        if let (Some(dst), Some(src)) = (raw.get_mut(base + off..base + off + size), v.to_le_bytes().get(..size)) {
            dst.copy_from_slice(src);
        }
    }
}

/// Reads the field at `path` as an unsigned little-endian value.
pub(crate) fn get(raw: &Raw, layout: &Layout, path: &str) -> u64 {
    let Some((off, size)) = layout.resolve(path) else { return 0 };
    raw.get(off..off + size).filter(|b| b.len() <= 8).map_or(0, crate::layout::le_u64)
}
