//! [`super::verdicts`] in vector lanes, described once. Each bundle is
//! judged whole in one pass: one permute per bundle, planned per opcode,
//! lays its slots' address words, gathered words and nums out in lanes,
//! another its dtype and band bytes; the classes of [`super::classes`]
//! become 128-entry byte tables looked up in lanes, the band sets
//! 256-entry ones. Each rules has its own dtype tables (`dtypes.rs`) and
//! band-set bits (`band_sets.rs`), so the errata's amended plans are held
//! as the spec's are: every plan of every rules, or no lanes at all.
//!
//! This module is the description, the same on every CPU: the lane
//! layout, and the plans and tables ([`Lanes`]), built from the scalar
//! path's functions and checked against them over every input they stand
//! for, so a layout the lanes cannot express is found on any CPU (only the
//! scalar kernel then runs). `avx512` is its backend: the tables in
//! registers, the CPU check, and the kernel in that instruction set, which
//! reads its lanes where the constants below say and nothing else. (An
//! AVX2 backend once shared the description, the kernel then written once
//! in a macro for both; it ran at half the scalar kernel's speed on every
//! CPU tried and was removed, and with one backend the macro went too.)
//!
//! The intrinsics are safe to call inside `#[target_feature]` functions;
//! their one `unsafe` is [`super::verdicts`]'s call into the backend's `judge`,
//! after the run-time check that the CPU has its features (the prefetch
//! hint its first pass issues has its own, in `prefetch.rs`).

pub(super) mod avx512;
mod band_sets;
mod dtypes;

use super::band_rule::BandTest;
use super::classes::*;
use super::plan::{Plan, Planned, SlotPlan, MAX_BAND, SLOT_ENTRIES};
use crate::addr4::{Addr4, Region};
use crate::bundle::BUNDLE_BYTES;
use crate::generation::Generation;
use band_sets::BandSets;
use dtypes::DtypeLanes;
use std::sync::OnceLock;

/// Lanes of vector `a` (a bundle after its opcode's permute): the slots'
/// address words in u32 lanes 0..4, the words after them (a gather's data
/// word) in u32 lanes 4..8, and the 8 bytes that end with each slot's nums
/// in u64 lanes 4..8.
const WORDS_AT: usize = 0;
const GATHERED_AT: usize = 16;
const NUMS_AT: usize = 32;
/// Of vector `b`: each slot's dtype byte at the low byte of u32 lane 0..4,
/// and each band test's byte above it (the two bytes above are zero). Only
/// the low 16 bytes of `b`'s permute are read, so the rest of its index
/// carries the per-lane constants: the shift and mask that read a slot's
/// dtype byte (`dtypes.rs`), and the lane's bases word: the dtype
/// section's start in the row table, the mode row and (in its top two
/// bytes) the band test's set, as a bit.
const DTYPE_AT: usize = 0;
const BAND_BYTE_AT: usize = 1;
const SHIFT_AT: usize = 16;
const TAG_MASK_AT: usize = 32;
const BASES_AT: usize = 48;
const BAND_SET_AT: usize = 2;
const _: () = assert!(MAX_BAND <= SLOT_ENTRIES && SLOT_ENTRIES == 4);
const _: () = assert!(8 * BAND_SET_AT + band_sets::BITS == 32);

/// The mode table: per mode section (the four a used slot has), per
/// register-and-mode bits (the word's top three), per region.
const MODE_SECTIONS: [ModeSection; 4] = [ModeSection::Operand, ModeSection::NarrowOperand, ModeSection::MatmulDst, ModeSection::NarrowMatmulDst];
const REGIONS: [Region; 3] = [Region::Sbuf, Region::Psum, Region::Outside];
/// Address bits of the mode key (the bits above them are register and mode).
const ADDR_KEY_BITS: u32 = 7;
const _: () = assert!(32 - MODE_KEY_SHIFT == ADDR_KEY_BITS + 3);

