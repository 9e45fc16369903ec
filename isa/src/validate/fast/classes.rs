//! What a slot's bytes mean to the rules, as classes the fast path looks
//! up: a dtype's class (valid here, allowed at a PSUM address, its
//! alignment), an address word's class (by its mode and region, per kind
//! of slot), and what a slot needs for each pair, as masks. Each is
//! derived from the dtype table, [`crate::addr4`] and the layouts.

use crate::addr4::{
    Addr4, Region, MODE_ACTIVE, MODE_DEAD, MODE_INDIRECT, MODE_MASK, PSUM_BASE, PSUM_SPAN, REGID_LIMIT, REGISTER_BIT, REGISTER_RESERVED_MASK,
};
use crate::dtype::{self, BF16};
use crate::generation::Generation;

/// Register-mode bits that must be clear: the reserved bits and the id bits
/// at or above [`REGID_LIMIT`] (a power of two, so ids below it fit a mask).
pub(super) const REGISTER_MUST_BE_CLEAR: u32 = REGISTER_RESERVED_MASK | (0xFF & !(REGID_LIMIT - 1));
const _: () = assert!(REGID_LIMIT.is_power_of_two() && REGID_LIMIT <= 0x100 && REGISTER_RESERVED_MASK & 0xFF == 0);

/// A dtype planned for one generation and one kind of slot, as a class
/// that fits [`DTYPE_CLASS_BITS`] bits: [`dclass::VALID`] when it is a
/// tag of this generation, [`dclass::PSUM_OK`] when the slot may hold it
/// at a PSUM address, and the log2 of its alignment.
pub(super) mod dclass {
    pub const VALID: u8 = 1;
    pub const PSUM_OK: u8 = 2;
    pub const ALIGN_SHIFT: u8 = 2;
    /// Alignments up to 8 bytes are expressible (every dtype's is).
    pub const MAX_ALIGN_LOG2: u32 = 3;
    /// The bits of a class that hold its alignment.
    pub const ALIGN_MASK: u8 = 0b11 << ALIGN_SHIFT;
    const _: () = assert!(MAX_ALIGN_LOG2 <= 0b11);

    /// The address bits a dtype of class `d` needs clear (its alignment less one).
    #[inline(always)]
    pub fn align_clear(d: u8) -> u32 {
        (1u32 << u32::from(d >> ALIGN_SHIFT).min(MAX_ALIGN_LOG2)) - 1
    }
}
pub(super) const DTYPE_CLASS_BITS: usize = 4;
/// The dtype table has a section of 256 entries per slot kind and way of
/// reading the tag, indexed by the raw byte that holds the tag (so reading
/// a nibble needs no shift or mask), then one for a slot whose layout has
/// no dtype field (every entry passes every dtype rule).
pub(super) const SECTION: usize = 0x100;
/// How a slot's tag sits in its byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TagRead {
    LowNibble,
    HighNibble,
    Byte,
}
pub(super) const TAG_READS: [TagRead; 3] = [TagRead::LowNibble, TagRead::HighNibble, TagRead::Byte];

impl TagRead {
    /// The shift and mask that read the tag from its byte.
    pub(super) fn shift_mask(self) -> (u32, u32) {
        match self {
            TagRead::LowNibble => (0, 0x0F),
            TagRead::HighNibble => (4, 0x0F),
            TagRead::Byte => (0, 0xFF),
        }
    }

    pub(super) fn tag(self, byte: u8) -> u8 {
        let (shift, mask) = self.shift_mask();
        ((u32::from(byte) >> shift) & mask) as u8
    }
}
/// What a slot accepts at a PSUM address: anything (it reads), a 4-byte
/// dtype (it writes), or a 4-byte dtype or bf16 (a matmul destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) enum PsumWrite {
    #[default]
    Reads,
    Writes,
    MatmulWrites,
}
pub(super) const PSUM_KINDS: [PsumWrite; 3] = [PsumWrite::Reads, PsumWrite::Writes, PsumWrite::MatmulWrites];

/// The sections of the mode table: a matmul destination (its address must
/// lie in PSUM) has its own, a slot too narrow to be read as INDIRECT16B
/// has its own (its gathered word is not checked), and an unused slot
/// needs nothing.
#[derive(Clone, Copy)]
pub(super) enum ModeSection {
    Operand,
    NarrowOperand,
    MatmulDst,
    NarrowMatmulDst,
    Unused,
}

