//! The clean-bundle fast path. Almost every bundle of a stream passes every
//! rule; proving that straight off the 64 bytes, with offsets planned once
//! per opcode and no branches on field values, costs a fraction of running
//! the reporting checks (whose branches on opcode, body kind, address mode
//! and dims mispredict on a mixed stream). A slot's rules are a few table
//! lookups and masks: its address word's class and its dtype's class
//! select what must hold (`classes`). MX operands (`mx`) and the Pool and
//! Branch bands, whose rules tie fields together (`tied`), have checks of
//! their own. [`verdicts`] judges a batch of bundles at once, so not even
//! the number of slots an opcode has is a branch.
//!
//! The answer is one-sided: [`Verdict::Clean`] means the full path would
//! report nothing; [`Verdict::BandUnknown`] that its header and slot checks
//! would report nothing and only the band must run; [`Verdict::Unknown`]
//! means "run everything". Findings are therefore exactly those of the full
//! path; the tests below compare both on generated, corrupted, mutated and
//! random bundles.
//!
//! Every offset, dtype property, address rule and band set is derived from
//! the layout descriptions, the dtype table, [`crate::addr4`] and the band's
//! rules; nothing is restated here.

mod auto;
pub use auto::{ROUNDS as AUTO_ROUNDS, SAMPLE_BUNDLES as AUTO_SAMPLE_BUNDLES};
mod classes;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod mx;
mod prefetch;
mod tied;

use classes::*;

use super::band::{self, BYTE_RULES};
use crate::bundle::header::INST_WORD_LEN_SATURATE;
use crate::bundle::{Bundle, Header, BUNDLE_BYTES, INST_WORD_LEN};
use crate::descriptor::Indirect16b;
use crate::generation::Generation;
use crate::opcode::{self, QUANTIZE_MX};
use crate::operands::{self, Role, SlotType};
use std::sync::OnceLock;
use zerocopy::IntoBytes;

/// Most operand slots a body has (Family B: dst, in0, in1).
const MAX_SLOTS: usize = 3;
/// Slot entries in a plan: [`MAX_SLOTS`] rounded up to a power of two.
const SLOT_ENTRIES: usize = MAX_SLOTS.next_power_of_two();
/// Most nums one 8-byte read holds (TENSOR4D has 4).
const MAX_NUMS: usize = 4;
const _: () = assert!(MAX_NUMS.is_power_of_two());
/// Most byte rules a band has (CoreV2 matmul: perf_sel, row and column group).
const MAX_BAND: usize = 3;
/// Band entries in a plan: [`MAX_BAND`] rounded up to a power of two.
const BAND_ENTRIES: usize = MAX_BAND.next_power_of_two();

/// What the fast path could prove about a bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// No check would report anything.
    Clean,
    /// The header and slot checks would report nothing; the band must run.
    BandUnknown,
    /// Run every check.
    Unknown,
}

/// One operand slot, planned for one generation: byte offsets into the
/// bundle and its role, as plain values so the check has no branches. A few
/// bytes, so one opcode's whole plan fits a cache line. A slot the opcode
/// does not use points at table entries that always pass.
#[derive(Clone, Copy, Default)]
struct SlotPlan {
    /// Offset of the slot: its ADDR4, then (read as INDIRECT16B) the
    /// gathered data word, one 8-byte read.
    slot_at: u8,
    /// The byte that holds the tag; its class is at `dtype_base + byte` in
    /// the generation's dtype table (the section of the slot's PSUM kind and
    /// tag reading, or the no-field section).
    dtype_at: u8,
    dtype_base: u16,
    /// Where to read all nums as one 64-bit word.
    nums: NumsPlan,
    /// Where the slot's address-word classes start in the mode table: its
    /// [`ModeSection`] times [`MODE_KEYS`].
    mode_base: u16,
}

impl SlotPlan {
    /// The plan of a slot the opcode does not use: its address words are of
    /// the Unused section, whose class needs nothing whatever the dtype class,
    /// so its dtype section (the default, section 0) is never consulted.
    fn unused() -> SlotPlan {
        SlotPlan { mode_base: ModeSection::Unused.base(), ..SlotPlan::default() }
    }
}

/// The nums of a slot as the top lanes of the 8-byte read that ends with
/// them; the lanes below them are set to all ones, so only a zero num
/// makes a zero lane.
#[derive(Clone, Copy, Default)]
struct NumsPlan {
    read_at: u8,
    /// How many lanes of the read lie below the nums.
    below: u8,
}

/// By [`NumsPlan::below`]: the bits of the lanes below the nums.
const BELOW_LANES: [u64; MAX_NUMS] = [0, 0xFFFF, 0xFFFF_FFFF, 0xFFFF_FFFF_FFFF];

impl NumsPlan {
    /// `n` nums (1..=4) starting at byte `at` of the bundle; `None` unless
    /// they lie in the bundle at or past its eighth byte (every layout's
    /// do: the header comes first).
    fn new(at: usize, n: usize) -> Option<NumsPlan> {
        let end = at + 2 * n;
        let read_at = end.checked_sub(8).filter(|_| (1..=MAX_NUMS).contains(&n) && end <= BUNDLE_BYTES)?;
        Some(NumsPlan { read_at: offset(read_at), below: u8::try_from(MAX_NUMS - n).ok()? })
    }

    /// The nums as 16-bit lanes, the lanes below them non-zero.
    #[inline(always)]
    fn lanes(self, raw: Raw, below_lanes: &[u64; MAX_NUMS]) -> u64 {
        raw.dword(self.read_at) | below_lanes[usize::from(self.below) & (MAX_NUMS - 1)]
    }
}

/// An offset inside the bundle as a byte (plans only hold such offsets).
fn offset(at: usize) -> u8 {
    u8::try_from(at.min(BUNDLE_BYTES - 1)).unwrap_or(0)
}

/// One band byte rule, planned: the byte's offset and the index of its set.
#[derive(Clone, Copy, Default)]
struct BandTest {
    at: u8,
    set: u8,
}

/// What a plan's first pass reads: the header test and how many work
/// entries each list gets. Also kept apart, by opcode, in
/// [`Planned::heads`], so that pass reads 16 bytes per opcode instead of
/// the plan's whole line (by callgrind's cache simulation, on a 32 KiB
/// L1 the plans' lines were the table the scalar kernel missed most:
/// `reports/profiling.md`).
#[derive(Clone, Copy, Default)]
struct Head {
    /// The header words (bytes 0..4, little-endian) that pass every header
    /// check: the opcode with length 0x10 and zero reserved bits, and the
    /// SATURATE length where that is allowed (else the first again). An
    /// opcode the fast path does not decide here (unknown, unavailable, or
    /// with a slot it cannot plan) accepts no word: both carry another
    /// opcode byte.
    header: [u32; 2],
    /// [`BAND_CLEAN`] when the band is byte rules only, else 0 (it
    /// always runs): the header test's band bit as it is.
    band_clean: u8,
    /// How many of the plan's `band` the opcode's band has on this generation (they come first).
    band_used: u8,
    /// How many of the plan's `slots` the opcode uses (they come first). Only those
    /// are checked: two thirds of the opcodes have none and most others
    /// one or two.
    used: u8,
    /// 1 when it has an MX operand or a tied band: the scalar kernel checks
    /// both from one work list, since a bundle rarely has either.
    special_used: u8,
}
/// A [`Head`] on 16 bytes: [`Planned::heads`] is then indexed by a shift,
/// and no entry straddles two cache lines.
#[derive(Clone, Copy, Default)]
#[repr(align(16))]
struct HeadEntry(Head);
const _: () = assert!(std::mem::size_of::<HeadEntry>() == 16);

