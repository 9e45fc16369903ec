//! The clean-bundle fast path. Almost every bundle of a stream passes every
//! rule; proving that straight off the 64 bytes, with offsets planned once
//! per opcode and no branches on field values (the only branch is on how
//! many slots the opcode has), costs a fraction of running the reporting
//! checks (whose branches on opcode, body kind, address mode and dims
//! mispredict on a mixed stream).
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
//! byte rules; nothing is restated here.

use super::band::{self, BYTE_RULES};
use crate::addr4::{
    Addr4, Region, MODE_ACTIVE, MODE_DEAD, MODE_INDIRECT, MODE_MASK, PSUM_BASE, PSUM_SPAN, REGID_LIMIT, REGISTER_BIT,
    REGISTER_RESERVED_MASK,
};
use crate::bundle::header::INST_WORD_LEN_SATURATE;
use crate::bundle::{Bundle, Header, BUNDLE_BYTES, INST_WORD_LEN};
use zerocopy::IntoBytes;
use crate::descriptor::{Indirect16b, Tensor2d, Tensor3d, Tensor4d};
use crate::dtype::{self, BF16};
use crate::generation::Generation;
use crate::layout::Layout;
use crate::opcode::{self, QUANTIZE_MX};
use crate::operands::{self, Role, SlotType};
use std::sync::OnceLock;

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

/// Register-mode bits that must be clear: the reserved bits and the id bits
/// at or above [`REGID_LIMIT`] (a power of two, so ids below it fit a mask).
const REGISTER_MUST_BE_CLEAR: u32 = REGISTER_RESERVED_MASK | (0xFF & !(REGID_LIMIT - 1));
const _: () = assert!(REGID_LIMIT.is_power_of_two() && REGID_LIMIT <= 0x100);

/// A dtype planned for one generation and one kind of slot, packed in a
/// byte: the conditions it satisfies by itself ([`cond::DTYPE`], and
/// [`cond::PSUM`] when the slot may hold it at a PSUM address), and in
/// [`ALIGN_BITS`] the address bits its alignment needs clear.
const ALIGN_BITS: u8 = 0x07;
const _: () = assert!(ALIGN_BITS & (cond::DTYPE | cond::PSUM) == 0);
/// The dtype table has a section of 256 entries per slot kind and way of
/// reading the tag, indexed by the raw byte that holds the tag (so reading
/// a nibble needs no shift or mask), then one for a slot whose layout has
/// no dtype field (every entry passes every dtype rule).
const SECTION: usize = 0x100;
/// How a slot's tag sits in its byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TagRead {
    LowNibble,
    HighNibble,
    Byte,
}
const TAG_READS: [TagRead; 3] = [TagRead::LowNibble, TagRead::HighNibble, TagRead::Byte];

impl TagRead {
    fn tag(self, byte: u8) -> u8 {
        match self {
            TagRead::LowNibble => byte & 0x0F,
            TagRead::HighNibble => byte >> 4,
            TagRead::Byte => byte,
        }
    }
}
/// What a slot accepts at a PSUM address: anything (it reads), a 4-byte
/// dtype (it writes), or a 4-byte dtype or bf16 (a matmul destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum PsumWrite {
    #[default]
    Reads,
    Writes,
    MatmulWrites,
}
const PSUM_KINDS: [PsumWrite; 3] = [PsumWrite::Reads, PsumWrite::Writes, PsumWrite::MatmulWrites];

/// One operand slot, planned for one generation: byte offsets into the
/// bundle and its role, as plain values so the check has no branches. A few
/// bytes, so one opcode's whole plan fits a cache line. A slot the opcode
/// does not use points at table entries that always pass.
#[derive(Clone, Copy, Default)]
struct SlotPlan {
    /// Offset of the ADDR4 that opens the slot.
    addr_at: u8,
    /// The byte that holds the tag; its entry is at `dtype_base + byte` in
    /// the generation's dtype table (the section of the slot's PSUM kind and
    /// tag reading, or the no-field section).
    dtype_at: u8,
    dtype_base: u16,
    /// Where and how to read all nums as one 64-bit word.
    nums: NumsPlan,
    /// The offset of the data word the slot holds when read as
    /// INDIRECT16B, and [`GATHERED_WIDE`] if it is wide enough to be read
    /// so (else 0: the word is not checked).
    gathered_at: u8,
    gathered_sel: u8,
    /// Where the slot's address-word entries start in the mode table: its
    /// [`ModeSection`] times [`MODE_KEYS`].
    mode_base: u16,
}

