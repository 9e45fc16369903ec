//! Each opcode on each generation, planned once: where its slots, nums,
//! dtype bytes and band bytes are, which table section each reads, and the
//! header words it accepts, as plain values; and a generation's plans and
//! tables laid out in one block ([`Planned`]), so judging a bundle is
//! lookups and masks with no branch on field values. An opcode whose
//! layout a plan cannot hold is left undecided (its header words carry
//! another opcode byte), and the reporting checks judge its bundles.

use super::super::band::{self, BYTE_RULES};
use super::band_rule::{BandTest, SETS};
use super::classes::*;
use super::entry::ITEMS;
use super::{mx, offset, tied, BAND_CLEAN};
use crate::bundle::header::INST_WORD_LEN_SATURATE;
use crate::bundle::{Header, BUNDLE_BYTES, INST_WORD_LEN};
use crate::descriptor::Indirect16b;
use crate::generation::Generation;
use crate::opcode::{self, QUANTIZE_MX};
use crate::operands::{self, Role, SlotType};
use zerocopy::IntoBytes;

/// Most operand slots a body has (Family B: dst, in0, in1).
pub(super) const MAX_SLOTS: usize = 3;
/// Slot entries in a plan: [`MAX_SLOTS`] rounded up to a power of two.
pub(super) const SLOT_ENTRIES: usize = MAX_SLOTS.next_power_of_two();
/// Most nums one 8-byte read holds (TENSOR4D has 4).
pub(super) const MAX_NUMS: usize = 4;
const _: () = assert!(MAX_NUMS.is_power_of_two());
/// Most byte rules a band has (CoreV2 matmul: perf_sel, row and column group).
pub(super) const MAX_BAND: usize = 3;
/// Band entries in a plan: [`MAX_BAND`] rounded up to a power of two.
const BAND_ENTRIES: usize = MAX_BAND.next_power_of_two();

/// One operand slot, planned for one generation: byte offsets into the
/// bundle and its role, as plain values so the check has no branches. A few
/// bytes, so one opcode's whole plan fits a cache line. A slot the opcode
/// does not use points at table entries that always pass.
#[derive(Clone, Copy, Default)]
pub(super) struct SlotPlan {
    /// Offset of the slot: its ADDR4, then (read as INDIRECT16B) the
    /// gathered data word, one 8-byte read.
    pub(super) slot_at: u8,
    /// The byte that holds the tag; its class is at `dtype_base + byte` in
    /// the generation's dtype table (the section of the slot's PSUM kind and
    /// tag reading, or the no-field section).
    pub(super) dtype_at: u8,
    pub(super) dtype_base: u16,
    /// Where to read all nums as one 64-bit word.
    pub(super) nums: NumsPlan,
    /// Where the slot's address-word classes start in the mode table: its
    /// [`ModeSection`] times [`MODE_KEYS`].
    pub(super) mode_base: u16,
}

impl SlotPlan {
    /// The plan of a slot the opcode does not use: its address words are of
    /// the Unused section, whose class needs nothing whatever the dtype class,
    /// so its dtype section (the default, section 0) is never consulted.
    pub(super) fn unused() -> SlotPlan {
        SlotPlan { mode_base: ModeSection::Unused.base(), ..SlotPlan::default() }
    }
}

/// The nums of a slot as the top lanes of the 8-byte read that ends with
/// them; the lanes below them are set to all ones, so only a zero num
/// makes a zero lane.
#[derive(Clone, Copy, Default)]
pub(super) struct NumsPlan {
    pub(super) read_at: u8,
    /// How many lanes of the read lie below the nums.
    pub(super) below: u8,
}

/// By [`NumsPlan::below`]: the bits of the lanes below the nums.
pub(super) const BELOW_LANES: [u64; MAX_NUMS] = [0, 0xFFFF, 0xFFFF_FFFF, 0xFFFF_FFFF_FFFF];

impl NumsPlan {
    /// `n` nums (1..=4) starting at byte `at` of the bundle; `None` unless
    /// they lie in the bundle at or past its eighth byte (every layout's
    /// do: the header comes first).
    fn new(at: usize, n: usize) -> Option<NumsPlan> {
        let end = at + 2 * n;
        let read_at = end.checked_sub(8).filter(|_| (1..=MAX_NUMS).contains(&n) && end <= BUNDLE_BYTES)?;
        Some(NumsPlan { read_at: offset(read_at), below: u8::try_from(MAX_NUMS - n).ok()? })
    }
}

