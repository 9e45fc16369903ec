//! The clean-bundle fast path. Almost every bundle of a stream passes every
//! header and slot rule; proving that straight off the 64 bytes, with
//! offsets planned once per opcode and no data-dependent branches, costs a
//! fraction of running the reporting checks (whose per-bundle branches on
//! opcode, address mode and dims mispredict on a mixed stream).
//!
//! The answer is one-sided: `true` means the header and slot checks of the
//! full path would report nothing, `false` only means "run them". The band
//! checks (perf_sel, ALU op, Pool, semaphore, branch) always run. Findings
//! are therefore exactly those of the full path; the tests below compare
//! both on generated, corrupted, mutated and random bundles.
//!
//! Every offset, dtype property and address rule is derived from the layout
//! descriptions, the dtype table and [`Addr4`]; nothing is restated here.

use crate::addr4::{Addr4, Region, MODE_DEAD, MODE_MASK, REGID_LIMIT, REGISTER_RESERVED_MASK};
use crate::bundle::header::INST_WORD_LEN_SATURATE;
use crate::bundle::{Bundle, BUNDLE_BYTES, INST_WORD_LEN};
use crate::descriptor::{Indirect16b, Tensor2d, Tensor3d, Tensor4d};
use crate::dtype::{self, BF16};
use crate::generation::Generation;
use crate::layout::Layout;
use crate::opcode::{self, QUANTIZE_MX};
use crate::operands::{self, Role, SlotType};
use std::sync::OnceLock;

/// Most operand slots a body has (Family B: dst, in0, in1).
const MAX_SLOTS: usize = 3;
/// Most nums one 8-byte read holds (TENSOR4D has 4).
const MAX_NUMS: usize = 4;

/// One operand slot, planned for one generation: byte offsets into the
/// bundle and its role, as plain values so the check has no branches.
#[derive(Clone, Copy, Default)]
struct SlotPlan {
    /// Offset of the ADDR4 that opens the slot.
    addr_at: usize,
    /// Whether the layout has the slot's dtype field on this generation.
    has_dtype: bool,
    dtype_at: usize,
    /// The tag is `(byte >> shift) & mask` (a nibble or the whole byte).
    dtype_shift: u32,
    dtype_mask: u8,
    /// Where and how to read all nums as one 64-bit word.
    nums: NumsPlan,
    /// Whether the slot is wide enough to read as INDIRECT16B, and the
    /// offset of the gathered data word then.
    gathered: bool,
    gathered_at: usize,
    dst: bool,
    matmul_dst: bool,
}

/// The nums of a slot as 16-bit lanes of one 8-byte read that stays inside
/// the bundle: `((read >> shift) & keep) | fill`, unused lanes filled non-zero.
#[derive(Clone, Copy, Default)]
struct NumsPlan {
    read_at: usize,
    shift: u32,
    keep: u64,
    fill: u64,
}

impl NumsPlan {
    /// `n` nums (1..=4) starting at byte `at` of the bundle.
    fn new(at: usize, n: usize) -> NumsPlan {
        let read_at = at.min(BUNDLE_BYTES - 8);
        let bits = 16 * n as u32;
        let keep = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        NumsPlan { read_at, shift: 8 * (at - read_at) as u32, keep, fill: 0x0001_0001_0001_0001 & !keep }
    }
}

/// One opcode on one generation, planned.
#[derive(Clone, Copy, Default)]
struct Plan {
    /// Whether the fast path decides this opcode here at all: unknown and
    /// unavailable opcodes and MX bodies always take the full path.
    fast: bool,
    /// Slots in use, first in `slots`.
    live: usize,
    slots: [SlotPlan; MAX_SLOTS],
}

/// One dtype tag on one generation, planned.
#[derive(Clone, Copy, Default)]
struct DtypePlan {
    /// A valid tag that exists on the generation.
    ok: bool,
    /// `align - 1` (every alignment is a power of two; a tag whose is not
    /// is never `ok` here, so it takes the full path).
    align_mask: u32,
    psum_write: bool,
    bf16: bool,
}