impl ModeSection {
    pub(super) const ALL: [ModeSection; 5] =
        [ModeSection::Operand, ModeSection::NarrowOperand, ModeSection::MatmulDst, ModeSection::NarrowMatmulDst, ModeSection::Unused];
    pub(super) fn of(matmul_dst: bool, wide: bool) -> ModeSection {
        match (matmul_dst, wide) {
            (false, true) => ModeSection::Operand,
            (false, false) => ModeSection::NarrowOperand,
            (true, true) => ModeSection::MatmulDst,
            (true, false) => ModeSection::NarrowMatmulDst,
        }
    }
    pub(super) fn base(self) -> u16 {
        (self as u16) << (32 - MODE_KEY_SHIFT)
    }
}

/// The dtype table's section for a slot with no dtype field: after each PSUM
/// kind's tag readings.
const NO_FIELD_SECTION: usize = PSUM_KINDS.len() * TAG_READS.len();
/// Dtype entries per generation: every section, rounded up to a power of two
/// so a mask bounds an index.
pub(super) const DTYPE_ENTRIES: usize = dtype_entries();
/// [`DTYPE_ENTRIES`]: a function so `.cargo/mutants.toml` can name it (its
/// `+ 1` → `* 1` mutant rounds up to the same power of two).
const fn dtype_entries() -> usize {
    (NO_FIELD_SECTION + 1).next_power_of_two() * SECTION
}
/// Address-word keys: every value of the top `32 - MODE_KEY_SHIFT` bits.
pub(super) const MODE_KEYS: usize = 1 << (32 - MODE_KEY_SHIFT);
/// Mode-table entries: the sections, rounded up to a power of two.
pub(super) const MODE_ENTRIES: usize = ModeSection::ALL.len().next_power_of_two() * MODE_KEYS;
/// Need entries: every mode class with every dtype class.
pub(super) const NEEDS: usize = ModeClass::ALL.len().next_power_of_two() << DTYPE_CLASS_BITS;
/// [`SlotNeed`] entries: the needs for each count of lanes below a slot's nums (0..4).
pub(super) const SLOT_NEEDS: usize = 4 * NEEDS;

/// Where a slot's dtype entries start in a generation's table.
pub(super) fn dtype_base(read: Option<TagRead>, kind: PsumWrite) -> u16 {
    let k = PSUM_KINDS.iter().position(|&k| k == kind).unwrap_or(0);
    let section = match read {
        Some(r) => k * TAG_READS.len() + TAG_READS.iter().position(|&t| t == r).unwrap_or(0),
        None => NO_FIELD_SECTION,
    };
    u16::try_from(section * SECTION).unwrap_or(0)
}

/// A dtype's alignment as a class's alignment bits, if they can hold it: a
/// power of two up to 2^[`dclass::MAX_ALIGN_LOG2`] bytes (every dtype's is
/// today; a dtype whose is not takes the full checks).
fn align_bits(align: u32) -> Option<u8> {
    let log2 = align.trailing_zeros();
    let bits = u8::try_from(log2).ok().filter(|_| align.is_power_of_two() && log2 <= dclass::MAX_ALIGN_LOG2)?;
    Some(bits << dclass::ALIGN_SHIFT)
}

/// The class of one tag (`None`: the slot has no dtype field) for a slot
/// of one PSUM kind on one generation.
pub(super) fn dtype_class(tag: Option<u8>, kind: PsumWrite, g: Generation) -> u8 {
    let Some(tag) = tag else { return super::disjoint(dclass::VALID, dclass::PSUM_OK) };
    // Unknown tags, and any alignment the class cannot express, are never valid here.
    let Some((d, align)) = dtype::info(tag).and_then(|d| Some((d, align_bits(d.align)?))) else { return 0 };
    let psum_ok = match kind {
        PsumWrite::Reads => true,
        PsumWrite::Writes => d.psum_write,
        PsumWrite::MatmulWrites => d.psum_write || d.tag == BF16,
    };
    let valid = if d.since <= g { dclass::VALID } else { 0 };
    [valid, if psum_ok { dclass::PSUM_OK } else { 0 }].into_iter().fold(align, super::disjoint)
}

/// An address word's mode and region are decided by its top bits: the
/// register bit, the mode, the region bits and the PSUM window's high bits.
pub(super) const MODE_KEY_SHIFT: u32 = 22;
const _: () = assert!(PSUM_SPAN == (1 << MODE_KEY_SHIFT) - 1 && PSUM_BASE.is_multiple_of(1 << MODE_KEY_SHIFT));