/// One opcode on one generation, planned: one cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Plan {
    head: Head,
    /// 1 when the opcode has an MX operand (CoreV4 MX matmuls), else 0.
    mx_used: u8,
    mx: mx::MxPlan,
    /// The band, when its rules tie fields together (Pool, Branch).
    tied: tied::TiedBand,
    /// The slots, then one never used: a power of two, so a work entry of
    /// [`verdicts`] names one under a mask.
    slots: [SlotPlan; SLOT_ENTRIES],
    /// The band's byte rules, then unused ones (the set of all values).
    band: [BandTest; BAND_ENTRIES],
}
const _: () = assert!(std::mem::size_of::<Plan>() == 64);

/// One generation's plans and tables in one block: every lookup of the
/// scalar kernel is then one base register plus a constant offset (as
/// separate boxes, its slot loop kept five table bases and spilled three).
/// Fixed-size arrays indexed under a mask, so no lookup needs a bounds
/// check or a branch.
#[repr(C)]
struct Planned {
    /// What a slot needs, by its address word's class and its dtype's
    /// class. At offset 0: the slot pass takes a need's address, and at
    /// the block's base that costs no register of its own.
    needs: [Need; NEEDS],
    /// The plans' slots in one list (and their band tests in
    /// `band_items`), by [`entry`]'s item bits (opcode, index in the
    /// plan), so the scalar kernel reads an item without finding its plan
    /// first. First with `needs`: the slot pass's hottest tables.
    slot_items: [SlotPlan; ITEMS],
    /// [`GATHERED_MUST_BE_CLEAR`] and [`BELOW_LANES`], copied in so a
    /// lookup needs no address of its own.
    gathered_clear: [u32; 16],
    below_lanes: [u64; MAX_NUMS],
    /// The [`ModeClass`] of an address word: by [`SlotPlan::mode_base`]
    /// (the slot's [`ModeSection`]), then by the word's top bits
    /// ([`MODE_KEY_SHIFT`]); the spare sections are never used.
    modes: [u8; MODE_ENTRIES],
    /// By [`SlotPlan::dtype_base`] plus the tag's byte.
    dtypes: [u8; DTYPE_ENTRIES],
    band_items: [BandTest; ITEMS],
    /// By opcode byte, [`entries4`] of the opcode's first item: a bundle's
    /// four work entries are this word and its index's bits, one `or`.
    items4: [u64; 0x100],
    /// By opcode byte, each plan's [`Head`].
    heads: [HeadEntry; 0x100],
    /// Whether each byte rule allows each value (1 or 0), by rule then
    /// value; the spare rules allow every value.
    allowed: [[u8; 0x100]; SETS],
    /// By opcode byte.
    plans: [Plan; 0x100],
    /// Where an MX operand's fields are.
    mx: mx::MxFields,
}

/// Byte-rule sets, rounded up to a power of two; the spare ones allow every value.
const SETS: usize = 16;
const _: () = assert!(BYTE_RULES.len() < SETS);

/// `v` as a fixed-size array (the lengths are constants, so this cannot fail).
fn filled<T: Copy + Default, const N: usize>(v: impl IntoIterator<Item = T>) -> [T; N] {
    let mut a = [T::default(); N];
    a.iter_mut().zip(v).for_each(|(slot, x)| *slot = x);
    a
}

/// Every generation's [`Planned`], by [`Generation::index`].
fn tables() -> &'static [Box<Planned>; 3] {
    static T: OnceLock<[Box<Planned>; 3]> = OnceLock::new();
    T.get_or_init(|| Generation::ALL.map(|g| Box::new(Planned::build(g))))
}

impl Planned {
    fn build(g: Generation) -> Planned {
        // A row per band set, a byte per value: 1 where the set allows it.
        let mut allowed = [[0u8; 0x100]; SETS];
        for (set, row) in allowed.iter_mut().enumerate() {
            for (v, cell) in (0..=u8::MAX).zip(row.iter_mut()) {
                *cell = u8::from(BYTE_RULES.get(set).is_none_or(|r| (r.allows)(v)));
            }
        }
        let plans: [Plan; 0x100] = filled((0..=u8::MAX).map(|op| plan(op, g)));
        let sections = PSUM_KINDS.iter().flat_map(|&k| TAG_READS.iter().map(move |&r| (k, r)));
        let tagged = sections.flat_map(|(k, r)| (0..=u8::MAX).map(move |byte| dtype_class(Some(r.tag(byte)), k, g)));
        Planned {
            slot_items: filled(plans.iter().flat_map(|p| p.slots)),
            needs: filled(ModeClass::ALL.iter().flat_map(|&c| (0..1u8 << DTYPE_CLASS_BITS).map(move |d| need(c, d)))),
            gathered_clear: GATHERED_MUST_BE_CLEAR,
            below_lanes: BELOW_LANES,
            modes: filled(ModeSection::ALL.iter().flat_map(|&m| (0..MODE_KEYS as u32).map(move |key| mode_class(key, m) as u8))),
            dtypes: filled(tagged.chain((0..SECTION).map(|_| dtype_class(None, PsumWrite::Reads, g)))),
            band_items: filled(plans.iter().flat_map(|p| p.band)),
            items4: filled((0..=u8::MAX).map(|op| entries4(entry(0, op)))),
            heads: filled(plans.iter().map(|p| HeadEntry(p.head))),
            allowed,
            plans,
            mx: mx_fields().unwrap_or_default(),
        }
    }
}

/// Where an MX operand's fields are; `None` if its layouts do not fit the
/// fast path (MX bodies then take the reporting path).
fn mx_fields() -> Option<mx::MxFields> {
    mx::MxFields::from_layouts()
}

fn plan(byte: u8, g: Generation) -> Plan {
    let Some(op) = opcode::lookup(byte) else {
        return Plan { head: Head { header: header_words(byte, false), ..Head::default() }, ..Plan::default() };
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
    p.head.header = header_words(byte, fast);
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

/// [`Plan::header`] of opcode `byte`: the header words the full path accepts.
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

/// A bundle's bytes, read at plan offsets. An offset is masked or clamped
/// to the bundle, so the compiler sees every read in bounds: no checks, no
/// branches (plans only hold offsets whose reads fit the bundle, so neither
/// changes a read).
#[derive(Clone, Copy)]
struct Raw<'a>(&'a [u8; BUNDLE_BYTES]);

impl Raw<'_> {
    #[inline(always)]
    fn byte(self, at: u8) -> u8 {
        self.0[usize::from(at) & (BUNDLE_BYTES - 1)]
    }
    /// The `N` bytes at `at`, which plans only name where they lie in the
    /// bundle (`pattern_plannable`, `mx_plannable`); past its end, zeros
    /// (a branch never taken, cheaper than clamping every read).
    #[inline(always)]
    fn bytes<const N: usize>(self, at: u8) -> [u8; N] {
        let at = usize::from(at);
        self.0.get(at..at + N).and_then(|b| b.try_into().ok()).unwrap_or([0; N])
    }
    /// The little-endian word at `at`.
    #[inline(always)]
    fn word(self, at: u8) -> u32 {
        u32::from_le_bytes(self.bytes(at))
    }
    #[inline(always)]
    fn dword(self, at: u8) -> u64 {
        u64::from_le_bytes(self.bytes(at))
    }
}