/// The sections of the mode table: a matmul destination (its address must
/// lie in PSUM) has its own, and an unused slot needs nothing.
#[derive(Clone, Copy)]
enum ModeSection {
    Operand,
    MatmulDst,
    Unused,
}

impl ModeSection {
    const ALL: [ModeSection; 3] = [ModeSection::Operand, ModeSection::MatmulDst, ModeSection::Unused];
    fn base(self) -> u16 {
        (self as u16) << (32 - MODE_KEY_SHIFT)
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
    fn lanes(self, raw: Raw) -> u64 {
        raw.dword(self.read_at) | BELOW_LANES[usize::from(self.below) & (MAX_NUMS - 1)]
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

/// One opcode on one generation, planned: one cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Plan {
    /// The header words (bytes 0..4, little-endian) that pass every header
    /// check: the opcode with length 0x10 and zero reserved bits, and the
    /// SATURATE length where that is allowed (else the first again). An
    /// opcode the fast path does not decide here (unknown, unavailable, MX
    /// bodies) accepts no word: both carry another opcode byte.
    header: [u32; 2],
    /// Whether the band is byte rules only (else it always runs).
    band_fast: bool,
    /// How many of `band` the opcode's band has on this generation (they come first).
    band_used: u8,
    /// How many of `slots` the opcode uses (they come first). Only those
    /// are checked: two thirds of the opcodes have none and most others
    /// one or two, and skipping the work saves more than the mispredicted
    /// loop exits cost on a mixed stream.
    used: u8,
    /// The slots, then one never used: a power of two, so a work entry of
    /// [`verdicts`] names one under a mask.
    slots: [SlotPlan; SLOT_ENTRIES],
    /// The band's byte rules, then unused ones (the set of all values).
    band: [BandTest; BAND_ENTRIES],
}
const _: () = assert!(std::mem::size_of::<Plan>() == 64);

/// Tables are fixed-size arrays indexed under a mask, so no lookup needs a
/// bounds check or a branch.
struct Tables {
    /// By generation index, then opcode byte.
    plans: [Box<[Plan; 0x100]>; 3],
    /// By generation index, then [`SlotPlan::dtype_base`] plus the tag's byte.
    dtypes: [Box<[u8; DTYPE_ENTRIES]>; 3],
    /// The conditions an address word still needs: by [`SlotPlan::mode_base`]
    /// (the slot's [`ModeSection`]), then by the word's top bits
    /// ([`MODE_KEY_SHIFT`]); the spare section is never used.
    modes: Box<[u8; MODE_ENTRIES]>,
    /// Whether each byte rule allows each value (1 or 0), by rule then
    /// value; the spare rules allow every value.
    allowed: Box<[u8; SETS * 0x100]>,
}

/// Dtype entries per generation: each PSUM kind's tags, then the no-field entries.
const DTYPE_ENTRIES: usize = (PSUM_KINDS.len() * TAG_READS.len() + 1).next_power_of_two() * SECTION;
/// Address-word keys: every value of the top `32 - MODE_KEY_SHIFT` bits.
const MODE_KEYS: usize = 1 << (32 - MODE_KEY_SHIFT);
/// Mode-table entries: the sections, rounded up to a power of two.
const MODE_ENTRIES: usize = ModeSection::ALL.len().next_power_of_two() * MODE_KEYS;
/// Byte-rule sets, rounded up to a power of two; the spare ones allow every value.
const SETS: usize = 16;
const _: () = assert!(BYTE_RULES.len() < SETS);

/// `v` as a fixed-size box (the lengths are constants, so this cannot fail).
fn boxed<T: Copy + Default, const N: usize>(v: Vec<T>) -> Box<[T; N]> {
    let mut b = Box::new([T::default(); N]);
    b.iter_mut().zip(v).for_each(|(slot, x)| *slot = x);
    b
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let allows = |set: usize, v: u8| BYTE_RULES.get(set).is_none_or(|r| (r.allows)(v));
        let allowed = (0..SETS).flat_map(|set| (0..=u8::MAX).map(move |v| u8::from(allows(set, v))));
        Tables {
            plans: Generation::ALL.map(|g| boxed((0..=u8::MAX).map(|op| plan(op, g)).collect())),
            dtypes: Generation::ALL.map(|g| {
                let sections = PSUM_KINDS.iter().flat_map(|&k| TAG_READS.iter().map(move |&r| (k, r)));
                let tagged = sections.flat_map(|(k, r)| (0..=u8::MAX).map(move |byte| dtype_entry(Some(r.tag(byte)), k, g)));
                boxed(tagged.chain((0..SECTION).map(|_| dtype_entry(None, PsumWrite::Reads, g))).collect())
            }),
            modes: boxed(ModeSection::ALL.iter().flat_map(|&m| (0..MODE_KEYS as u32).map(move |key| mode_entry(key, m))).collect()),
            allowed: boxed(allowed.collect()),
        }
    })
}