struct Tables {
    /// By generation index, then opcode byte.
    plans: [Vec<Plan>; 3],
    /// By generation index, then tag.
    dtypes: [[DtypePlan; 256]; 3],
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| Tables {
        plans: Generation::ALL.map(|g| (0..=u8::MAX).map(|op| plan(op, g)).collect()),
        dtypes: Generation::ALL.map(|g| std::array::from_fn(|tag| u8::try_from(tag).map_or(DtypePlan::default(), |t| dtype_plan(t, g)))),
    })
}

fn dtype_plan(tag: u8, g: Generation) -> DtypePlan {
    match dtype::info(tag) {
        Some(d) if d.align.is_power_of_two() => {
            DtypePlan { ok: d.since <= g, align_mask: d.align - 1, psum_write: d.psum_write, bf16: d.tag == BF16 }
        }
        _ => DtypePlan::default(),
    }
}

/// The static pattern layout the full path reads a slot of `dims` with.
fn pattern_layout(dims: usize) -> &'static Layout {
    match dims {
        2 => &Tensor2d::LAYOUT,
        4 => &Tensor4d::LAYOUT,
        _ => &Tensor3d::LAYOUT,
    }
}

fn plan(byte: u8, g: Generation) -> Plan {
    let Some(op) = opcode::lookup(byte) else { return Plan::default() };
    let placed = operands::placed(byte);
    let mut p = Plan { fast: op.available(g) && placed.len() <= MAX_SLOTS, live: placed.len().min(MAX_SLOTS), ..Plan::default() };
    for (sp, pl) in p.slots.iter_mut().zip(placed) {
        let slot = pl.slot;
        let SlotType::Pattern(dims) = slot.ty else {
            p.fast = false;
            continue;
        };
        let view = pattern_layout(dims);
        let (Some(addr), Some(num)) = (view.field_offset("addr"), view.field_offset("num")) else {
            p.fast = false;
            continue;
        };
        let n = view.resolve("num").map_or(0, |(_, size)| size / 2);
        let dtype_at = pl.dtype_at[g.index()];
        // The full path reads nothing from a slot its pattern does not fit.
        let fits = view.size == slot.size() && pl.offset + view.size <= BUNDLE_BYTES;
        if n == 0 || n > MAX_NUMS || !fits || dtype_at.is_some_and(|o| o >= BUNDLE_BYTES) {
            p.fast = false;
            continue;
        }
        let (dtype_shift, dtype_mask) = match slot.dtype {
            operands::DtypeRef::Nibble(_, 0) => (0, 0x0F),
            operands::DtypeRef::Nibble(_, _) => (4, 0x0F),
            _ => (0, 0xFF),
        };
        let gathered = Indirect16b::LAYOUT.field_offset("data").filter(|_| view.size >= Indirect16b::LAYOUT.size);
        *sp = SlotPlan {
            addr_at: pl.offset + addr,
            has_dtype: dtype_at.is_some(),
            dtype_at: dtype_at.unwrap_or(0),
            dtype_shift,
            dtype_mask,
            nums: NumsPlan::new(pl.offset + num, n),
            gathered: gathered.is_some(),
            gathered_at: pl.offset + gathered.unwrap_or(0),
            dst: slot.is_dst(),
            matmul_dst: slot.role == (Role::Dst { matmul: true }),
        };
    }
    p
}

/// The little-endian word at `at` (plans only hold offsets inside the bundle).
#[inline(always)]
fn word(raw: &[u8; BUNDLE_BYTES], at: usize) -> u32 {
    raw.get(at..at + 4).and_then(|b| b.try_into().ok()).map_or(0, u32::from_le_bytes)
}

#[inline(always)]
fn dword(raw: &[u8; BUNDLE_BYTES], at: usize) -> u64 {
    raw.get(at..at + 8).and_then(|b| b.try_into().ok()).map_or(0, u64::from_le_bytes)
}