/// What a plan's first pass reads: the header test and how many work
/// entries each list gets. Also kept apart, by opcode, in
/// [`Planned::heads`], so that pass reads 16 bytes per opcode instead of
/// the plan's whole line (by callgrind's cache simulation, on a 32 KiB
/// L1 the plans' lines were the table the scalar kernel missed most:
/// `reports/profiling.md`).
#[derive(Clone, Copy, Default)]
pub(super) struct Head {
    /// The header words (bytes 0..4, little-endian) that pass every header
    /// check: the opcode with length 0x10 and zero reserved bits, and the
    /// SATURATE length where that is allowed (else the first again). An
    /// opcode the fast path does not decide here (unknown, unavailable, or
    /// with a slot it cannot plan) accepts no word: both carry another
    /// opcode byte. Held as the first word and the bits a passing word
    /// shares with it (all but the one bit the two words differ in), so the
    /// test is one compare ([`header_test`]).
    pub(super) header: u32,
    pub(super) header_same: u32,
    /// [`BAND_CLEAN`] when the band is byte rules only, else 0 (it
    /// always runs): the header test's band bit as it is.
    pub(super) band_clean: u8,
    /// How many of the plan's `band` the opcode's band has on this generation (they come first).
    pub(super) band_used: u8,
    /// How many of the plan's `slots` the opcode uses (they come first). Only those
    /// are checked: two thirds of the opcodes have none and most others
    /// one or two.
    pub(super) used: u8,
    /// 1 when it has an MX operand or a tied band: the scalar kernel checks
    /// both from one work list, since a bundle rarely has either.
    pub(super) special_used: u8,
}
/// A [`Head`] on 16 bytes: [`Planned::heads`] is then indexed by a shift,
/// and no entry straddles two cache lines. Beside it, its three counts of
/// work entries as the bytes of one word ([`Head::counts`]), so the scalar
/// kernel's first pass adds them to its three list lengths in one add.
#[derive(Clone, Copy, Default)]
#[repr(align(16))]
pub(super) struct HeadEntry {
    pub(super) head: Head,
    pub(super) counts: u32,
}
const _: () = assert!(std::mem::size_of::<HeadEntry>() == 16);

impl Head {
    /// `used`, `band_used` and `special_used` in bytes 0, 1 and 2: added to
    /// the lengths of the work lists held the same way, a byte each (no
    /// list holds 256 entries, so no byte carries into the next).
    pub(super) fn counts(&self) -> u32 {
        u32::from_le_bytes([self.used, self.band_used, self.special_used, 0])
    }
}

/// The header test of a set of two header words, one bit apart at most:
/// the first word, and the bits every word of the set has as it does.
fn header_test([first, second]: [u32; 2]) -> (u32, u32) {
    (first, !(first ^ second))
}
// The SATURATE length is one bit from the usual one, so the two words are.
const _: () = assert!((INST_WORD_LEN ^ INST_WORD_LEN_SATURATE).count_ones() == 1);

/// One opcode on one generation, planned: one cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
pub(super) struct Plan {
    pub(super) head: Head,
    /// 1 when the opcode has an MX operand (CoreV4 MX matmuls), else 0.
    pub(super) mx_used: u8,
    pub(super) mx: mx::MxPlan,
    /// The band, when its rules tie fields together (Pool, Branch).
    pub(super) tied: tied::TiedBand,
    /// The slots, then one never used: a power of two, so a work entry of
    /// [`super::verdicts`] names one under a mask.
    pub(super) slots: [SlotPlan; SLOT_ENTRIES],
    /// The band's byte rules, then unused ones (the set of all values).
    pub(super) band: [BandTest; BAND_ENTRIES],
}
const _: () = assert!(std::mem::size_of::<Plan>() == 64);

// An item's place in [`Planned::slot_items`] or [`Planned::band_items`] (`entry.rs`): four per opcode.
const _: () = assert!(ITEMS == 0x100 * SLOT_ENTRIES && SLOT_ENTRIES == BAND_ENTRIES);