/// The need byte: bit 0 fails the slot, bit 1 checks its nums, the
/// [`GATHERED_WIDE`] bit checks its gathered word, the top nibble indexes
/// the word-clear table.
const NEED_FAIL: u8 = 1;
const NEED_NUMS: u8 = 2;
const WORD_CLEAR_SHIFT: u32 = 4;
const _: () = assert!(GATHERED_WIDE == 8 && GATHERED_MUST_BE_CLEAR.len() == 16 && ModeClass::ALL.len() <= 8);

/// One opcode's slots on one generation as the kernel reads them: two
/// cache lines. Each index byte of a permute picks a byte of the bundle
/// (0..64) or of the fill ([`ZERO`], or [`ONES`] below a slot's nums and
/// in an unused slot's, so only a real zero num reads as one). An unused
/// lane reads as a slot that passes (checked when the tables are built),
/// so no lane needs masking.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct SlotVectors {
    /// Permute index of `a`.
    a: [u8; BUNDLE_BYTES],
    /// Permute index of `b` (its low 16 bytes) and the per-lane constants.
    b: [u8; BUNDLE_BYTES],
}
/// Index bytes that read the fill: zero, or all ones.
const ZERO: u8 = 0x40;
const ONES: u8 = 0x60;
const _: () = assert!(BUNDLE_BYTES == ZERO as usize);

impl Default for SlotVectors {
    fn default() -> Self {
        // An unused lane reads as a slot with no dtype field (section 0, read as
        // nothing) in an operand section (mode row 0), testing no band set.
        let mut b = [0; BUNDLE_BYTES];
        b[..SHIFT_AT].fill(ZERO);
        let mut a = [ZERO; BUNDLE_BYTES];
        a[NUMS_AT..].fill(ONES);
        SlotVectors { a, b }
    }
}

