//! The MX operand of CoreV4 matmuls (§2.6, §2.7) on the fast path. Its
//! fields move when it is a gather (MXINDIRECT16B instead of
//! MXMEM_PATTERN1D), so its check reads the address word first and then
//! the fields of that reading; the rules are those of the reporting path's
//! `mx_operand`, and the tests of the fast path compare both.

use super::super::slots::{MX_SCALE_PARTS, MX_STEP_DIRS};
use super::{dclass, offset, Raw, REGISTER_MUST_BE_CLEAR};
use crate::addr4::{Addr4, Region, MODE_DEAD, MODE_INDIRECT, MODE_MASK, REGISTER_BIT};
use crate::descriptor::{MxIndirect16b, MxMemPattern1d};
use crate::layout::Layout;

/// One MX slot, planned: its offset, and where its dtype's class is (as
/// for a pattern slot).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct MxPlan {
    pub slot_at: u8,
    pub dtype_at: u8,
    pub dtype_base: u16,
}

/// The size of an MX operand.
pub(super) fn size() -> usize {
    MxMemPattern1d::LAYOUT.size
}

/// Offsets of the fields the rules read, within the operand, in each reading.
#[derive(Clone, Copy, Default)]
pub(super) struct MxFields {
    data: u8,
    scale: u8,
    k_extent: u8,
    step_dir: u8,
    scale_base_part: u8,
    gather_data: u8,
    gather_scale: u8,
    gather_k_extent: u8,
    gather_scale_base_part: u8,
}

impl MxFields {
    /// From the two layouts; `None` if a field is missing or their sizes
    /// differ (then MX bodies stay on the reporting path).
    pub(super) fn from_layouts() -> Option<MxFields> {
        let (direct, gather) = (&MxMemPattern1d::LAYOUT, &MxIndirect16b::LAYOUT);
        if !forms_agree(direct, gather) {
            return None;
        }
        let at = |l: &Layout, f: &str| l.field_offset(f).map(offset);
        Some(MxFields {
            data: at(direct, "data")?,
            scale: at(direct, "scale")?,
            k_extent: at(direct, "k_extent")?,
            step_dir: at(direct, "step_dir")?,
            scale_base_part: at(direct, "scale_base_part")?,
            gather_data: at(gather, "data")?,
            gather_scale: at(gather, "scale")?,
            gather_k_extent: at(gather, "k_extent")?,
            gather_scale_base_part: at(gather, "scale_base_part")?,
        })
    }
}

/// Whether an MX operand's gather form is read like its direct form: the same
/// size, with the index word first where the direct form has its address.
fn forms_agree(direct: &Layout, gather: &Layout) -> bool {
    direct.size == gather.size && gather.field_offset("index") == Some(0)
}

/// The register and dead-mode rules of one address word: whether they
/// hold, and whether the word is a plain memory address (whose region the
/// caller checks).
#[inline(always)]
fn basic(word: u32) -> (bool, bool) {
    if word & REGISTER_BIT != 0 {
        (word & REGISTER_MUST_BE_CLEAR == 0, false)
    } else {
        let live = word & MODE_MASK != MODE_DEAD;
        (live, live)
    }
}

/// A scale address: the basic rules, and a plain one must lie in SBUF.
#[inline(always)]
fn scale_ok(word: u32) -> bool {
    let (ok, plain) = basic(word);
    ok && (!plain || Addr4::new(word).region() == Region::Sbuf)
}

/// Whether the MX operand `m` of the bundle passes every rule, given the
/// class of its dtype.
#[inline(always)]
pub(super) fn clean(raw: Raw, m: &MxPlan, f: &MxFields, dtype: u8) -> bool {
    let at = |rel: u8| m.slot_at.wrapping_add(rel);
    let first = raw.word(m.slot_at);
    let valid = dtype & dclass::VALID != 0;
    if first & REGISTER_BIT == 0 && first & MODE_MASK == MODE_INDIRECT {
        // A gather: its index must lie in memory; the data word only needs the basic rules.
        let k = u16::from_le_bytes(raw.bytes(at(f.gather_k_extent)));
        return valid
            && Addr4::new(first).region() != Region::Outside
            && basic(raw.word(at(f.gather_data))).0
            && scale_ok(raw.word(at(f.gather_scale)))
            && k != 0
            && raw.byte(at(f.gather_scale_base_part)) < MX_SCALE_PARTS;
    }
    let data = raw.word(at(f.data));
    let (data_ok, plain) = basic(data);
    let align_clear = dclass::align_clear(dtype);
    let placed = !plain || (Addr4::new(data).region() != Region::Outside && data & align_clear == 0);
    let k = u16::from_le_bytes(raw.bytes(at(f.k_extent)));
    valid
        && data_ok
        && placed
        && scale_ok(raw.word(at(f.scale)))
        && MX_STEP_DIRS.contains(&raw.byte(at(f.step_dir)))
        && k != 0
        && raw.byte(at(f.scale_base_part)) < MX_SCALE_PARTS
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_gather_form_must_match_the_direct_one_in_size_and_index_word() {
        // Today's two layouts agree; the guard is tested on altered copies.
        use super::{forms_agree, Layout, MxIndirect16b, MxMemPattern1d};
        let (direct, gather) = (MxMemPattern1d::LAYOUT, MxIndirect16b::LAYOUT);
        assert!(forms_agree(&direct, &gather));
        assert!(!forms_agree(&direct, &Layout { size: gather.size + 4, ..gather }));
        assert!(!forms_agree(&direct, &Layout { fields: &gather.fields[1..], ..gather }));
    }
}