/// Whether any 16-bit lane of `v` is zero (exact; the classic SWAR test).
#[inline(always)]
fn has_zero_lane(v: u64) -> bool {
    const LOW: u64 = 0x0001_0001_0001_0001;
    const HIGH: u64 = 0x8000_8000_8000_8000;
    v.wrapping_sub(LOW) & !v & HIGH != 0
}

/// Whether the header and slot checks would report nothing for `bundle` on `g`.
#[inline]
pub(super) fn clean(bundle: &Bundle, g: Generation) -> bool {
    let Ok(raw) = <&[u8; BUNDLE_BYTES]>::try_from(bundle.as_bytes()) else { return false };
    let t = tables();
    let gi = g.index();
    let (Some(plan), Some(dtypes)) = (t.plans.get(gi).and_then(|p| p.get(usize::from(raw[0]))), t.dtypes.get(gi)) else {
        return false;
    };
    let h = bundle.header();
    let len_ok = (h.inst_word_len == INST_WORD_LEN) | ((h.opcode == QUANTIZE_MX) & (h.inst_word_len == INST_WORD_LEN_SATURATE));
    let mut ok = plan.fast & len_ok & (h.reserved.get() == 0);
    for s in plan.slots.get(..plan.live).unwrap_or(&[]) {
        ok &= slot_clean(raw, s, dtypes);
    }
    ok
}

/// The dtype check and the pattern rules of one slot, as straight-line
/// boolean algebra: the address mode selects which rules apply.
#[inline(always)]
fn slot_clean(raw: &[u8; BUNDLE_BYTES], s: &SlotPlan, dtypes: &[DtypePlan; 256]) -> bool {
    let tag = (raw.get(s.dtype_at).copied().unwrap_or(0) >> s.dtype_shift) & s.dtype_mask;
    let d = dtypes[usize::from(tag)];
    let dt = s.has_dtype;
    let dt_ok = !dt | d.ok;

    let a = Addr4::new(word(raw, s.addr_at));
    let region = a.region();
    let (psum, outside) = (region == Region::Psum, region == Region::Outside);
    let is_reg = a.is_register();
    let dead = a.word() & MODE_MASK == MODE_DEAD;
    let indirect = !is_reg & a.is_indirect();
    let plain = !is_reg & !indirect & !dead;
    let nums_ok = !has_zero_lane(((dword(raw, s.nums.read_at) >> s.nums.shift) & s.nums.keep) | s.nums.fill);

    // Register mode: id and reserved bits, then the nums.
    let reg_ok = register_ok(a) & nums_ok;
    // A gather: the region, and the gathered word when the slot is wide enough.
    let g = Addr4::new(word(raw, s.gathered_at));
    let g_ok = (g.is_register() & register_ok(g)) | (!g.is_register() & (g.word() & MODE_MASK != MODE_DEAD));
    let gather_ok = !outside & (!s.gathered | g_ok);
    // A plain or active address: region, alignment, PSUM write class, nums.
    let region_ok = (s.matmul_dst & psum) | (!s.matmul_dst & !outside);
    let align_ok = !dt | (a.addr29() & d.align_mask == 0);
    let psum_ok = !dt | !s.dst | !psum | d.psum_write | (s.matmul_dst & d.bf16);
    let static_ok = region_ok & align_ok & psum_ok & nums_ok;

    dt_ok & ((is_reg & reg_ok) | (indirect & gather_ok) | (plain & static_ok))
}

/// A register-mode word's id and reserved bits.
#[inline(always)]
fn register_ok(a: Addr4) -> bool {
    (u32::from(a.regid()) < REGID_LIMIT) & (a.word() & REGISTER_RESERVED_MASK == 0)
}

#[cfg(test)]
mod tests {
    use crate::bundle::{Bundle, BUNDLE_BYTES};
    use crate::generation::Generation;
    use crate::validate::{validate_with, Finding};
    use crate::{props, smith};
    use arbitrary::Unstructured;

    fn both(b: &Bundle, g: Generation) -> (Vec<Finding>, Vec<Finding>) {
        let (mut fast, mut full) = (Vec::new(), Vec::new());
        validate_with(b, g, &mut fast, true);
        validate_with(b, g, &mut full, false);
        (fast, full)
    }