fn put_u32(v: &mut [u8; BUNDLE_BYTES], at: usize, x: u32) {
    v[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

/// Everything the backend's kernel holds, as bytes: the same on every CPU.
struct Lanes {
    /// By [`super::Rules::index`], then opcode byte.
    plans: [Box<[SlotVectors; 0x100]>; 6],
    /// By [`super::Rules::index`]: where each row of dtype classes starts, by
    /// section and high nibble of what a slot reads (`dtypes.rs`).
    dtype_rows: [[u8; dtypes::ENTRIES]; 6],
    /// By [`super::Rules::index`]: the rows of dtype classes.
    dtype_classes: [[u8; dtypes::ENTRIES]; 6],
    /// Regions by the address bits of the mode key.
    regions: [u8; 128],
    /// Mode classes by section, register-and-mode bits and region.
    modes: [u8; 128],
    /// Need bytes by mode class and dtype class.
    needs: [u8; 128],
    /// The address-word bits that must be clear, by the need byte's top nibble.
    word_clear: [u32; 8],
    /// By [`super::Rules::index`], then byte value: the band sets (bit per set, `band_sets.rs`) that allow it.
    band_sets: [[u16; 0x100]; 6],
    /// [`GATHERED_MUST_BE_CLEAR`].
    gathered: [u32; 16],
    /// What index bytes [`ZERO`] and [`ONES`] read.
    fill: [u8; BUNDLE_BYTES],
}

/// The lanes' tables, or `None` when the layouts have something the lanes
/// cannot express (then only the scalar kernel runs).
fn lanes() -> Option<&'static Lanes> {
    static L: OnceLock<Option<Lanes>> = OnceLock::new();
    L.get_or_init(|| Lanes::build(super::build::tables())).as_ref()
}

impl Lanes {
    /// Every table from the scalar path's functions, each checked over
    /// every input it stands for.
    fn build(tables: &[Box<Planned>; 6]) -> Option<Lanes> {
        let region_of = |a: u32| Addr4::new(a << MODE_KEY_SHIFT).region();
        let mut regions = [0u8; 128];
        for (a, r) in regions.iter_mut().enumerate().take(1 << ADDR_KEY_BITS) {
            *r = u8::try_from(REGIONS.iter().position(|&x| x == region_of(a as u32))?).ok()?;
        }
        // Mode classes from one key of each region.
        let mut modes = [0u8; 128];
        for (s, &section) in MODE_SECTIONS.iter().enumerate() {
            for top in 0..8u32 {
                for (r, _) in REGIONS.iter().enumerate() {
                    let Some(a) = regions.iter().position(|&x| usize::from(x) == r) else { continue };
                    let key = super::disjoint(top << ADDR_KEY_BITS, a as u32);
                    modes[s * 32 + (top as usize) * 4 + r] = mode_class(key, section) as u8;
                }
            }
            // Every key must read as its class.
            for key in 0..MODE_KEYS as u32 {
                let r = usize::from(regions[(key & ((1 << ADDR_KEY_BITS) - 1)) as usize]);
                if modes[s * 32 + (key >> ADDR_KEY_BITS) as usize * 4 + r] != mode_class(key, section) as u8 {
                    return None;
                }
            }
        }
        if ModeClass::ALL.iter().enumerate().any(|(i, &c)| c as usize != i) {
            return None;
        }
        // A slot of the unused section is left out of the lanes: it must need nothing.
        if !unused_needs_nothing(need) {
            return None;
        }
        // Needs by mode class and dtype class, packed in a byte.
        let mut clears: Vec<u32> = Vec::new();
        let mut needs = [0u8; 128];
        for (c, &class) in ModeClass::ALL.iter().enumerate() {
            for d in 0..1u8 << DTYPE_CLASS_BITS {
                let n = need(class, d);
                let code = match clears.iter().position(|&w| w == n.word_clear) {
                    Some(i) => i,
                    None => {
                        clears.push(n.word_clear);
                        clears.len() - 1
                    }
                };
                let nums = match n.nums_off {
                    0 => NEED_NUMS,
                    u64::MAX => 0,
                    _ => return None,
                };
                if !need_fits(&n) {
                    return None;
                }
                let bits = [nums, n.gathered_sel, (code as u8) << WORD_CLEAR_SHIFT]
                    .into_iter()
                    .fold(if n.fail == 0 { 0 } else { NEED_FAIL }, super::disjoint);
                needs[super::disjoint(c << DTYPE_CLASS_BITS, usize::from(d))] = bits;
            }
        }
        let word_clear = word_clear_table(&clears)?;
        let mut fill = [0u8; BUNDLE_BYTES];
        fill[usize::from(ONES - ZERO)..].fill(0xFF);
        // An unused lane (word 0 in an operand section, no dtype field) must pass.
        let unused_lane = |g| need(mode_class(0, MODE_SECTIONS[0]), dtype_class(None, PsumWrite::Reads, g));
        if Generation::ALL.iter().any(|&g| unused_lane(g).fail != 0) {
            return None;
        }
        // Each rules' dtype tables, band-set bits and plans: every plan must fit, the errata's too.
        let (mut vectors, mut dtype_rows, mut dtype_classes, mut band_sets) =
            (Vec::new(), [[0; dtypes::ENTRIES]; 6], [[0; dtypes::ENTRIES]; 6], [[0; 0x100]; 6]);
        for (r, (t, rules)) in tables.iter().zip(super::Rules::ALL).enumerate() {
            let (d, b) = (DtypeLanes::build(t)?, BandSets::build(t)?);
            // An unused lane (all zeros: see `SlotVectors::default`) finds the no-field class.
            if d.class(dtypes::Section::UNUSED, 0)? != dtype_class(None, PsumWrite::Reads, rules.generation) {
                return None;
            }
            let mut per_op = Box::new([SlotVectors::default(); 0x100]);
            for (v, p) in per_op.iter_mut().zip(t.plans.iter()) {
                *v = SlotVectors::of(p, &d, &b)?;
            }
            vectors.push(per_op);
            (dtype_rows[r], dtype_classes[r], band_sets[r]) = (d.rows, d.classes, b.allows);
        }
        let plans: [Box<[SlotVectors; 0x100]>; 6] = vectors.try_into().ok()?;
        Some(Lanes { plans, dtype_rows, dtype_classes, regions, modes, needs, word_clear, band_sets, gathered: GATHERED_MUST_BE_CLEAR, fill })
    }
}

/// The word-clear table from the distinct masks the needs name, in order;
/// `None` when there are more than its eight words (one 256-bit permute)
/// hold, since a need's code would then name the wrong mask.
fn word_clear_table(clears: &[u32]) -> Option<[u32; 8]> {
    let mut table = [0u32; 8];
    if clears.len() > table.len() {
        return None;
    }
    table.iter_mut().zip(clears).for_each(|(w, &c)| *w = c);
    Some(table)
}

/// Whether a need's gathered-word check and fail flag fit their bits of the
/// need byte: the gathered check is off or [`GATHERED_WIDE`], the fail flag 0 or 1.
/// Whether `need` asks nothing of a slot of the unused section, whatever its
/// address word and dtype class: such slots are left out of the lanes.
fn unused_needs_nothing(need: impl Fn(ModeClass, u8) -> Need) -> bool {
    let nothing = |n: Need| n.fail == 0 && n.nums_off == u64::MAX && n.gathered_sel == 0 && n.word_clear == 0;
    let unused = (0..MODE_KEYS as u32).map(|key| mode_class(key, ModeSection::Unused));
    unused.flat_map(|c| (0..1u8 << DTYPE_CLASS_BITS).map(move |d| (c, d))).all(|(c, d)| nothing(need(c, d)))
}

fn need_fits(n: &Need) -> bool {
    matches!(n.gathered_sel, 0 | GATHERED_WIDE) && n.fail <= 1
}

/// The set bit of band test `t` in lane `lane`, if the lanes hold it: a lane
/// of its own, its set one with a bit, its byte inside the bundle.
fn band_test_bit(lane: usize, t: &BandTest, sets: &BandSets) -> Option<u16> {
    let bit = *sets.bit.get(usize::from(t.set))?;
    bit.filter(|_| lane < SLOT_ENTRIES && usize::from(t.at) < BUNDLE_BYTES)
}

impl SlotVectors {
    /// The lanes of `plan`'s used slots and band tests, by its rules' dtype
    /// tables and band-set bits; `None` if one is not held there.
    fn of(plan: &Plan, dtypes: &DtypeLanes, sets: &BandSets) -> Option<SlotVectors> {
        let mut v = SlotVectors::default();
        for (lane, s) in plan.slots.iter().enumerate().take(usize::from(plan.head.used)) {
            // A slot whose place another pass checks (an MX operand) needs nothing here.
            if s.mode_base == ModeSection::Unused.base() {
                continue;
            }
            v.lane(lane, s, dtypes)?;
        }
        for (lane, t) in plan.band.iter().enumerate().take(usize::from(plan.head.band_used)) {
            let bit = band_test_bit(lane, t, sets)?;
            v.b[DTYPE_AT + 4 * lane + BAND_BYTE_AT] = t.at;
            let at = BASES_AT + 4 * lane + BAND_SET_AT;
            v.b[at..at + 2].copy_from_slice(&bit.to_le_bytes());
        }
        Some(v)
    }

    fn lane(&mut self, lane: usize, s: &SlotPlan, dtypes: &DtypeLanes) -> Option<()> {
        let take = |v: &mut [u8; BUNDLE_BYTES], at: usize, from: usize, n: usize| {
            for k in 0..n {
                v[at + k] = u8::try_from(from + k).unwrap_or(0) & (BUNDLE_BYTES as u8 - 1);
            }
        };
        let slot_at = usize::from(s.slot_at);
        take(&mut self.a, WORDS_AT + 4 * lane, slot_at, 4);
        take(&mut self.a, GATHERED_AT + 4 * lane, slot_at + 4, 4);
        // The nums lanes below the nums stay all ones.
        let below = 2 * usize::from(s.nums.below);
        take(&mut self.a, NUMS_AT + 8 * lane + below, usize::from(s.nums.read_at) + below, 8 - below);
        let section = dtypes.section(s.dtype_base)?;
        // A section read as nothing needs no byte (the lane's is zero, as the unused lanes').
        if section.mask != 0 {
            take(&mut self.b, DTYPE_AT + 4 * lane, usize::from(s.dtype_at), 1);
        }
        let mode_row = MODE_SECTIONS.iter().position(|m| m.base() == s.mode_base)? * 32;
        put_u32(&mut self.b, SHIFT_AT + 4 * lane, section.shift);
        put_u32(&mut self.b, TAG_MASK_AT + 4 * lane, section.mask);
        put_u32(&mut self.b, BASES_AT + 4 * lane, u32::try_from(super::disjoint(usize::from(section.rows_at), mode_row << 8)).ok()?);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_band_test_is_held_only_within_the_lanes_sets_with_bits_and_the_bundle() {
        // Today's plans never reach these edges (at most three tests, sets with bits); the guard is tested here.
        use super::{band_test_bit, BandSets, BandTest, BUNDLE_BYTES, SLOT_ENTRIES};
        let mut sets = BandSets { bit: [None; super::super::band_rule::SETS], allows: [0; 0x100] };
        sets.bit[2] = Some(1 << 15);
        let t = |set: u8, at: usize| BandTest { set, at: at as u8 };
        assert_eq!(band_test_bit(SLOT_ENTRIES - 1, &t(2, BUNDLE_BYTES - 1), &sets), Some(1 << 15));
        assert_eq!(band_test_bit(SLOT_ENTRIES, &t(2, 4), &sets), None);
        assert_eq!(band_test_bit(0, &t(1, 4), &sets), None, "a set with no bit");
        assert_eq!(band_test_bit(0, &t(200, 4), &sets), None, "no such set");
        assert_eq!(band_test_bit(0, &t(2, BUNDLE_BYTES), &sets), None);
    }

    #[test]
    fn a_need_fits_its_byte_only_with_a_known_gathered_check_and_a_one_bit_fail() {
        // Today's needs never reach these edges (the scalar rules make none); the guard is tested here.
        use super::{need_fits, Need, GATHERED_WIDE};
        let n = |gathered_sel: u8, fail: u8| Need { nums_off: 0, word_clear: 0, gathered_sel, fail };
        for (gathered, fail, fits) in
            [(0, 0, true), (GATHERED_WIDE, 1, true), (1, 0, false), (GATHERED_WIDE | 1, 0, false), (0, 2, false), (GATHERED_WIDE, 2, false)]
        {
            assert_eq!(need_fits(&n(gathered, fail)), fits, "gathered {gathered:#x}, fail {fail}");
        }
    }

    #[test]
    fn the_unused_section_must_need_nothing_of_every_dtype_class() {
        // The scalar rules ask nothing of an unused slot; a rule that asked
        // anything, of any one dtype class, must stop the lanes being built.
        use super::{need, unused_needs_nothing, Need, DTYPE_CLASS_BITS};
        assert!(unused_needs_nothing(need));
        let last = (1u8 << DTYPE_CLASS_BITS) - 1;
        let nothing = Need { nums_off: u64::MAX, word_clear: 0, gathered_sel: 0, fail: 0 };
        for (what, asks) in [
            ("fail", Need { fail: 1, ..nothing }),
            ("nums", Need { nums_off: 0, ..nothing }),
            ("gathered", Need { gathered_sel: super::GATHERED_WIDE, ..nothing }),
            ("word clear", Need { word_clear: 3, ..nothing }),
        ] {
            for at in [0, last] {
                assert!(!unused_needs_nothing(|c, d| if d == at { asks } else { need(c, d) }), "{what} of dtype class {at}");
            }
        }
    }

    #[test]
    fn the_word_clear_table_takes_eight_masks_and_refuses_a_ninth() {
        let masks: Vec<u32> = (1..=9).map(|k| (1 << k) - 1).collect();
        let Some(t) = super::word_clear_table(&masks[..8]) else { panic!("eight masks fit") };
        assert_eq!(t.to_vec(), masks[..8]);
        let Some(t) = super::word_clear_table(&masks[..3]) else { panic!("three masks fit") };
        assert_eq!(t, [1, 3, 7, 0, 0, 0, 0, 0], "codes name the masks in order; the rest clear nothing");
        assert!(super::word_clear_table(&masks).is_none(), "a ninth mask has no code in three bits");
    }

    #[test]
    fn each_need_byte_reads_back_as_the_scalar_need() {
        // The lanes pack a slot's need (what the scalar rules require of its
        // mode class and dtype class) into a byte and a word-clear code; a
        // byte that read back as less would let the lanes call a bad slot
        // clean, on whichever class only rare bundles reach.
        use super::*;
        let Some(l) = lanes() else { panic!("the description fits the lanes") };
        for (c, &class) in ModeClass::ALL.iter().enumerate() {
            for d in 0..1u8 << DTYPE_CLASS_BITS {
                let (want, byte) = (need(class, d), l.needs[c << DTYPE_CLASS_BITS | usize::from(d)]);
                let code = usize::from(byte >> WORD_CLEAR_SHIFT);
                let read = (byte & NEED_FAIL, byte & NEED_NUMS != 0, byte & GATHERED_WIDE, l.word_clear.get(code).copied());
                let scalar = (want.fail, want.nums_off == 0, want.gathered_sel, Some(want.word_clear));
                assert_eq!(read, scalar, "{class:?}, dtype class {d:#04x}: need byte {byte:#04x}");
            }
        }
    }

    #[test]
    fn the_tables_hold_every_plan_of_every_rules_on_every_cpu() {
        // The description must be expressible in lanes whatever the CPU: the backend derives
        // from it. Every plan, the spec's and the errata's, is held: each used slot's lane reads
        // every dtype byte as the scalar table's class, each band test's every value as its set does.
        use super::*;
        let Some(l) = lanes() else { panic!("the description fits the lanes") };
        let u32_at = |v: &[u8; BUNDLE_BYTES], at: usize| u32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]]);
        let tables = super::super::build::tables();
        let (mut slots, mut bands) = (0, 0);
        for (r, t) in tables.iter().enumerate() {
            let d = dtypes::DtypeLanes { rows: l.dtype_rows[r], classes: l.dtype_classes[r], sections: Vec::new() };
            for (p, v) in t.plans.iter().zip(l.plans[r].iter()) {
                for (lane, s) in p.slots.iter().enumerate().take(usize::from(p.head.used)) {
                    if s.mode_base == ModeSection::Unused.base() {
                        continue;
                    }
                    let bases = u32_at(&v.b, BASES_AT + 4 * lane);
                    let section = dtypes::Section {
                        rows_at: bases as u8,
                        shift: u32_at(&v.b, SHIFT_AT + 4 * lane),
                        mask: u32_at(&v.b, TAG_MASK_AT + 4 * lane),
                    };
                    // The lane's byte is the slot's dtype byte (when it reads one).
                    assert!(section.mask == 0 || v.b[DTYPE_AT + 4 * lane] == s.dtype_at, "rules {r}, lane {lane}");
                    for byte in 0..=u8::MAX {
                        let want = t.dtypes[usize::from(s.dtype_base) + usize::from(byte)];
                        assert_eq!(d.class(section, byte), Some(want), "rules {r}, lane {lane}, byte {byte:#04x}");
                    }
                    slots += 1;
                }
                for (lane, b) in p.band.iter().enumerate().take(usize::from(p.head.band_used)) {
                    assert_eq!(v.b[DTYPE_AT + 4 * lane + BAND_BYTE_AT], b.at);
                    let bit = u16::from_le_bytes([v.b[BASES_AT + 4 * lane + BAND_SET_AT], v.b[BASES_AT + 4 * lane + BAND_SET_AT + 1]]);
                    assert_eq!(bit.count_ones(), 1, "rules {r}, band lane {lane}");
                    for value in 0..=u8::MAX {
                        let want = t.allowed[usize::from(b.set)][usize::from(value)] != 0;
                        assert_eq!(l.band_sets[r][usize::from(value)] & bit != 0, want, "rules {r}, set {}, value {value:#04x}", b.set);
                    }
                    bands += 1;
                }
            }
        }
        assert!(slots > 300 && bands > 100, "{slots} slots, {bands} band tests");
        // The errata's plans differ from the spec's where the lanes once could not hold them.
        for rules in super::super::Rules::ALL.into_iter().filter(|r| r.profile == crate::errata::Profile::Amended) {
            let (a, s) = (&tables[rules.index()], &tables[super::super::Rules::spec(rules.generation).index()]);
            let differ = a.plans.iter().zip(s.plans.iter()).any(|(a, s)| a.slots.iter().zip(&s.slots).any(|(a, s)| a.dtype_base != s.dtype_base));
            assert!(differ, "{rules:?}: no amended dtype section");
        }
    }
}