/// One generation's plans and tables in one block: every lookup of the
/// scalar kernel is then one base register plus a constant offset (as
/// separate boxes, its slot loop kept five table bases and spilled three).
/// Fixed-size arrays indexed under a mask, so no lookup needs a bounds
/// check or a branch.
#[repr(C)]
pub(super) struct Planned {
    /// What a slot needs, by the lanes below its nums, its address word's
    /// class and its dtype's class. At offset 0: the slot pass takes a need's address, and at
    /// the block's base that costs no register of its own.
    pub(super) needs: [SlotNeed; SLOT_NEEDS],
    /// The plans' slots in one list (and their band tests in
    /// `band_items`), by [`entry`]'s item bits (opcode, index in the
    /// plan), so the scalar kernel reads an item without finding its plan
    /// first. First with `needs`: the slot pass's hottest tables.
    pub(super) slot_items: [SlotPlan; ITEMS],
    /// [`GATHERED_MUST_BE_CLEAR`], copied in so a lookup needs no address of its own.
    pub(super) gathered_clear: [u32; 16],
    /// The [`ModeClass`] of an address word, as its [`mode_row`]: by [`SlotPlan::mode_base`]
    /// (the slot's [`ModeSection`]), then by the word's top bits
    /// ([`MODE_KEY_SHIFT`]); the spare sections are never used.
    pub(super) modes: [u8; MODE_ENTRIES],
    /// By [`SlotPlan::dtype_base`] plus the tag's byte.
    pub(super) dtypes: [u8; DTYPE_ENTRIES],
    pub(super) band_items: [BandTest; ITEMS],
    /// By opcode byte, [`entries4`] of the opcode's first item: a bundle's
    /// four work entries are this word and its index's bits, one `or`.
    pub(super) items4: [u64; 0x100],
    /// By opcode byte, each plan's [`Head`].
    pub(super) heads: [HeadEntry; 0x100],
    /// Whether each byte rule allows each value (1 or 0), by rule then
    /// value; the spare rules allow every value.
    pub(super) allowed: [[u8; 0x100]; SETS],
    /// By opcode byte.
    pub(super) plans: [Plan; 0x100],
    /// Where an MX operand's fields are.
    pub(super) mx: mx::MxFields,
    /// The tests of [`tied::TiedBand::Amended`] bands (amended tables only).
    pub(super) amended: Vec<tied::AmendedTest>,
    /// By opcode, the slots whose alignment an erratum relaxes (amended tables only; `aligned.rs`).
    pub(super) aligned: Vec<Vec<super::aligned::AlignedSlot>>,
}

/// Where an MX operand's fields are; `None` if its layouts do not fit the
/// fast path (MX bodies then take the reporting path).
pub(super) fn mx_fields() -> Option<mx::MxFields> {
    mx::MxFields::from_layouts()
}