    #[test]
    fn fast_path_matches_full_checks_on_generated_corrupted_and_mutated_bundles() {
        let (mut clean, mut fast_taken, mut mutated) = (0, 0, 0);
        for seed in 0..3000u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            for g in Generation::ALL {
                let Ok(b) = smith::bundle(&mut u, g) else { continue };
                let (fast, full) = both(&b, g);
                assert_eq!(fast, full, "{g}: {}", crate::text::disasm(&b));
                clean += usize::from(full.is_empty());
                fast_taken += usize::from(super::clean(&b, g));
                // The same bundle read on the other generations exercises availability rules.
                for other in Generation::ALL {
                    let (fast, full) = both(&b, other);
                    assert_eq!(fast, full, "{g} bundle on {other}: {}", crate::text::disasm(&b));
                }
                // One corrupted byte lands on every field the fast path reads.
                if let (Ok(at), Ok(v)) = (u.int_in_range(0..=BUNDLE_BYTES - 1), u.arbitrary::<u8>()) {
                    let mut raw = b.encode();
                    raw[at] = v;
                    let c = Bundle::decode(&raw);
                    let (fast, full) = both(&c, g);
                    assert_eq!(fast, full, "{g} byte {at} = {v:#04x}: {}", crate::text::disasm(&c));
                }
                if let Ok(Some(m)) = smith::mutate(&mut u, &b, g) {
                    let (fast, full) = both(&m.bundle, g);
                    assert_eq!(fast, full, "{g} mutation {}: {}", m.what, crate::text::disasm(&m.bundle));
                    mutated += usize::from(!full.is_empty());
                }
            }
        }
        assert!(clean > 1000 && mutated > 1000, "too few cases: {clean} clean, {mutated} mutated");
        // Most clean generated bundles must take the fast path, or it buys nothing.
        assert!(fast_taken * 10 > clean * 8, "fast path taken for {fast_taken} of {clean} clean bundles");
    }

    #[test]
    fn nums_read_as_lanes() {
        use super::{dword, has_zero_lane, NumsPlan};
        let mut raw = [0xFFu8; BUNDLE_BYTES];
        for (at, n) in [(0, 4), (10, 3), (57, 2), (62, 1), (56, 4), (33, 1)] {
            let p = NumsPlan::new(at, n);
            let lanes = |raw: &[u8; BUNDLE_BYTES]| ((dword(raw, p.read_at) >> p.shift) & p.keep) | p.fill;
            assert!(!has_zero_lane(lanes(&raw)), "all non-zero at {at}+{n}");
            for i in 0..n {
                raw[at + 2 * i..at + 2 * i + 2].copy_from_slice(&[0, 0]);
                assert!(has_zero_lane(lanes(&raw)), "num {i} zero at {at}+{n}");
                raw[at + 2 * i..at + 2 * i + 2].copy_from_slice(&[0, 1]);
                assert!(!has_zero_lane(lanes(&raw)), "num {i} = 0x100 at {at}+{n}");
                raw[at + 2 * i..at + 2 * i + 2].copy_from_slice(&[0xFF, 0xFF]);
            }
            // Zero bytes around the nums are not nums.
            let mut around = [0u8; BUNDLE_BYTES];
            around[at..at + 2 * n].fill(0x80);
            assert!(!has_zero_lane(lanes(&around)), "neighbours leak into {at}+{n}");
        }
    }

    #[test]
    fn fast_path_matches_full_checks_on_random_bytes() {
        let bytes = props::seeded_bytes(0x5eed, 20_000 * BUNDLE_BYTES);
        for raw in bytes.chunks_exact(BUNDLE_BYTES) {
            let Some(b) = Bundle::decode_slice(raw) else { continue };
            for g in Generation::ALL {
                let (fast, full) = both(&b, g);
                assert_eq!(fast, full, "{g}: {}", crate::text::disasm(&b));
            }
        }
    }
}