/// How a slot's address word is checked, by its mode and region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum ModeClass {
    /// A static or active address in SBUF (or, for an operand, anywhere
    /// inside memory but PSUM): dtype, alignment and nums are checked.
    Plain,
    /// A static or active address in PSUM where the slot allows it: the
    /// dtype must also be one the slot may hold there.
    PlainPsum,
    /// An indirect address inside memory: a gather; the dtype and the
    /// gathered data word are checked, the nums are inert.
    Gather,
    /// The same in a slot too narrow to hold a gathered word.
    NarrowGather,
    /// A register: the dtype, the register bits and the nums are checked.
    Register,
    /// Always reported: the dead mode, an address outside memory, a
    /// matmul destination outside PSUM.
    Never,
    /// An unused slot: nothing is checked.
    Nothing,
}

impl ModeClass {
    pub(super) const ALL: [ModeClass; 7] = [
        ModeClass::Plain,
        ModeClass::PlainPsum,
        ModeClass::Gather,
        ModeClass::NarrowGather,
        ModeClass::Register,
        ModeClass::Never,
        ModeClass::Nothing,
    ];
}

/// A mode class as the mode table holds it: the first of its rows of needs
/// (one per dtype class), so the need's index is one OR.
pub(super) fn mode_row(class: ModeClass) -> u8 {
    (class as u8) << DTYPE_CLASS_BITS
}
const _: () = assert!((ModeClass::ALL.len() << DTYPE_CLASS_BITS) <= 0x100);

/// The class of an address word with top bits `key` in a slot of `section`.
pub(super) fn mode_class(key: u32, section: ModeSection) -> ModeClass {
    let (matmul_dst, wide) = match section {
        ModeSection::Operand => (false, true),
        ModeSection::NarrowOperand => (false, false),
        ModeSection::MatmulDst => (true, true),
        ModeSection::NarrowMatmulDst => (true, false),
        ModeSection::Unused => return ModeClass::Nothing,
    };
    let word = key << MODE_KEY_SHIFT;
    let region = Addr4::new(word).region();
    if word & REGISTER_BIT != 0 {
        return ModeClass::Register;
    }
    match word & MODE_MASK {
        MODE_DEAD => ModeClass::Never,
        MODE_INDIRECT if region == Region::Outside => ModeClass::Never,
        MODE_INDIRECT if wide => ModeClass::Gather,
        MODE_INDIRECT => ModeClass::NarrowGather,
        _ if region == Region::Outside || (matmul_dst && region != Region::Psum) => ModeClass::Never,
        _ if region == Region::Psum => ModeClass::PlainPsum,
        _ => ModeClass::Plain,
    }
}

/// What a slot needs, as masks, so the check is a few ANDs and ORs with no
/// branch: the address-word bits that must be clear, whether the nums and
/// the gathered word are checked, and whether it fails outright.
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
pub(super) struct Need {
    /// All ones when the nums are not checked (no lane reads as zero).
    pub(super) nums_off: u64,
    /// Address-word bits that must be clear: the alignment's, or a register's.
    pub(super) word_clear: u32,
    /// [`GATHERED_WIDE`] when the gathered data word is checked, else 0.
    pub(super) gathered_sel: u8,
    /// 1 when the slot is always reported.
    pub(super) fail: u8,
}

/// What a slot whose address word is of `class` and whose dtype is of class `d` needs.
pub(super) fn need(class: ModeClass, d: u8) -> Need {
    let valid = d & dclass::VALID != 0;
    let align_clear = dclass::align_clear(d);
    let checked = Need { nums_off: 0, word_clear: 0, gathered_sel: 0, fail: u8::from(!valid) };
    let inert = u64::MAX;
    match class {
        ModeClass::Plain => Need { word_clear: align_clear, ..checked },
        ModeClass::PlainPsum => Need { word_clear: align_clear, fail: u8::from(!valid || d & dclass::PSUM_OK == 0), ..checked },
        ModeClass::Gather => Need { nums_off: inert, gathered_sel: GATHERED_WIDE, ..checked },
        ModeClass::NarrowGather => Need { nums_off: inert, ..checked },
        ModeClass::Register => Need { word_clear: REGISTER_MUST_BE_CLEAR, ..checked },
        ModeClass::Never => Need { fail: 1, ..checked },
        ModeClass::Nothing => Need { nums_off: inert, ..Need::default() },
    }
}