/// One opcode on generation `g`, planned.
pub(super) fn plan(byte: u8, g: Generation) -> Plan {
    let Some(op) = opcode::lookup(byte) else {
        let (header, header_same) = header_test(header_words(byte, false));
        return Plan { head: Head { header, header_same, ..Head::default() }, ..Plan::default() };
    };
    let placed = operands::placed(byte);
    let rules = band::placed_rules(op.body);
    let unused = SlotPlan::unused();
    let gathered_follows = data_follows_index(Indirect16b::LAYOUT.field_offset("index"), Indirect16b::LAYOUT.field_offset("data"));
    let mut fast = op.available(g) && placed.len() <= MAX_SLOTS;
    let tied = tied::TiedBand::of(band::kind_of(op));
    let mut p = Plan {
        head: Head { band_clean: if tied.is_some() { BAND_CLEAN } else { 0 }, ..Head::default() },
        tied: tied.unwrap_or_default(),
        slots: [unused; SLOT_ENTRIES],
        ..Plan::default()
    };
    // A band test that always passes: the set of all values.
    p.band = [BandTest { at: 0, set: u8::try_from(BYTE_RULES.len()).unwrap_or(u8::MAX) }; BAND_ENTRIES];
    let live_rules = rules.iter().filter(|r| BYTE_RULES.get(r.rule).is_some_and(|b| b.on.contains(&g)));
    for (n, r) in live_rules.enumerate() {
        match (p.band.get_mut(n).filter(|_| band_rule_fits(n, r.at)), u8::try_from(r.rule)) {
            (Some(t), Ok(set)) => {
                *t = BandTest { at: offset(r.at), set };
                p.head.band_used += 1;
            }
            _ => p.head.band_clean = 0,
        }
    }
    p.head.used = u8::try_from(placed.len().min(MAX_SLOTS)).unwrap_or(0);
    for (sp, pl) in p.slots.iter_mut().zip(placed) {
        let slot = pl.slot;
        let dtype_at = pl.dtype_at[g.index()];
        let read = dtype_at.map(|_| match slot.dtype {
            operands::DtypeRef::Nibble(_, 0) => TagRead::LowNibble,
            operands::DtypeRef::Nibble(_, _) => TagRead::HighNibble,
            _ => TagRead::Byte,
        });
        if slot.ty == SlotType::Mx {
            // Checked by its own pass; its place among the slots stays unused.
            if !mx_plannable(p.mx_used != 0, (pl.offset, slot.size()), dtype_at, mx_fields().is_some(), slot.is_dst()) {
                fast = false;
            }
            p.mx_used = 1;
            p.mx = mx::MxPlan { slot_at: offset(pl.offset), dtype_at: offset(dtype_at.unwrap_or(0)), dtype_base: dtype_base(read, PsumWrite::Reads) };
            continue;
        }
        let SlotType::Pattern(dims) = slot.ty else {
            fast = false;
            continue;
        };
        let view = crate::descriptor::pattern_layout(dims);
        let (Some(0), Some(num)) = (view.field_offset("addr"), view.field_offset("num")) else {
            fast = false;
            continue;
        };
        let n = view.resolve("num").map_or(0, |(_, size)| size / 2);
        if !pattern_plannable(n, (pl.offset, slot.size()), gathered_follows, view.size, dtype_at) {
            fast = false;
            continue;
        }
        let Some(nums) = NumsPlan::new(pl.offset + num, n) else {
            fast = false;
            continue;
        };
        let wide = view.size >= Indirect16b::LAYOUT.size;
        let matmul_dst = slot.role == (Role::Dst { matmul: true });
        let kind = match (slot.is_dst(), matmul_dst) {
            (false, _) => PsumWrite::Reads,
            (true, false) => PsumWrite::Writes,
            (true, true) => PsumWrite::MatmulWrites,
        };
        *sp = SlotPlan {
            slot_at: offset(pl.offset),
            dtype_at: offset(dtype_at.unwrap_or(0)),
            dtype_base: dtype_base(read, kind),
            nums,
            mode_base: ModeSection::of(matmul_dst, wide).base(),
        };
    }
    (p.head.header, p.head.header_same) = header_test(header_words(byte, fast));
    // An opcode the fast path does not decide needs none of its slots read.
    if !fast {
        p.head.used = 0;
        p.mx_used = 0;
    }
    p.head.special_used = u8::from(p.mx_used != 0 || p.tied != tied::TiedBand::None);
    p
}

/// Whether a slot read as INDIRECT16B holds its gathered data word right
/// after the index word (index at 0, data at 4), as the plan's one 8-byte
/// read of a pattern slot assumes.
fn data_follows_index(index_at: Option<usize>, data_at: Option<usize>) -> bool {
    index_at == Some(0) && data_at == Some(4)
}

/// Whether the plan holds a band's `n`th byte rule, on the byte at `at`: one
/// of the first [`MAX_BAND`] (the work lists take that many), inside the bundle.
fn band_rule_fits(n: usize, at: usize) -> bool {
    n < MAX_BAND && at < BUNDLE_BYTES
}

/// Whether a pattern slot's plan can hold it: 1 to [`MAX_NUMS`] nums (one
/// 8-byte read), its pattern of `size` bytes fits the slot at `offset` of
/// `slot_size` bytes (the full path reads nothing from a slot its pattern does
/// not fit) and the bundle, a gathered data word follows the index word when
/// read as INDIRECT16B, the slot spans the 8 bytes its first read takes, and
/// its dtype byte (if any) is in the bundle.
fn pattern_plannable(nums: usize, (offset, slot_size): (usize, usize), gathered_follows: bool, size: usize, dtype_at: Option<usize>) -> bool {
    let fits = size == slot_size && offset + size <= BUNDLE_BYTES;
    (1..=MAX_NUMS).contains(&nums) && fits && gathered_follows && size >= 8 && dtype_at.is_none_or(|o| o < BUNDLE_BYTES)
}