/// A 1 in each 16-bit lane.
const LANE_ONES: u64 = 0x0001_0001_0001_0001;

/// The high bit of each 16-bit lane of `v` that is zero, and possibly of
/// lanes above a zero one: non-zero exactly when some lane is zero (the
/// classic SWAR test).
#[inline(always)]
fn zero_lanes(v: u64) -> u64 {
    const HIGH: u64 = 0x8000_8000_8000_8000;
    v.wrapping_sub(LANE_ONES) & !v & HIGH
}

/// `a | b` where the operands share no bit (a table section's base and a
/// key below the section's size; fail bits of rules that never both apply),
/// so `^` or `+` would give the same: checked in debug builds, which is what
/// the tests run. `.cargo/mutants.toml` names this function for that reason.
#[inline(always)]
fn disjoint<T>(a: T, b: T) -> T
where
    T: Copy + Default + PartialEq + std::fmt::Debug + std::ops::BitOr<Output = T> + std::ops::BitAnd<Output = T>,
{
    debug_assert_eq!(a & b, T::default(), "operands share bits");
    a | b
}

#[cfg(test)]
fn has_zero_lane(v: u64) -> bool {
    zero_lanes(v) != 0
}

/// What the fast path proves about `bundle` on `g`.
#[inline]
pub(super) fn verdict(bundle: &Bundle, g: Generation) -> Verdict {
    match <&[u8; BUNDLE_BYTES]>::try_from(bundle.as_bytes()) {
        Ok(raw) => verdict_raw(raw, g),
        Err(_) => Verdict::Unknown,
    }
}

impl Planned {
    #[inline(always)]
    fn get(g: Generation) -> &'static Planned {
        &tables()[g.index()]
    }

    /// The header test of one bundle, and whether its band can be decided
    /// here: [`HEAD_CLEAN`] and [`BAND_CLEAN`] bits.
    #[inline(always)]
    fn head(&self, head: &Head, raw: Raw) -> u8 {
        let h = raw.word(0);
        let head_ok = (h == head.header[0]) | (h == head.header[1]);
        let bit = if head_ok { HEAD_CLEAN } else { 0 };
        disjoint(bit, head.band_clean)
    }

    /// Whether the byte a band test reads is in its set.
    #[inline(always)]
    fn band_clean(&self, raw: Raw, b: BandTest) -> bool {
        self.allowed[usize::from(b.set) & (SETS - 1)][usize::from(raw.byte(b.at))] != 0
    }

    /// The dtype check and the rules of an MX operand.
    #[inline(always)]
    fn mx_clean(&self, raw: Raw, m: &mx::MxPlan) -> bool {
        let dtype = self.dtypes[(usize::from(m.dtype_base) + usize::from(raw.byte(m.dtype_at))) & (DTYPE_ENTRIES - 1)];
        mx::clean(raw, m, &self.mx, dtype)
    }

    /// The rules of a Pool or Branch band.
    #[inline(always)]
    fn tied_clean(&self, raw: Raw, band: tied::TiedBand) -> bool {
        let byte_tags = usize::from(dtype_base(Some(TagRead::Byte), PsumWrite::Reads));
        band.clean(raw, |tag| self.dtypes[(byte_tags + usize::from(tag)) & (DTYPE_ENTRIES - 1)])
    }

    /// The dtype check and the pattern rules of one slot, as straight-line
    /// arithmetic: the address word's class and the dtype's class select
    /// what must hold, as masks.
    #[inline(always)]
    fn slot_clean(&self, raw: Raw, s: &SlotPlan) -> bool {
        let head = raw.dword(s.slot_at);
        let (word, gathered) = (head as u32, (head >> 32) as u32);
        let class = self.modes[disjoint(usize::from(s.mode_base), (word >> MODE_KEY_SHIFT) as usize) & (MODE_ENTRIES - 1)];
        let dtype = self.dtypes[(usize::from(s.dtype_base) + usize::from(raw.byte(s.dtype_at))) & (DTYPE_ENTRIES - 1)];
        let need = &self.needs[disjoint(usize::from(class) << DTYPE_CLASS_BITS, usize::from(dtype)) & (NEEDS - 1)];
        let gathered_bad = gathered & self.gathered_clear[disjoint(usize::from(need.gathered_sel), (gathered >> 29) as usize) & 15];
        // A Need clears address bits or checks the gathered word, never both.
        let bad = disjoint(word & need.word_clear, gathered_bad) | u32::from(need.fail);
        u64::from(bad) | zero_lanes(s.nums.lanes(raw, &self.below_lanes) | need.nums_off) == 0
    }
}

/// Bits of a bundle's state in [`verdicts`]: the header (and slots) pass,
/// the band passes.
const HEAD_CLEAN: u8 = 1;
const BAND_CLEAN: u8 = 2;

fn verdict_of(state: u8) -> Verdict {
    match (state & HEAD_CLEAN != 0, state & BAND_CLEAN != 0) {
        (true, true) => Verdict::Clean,
        (true, false) => Verdict::BandUnknown,
        (false, _) => Verdict::Unknown,
    }
}

/// What the fast path proves about the bundle with wire bytes `raw` on `g`.
#[inline]
pub(super) fn verdict_raw(raw: &[u8; BUNDLE_BYTES], g: Generation) -> Verdict {
    let t = Planned::get(g);
    let raw = Raw(raw);
    let plan = &t.plans[usize::from(raw.0[0])];
    let mut state = t.head(&plan.head, raw);
    for s in plan.slots.iter().take(usize::from(plan.head.used)) {
        state &= !u8::from(!t.slot_clean(raw, s));
    }
    for &b in plan.band.iter().take(usize::from(plan.head.band_used)) {
        state &= !(u8::from(!t.band_clean(raw, b)) * BAND_CLEAN);
    }
    if plan.tied != tied::TiedBand::None {
        state &= !(u8::from(!t.tied_clean(raw, plan.tied)) * BAND_CLEAN);
    }
    if plan.mx_used != 0 {
        state &= !u8::from(!t.mx_clean(raw, &plan.mx));
    }
    verdict_of(state)
}

/// Bundles judged together by [`verdicts`]: 4 KiB, a page. Small, so the
/// first pass (which reads the stream) and the others (which do not)
/// alternate quickly and the hardware prefetcher keeps streaming (128 ran
/// ~12% slower than 32 out of cache); 64 halves the per-batch cost of 32
/// and read the same out of cache (`reports/profiling.md`).
pub(super) const BATCH: usize = 64;
/// A batch of bundles' wire bytes.
pub(super) type Batch = [[u8; BUNDLE_BYTES]; BATCH];
/// Items of a plan a work entry can name: slots and band tests are both
/// at most four per opcode.
const ITEM_BITS: u32 = 10;
const ITEMS: usize = 1 << ITEM_BITS;
const _: () = assert!(ITEMS == 0x100 * SLOT_ENTRIES && SLOT_ENTRIES == BAND_ENTRIES);
const _: () = assert!((BATCH << ITEM_BITS) <= 1 << 16);
/// Work lists of a batch: at most [`MAX_SLOTS`] slots and [`MAX_BAND`]
/// band tests per bundle, written [`SLOT_ENTRIES`] at a time at the list's
/// length under a mask ([`push4`]), so a list has that many spare entries
/// past its power-of-two length. An MX operand or a tied band is one per bundle.
const SLOT_WORK: usize = (MAX_SLOTS * BATCH).next_power_of_two();
const BAND_WORK: usize = (MAX_BAND * BATCH).next_power_of_two();