/// [`Need::gathered_sel`] of a slot that checks its gathered word.
pub(super) const GATHERED_WIDE: u8 = 8;

/// A [`Need`] as the scalar kernel reads it, with the lanes below a slot's
/// nums folded in: two words, where a `Need` was four loads and the lanes
/// below the nums a fifth.
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
pub(super) struct SlotNeed {
    /// ORed into the slot's nums read: all ones where the nums are not
    /// checked, else the lanes below the nums.
    pub(super) nums_or: u64,
    /// [`Need::word_clear`], [`Need::fail`] at bit [`FAIL_SHIFT`], and
    /// [`Need::gathered_sel`] in the top nibble, so `clear >> SEL_SHIFT` is
    /// the gathered table's row with no mask.
    pub(super) clear: u64,
}
pub(super) const FAIL_SHIFT: u32 = 32;
pub(super) const SEL_SHIFT: u32 = 60;

// The gathered word's row fits the top nibble above the fail bit.
const _: () = assert!(GATHERED_WIDE < 16 && FAIL_SHIFT + 1 < SEL_SHIFT && SEL_SHIFT + 4 == 64);

/// The bits of a gathered data word that must be clear: by
/// [`Need::gathered_sel`] plus the word's top three bits. A slot that does
/// not check the word (not a gather, or too narrow) needs nothing; else a register's
/// reserved and out-of-range id bits, and for a dead address the mode bits
/// themselves (always set, so it always fails).
pub(super) const GATHERED_MUST_BE_CLEAR: [u32; 16] = {
    let mut t = [0u32; 16];
    t[GATHERED_WIDE as usize + 3] = MODE_MASK;
    let mut i = 4;
    while i < 8 {
        t[GATHERED_WIDE as usize + i] = REGISTER_MUST_BE_CLEAR;
        i += 1;
    }
    t
};

// `GATHERED_MUST_BE_CLEAR` is indexed by the gathered word's top three bits: the register bit over the mode.
const _: () = assert!(REGISTER_BIT == 1 << 31 && MODE_MASK == 3 << 29 && MODE_INDIRECT == 1 << 29 && MODE_ACTIVE == 2 << 29 && MODE_DEAD == 3 << 29);

#[cfg(test)]
mod tests {
    use super::{align_bits, dclass};

    #[test]
    fn an_alignment_has_class_bits_only_as_a_power_of_two_up_to_what_they_hold() {
        let most = 1u32 << dclass::MAX_ALIGN_LOG2;
        for (a, log2) in [(1, 0), (2, 1), (4, 2), (most, dclass::MAX_ALIGN_LOG2)] {
            assert_eq!(align_bits(a), u8::try_from(log2).ok().map(|b| b << dclass::ALIGN_SHIFT), "{a}");
        }
        for a in [0, 3, 6, 12, most * 2] {
            assert_eq!(align_bits(a), None, "{a}");
        }
        // Today's dtypes all fit, so none leaves the fast path for this.
        assert!(crate::dtype::DTYPES.iter().all(|d| align_bits(d.align).is_some()));
    }

    #[test]
    fn gathered_word_table_is_the_register_and_dead_rule() {
        use super::{GATHERED_MUST_BE_CLEAR, REGISTER_MUST_BE_CLEAR};
        use crate::addr4::{MODE_DEAD, MODE_MASK, REGISTER_BIT};
        let words = crate::props::seeded_bytes(0x6a7e, 4 * 50_000);
        let special = [0, REGISTER_BIT, MODE_DEAD, MODE_DEAD | 1, REGISTER_BIT | 0x3F, REGISTER_BIT | 0x40, u32::MAX];
        let sampled = words.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        for g in special.into_iter().chain(sampled) {
            let rule = if g & REGISTER_BIT != 0 { g & REGISTER_MUST_BE_CLEAR == 0 } else { g & MODE_MASK != MODE_DEAD };
            let wide = usize::from(super::GATHERED_WIDE);
            assert_eq!(g & GATHERED_MUST_BE_CLEAR[wide + (g >> 29) as usize] == 0, rule, "{g:#010x}");
            assert_eq!(GATHERED_MUST_BE_CLEAR[(g >> 29) as usize], 0, "a narrow slot checks nothing");
        }
    }
}
