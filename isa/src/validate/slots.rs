//! Per-body checks: descriptor slots, dtype fields and control-band enumerations.

use super::Ctx;
use crate::addr4::{self, Addr4, Region};
use crate::bundle::Bundle;
use crate::checks::*;
use crate::descriptor::{Indirect16b, Indirect20b, MxIndirect16b, MxMemPattern1d, Tensor2d, Tensor3d, Tensor4d};
use crate::dtype::{DtypeInfo, BF16};
use crate::layout::Layout;
use crate::opcode::OpcodeInfo;
use crate::operands::{self, Role, Slot, SlotType};
use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, IntoBytes};

pub(super) fn body(cx: &mut Ctx<'_>, bundle: &Bundle, op: &OpcodeInfo) {
    let bytes = bundle.as_bytes();
    // Offsets come from the per-opcode table: no field-path lookups per bundle.
    for placed in operands::placed(op.byte) {
        let slot = placed.slot;
        let dt = match placed.dtype_at[cx.generation.index()].and_then(|off| bytes.get(off)) {
            Some(&b) => cx.dtype(slot.dtype.field(cx.generation), slot.dtype.tag_of(b)),
            None => None,
        };
        operand(cx, bytes, slot, placed.offset, dt);
    }
    super::band::band(cx, bundle, op);
}

/// Checks one operand slot read at `base` with the dtype `dt` (errata re-check
/// a slot with a corrected dtype or placement through here).
pub(super) fn operand(cx: &mut Ctx<'_>, bytes: &[u8], slot: &Slot, base: usize, dt: Option<&'static DtypeInfo>) {
    let Some(raw) = bytes.get(base..base + slot.size()) else { return };
    match slot.ty {
        SlotType::Mx => {
            if let Ok(m) = MxMemPattern1d::read_from_bytes(raw) {
                mx_operand(cx, slot.name, base, &m, dt);
            }
        }
        SlotType::Pattern(2) => {
            if let Ok(p) = Tensor2d::read_from_bytes(raw) {
                pattern(cx, slot.name, base, &p, dt, slot.role);
            }
        }
        SlotType::Pattern(4) => {
            if let Ok(p) = Tensor4d::read_from_bytes(raw) {
                pattern(cx, slot.name, base, &p, dt, slot.role);
            }
        }
        SlotType::Pattern(_) => {
            if let Ok(p) = Tensor3d::read_from_bytes(raw) {
                pattern(cx, slot.name, base, &p, dt, slot.role);
            }
        }
    }
}

/// An MX operand's scale base partition must be below this (§2.6).
pub(crate) const MX_SCALE_PARTS: u8 = 128;
/// An MX operand's step directions: +1 and -1 (§2.6).
pub(crate) const MX_STEP_DIRS: [u8; 2] = [0x01, 0xFF];