/// Whether the MX pass can prove an opcode's MX operand clean: the plan
/// holds one (`second`: the opcode has another before it), of the MX
/// operand's size and inside the bundle (`(offset, size)`), with its dtype
/// byte (if any) inside too, the MX fields found in the layouts (`fields`),
/// as a source (`dst`: no rule of the pass covers an MX destination).
fn mx_plannable(second: bool, (offset, size): (usize, usize), dtype_at: Option<usize>, fields: bool, dst: bool) -> bool {
    let fits = size == mx::size() && offset + size <= BUNDLE_BYTES && dtype_at.is_none_or(|o| o < BUNDLE_BYTES);
    !second && fits && fields && !dst
}

/// [`Head::header`] of opcode `byte`: the header words the full path accepts.
fn header_words(byte: u8, fast: bool) -> [u32; 2] {
    let word = |opcode: u8, inst_word_len: u8| {
        let h = Header { opcode, inst_word_len, reserved: 0.into() };
        u32::from_le_bytes(h.as_bytes().try_into().unwrap_or_default())
    };
    let saturate = if byte == QUANTIZE_MX { INST_WORD_LEN_SATURATE } else { INST_WORD_LEN };
    // Another opcode byte: no bundle of this opcode carries it.
    let op = if fast { byte } else { !byte };
    [word(op, INST_WORD_LEN), word(op, saturate)]
}

#[cfg(test)]
mod tests {
    use crate::bundle::BUNDLE_BYTES;
    use crate::generation::Generation;

    fn has_zero_lane(v: u64) -> bool {
        super::super::zero_lanes(v) != 0
    }

    #[test]
    fn a_gathered_data_word_follows_its_index_word_only_at_0_and_4() {
        // Today's INDIRECT16B layout has it so; any other placement leaves gathers to the full checks.
        use super::{data_follows_index, Indirect16b};
        assert!(data_follows_index(Indirect16b::LAYOUT.field_offset("index"), Indirect16b::LAYOUT.field_offset("data")));
        assert!(data_follows_index(Some(0), Some(4)));
        for (index, data) in [(Some(0), Some(8)), (Some(4), Some(4)), (Some(4), Some(0)), (None, Some(4)), (Some(0), None)] {
            assert!(!data_follows_index(index, data), "{index:?} {data:?}");
        }
    }

    #[test]
    fn a_band_rule_is_planned_only_among_the_first_few_and_inside_the_bundle() {
        // Today's bands have at most MAX_BAND rules, all inside: the edges are tested here.
        use super::{band_rule_fits, BUNDLE_BYTES, MAX_BAND};
        assert!(band_rule_fits(0, 0) && band_rule_fits(MAX_BAND - 1, BUNDLE_BYTES - 1));
        assert!(!band_rule_fits(MAX_BAND, 4) && !band_rule_fits(0, BUNDLE_BYTES));
    }

    #[test]
    fn a_planned_offset_is_a_byte_of_the_bundle() {
        // Plans only hold in-bundle offsets today; one past the end is held as the last byte.
        use super::{offset, BUNDLE_BYTES};
        assert_eq!([0, 17, BUNDLE_BYTES - 1].map(offset), [0, 17, 63]);
        assert_eq!([BUNDLE_BYTES, BUNDLE_BYTES + 1, 0x1000, usize::MAX].map(offset), [63; 4]);
    }

    #[test]
    fn a_pattern_slot_is_planned_only_within_what_one_read_of_each_kind_takes() {
        use super::{pattern_plannable, BUNDLE_BYTES, MAX_NUMS};
        let ok = |nums, size, dtype_at| pattern_plannable(nums, (4, size), true, size, dtype_at);
        assert!(ok(1, 8, None) && ok(MAX_NUMS, 16, Some(BUNDLE_BYTES - 1)));
        // Too few or too many nums for one read, a slot narrower than its first read, a dtype byte outside.
        assert!(!ok(0, 16, None) && !ok(MAX_NUMS + 1, 16, None) && !ok(2, 7, None) && !ok(2, 16, Some(BUNDLE_BYTES)));
        assert!(!pattern_plannable(2, (4, 16), false, 16, None));
        // The pattern must be the slot's size, and end inside the bundle (today's tables never differ).
        assert!(pattern_plannable(2, (BUNDLE_BYTES - 16, 16), true, 16, None));
        assert!(!pattern_plannable(2, (BUNDLE_BYTES - 15, 16), true, 16, None));
        assert!(!pattern_plannable(2, (4, 20), true, 16, None) && !pattern_plannable(2, (4, 12), true, 16, None));
    }