/// Where a slot's dtype entries start in a generation's table.
fn dtype_base(read: Option<TagRead>, kind: PsumWrite) -> u16 {
    let k = PSUM_KINDS.iter().position(|&k| k == kind).unwrap_or(0);
    let section = match read {
        Some(r) => k * TAG_READS.len() + TAG_READS.iter().position(|&t| t == r).unwrap_or(0),
        None => PSUM_KINDS.len() * TAG_READS.len(),
    };
    u16::try_from(section * SECTION).unwrap_or(0)
}

/// The entry of one tag (`None`: the slot has no dtype field) for a slot
/// of one PSUM kind on one generation.
fn dtype_entry(tag: Option<u8>, kind: PsumWrite, g: Generation) -> u8 {
    let Some(tag) = tag else { return cond::DTYPE | cond::PSUM };
    match dtype::info(tag) {
        Some(d) if d.align.is_power_of_two() && d.align - 1 <= u32::from(ALIGN_BITS) => {
            let psum_ok = match kind {
                PsumWrite::Reads => true,
                PsumWrite::Writes => d.psum_write,
                PsumWrite::MatmulWrites => d.psum_write || d.tag == BF16,
            };
            let conds = if d.since <= g { cond::DTYPE } else { 0 } | if psum_ok { cond::PSUM } else { 0 };
            u8::try_from(d.align - 1).unwrap_or(ALIGN_BITS) | conds
        }
        // Unknown tags, and any alignment the packing cannot express, never pass here.
        _ => 0,
    }
}

/// An address word's mode and region are decided by its top bits: the
/// register bit, the mode, the region bits and the PSUM window's high bits.
const MODE_KEY_SHIFT: u32 = 22;
const _: () = assert!(PSUM_SPAN == (1 << MODE_KEY_SHIFT) - 1 && PSUM_BASE.is_multiple_of(1 << MODE_KEY_SHIFT));