fn mx_operand(cx: &mut Ctx<'_>, slot: &str, base: usize, m: &MxMemPattern1d, dt: Option<&'static DtypeInfo>) {
    if !m.data.is_register() && m.data.is_indirect() {
        // A gather: the slot reads as MXINDIRECT16B (§2.7).
        let Ok(v) = MxIndirect16b::read_from_bytes(m.as_bytes()) else { return };
        let view = &MxIndirect16b::LAYOUT;
        // The index vector is read from memory, as a pattern gather's is.
        if v.index.region() == Region::Outside {
            let msg = || format!("address {:#x} is outside SBUF and the PSUM window", v.index.addr29());
            cx.report_view(&ADDRESS_OUTSIDE_MEMORY, slot, base, view, "index", msg);
        }
        addr_basic(cx, slot, base, view, "data", v.data);
        mx_scale(cx, slot, base, view, "scale", v.scale);
        if v.k_extent.get() == 0 {
            cx.report_view(&MX_ZERO_K_EXTENT, slot, base, view, "k_extent", || "k_extent is 0".into());
        }
        if v.scale_base_part >= MX_SCALE_PARTS {
            let msg = || format!("scale_base_part {} is not below {MX_SCALE_PARTS}", v.scale_base_part);
            cx.report_view(&MX_SCALE_PART_RANGE, slot, base, view, "scale_base_part", msg);
        }
        return;
    }
    let view = &MxMemPattern1d::LAYOUT;
    if addr_basic(cx, slot, base, view, "data", m.data) {
        let region = m.data.region();
        if region == Region::Outside {
            cx.report(&ADDRESS_OUTSIDE_MEMORY, &format!("{slot}.data"), || {
                format!("address {:#x} is outside SBUF and the PSUM window", m.data.addr29())
            });
        }
        if let Some(d) = dt {
            if misaligned(m.data.addr29(), d.align) {
                let msg = || format!("address {:#x} is not {}-byte aligned for {}", m.data.addr29(), d.align, d.name);
                cx.report(&MISALIGNED_ADDRESS, &format!("{slot}.data"), msg);
            }
        }
    }
    mx_scale(cx, slot, base, view, "scale", m.scale);
    if !MX_STEP_DIRS.contains(&m.step_dir) {
        cx.report(&MX_STEP_DIR, &format!("{slot}.step_dir"), || format!("step_dir is {:#04x}", m.step_dir));
    }
    if m.k_extent.get() == 0 {
        cx.report(&MX_ZERO_K_EXTENT, &format!("{slot}.k_extent"), || "k_extent is 0".into());
    }
    if m.scale_base_part >= MX_SCALE_PARTS {
        let msg = || format!("scale_base_part {} is not below {MX_SCALE_PARTS}", m.scale_base_part);
        cx.report(&MX_SCALE_PART_RANGE, &format!("{slot}.scale_base_part"), msg);
    }
}

fn mx_scale(cx: &mut Ctx<'_>, slot: &str, base: usize, view: &Layout, leaf: &str, a: Addr4) {
    if addr_basic(cx, slot, base, view, leaf, a) && a.region() != Region::Sbuf {
        let msg = || format!("MX scale address {:#x} is not in SBUF", a.addr29());
        cx.report_view(&MX_SCALE_NOT_SBUF, slot, base, view, leaf, msg);
    }
}

/// Register-mode and dead-mode rules for one ADDR4; `true` when it is a plain
/// (static, indirect or active) memory address whose region can be checked.
#[inline]
fn addr_basic(cx: &mut Ctx<'_>, slot: &str, base: usize, view: &Layout, leaf: &str, a: Addr4) -> bool {
    if a.is_register() {
        if u32::from(a.regid()) >= addr4::REGID_LIMIT {
            cx.report_view(&REGISTER_ID, slot, base, view, leaf, || format!("register id {:#04x} is not below 0x40", a.regid()));
        }
        if a.word() & addr4::REGISTER_RESERVED_MASK != 0 {
            let msg = || format!("register-mode word {:#010x} has bits 8..30 set", a.word());
            cx.report_view(&REGISTER_RESERVED_BITS, slot, base, view, leaf, msg);
        }
        return false;
    }
    if a.word() & addr4::MODE_MASK == addr4::MODE_DEAD {
        cx.report_view(&DEAD_ADDR_MODE, slot, base, view, leaf, || format!("ADDR4 {:#010x} has the dead mode nibble 0x60", a.word()));
        return false;
    }
    true
}

/// A static pattern slot: TENSOR2D/3D/4D or a MEM_PATTERN twin.
pub(super) trait Pattern: IntoBytes + zerocopy::Immutable {
    fn addr(&self) -> Addr4;
    fn nums(&self) -> &[U16];
    /// The static layout (names fields in findings).
    fn layout(&self) -> &'static Layout;
}

macro_rules! pattern_impl {
    ($($t:ty),*) => { $(
        impl Pattern for $t {
            fn addr(&self) -> Addr4 { self.addr }
            fn nums(&self) -> &[U16] { &self.num }
            fn layout(&self) -> &'static Layout { &<$t>::LAYOUT }
        }
    )* };
}
pattern_impl!(Tensor2d, Tensor3d, Tensor4d);