/// A work entry: the bundle's index in its batch, then the item (its
/// opcode byte, then the index of the slot or band test in its plan).
#[inline(always)]
fn entry(i: usize, op: u8) -> u16 {
    let i = u16::try_from(i & (BATCH - 1)).unwrap_or(0);
    disjoint(i << ITEM_BITS, u16::from(op) << 2)
}

/// The four work entries naming a plan's items, from its first entry: as
/// the 16-bit lanes of one word, so [`push4`] writes them in one store.
#[inline(always)]
fn entries4(entry: u16) -> u64 {
    const ITEM_INDEX: u64 = 0x0003_0002_0001_0000;
    disjoint(u64::from(entry) * LANE_ONES, ITEM_INDEX)
}

/// Appends `n` (at most 4) of the four work `entries` (from [`entries4`]),
/// writing all four so the loop has no data-dependent exit. The mask never
/// binds (a list holds at most `MAX * BATCH` entries); it lets the compiler
/// see the write in bounds.
#[inline(always)]
fn push4<const W: usize, const L: usize>(work: &mut [u16; L], len: &mut usize, entries: u64, n: u8) {
    const { assert!(W.is_power_of_two() && L == W + SLOT_ENTRIES) };
    let at = *len & (W - 1);
    // The lanes as entries in order, on hosts of either byte order (one 8-byte store on x86-64).
    let lanes: [u16; SLOT_ENTRIES] = std::array::from_fn(|k| (entries >> (16 * k)) as u16);
    work[at..at + SLOT_ENTRIES].copy_from_slice(&lanes);
    *len = at + usize::from(n);
}

/// Appends `entry` when `n` is 1 (an MX operand or a tied band).
#[inline(always)]
fn push1(work: &mut [u16; BATCH], len: &mut usize, entry: u16, n: u8) {
    let at = *len & (BATCH - 1);
    work[at] = entry;
    *len = at + usize::from(n);
}

/// The scalar kernel's work lists, kept for a whole stream: a batch reads
/// only the entries it wrote, so they are not cleared between batches
/// (clearing them cost ~3 instructions per bundle).
pub(super) struct Work {
    slots: [u16; SLOT_WORK + SLOT_ENTRIES],
    bands: [u16; BAND_WORK + SLOT_ENTRIES],
    specials: [u16; BATCH],
}

impl Default for Work {
    fn default() -> Work {
        Work { slots: [0; SLOT_WORK + SLOT_ENTRIES], bands: [0; BAND_WORK + SLOT_ENTRIES], specials: [0; BATCH] }
    }
}

/// Which kernel judges the batches of a stream. All give the same
/// verdicts (the tests compare each with the scalar one); they differ in
/// speed only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kernel {
    /// The one [`ENV_KERNEL`] names, if set and this CPU runs it; else
    /// the fastest this CPU runs, timed once per process
    /// ([`Kernel::auto_timings`]).
    #[default]
    Auto,
    /// Scalar code, on every CPU and architecture.
    Portable,
    /// The lanes kernel on AVX-512 with VBMI (x86-64).
    Avx512,
}

/// Names the kernel [`Kernel::Auto`] runs for a whole process (`portable`,
/// `avx512` or `auto`), to measure or test one on any CPU that has
/// its instructions; read once per process.
pub const ENV_KERNEL: &str = "TPB_ISA_KERNEL";

/// Kernels to treat as though this CPU lacked their instructions, comma
/// separated (`avx512`): a machine with AVX-512 then behaves, for
/// the whole process, like one without (which kernel `auto` picks, what
/// naming a missing kernel does), the way glibc's hwcaps tunables mask
/// CPU features. Read once per process; `portable` cannot be hidden.
pub const ENV_HIDE: &str = "TPB_ISA_HIDE_KERNELS";

/// The kernels [`ENV_HIDE`] names (names that are not hideable kernels are
/// left to [`Kernel::from_env`] to refuse).
fn hidden(k: Kernel) -> bool {
    static HIDDEN: OnceLock<Vec<Kernel>> = OnceLock::new();
    HIDDEN.get_or_init(|| hide_list().unwrap_or_default()).contains(&k)
}

/// [`ENV_HIDE`] read: the kernels named, or the first name that is no hideable kernel.
fn hide_list() -> Result<Vec<Kernel>, String> {
    let Some(v) = std::env::var_os(ENV_HIDE) else { return Ok(Vec::new()) };
    let v = v.to_string_lossy();
    v.split(',')
        .filter(|n| !n.is_empty())
        .map(|n| Kernel::from_label(n).filter(|k| !matches!(k, Kernel::Auto | Kernel::Portable)).ok_or_else(|| n.to_string()))
        .collect()
}

/// A kernel ready to run: the proof that the CPU has its features.
#[derive(Clone, Copy)]
enum Ready {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx512(&'static lanes::avx512::Kernel),
}

impl Kernel {
    /// The kernels that are not [`Kernel::Auto`].
    pub const CONCRETE: [Kernel; 2] = [Kernel::Avx512, Kernel::Portable];

    /// What [`Kernel::Auto`] was chosen by in this process: each kernel
    /// this CPU runs and its best time of [`AUTO_ROUNDS`] on a sample of
    /// [`AUTO_SAMPLE_BUNDLES`] bundles, timed once, the first time Auto
    /// ran; empty when [`ENV_KERNEL`] named the kernel.
    pub fn auto_timings() -> &'static [(Kernel, std::time::Duration)] {
        &auto_choice().1
    }