    #[test]
    fn only_one_mx_source_operand_read_whole_is_planned() {
        // No opcode of today's tables has two MX operands, one past the bundle's end or an MX
        // destination, so the guard is tested here.
        use super::{mx, mx_plannable, BUNDLE_BYTES};
        let (size, last) = (mx::size(), BUNDLE_BYTES - mx::size());
        assert!(mx_plannable(false, (last, size), Some(BUNDLE_BYTES - 1), true, false));
        assert!(mx_plannable(false, (4, size), None, true, false));
        for (second, place, dtype_at, fields, dst) in [
            (true, (4, size), None, true, false),
            (false, (last + 1, size), None, true, false),
            (false, (4, size + 1), None, true, false),
            (false, (4, size), Some(BUNDLE_BYTES), true, false),
            (false, (4, size), None, false, false),
            (false, (4, size), None, true, true),
        ] {
            assert!(!mx_plannable(second, place, dtype_at, fields, dst), "{second} {place:?} {dtype_at:?} {fields} {dst}");
        }
    }

    #[test]
    fn nums_read_as_lanes() -> Result<(), &'static str> {
        use super::super::{Raw, Rules};
        use super::{dclass, mode_row, ModeClass, NumsPlan, Planned, NEEDS};
        let mut raw = [0xFFu8; BUNDLE_BYTES];
        for ((at, n), g) in [(0, 4), (10, 3), (57, 2), (62, 1), (56, 4), (33, 1), (7, 1)].into_iter().zip(Generation::ALL.into_iter().cycle()) {
            let p = NumsPlan::new(at, n).ok_or("no plan")?;
            // As the slot pass reads them: the lanes below ORed in by the need of a slot whose nums are checked.
            let checked = usize::from(p.below) * NEEDS + usize::from(mode_row(ModeClass::Plain) | dclass::VALID);
            let below = Planned::get(Rules::spec(g)).needs[checked].nums_or;
            let lanes = |raw: &[u8; BUNDLE_BYTES]| Raw(raw).dword(p.read_at) | below;
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
        // Nums that do not fill a read ending with them, or leave the bundle, are not planned.
        for (at, n) in [(0, 1), (4, 1), (62, 2), (10, 0), (10, 5)] {
            assert!(NumsPlan::new(at, n).is_none(), "{at}+{n}");
        }
        Ok(())
    }

    #[test]
    fn the_header_test_passes_exactly_the_words_a_plan_accepts() {
        use super::{header_test, header_words};
        for byte in 0..=u8::MAX {
            for fast in [false, true] {
                let words = header_words(byte, fast);
                let (header, same) = header_test(words);
                // Each word, and every word one bit from either.
                let near = words.into_iter().flat_map(|w| (0..32).map(move |b| w ^ (1 << b)));
                for h in words.into_iter().chain(near) {
                    assert_eq!((h ^ header) & same == 0, words.contains(&h), "{byte:#04x} {fast}: {h:#010x}");
                }
            }
        }
    }

    #[test]
    fn unknown_and_unavailable_opcodes_are_never_judged_here() {
        use super::super::{verdict_raw, Verdict};
        use crate::bundle::{header::INST_WORD_LEN_SATURATE, INST_WORD_LEN};
        let mut seen = 0;
        for g in Generation::ALL {
            for byte in 0..=u8::MAX {
                if crate::opcode::lookup(byte).is_some_and(|op| op.available(g)) {
                    continue;
                }
                // Every header word a plan could hold, over a zero body (the all-zero bundle among them).
                for len in [0, INST_WORD_LEN, INST_WORD_LEN_SATURATE] {
                    let mut raw = [0u8; BUNDLE_BYTES];
                    raw[..2].copy_from_slice(&[byte, len]);
                    for rules in [super::super::Rules::spec(g), super::super::Rules { generation: g, profile: crate::errata::Profile::Amended }] {
                        assert_eq!(verdict_raw(&raw, rules), Verdict::Unknown, "{rules:?}: opcode {byte:#04x}, length {len:#04x}");
                    }
                    seen += 1;
                }
            }
        }
        assert!(seen > 3 * 3 * 100, "only {seen} headers");
    }
}