/// The conditions a word with top bits `key` still needs in a slot: the
/// mode's required conditions, less those its region already decides
/// (what is left fits a byte: the region conditions are always decided).
fn mode_entry(key: u32, section: ModeSection) -> u8 {
    let matmul_dst = match section {
        ModeSection::Operand => false,
        ModeSection::MatmulDst => true,
        ModeSection::Unused => return 0,
    };
    let a = Addr4::new(key << MODE_KEY_SHIFT);
    let (psum, outside) = (a.region() == Region::Psum, a.region() == Region::Outside);
    let required = cond::REQUIRED[(key >> (29 - MODE_KEY_SHIFT)) as usize & 7];
    let decided = |on: bool, c: u16| if on { c } else { 0 };
    let holds = decided(!outside, cond::INSIDE) | decided(if matmul_dst { psum } else { !outside }, cond::REGION) | decided(!psum, cond::PSUM.into());
    let fails = (cond::INSIDE | cond::REGION) & !holds;
    if required & fails != 0 {
        cond::NEVER
    } else {
        u8::try_from(required & !holds).unwrap_or(cond::NEVER)
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
    let rules = band::placed_rules(op.body);
    let unused = SlotPlan { dtype_base: dtype_base(None, PsumWrite::Reads), mode_base: ModeSection::Unused.base(), ..SlotPlan::default() };
    let mut fast = op.available(g) && placed.len() <= MAX_SLOTS;
    let mut p = Plan { band_fast: band::only_byte_rules(op), slots: [unused; SLOT_ENTRIES], ..Plan::default() };
    // A band test that always passes: the set of all values.
    p.band = [BandTest { at: 0, set: u8::try_from(BYTE_RULES.len()).unwrap_or(u8::MAX) }; BAND_ENTRIES];
    let live_rules = rules.iter().filter(|r| BYTE_RULES.get(r.rule).is_some_and(|b| b.on.contains(&g)));
    for (n, r) in live_rules.enumerate() {
        match (p.band.get_mut(n).filter(|_| n < MAX_BAND), u8::try_from(r.rule)) {
            (Some(t), Ok(set)) if r.at < BUNDLE_BYTES => {
                *t = BandTest { at: offset(r.at), set };
                p.band_used += 1;
            }
            _ => p.band_fast = false,
        }
    }
    p.used = u8::try_from(placed.len().min(MAX_SLOTS)).unwrap_or(0);
    for (sp, pl) in p.slots.iter_mut().zip(placed) {
        let slot = pl.slot;
        let SlotType::Pattern(dims) = slot.ty else {
            fast = false;
            continue;
        };
        let view = pattern_layout(dims);
        let (Some(addr), Some(num)) = (view.field_offset("addr"), view.field_offset("num")) else {
            fast = false;
            continue;
        };
        let n = view.resolve("num").map_or(0, |(_, size)| size / 2);
        let dtype_at = pl.dtype_at[g.index()];
        // The full path reads nothing from a slot its pattern does not fit.
        let fits = view.size == slot.size() && pl.offset + view.size <= BUNDLE_BYTES;
        if n == 0 || n > MAX_NUMS || !fits || dtype_at.is_some_and(|o| o >= BUNDLE_BYTES) {
            fast = false;
            continue;
        }
        let Some(nums) = NumsPlan::new(pl.offset + num, n) else {
            fast = false;
            continue;
        };
        let read = dtype_at.map(|_| match slot.dtype {
            operands::DtypeRef::Nibble(_, 0) => TagRead::LowNibble,
            operands::DtypeRef::Nibble(_, _) => TagRead::HighNibble,
            _ => TagRead::Byte,
        });
        let gathered = Indirect16b::LAYOUT.field_offset("data").filter(|_| view.size >= Indirect16b::LAYOUT.size);
        let matmul_dst = slot.role == (Role::Dst { matmul: true });
        let kind = match (slot.is_dst(), matmul_dst) {
            (false, _) => PsumWrite::Reads,
            (true, false) => PsumWrite::Writes,
            (true, true) => PsumWrite::MatmulWrites,
        };
        *sp = SlotPlan {
            addr_at: offset(pl.offset + addr),
            dtype_at: offset(dtype_at.unwrap_or(0)),
            dtype_base: dtype_base(read, kind),
            nums,
            gathered_at: offset(pl.offset + gathered.unwrap_or(0)),
            gathered_sel: if gathered.is_some() { GATHERED_WIDE } else { 0 },
            mode_base: if matmul_dst { ModeSection::MatmulDst } else { ModeSection::Operand }.base(),
        };
    }
    p.header = header_words(byte, fast);
    // An opcode the fast path does not decide needs none of its slots read.
    if !fast {
        p.used = 0;
    }
    p
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
    /// The `N` bytes at `at`.
    #[inline(always)]
    fn bytes<const N: usize>(self, at: u8) -> [u8; N] {
        let at = usize::from(at).min(BUNDLE_BYTES - N);
        let mut w = [0u8; N];
        w.copy_from_slice(&self.0[at..at + N]);
        w
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

/// Whether any 16-bit lane of `v` is zero (exact; the classic SWAR test).
#[inline(always)]
fn has_zero_lane(v: u64) -> bool {
    const HIGH: u64 = 0x8000_8000_8000_8000;
    v.wrapping_sub(LANE_ONES) & !v & HIGH != 0
}

/// What the fast path proves about `bundle` on `g`.
#[inline]
pub(super) fn verdict(bundle: &Bundle, g: Generation) -> Verdict {
    match <&[u8; BUNDLE_BYTES]>::try_from(bundle.as_bytes()) {
        Ok(raw) => verdict_raw(raw, g),
        Err(_) => Verdict::Unknown,
    }
}

/// One generation's plans and dtype table, and the shared tables.
#[derive(Clone, Copy)]
struct Planned {
    plans: &'static [Plan; 0x100],
    dtypes: &'static [u8; DTYPE_ENTRIES],
    modes: &'static [u8; MODE_ENTRIES],
    allowed: &'static [u8; SETS * 0x100],
}

impl Planned {
    #[inline(always)]
    fn get(g: Generation) -> Planned {
        let t = tables();
        let i = match g {
            Generation::V2 => 0,
            Generation::V3 => 1,
            Generation::V4 => 2,
        };
        Planned { plans: &t.plans[i], dtypes: &t.dtypes[i], modes: &t.modes, allowed: &t.allowed }
    }

    /// The header test of one bundle, and whether its band can be decided
    /// here: [`HEAD_CLEAN`] and [`BAND_CLEAN`] bits.
    #[inline(always)]
    fn head(self, plan: &Plan, raw: Raw) -> u8 {
        let h = raw.word(0);
        let head_ok = (h == plan.header[0]) | (h == plan.header[1]);
        u8::from(head_ok) * HEAD_CLEAN | u8::from(plan.band_fast) * BAND_CLEAN
    }

    /// Whether the byte a band test reads is in its set.
    #[inline(always)]
    fn band_clean(self, raw: Raw, b: BandTest) -> bool {
        self.allowed[(usize::from(b.set) & (SETS - 1)) << 8 | usize::from(raw.byte(b.at))] != 0
    }

    #[inline(always)]
    fn slot_clean(self, raw: Raw, s: &SlotPlan) -> bool {
        slot_clean(raw, s, self.dtypes, self.modes)
    }
}

/// Bits of a bundle's state in [`verdicts`]: the header (and slots) pass,
/// the band passes.
const HEAD_CLEAN: u8 = 1;
const BAND_CLEAN: u8 = 2;

fn verdict_of(state: u8) -> Verdict {
    match state & (HEAD_CLEAN | BAND_CLEAN) {
        3 => Verdict::Clean,
        HEAD_CLEAN => Verdict::BandUnknown,
        _ => Verdict::Unknown,
    }
}

/// What the fast path proves about the bundle with wire bytes `raw` on `g`.
#[inline]
pub(super) fn verdict_raw(raw: &[u8; BUNDLE_BYTES], g: Generation) -> Verdict {
    let t = Planned::get(g);
    let raw = Raw(raw);
    let plan = &t.plans[usize::from(raw.0[0])];
    let mut state = t.head(plan, raw);
    for s in plan.slots.iter().take(usize::from(plan.used)) {
        state &= !u8::from(!t.slot_clean(raw, s));
    }
    for &b in plan.band.iter().take(usize::from(plan.band_used)) {
        state &= !(u8::from(!t.band_clean(raw, b)) * BAND_CLEAN);
    }
    verdict_of(state)
}

/// Bundles judged together by [`verdicts`].
pub(super) const BATCH: usize = 128;
/// A batch of bundles' wire bytes.
pub(super) type Batch = [[u8; BUNDLE_BYTES]; BATCH];
/// Work entries of a batch: at most [`MAX_SLOTS`] slots or [`MAX_BAND`]
/// band tests per bundle, plus room for the unused entries the last bundle
/// writes.
const SLOT_WORK: usize = MAX_SLOTS * BATCH + SLOT_ENTRIES;
const BAND_WORK: usize = MAX_BAND * BATCH + BAND_ENTRIES;

/// A work entry: the bundle's index in its batch, its opcode byte, and the
/// index of the slot or band test in the opcode's plan.
#[inline(always)]
fn entry(i: usize, op: u8) -> u32 {
    u32::try_from(i & (BATCH - 1)).unwrap_or(0) << 16 | u32::from(op) << 2
}

/// Appends `n` (at most `K`) work entries for the first of `K` items of a
/// plan, writing all `K` so the loop has no data-dependent exit.
#[inline(always)]
fn push<const K: usize, const W: usize>(work: &mut [u32; W], len: &mut usize, entry: u32, n: u8) {
    let at = (*len).min(W - K);
    for (k, w) in work[at..at + K].iter_mut().enumerate() {
        *w = entry | k as u32;
    }
    *len = at + usize::from(n).min(K);
}

/// [`verdict_raw`] of every bundle of a batch, in passes with no
/// data-dependent branch: the first tests each header and lists the slots
/// and band tests to run (always writing a plan's worth of entries,
/// keeping as many as the opcode has); the others run the listed ones.
/// Running each bundle's own in a loop mispredicts the loop exits on a
/// mixed stream about every other bundle, which costs more than the checks.
pub(super) fn verdicts(batch: &Batch, g: Generation) -> [Verdict; BATCH] {
    let t = Planned::get(g);
    let mut state = [0u8; BATCH];
    let (mut slots, mut bands) = ([0u32; SLOT_WORK], [0u32; BAND_WORK]);
    let (mut n_slots, mut n_bands) = (0usize, 0usize);
    for (i, (raw, st)) in batch.iter().zip(state.iter_mut()).enumerate() {
        let op = raw[0];
        let plan = &t.plans[usize::from(op)];
        *st = t.head(plan, Raw(raw));
        push::<MAX_SLOTS, SLOT_WORK>(&mut slots, &mut n_slots, entry(i, op), plan.used);
        push::<MAX_BAND, BAND_WORK>(&mut bands, &mut n_bands, entry(i, op), plan.band_used);
    }
    for &e in &slots[..n_slots.min(SLOT_WORK)] {
        let i = (e >> 16) as usize & (BATCH - 1);
        let slot = &t.plans[(e >> 2) as usize & 0xFF].slots[e as usize & (SLOT_ENTRIES - 1)];
        state[i] &= !u8::from(!t.slot_clean(Raw(&batch[i]), slot));
    }
    for &e in &bands[..n_bands.min(BAND_WORK)] {
        let i = (e >> 16) as usize & (BATCH - 1);
        let test = t.plans[(e >> 2) as usize & 0xFF].band[e as usize & (BAND_ENTRIES - 1)];
        state[i] &= !(u8::from(!t.band_clean(Raw(&batch[i]), test)) * BAND_CLEAN);
    }
    state.map(verdict_of)
}

/// Conditions of one slot, as bits; each address mode requires a subset.
/// The ones checked per bundle fit a byte; the region conditions are
/// decided with the mode table and never left in an entry.
mod cond {
    pub const NUMS: u8 = 1 << 0;
    pub const REGISTER: u8 = 1 << 1;
    pub const GATHERED: u8 = 1 << 2;
    pub const ALIGN: u8 = 1 << 3;
    pub const PSUM: u8 = 1 << 4;
    pub const DTYPE: u8 = 1 << 5;
    /// Never set: a mode that is always reported.
    pub const NEVER: u8 = 1 << 6;
    pub const INSIDE: u16 = 1 << 8;
    pub const REGION: u16 = 1 << 9;
    const PLAIN: u16 = (DTYPE | ALIGN | PSUM | NUMS) as u16 | REGION;
    const REG: u16 = (DTYPE | REGISTER | NUMS) as u16;
    /// By the address word's top three bits (register bit, then the mode):
    /// static and active addresses are plain, indirect is a gather, dead is
    /// always wrong; a register word's mode bits are reserved (REGISTER fails).
    pub const REQUIRED: [u16; 8] = [PLAIN, (DTYPE | GATHERED) as u16 | INSIDE, PLAIN, NEVER as u16, REG, REG, REG, REG];
}

/// [`SlotPlan::gathered_sel`] of a slot wide enough to hold a gathered word.
const GATHERED_WIDE: u8 = 8;

/// The bits of a gathered data word that must be clear: by
/// [`SlotPlan::gathered_sel`] plus the word's top three bits. A slot too
/// narrow to be read gathered checks nothing; otherwise a register's
/// reserved and out-of-range id bits, and for a dead address the mode bits
/// themselves (always set, so it always fails).
const GATHERED_MUST_BE_CLEAR: [u32; 16] = {
    let mut t = [0u32; 16];
    t[GATHERED_WIDE as usize + 3] = MODE_MASK;
    let mut i = 4;
    while i < 8 {
        t[GATHERED_WIDE as usize + i] = REGISTER_MUST_BE_CLEAR;
        i += 1;
    }
    t
};

// `REQUIRED` and `GATHERED_MUST_BE_CLEAR` are indexed by the word's top three bits: the register bit over the mode.
const _: () = assert!(
    REGISTER_BIT == 1 << 31 && MODE_MASK == 3 << 29 && MODE_INDIRECT == 1 << 29 && MODE_ACTIVE == 2 << 29 && MODE_DEAD == 3 << 29
);

/// The dtype check and the pattern rules of one slot, as straight-line
/// arithmetic: the address word's top bits select the conditions that
/// must hold, the dtype entry brings its own.
#[inline(always)]
fn slot_clean(raw: Raw, s: &SlotPlan, dtypes: &[u8; DTYPE_ENTRIES], modes: &[u8; MODE_ENTRIES]) -> bool {
    let d = dtypes[(usize::from(s.dtype_base) + usize::from(raw.byte(s.dtype_at))) & (DTYPE_ENTRIES - 1)];
    let w = raw.word(s.addr_at);
    let need = modes[(usize::from(s.mode_base) | (w >> MODE_KEY_SHIFT) as usize) & (MODE_ENTRIES - 1)];
    let g = raw.word(s.gathered_at);
    let g_ok = g & GATHERED_MUST_BE_CLEAR[(usize::from(s.gathered_sel) | (g >> 29) as usize) & 15] == 0;

    let bit = |on: bool, c: u8| if on { c } else { 0 };
    let good = (d & (cond::DTYPE | cond::PSUM))
        | bit(!has_zero_lane(s.nums.lanes(raw)), cond::NUMS)
        | bit(w & REGISTER_MUST_BE_CLEAR == 0, cond::REGISTER)
        | bit(g_ok, cond::GATHERED)
        | bit(w & u32::from(d & ALIGN_BITS) == 0, cond::ALIGN);
    need & !good == 0
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
                fast_taken += usize::from(super::verdict(&b, g) == super::Verdict::Clean);
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
    fn nums_read_as_lanes() -> Result<(), &'static str> {
        use super::{has_zero_lane, NumsPlan, Raw};
        let mut raw = [0xFFu8; BUNDLE_BYTES];
        for (at, n) in [(0, 4), (10, 3), (57, 2), (62, 1), (56, 4), (33, 1), (7, 1)] {
            let p = NumsPlan::new(at, n).ok_or("no plan")?;
            let lanes = |raw: &[u8; BUNDLE_BYTES]| p.lanes(Raw(raw));
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
        use super::{GATHERED_MUST_BE_CLEAR, MODE_DEAD, MODE_MASK, REGISTER_BIT, REGISTER_MUST_BE_CLEAR};
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