    /// The kernel's own name, as [`ENV_KERNEL`] takes it.
    pub fn label(self) -> &'static str {
        match self {
            Kernel::Auto => "auto",
            Kernel::Portable => "portable",
            Kernel::Avx512 => "avx512",
        }
    }

    /// The kernel a name (as [`Kernel::label`] gives it) stands for.
    pub fn from_label(name: &str) -> Option<Kernel> {
        [Kernel::Auto].into_iter().chain(Kernel::CONCRETE).find(|k| k.label() == name)
    }

    /// Whether this CPU runs this kernel (Auto always runs one).
    pub fn available(self) -> bool {
        match self {
            Kernel::Auto | Kernel::Portable => true,
            _ => self.ready().is_some(),
        }
    }

    /// The kernels this CPU runs.
    pub fn available_kernels() -> Vec<Kernel> {
        Kernel::CONCRETE.into_iter().filter(|k| k.available()).collect()
    }

    /// The concrete kernel this one runs on this CPU: Auto resolves to
    /// [`ENV_KERNEL`]'s choice or the fastest; a kernel the CPU lacks runs
    /// the portable one.
    pub fn runs(self) -> Kernel {
        match self {
            Kernel::Auto => auto(),
            k if k.available() => k,
            _ => Kernel::Portable,
        }
    }

    /// The name of the kernel this one runs on this CPU: `"avx512"` or `"portable"`.
    pub fn name(self) -> &'static str {
        self.runs().label()
    }

    /// The kernel [`ENV_KERNEL`] asks for (Auto when unset), checked: an error names a
    /// kernel this CPU lacks, or an unknown name, and lists the kernels it runs.
    pub fn from_env() -> Result<Kernel, String> {
        if let Err(n) = hide_list() {
            return Err(format!("{ENV_HIDE}: {n:?} is not a kernel that can be hidden (avx512)"));
        }
        let Some(v) = std::env::var_os(ENV_KERNEL) else { return Ok(Kernel::Auto) };
        let runs = Kernel::available_kernels().iter().map(|k| k.label()).collect::<Vec<_>>().join(", ");
        let name = v.to_string_lossy();
        match Kernel::from_label(&name) {
            Some(k) if k.available() => Ok(k),
            Some(k) => Err(Kernel::refused(k, hidden(k), &runs)),
            None => Err(format!("{ENV_KERNEL}={:?}: not a kernel (this CPU runs: {runs}; or auto)", name)),
        }
    }

    /// Why [`ENV_KERNEL`] cannot name `k`, a kernel this process does not
    /// run: hidden by [`ENV_HIDE`], or missing from the CPU. Apart from
    /// [`Kernel::from_env`] so both answers are tested on any CPU.
    fn refused(k: Kernel, hidden: bool, runs: &str) -> String {
        let k = k.label();
        if hidden {
            format!("{ENV_KERNEL}={k}: hidden by {ENV_HIDE} (this process runs: {runs})")
        } else {
            format!("{ENV_KERNEL}={k}: this CPU lacks the instructions of the {k} kernel (it runs: {runs})")
        }
    }

    #[inline]
    fn ready(self) -> Option<Ready> {
        match self {
            Kernel::Auto => auto().ready(),
            Kernel::Portable => Some(Ready::Portable),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => lanes::avx512::kernel().filter(|_| !hidden(self)).map(Ready::Avx512),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 => None,
        }
    }
}

/// What [`Kernel::Auto`] runs in this process.
fn auto() -> Kernel {
    auto_choice().0
}

/// [`Kernel::Auto`]'s kernel for this process and, unless [`ENV_KERNEL`]
/// named it, the timings it was chosen by (`auto.rs`).
fn auto_choice() -> &'static (Kernel, auto::Timings) {
    static AUTO: OnceLock<(Kernel, auto::Timings)> = OnceLock::new();
    AUTO.get_or_init(|| match Kernel::from_env() {
        Ok(k) if k != Kernel::Auto => (k, Vec::new()),
        _ => {
            let timed = auto::timings(&Kernel::available_kernels());
            (auto::fastest(&timed), timed)
        }
    })
}

/// [`verdict_raw`] of every bundle of a batch, on `kernel`.
#[allow(unsafe_code)]
pub(super) fn verdicts(batch: &Batch, g: Generation, kernel: Kernel, work: &mut Work) -> [Verdict; BATCH] {
    match kernel.ready().unwrap_or(Ready::Portable) {
        Ready::Portable => verdicts_scalar(batch, g, work),
        // SAFETY: the backend's `Kernel` exists only where its `kernel()` found every feature its `judge` enables.
        #[cfg(target_arch = "x86_64")]
        Ready::Avx512(k) => unsafe { lanes::avx512::judge(k, batch, g) },
    }
}