/// The layout a gather over a pattern of `nums` dims reads as (§2.7): the
/// 4-D one as INDIRECT20B, the others as INDIRECT16B. Findings name its
/// fields.
fn gather_view(nums: usize) -> &'static Layout {
    if nums == 4 {
        &Indirect20b::LAYOUT
    } else {
        &Indirect16b::LAYOUT
    }
}

/// Checks a TENSOR*/MEM_PATTERN* slot at `base`.
fn pattern(cx: &mut Ctx<'_>, slot: &str, base: usize, p: &impl Pattern, dt: Option<&'static DtypeInfo>, role: Role) {
    let a = p.addr();
    let indirect = !a.is_register() && a.is_indirect();
    if indirect {
        // A gather: the slot reads as INDIRECT16B / INDIRECT20B and its
        // stride/num region is inert (§2.7).
        let view = gather_view(p.nums().len());
        if a.region() == Region::Outside {
            cx.report(&ADDRESS_OUTSIDE_MEMORY, &format!("{slot}.addr"), || format!("address {:#x} is outside SBUF and the PSUM window", a.addr29()));
        }
        if let Ok((g, _)) = Indirect16b::read_from_prefix(p.as_bytes()) {
            addr_basic(cx, slot, base, view, "data", g.data);
        }
        return;
    }
    if addr_basic(cx, slot, base, p.layout(), "addr", a) {
        let region = a.region();
        let matmul_dst = role == (Role::Dst { matmul: true });
        if matmul_dst && region != Region::Psum {
            cx.report(&MATMUL_DST_NOT_PSUM, &format!("{slot}.addr"), || format!("matmul destination {:#x} is not in the PSUM window", a.addr29()));
        } else if region == Region::Outside {
            cx.report(&ADDRESS_OUTSIDE_MEMORY, &format!("{slot}.addr"), || format!("address {:#x} is outside SBUF and the PSUM window", a.addr29()));
        }
        if let Some(d) = dt {
            if misaligned(a.addr29(), d.align) {
                let msg = || format!("address {:#x} is not {}-byte aligned for {}", a.addr29(), d.align, d.name);
                cx.report(&MISALIGNED_ADDRESS, &format!("{slot}.addr"), msg);
            }
            if let Role::Dst { matmul } = role {
                if region == Region::Psum && !d.psum_write && !(matmul && d.tag == BF16) {
                    cx.report(&PSUM_WRITE_DTYPE, &format!("{slot}.addr"), || format!("PSUM write with {}-byte class dtype {}", d.align, d.name));
                }
            }
        }
    }
    for (i, n) in p.nums().iter().enumerate() {
        if n.get() == 0 {
            cx.report(&ZERO_NUM, &format!("{slot}.num[{i}]"), || format!("num[{i}] is 0"));
        }
    }
}

/// `addr % align != 0`. Every dtype alignment is a power of two, where a mask
/// gives the same answer without a division (the validator's hottest cost).
#[inline]
pub(super) fn misaligned(addr: u32, align: u32) -> bool {
    if align.is_power_of_two() {
        addr & (align - 1) != 0
    } else {
        !addr.is_multiple_of(align)
    }
}

#[cfg(test)]
mod tests {
    use super::{gather_view, misaligned};
    use crate::descriptor::{Indirect16b, Indirect20b};

    #[test]
    fn a_gather_reads_as_indirect20b_over_4_dims_and_indirect16b_below() {
        assert_eq!(gather_view(4).c_name, Indirect20b::LAYOUT.c_name);
        for n in [2, 3] {
            assert_eq!(gather_view(n).c_name, Indirect16b::LAYOUT.c_name, "{n} dims");
        }
    }

    #[test]
    fn misalignment_is_a_remainder_for_any_alignment() {
        // Powers of two take the mask; any other alignment (no dtype has one today) the division.
        for (addr, align, want) in [(8, 4, false), (6, 4, true), (0, 1, false), (6, 3, false), (7, 3, true), (12, 6, false), (13, 6, true)] {
            assert_eq!(misaligned(addr, align), want, "{addr} % {align}");
        }
    }
}