/// [`verdicts`] on any CPU, in passes with no data-dependent branch: the
/// first tests each header and lists the slots and band tests to run
/// (always writing a plan's worth of entries, keeping as many as the
/// opcode has); the others run the listed ones. Running each bundle's own
/// in a loop mispredicts the loop exits on a mixed stream about every
/// other bundle, which costs more than the checks. (The AVX-512 kernel
/// judges each bundle whole in one pass instead.)
fn verdicts_scalar(batch: &Batch, g: Generation, work: &mut Work) -> [Verdict; BATCH] {
    let t = Planned::get(g);
    let mut state = [0u8; BATCH];
    let Work { slots, bands, specials } = work;
    let (mut n_slots, mut n_bands, mut n_specials) = (0usize, 0usize, 0usize);
    for (i, (raw, st)) in batch.iter().zip(state.iter_mut()).enumerate() {
        prefetch::next_batch(raw);
        let op = raw[0];
        let head = &t.heads[usize::from(op)].0;
        *st = t.head(head, Raw(raw));
        // entries4(entry(i, op)), without its multiply: the item bits from the table.
        let e4 = disjoint(t.items4[usize::from(op)], u64::from(entry(i, 0)) * LANE_ONES);
        push4::<SLOT_WORK, { SLOT_WORK + SLOT_ENTRIES }>(slots, &mut n_slots, e4, head.used);
        push4::<BAND_WORK, { BAND_WORK + SLOT_ENTRIES }>(bands, &mut n_bands, e4, head.band_used);
        push1(specials, &mut n_specials, e4 as u16, head.special_used);
    }
    let bundle = |e: u16| usize::from(e >> ITEM_BITS) & (BATCH - 1);
    let item = |e: u16| usize::from(e) & (ITEMS - 1);
    let op = |e: u16| item(e) >> 2;
    for &e in &slots[..n_slots.min(SLOT_WORK)] {
        let i = bundle(e);
        state[i] &= !u8::from(!t.slot_clean(Raw(&batch[i]), &t.slot_items[item(e)]));
    }
    for &e in &bands[..n_bands.min(BAND_WORK)] {
        let i = bundle(e);
        state[i] &= !(u8::from(!t.band_clean(Raw(&batch[i]), t.band_items[item(e)])) * BAND_CLEAN);
    }
    for &e in &specials[..n_specials.min(BATCH)] {
        let (i, plan) = (bundle(e), &t.plans[op(e)]);
        let mx_ok = plan.mx_used == 0 || t.mx_clean(Raw(&batch[i]), &plan.mx);
        let tied_ok = t.tied_clean(Raw(&batch[i]), plan.tied);
        state[i] &= !disjoint(u8::from(!mx_ok), u8::from(!tied_ok) * BAND_CLEAN);
    }
    state.map(verdict_of)
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
        let (mut clean, mut mutated) = (0, 0);
        for seed in 0..3000u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            for g in Generation::ALL {
                let Ok(b) = smith::bundle(&mut u, g) else { continue };
                let (fast, full) = both(&b, g);
                assert_eq!(fast, full, "{g}: {}", crate::text::disasm(&b));
                // Every clean bundle the generator makes is proven clean here (the
                // stream functions' speed rests on it: `reports/profiling.md`).
                if full.is_empty() {
                    clean += 1;
                    assert_eq!(
                        super::verdict(&b, g),
                        super::Verdict::Clean,
                        "{g}: a clean bundle left to the full checks: {}",
                        crate::text::disasm(&b)
                    );
                }
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
    }

    #[test]
    fn a_batch_is_judged_like_its_bundles_one_by_one() {
        use super::{verdict_raw, verdicts, Batch, Kernel, Work, BATCH};
        // Generated bundles, each also with one byte corrupted and mutated, and random bytes, mixed.
        let mut pool = Vec::new();
        for seed in 0..1500u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            for g in Generation::ALL {
                let Ok(b) = smith::bundle(&mut u, g) else { continue };
                let mut raw = b.encode();
                pool.push(raw);
                if let (Ok(at), Ok(v)) = (u.int_in_range(0..=BUNDLE_BYTES - 1), u.arbitrary::<u8>()) {
                    raw[at] = v;
                    pool.push(raw);
                }
                // One invariant broken by the mutator.
                if let Ok(Some(m)) = smith::mutate(&mut u, &b, g) {
                    pool.push(m.bundle.encode());
                }
            }
            let mut random = [0u8; BUNDLE_BYTES];
            random.copy_from_slice(&props::seeded_bytes(seed ^ 0x5eed, BUNDLE_BYTES));
            pool.push(random);
        }
        // Each kernel this CPU runs, its work lists kept from batch to batch as a stream keeps them.
        let mut work = Work::default();
        for kernel in Kernel::available_kernels() {
            let mut checked = [0usize; 3];
            for chunk in pool.chunks_exact(BATCH) {
                let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
                batch.copy_from_slice(chunk);
                for g in Generation::ALL {
                    for (raw, v) in batch.iter().zip(verdicts(&batch, g, kernel, &mut work)) {
                        assert_eq!(v, verdict_raw(raw, g), "{} kernel, {g}: {raw:02x?}", kernel.name());
                        checked[v as usize] += 1;
                    }
                }
            }
            // Every verdict occurs, so each pass's result is compared.
            assert!(checked.iter().all(|&n| n > 100), "{} kernel, verdicts seen: {checked:?}", kernel.name());
        }
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

    /// A live pattern slot of a bundle: its offset, address word, pattern layout and slot size.
    struct PatternSlot {
        at: usize,
        word: crate::addr4::Addr4,
        view: &'static crate::layout::Layout,
        slot_size: usize,
        /// Where its nums are: (offset in the slot, bytes).
        nums: (usize, usize),
    }

    /// Generated bundles valid under the spec (3000 seeds, the generations in turn), each with
    /// its live pattern slots.
    fn clean_bundles_with_pattern_slots() -> Vec<(Generation, Bundle, Vec<PatternSlot>)> {
        use crate::operands::{self, SlotType};
        let mut out = Vec::new();
        for seed in 0..3000u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let g = Generation::ALL[seed as usize % 3];
            let Ok(b) = smith::bundle(&mut Unstructured::new(&bytes), g) else { continue };
            let Some(op) = crate::opcode::lookup(b.opcode()) else { continue };
            if !crate::validate::validate(&b, g).is_empty() {
                continue;
            }
            let raw = b.encode();
            let slots = operands::live_slots(op)
                .filter_map(|slot| {
                    let SlotType::Pattern(dims) = slot.ty else { return None };
                    let at = slot.offset(b.layout());
                    let word = u32::from_le_bytes(raw.get(at..at + 4)?.try_into().ok()?);
                    let view = crate::descriptor::pattern_layout(dims);
                    let Some(nums) = view.resolve("num") else { panic!("{} has no nums", view.name) };
                    Some(PatternSlot { at, word: crate::addr4::Addr4::new(word), view, slot_size: slot.size(), nums })
                })
                .collect();
            out.push((g, b, slots));
        }
        out
    }

    #[test]
    fn a_gathers_static_num_bytes_are_never_read() {
        // A gather reads its slot as INDIRECT16B (or only its index word, when narrow): the
        // static pattern's nums lie in bytes it does not read, so zeros there change nothing.
        let mut zeroed = [0usize; 2];
        for (g, b, slots) in clean_bundles_with_pattern_slots() {
            let mut raw = b.encode();
            for s in slots {
                let (num, size) = s.nums;
                if s.word.is_indirect() && !s.word.is_register() && s.slot_size == s.view.size {
                    raw[s.at + num..s.at + num + size].fill(0);
                    zeroed[usize::from(s.view.size >= crate::descriptor::Indirect16b::LAYOUT.size)] += 1;
                }
            }
            let c = Bundle::decode(&raw);
            assert_eq!(crate::validate::validate(&c, g), [], "{g}: {}", crate::text::disasm(&c));
            assert_eq!(super::verdict(&c, g), super::Verdict::Clean, "{g}: {}", crate::text::disasm(&c));
        }
        // The generator makes gathers of source slots, which are all wide today.
        assert!(zeroed[1] > 20, "gathers zeroed (narrow, wide): {zeroed:?}");
    }

    #[test]
    fn a_narrow_gathers_nums_are_never_read() {
        // An indirect word in a slot too narrow for INDIRECT16B gathers through its index
        // word alone: its nums are never read, so zero nums leave a clean bundle clean.
        use crate::addr4::{MODE_INDIRECT, MODE_MASK};
        let mut narrow = 0;
        for (g, b, slots) in clean_bundles_with_pattern_slots() {
            let mut raw = b.encode();
            let mut changed = 0;
            for s in slots {
                if s.word.is_register() || s.slot_size >= crate::descriptor::Indirect16b::LAYOUT.size {
                    continue;
                }
                let (num, size) = s.nums;
                raw[s.at..s.at + 4].copy_from_slice(&(s.word.word() & !MODE_MASK | MODE_INDIRECT).to_le_bytes());
                raw[s.at + num..s.at + num + size].fill(0);
                changed += 1;
            }
            if changed == 0 {
                continue;
            }
            let c = Bundle::decode(&raw);
            let (fast, full) = both(&c, g);
            assert_eq!(fast, full, "{g}: {}", crate::text::disasm(&c));
            if full.is_empty() {
                narrow += changed;
                assert_eq!(super::verdict(&c, g), super::Verdict::Clean, "{g}: {}", crate::text::disasm(&c));
            }
        }
        assert!(narrow > 20, "narrow gathers with zero nums judged clean: {narrow}");
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
    fn every_kernel_the_cpu_has_is_built() {
        use super::{hidden, Kernel};
        #[cfg(target_arch = "x86_64")]
        let has_avx512 = super::lanes::avx512::cpu_has_features();
        // Elsewhere the x86-64 kernels are not built.
        #[cfg(not(target_arch = "x86_64"))]
        let has_avx512 = false;
        // Where the CPU has a backend's features, the description must have fitted it
        // (unless TPB_ISA_HIDE_KERNELS hides it from this process).
        assert_eq!(Kernel::Avx512.available(), has_avx512 && !hidden(Kernel::Avx512));
        assert_eq!(Kernel::Auto.runs(), Kernel::from_env().unwrap_or(Kernel::Auto).runs());
        assert!(Kernel::available_kernels().contains(&Kernel::Portable));
        // A kernel the CPU has runs itself and goes by its own name; one it lacks runs the portable kernel.
        for k in Kernel::CONCRETE {
            let runs = if k.available() { k } else { Kernel::Portable };
            assert_eq!((k.runs(), k.name()), (runs, runs.label()), "{}", k.label());
        }
        assert_eq!(Kernel::CONCRETE.map(Kernel::label), ["avx512", "portable"]);
        assert!(Kernel::Auto.name() != "auto" && Kernel::Auto.name() == Kernel::Auto.runs().label());
    }

    #[test]
    fn every_kernel_agrees_with_the_scalar_one_on_every_byte_of_every_body_set_to_telling_values() {
        use super::{verdicts, Batch, Kernel, Work, BATCH};
        let vector: Vec<Kernel> = Kernel::available_kernels().into_iter().filter(|&k| k != Kernel::Portable).collect();
        if vector.is_empty() {
            eprintln!("this CPU runs only the portable kernel: nothing to compare");
            return;
        }
        // Two clean bundles of each body kind and generation, then every body byte set to values
        // that move an address word across modes and regions, a dtype across tags, a band byte across its set;
        // and every pair of bytes zeroed (a zero num).
        let mut seen = std::collections::HashMap::new();
        let mut pool = Vec::new();
        for seed in 0..4000u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            let g = Generation::ALL[seed as usize % Generation::ALL.len()];
            let Ok(b) = smith::bundle(&mut u, g) else { continue };
            let n = seen.entry((b.kind(), g)).or_insert(0);
            if *n >= 2 {
                continue;
            }
            *n += 1;
            for at in 4..BUNDLE_BYTES {
                for v in [
                    0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x0F, 0x10, 0x11, 0x1F, 0x20, 0x22, 0x24, 0x40, 0x60, 0x7F, 0x80, 0xA0, 0xC0, 0xE0, 0xF0,
                    0xFF,
                ] {
                    let mut raw = b.encode();
                    raw[at] = v;
                    pool.push(raw);
                }
                let mut raw = b.encode();
                raw[at] ^= 1;
                pool.push(raw);
                // A zero 16-bit num.
                let mut raw = b.encode();
                raw[at..(at + 2).min(BUNDLE_BYTES)].fill(0);
                pool.push(raw);
            }
        }
        assert!(seen.len() >= 20, "body kinds and generations seen: {}", seen.len());
        let mut differ = 0;
        let mut verdicts_seen = [0usize; 3];
        let mut work = Work::default();
        for chunk in pool.chunks(BATCH) {
            let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
            batch.iter_mut().zip(chunk).for_each(|(d, s)| *d = *s);
            for g in Generation::ALL {
                let portable = verdicts(&batch, g, Kernel::Portable, &mut work);
                for &k in &vector {
                    for ((raw, p), v) in batch.iter().zip(portable).zip(verdicts(&batch, g, k, &mut work)) {
                        if p != v {
                            differ += 1;
                            eprintln!("{g}: portable {p:?}, {} {v:?}: {raw:02x?}", k.name());
                        }
                        verdicts_seen[v as usize] += 1;
                    }
                }
            }
        }
        assert_eq!(differ, 0, "bundles judged differently by a vector kernel and the scalar one");
        assert!(verdicts_seen.iter().all(|&n| n > 1000), "verdicts seen: {verdicts_seen:?}");
    }

    /// Generated bundles that `pick` selects: most clean ones are proven
    /// clean by the fast path, and every byte of the body set to a few
    /// telling values gives the same findings on both paths.
    fn every_corruption_agrees(what: &str, pick: impl Fn(&Bundle) -> bool) {
        let (mut clean, mut proven, mut corrupted) = (0, 0, 0);
        for seed in 0..6000u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            let g = Generation::ALL[seed as usize % Generation::ALL.len()];
            let Ok(b) = smith::bundle(&mut u, g) else { continue };
            if !pick(&b) {
                continue;
            }
            let (fast, full) = both(&b, g);
            assert_eq!(fast, full);
            clean += usize::from(full.is_empty());
            proven += usize::from(super::verdict(&b, g) == super::Verdict::Clean);
            for at in 4..BUNDLE_BYTES {
                // As an address word's top byte: 0x22 an indirect PSUM address, 0x24 an indirect one outside memory.
                for v in [0x00, 0x01, 0x02, 0x03, 0x20, 0x22, 0x24, 0x40, 0x60, 0x7F, 0x80, 0xFF, b.encode()[at] ^ 1] {
                    let mut raw = b.encode();
                    raw[at] = v;
                    let c = Bundle::decode(&raw);
                    for g in Generation::ALL {
                        let (fast, full) = both(&c, g);
                        assert_eq!(fast, full, "{what}, {g}, byte {at} = {v:#04x}: {}", crate::text::disasm(&c));
                        corrupted += usize::from(!full.is_empty());
                    }
                }
            }
        }
        assert!(clean > 30 && corrupted > 1000, "{what}: {clean} clean, {corrupted} corrupted");
        assert!(proven * 10 > clean * 9, "{what}: fast path proved {proven} of {clean} clean bundles");
    }

    #[test]
    fn mx_operands_are_proven_clean_and_every_corruption_is_caught() {
        every_corruption_agrees("MX matmul", |b| b.kind() == crate::bundle::BodyKind::MatmulMx);
    }

    #[test]
    fn pool_and_branch_bands_are_proven_clean_and_every_corruption_is_caught() {
        every_corruption_agrees("Pool", |b| b.opcode() == super::band::POOL_OPCODE);
        every_corruption_agrees("Branch", |b| b.kind() == crate::bundle::BodyKind::Branch);
    }

    #[test]
    fn nums_read_as_lanes() -> Result<(), &'static str> {
        use super::{has_zero_lane, NumsPlan, Planned, Raw};
        let mut raw = [0xFFu8; BUNDLE_BYTES];
        for ((at, n), g) in [(0, 4), (10, 3), (57, 2), (62, 1), (56, 4), (33, 1), (7, 1)].into_iter().zip(Generation::ALL.into_iter().cycle()) {
            let p = NumsPlan::new(at, n).ok_or("no plan")?;
            // The copy of the lanes' masks the kernel reads, each generation's in turn.
            let lanes = |raw: &[u8; BUNDLE_BYTES]| p.lanes(Raw(raw), &Planned::get(g).below_lanes);
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
    fn gathered_word_table_is_the_register_and_dead_rule() {
        use super::{GATHERED_MUST_BE_CLEAR, REGISTER_MUST_BE_CLEAR};
        use crate::addr4::{MODE_DEAD, MODE_MASK, REGISTER_BIT};
        let words = props::seeded_bytes(0x6a7e, 4 * 50_000);
        let special = [0, REGISTER_BIT, MODE_DEAD, MODE_DEAD | 1, REGISTER_BIT | 0x3F, REGISTER_BIT | 0x40, u32::MAX];
        let sampled = words.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        for g in special.into_iter().chain(sampled) {
            let rule = if g & REGISTER_BIT != 0 { g & REGISTER_MUST_BE_CLEAR == 0 } else { g & MODE_MASK != MODE_DEAD };
            let wide = usize::from(super::GATHERED_WIDE);
            assert_eq!(g & GATHERED_MUST_BE_CLEAR[wide + (g >> 29) as usize] == 0, rule, "{g:#010x}");
            assert_eq!(GATHERED_MUST_BE_CLEAR[(g >> 29) as usize], 0, "a narrow slot checks nothing");
        }
    }

    #[test]
    fn unknown_and_unavailable_opcodes_are_never_judged_here() {
        use super::{verdict_raw, Verdict};
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
                    assert_eq!(verdict_raw(&raw, g), Verdict::Unknown, "{g}: opcode {byte:#04x}, length {len:#04x}");
                    seen += 1;
                }
            }
        }
        assert!(seen > 3 * 3 * 100, "only {seen} headers");
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

    /// A kernel the process does not run is refused with the reason: hidden,
    /// or missing from the CPU (which only a CPU without it shows end to end).
    #[test]
    fn a_refused_kernel_says_why() {
        use super::Kernel;
        assert_eq!(
            Kernel::refused(Kernel::Avx512, true, "portable"),
            "TPB_ISA_KERNEL=avx512: hidden by TPB_ISA_HIDE_KERNELS (this process runs: portable)"
        );
        assert_eq!(
            Kernel::refused(Kernel::Avx512, false, "portable"),
            "TPB_ISA_KERNEL=avx512: this CPU lacks the instructions of the avx512 kernel (it runs: portable)"
        );
    }

    /// [`super::ENV_HIDE`] is read once per process: each case runs in a child
    /// run of this test binary (this test alone), which checks it.
    #[test]
    fn hidden_kernels_are_missing_for_the_whole_process() {
        use super::{Kernel, ENV_HIDE, ENV_KERNEL};
        const CHILD: &str = "TPB_ISA_TEST_HIDE_CHILD";
        if let Some(case) = std::env::var_os(CHILD) {
            let named = |k: Kernel| k.label().to_string();
            match case.to_str() {
                // As on a CPU without AVX-512: only the portable kernel runs,
                // whatever is asked for, and the verdicts are the same.
                Some("none") => {
                    assert_eq!(Kernel::available_kernels(), [Kernel::Portable]);
                    assert_eq!([Kernel::Auto, Kernel::Avx512].map(Kernel::runs), [Kernel::Portable; 2]);
                    assert_eq!(Kernel::from_env(), Ok(Kernel::Auto));
                    let (bytes, g) = (props::seeded_bytes(7, 1 << 14), Generation::V3);
                    let stream: Vec<u8> = (0..64u64).flat_map(|s| props::seeded_bytes(s, 64)).chain(bytes).collect();
                    let run = |k| {
                        let mut seen = Vec::new();
                        crate::validate::decode_stream_with(k, &stream, g, |i, _, f| seen.push((i, f.to_vec())));
                        seen
                    };
                    assert!(run(Kernel::Portable).iter().any(|(_, f)| !f.is_empty()));
                    assert_eq!(run(Kernel::Avx512), run(Kernel::Portable));
                }
                // Named, a hidden kernel is refused as a missing one is, saying why.
                Some("named") => {
                    assert!(!Kernel::available_kernels().contains(&Kernel::Avx512));
                    let Err(e) = Kernel::from_env() else { panic!("a hidden kernel was accepted") };
                    assert!(e.starts_with(&format!("{ENV_KERNEL}=avx512: hidden by {ENV_HIDE} (this process runs: ")), "{e}");
                    assert!(e.contains(&named(Kernel::Portable)) && !e.contains("avx512)"), "{e}");
                }
                _ => {
                    let hide = std::env::var(ENV_HIDE).unwrap_or_default();
                    let Err(e) = Kernel::from_env() else { panic!("{ENV_HIDE}={hide:?} was accepted") };
                    assert!(e.contains("is not a kernel that can be hidden"), "{e}");
                }
            }
            return;
        }
        let this = module_path!().split_once("::").map_or("", |(_, path)| path).to_owned() + "::hidden_kernels_are_missing_for_the_whole_process";
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("this test binary: {e}"));
        // `avx2` named a kernel once (removed: slower than the portable one on every CPU tried).
        let cases: [(&str, &str, Option<&str>); 5] = [
            ("none", "avx512", None),
            ("named", "avx512", Some("avx512")),
            ("bad", "avx512,sse", None),
            ("bad", "portable", None),
            ("bad", "avx512,avx2", None),
        ];
        for (case, hide, kernel) in cases {
            let mut c = std::process::Command::new(&exe);
            c.args(["--exact", &this, "--test-threads", "1"]).env(CHILD, case).env(ENV_HIDE, hide).env_remove(ENV_KERNEL);
            if let Some(k) = kernel {
                c.env(ENV_KERNEL, k);
            }
            let (ok, out, err) = child(&mut c);
            assert!(ok, "{case} {hide}: {out}{err}");
            assert!(out.contains("1 passed"), "{case}: the child ran no test: {out}");
        }
    }

    /// [`super::auto`] reads [`super::ENV_KERNEL`] once per process, so each
    /// kernel is named to a child run of this test binary (this test alone),
    /// which checks that `Auto` runs the one named: on a CPU with several, a
    /// name that went unheeded would run the fastest instead.
    #[test]
    fn auto_runs_the_kernel_the_environment_names() {
        use super::{Kernel, ENV_KERNEL};
        const CHILD: &str = "TPB_ISA_TEST_KERNEL_CHILD";
        if std::env::var_os(CHILD).is_some() {
            let named = std::env::var(ENV_KERNEL).ok().and_then(|n| Kernel::from_label(&n));
            assert_eq!(Kernel::from_env().ok(), named, "{ENV_KERNEL} = {:?}", std::env::var(ENV_KERNEL));
            // Named `auto`, the fastest this CPU runs, as timed: every kernel it runs was timed.
            let timed = Kernel::auto_timings();
            let want = named.filter(|&k| k != Kernel::Auto).unwrap_or_else(|| super::auto::fastest(timed));
            assert_eq!(Kernel::Auto.runs(), want, "{ENV_KERNEL} = {:?}", std::env::var(ENV_KERNEL));
            let timed_kernels: Vec<Kernel> = timed.iter().map(|&(k, _)| k).collect();
            let want_timed = if named.is_some_and(|k| k != Kernel::Auto) { Vec::new() } else { Kernel::available_kernels() };
            assert_eq!(timed_kernels, want_timed, "{ENV_KERNEL} = {:?}", std::env::var(ENV_KERNEL));
            return;
        }
        let this = module_path!().split_once("::").map_or("", |(_, path)| path).to_owned() + "::auto_runs_the_kernel_the_environment_names";
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("this test binary: {e}"));
        for k in [Kernel::Auto].into_iter().chain(Kernel::available_kernels()) {
            let (ok, out, err) =
                child(std::process::Command::new(&exe).args(["--exact", &this, "--test-threads", "1"]).env(CHILD, "1").env(ENV_KERNEL, k.label()));
            assert!(ok, "{}: {out}{err}", k.label());
            assert!(out.contains("1 passed"), "{}: the child ran no test: {out}", k.label());
        }
    }

    /// More than a pipe buffer (64 KiB) on each stream comes back whole: a
    /// helper that read only after the child exited would leave it blocked on
    /// a full pipe, and `child` would fail it at the minute's limit.
    #[cfg(unix)]
    #[test]
    fn a_child_s_long_output_is_read_while_it_runs() {
        let (ok, out, err) = child(std::process::Command::new("sh").args(["-c", "yes out | head -c 300000; yes err | head -c 200000 >&2"]));
        assert!(ok);
        assert_eq!((out.len(), err.len()), (300_000, 200_000));
        assert!(out.starts_with("out\nout\n") && err.starts_with("err\n"), "{:?} {:?}", &out[..8], &err[..8]);
    }

    /// Runs a child test process: whether it passed, its stdout and stderr. A
    /// child that has not finished in a minute is killed and fails the test (a
    /// kernel choice that waits on itself hangs rather than fails). Both pipes
    /// are drained on threads while it runs, so a child writing more than a
    /// pipe buffer is not stalled into that minute.
    fn child(c: &mut std::process::Command) -> (bool, String, String) {
        use std::io::Read;
        use wait_timeout::ChildExt;
        fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
            std::thread::spawn(move || {
                let mut text = String::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_string(&mut text);
                }
                text
            })
        }
        let mut p = c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let (out, err) = (drain(p.stdout.take()), drain(p.stderr.take()));
        let status = p.wait_timeout(std::time::Duration::from_secs(60)).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let Some(status) = status else {
            let _ = p.kill();
            let _ = p.wait();
            panic!("{c:?}: no answer in 60 s");
        };
        let text = |h: std::thread::JoinHandle<String>| h.join().unwrap_or_else(|_| panic!("{c:?}: a pipe reader panicked"));
        (status.success(), text(out), text(err))
    }
}
