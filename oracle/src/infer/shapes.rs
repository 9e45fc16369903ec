//! Recognisers for the shapes the spec already defines, read from `tpb_isa`
//! rather than restated: the ADDR4 word, the TENSOR/MEM_PATTERN descriptor
//! (ADDR4 + N i16 strides + N u16 nums), dtype tags and nibble-packed tag
//! pairs, the byte enumerations; plus NUL-padded ASCII names. Each recogniser
//! is a predicate that must hold on every bundle; the accumulators here are
//! fed one value per bundle and say at the end whether it held on all.

use super::stats::Values;
use crate::hist::Bounded;
use tpb_isa::addr4::{Addr4, Region, MODE_DEAD, MODE_MASK, REGID_LIMIT, REGISTER_RESERVED_MASK};
use tpb_isa::enums::{EnumTable, ALL};
use tpb_isa::layout::{Leaf, Prim};
use tpb_isa::{dtype, BodyKind, Confidence, Generation};

/// The form an ADDR4 value takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrForm {
    /// An address in SBUF (state buffer), with a live mode.
    Sbuf,
    /// An address in PSUM (partial-sum buffer), with a live mode.
    Psum,
    /// A register id.
    Register,
}

/// How a 32-bit value reads as an ADDR4 word (§2.2): in SBUF or PSUM with a
/// live mode, or in register form (register id below the limit, bits 8..30
/// zero); `None` for anything else (an address outside both, the dead mode).
pub fn addr4_form(word: u32) -> Option<AddrForm> {
    let a = Addr4::new(word);
    if a.is_register() {
        return (word & REGISTER_RESERVED_MASK == 0 && u32::from(a.regid()) < REGID_LIMIT).then_some(AddrForm::Register);
    }
    if word & MODE_MASK == MODE_DEAD {
        return None;
    }
    match a.region() {
        Region::Sbuf => Some(AddrForm::Sbuf),
        Region::Psum => Some(AddrForm::Psum),
        Region::Outside => None,
    }
}

/// Bit 24: an SBUF address using it is no mere small integer.
const HIGH_SBUF: u32 = 0x0100_0000;

/// One word offset read as ADDR4, over every bundle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Addr4Acc {
    /// Values that are no ADDR4 word.
    pub failed: u64,
    pub sbuf: u64,
    pub psum: u64,
    pub register: u64,
    /// Non-register values per mode nibble (`byte3 & 0x60` >> 5): static, indirect, active, dead.
    pub modes: [u64; 4],
    /// SBUF values with bit 24 set.
    pub high_sbuf: u64,
}

impl Addr4Acc {
    pub fn add(&mut self, word: u32) {
        match addr4_form(word) {
            None => self.failed += 1,
            Some(AddrForm::Register) => self.register += 1,
            Some(form) => {
                if form == AddrForm::Sbuf {
                    self.sbuf += 1;
                    self.high_sbuf += u64::from(word & HIGH_SBUF != 0);
                } else {
                    self.psum += 1;
                }
                self.modes[((word & MODE_MASK) >> 29) as usize] += 1;
            }
        }
    }

    /// ADDR4-like: every value in SBUF, PSUM or register form, and not constant zero.
    pub fn holds(&self, word: &Values) -> bool {
        self.failed == 0 && word.total() > 0 && !word.always_zero()
    }

    /// Some value reads as an address and as no small integer: in PSUM, in
    /// register form, with a non-static mode, or an SBUF address using bit 24.
    /// Without one, every value is just a u32 below 0x01000000, which any
    /// small number is.
    pub fn distinctive(&self) -> bool {
        self.psum + self.register + self.modes[1] + self.modes[2] + self.high_sbuf > 0
    }
}

/// The lowest body offset at which a body layout of the spec (CONFIRMED or
/// STRONG: none inferred from programs) places an ADDR4 word: 0x0C, before
/// which every family the spec lays out keeps its sync band. Read from the
/// layouts, so it follows the description.
pub fn first_spec_address() -> usize {
    static FIRST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *FIRST.get_or_init(|| lowest_stated_address(BodyKind::ALL.iter().flat_map(|k| k.layout().leaves())).unwrap_or(super::BODY.start))
}

/// The lowest offset of an ADDR4 leaf the spec states (an INFERRED leaf is a
/// guess from programs, and a guess must not move the sync band).
pub fn lowest_stated_address(leaves: impl IntoIterator<Item = Leaf>) -> Option<usize> {
    leaves.into_iter().filter(|l| l.prim == Prim::Addr4 && l.prov.confidence != Confidence::Inferred).map(|l| l.offset).min()
}

/// A num above this is not "small" (element counts of real descriptors are mostly far below).
pub const NUM_SMALL: u32 = 0x2000;

/// A num array: every value of every element ≥ 1, and at least three quarters of all values at most [`NUM_SMALL`].
pub fn nums_hold(nums: &[&Values]) -> bool {
    if nums.is_empty() || nums.iter().any(|v| v.total() == 0 || v.min() < 1) {
        return false;
    }
    let total: u64 = nums.iter().map(|v| v.total()).sum();
    let small: u64 = nums.iter().map(|v| v.at_most(NUM_SMALL)).sum();
    small * 4 >= total * 3
}

/// The offsets of an N-dim pattern at `at`: (addr, first stride, first num, size),
/// sized by the spec's 4 + 4N rule.
pub fn pattern_offsets(at: usize, dims: usize) -> (usize, usize, usize, usize) {
    (at, at + 4, at + 4 + 2 * dims, tpb_isa::descriptor::pattern_size(dims))
}

/// A wire dtype tag the generation encodes.
pub fn dtype_tag(v: u8, g: Generation) -> bool {
    dtype::info(v).is_some_and(|d| d.since <= g)
}

/// Two 4-bit wire dtype tags (low nibble, high nibble) the generation encodes.
pub fn dtype_pair(v: u8, g: Generation) -> bool {
    dtype_tag(v & 0x0F, g) && dtype_tag(v >> 4, g)
}

/// The name of a dtype tag, or of a nibble pair as `low/high`.
pub fn dtype_name(v: u8) -> String {
    dtype::info(v).map_or_else(|| format!("{v:#04x}"), |d| d.name.to_string())
}

pub fn dtype_pair_name(v: u8) -> String {
    format!("{}/{}", dtype_name(v & 0x0F), dtype_name(v >> 4))
}

/// The spec's byte enumerations listing every one of `values`.
pub fn enum_tables(values: &[u8]) -> Vec<&'static EnumTable> {
    ALL.iter().copied().filter(|t| !values.is_empty() && values.iter().all(|&v| t.contains(v))).collect()
}

/// Distinct strings counted per ASCII candidate.
const MAX_STRINGS: usize = 256;

/// A NUL-padded ASCII string starting at one offset: per bundle, a run of
/// printable characters (0x20..=0x7E) then NULs. It holds as a field of
/// `size` bytes when every bundle's run fits and is followed by NULs to the
/// end of the field, and every run has at least two characters (one run at
/// least four), so a stray printable byte is no string.
#[derive(Clone, Debug)]
pub struct AsciiAcc {
    pub start: usize,
    min_len: usize,
    max_len: usize,
    /// Smallest run + NUL padding: the field cannot be longer.
    min_room: usize,
    strings: Bounded<Box<[u8]>, MAX_STRINGS>,
}

impl AsciiAcc {
    pub fn new(start: usize) -> AsciiAcc {
        AsciiAcc { start, min_len: usize::MAX, max_len: 0, min_room: usize::MAX, strings: Bounded::default() }
    }

    pub fn add(&mut self, raw: &[u8]) {
        if self.min_len < 2 {
            return; // failed already
        }
        let tail = raw.get(self.start..).unwrap_or(&[]);
        let len = tail.iter().take_while(|b| (0x20..=0x7E).contains(*b)).count();
        let nuls = tail.iter().skip(len).take_while(|&&b| b == 0).count();
        self.min_len = self.min_len.min(len);
        self.max_len = self.max_len.max(len);
        self.min_room = self.min_room.min(len + nuls);
        self.strings.add(&tail[..len], 1);
    }

    /// The field's size when it holds on every bundle: the longest string rounded
    /// up to a multiple of 4 when the padding allows.
    pub fn size(&self) -> Option<usize> {
        if self.min_len < 2 || self.min_len == usize::MAX || self.max_len < 4 || self.max_len > self.min_room {
            return None;
        }
        let rounded = self.max_len.next_multiple_of(4);
        Some(if rounded <= self.min_room { rounded } else { self.max_len })
    }

    /// The most frequent strings (by count, then text) and the count of all others.
    pub fn top(&self, n: usize) -> (Vec<(String, u64)>, u64) {
        // Printable ASCII only: byte order is text order.
        let (top, other) = self.strings.top(n);
        (top.into_iter().map(|(k, c)| (String::from_utf8_lossy(k).into_owned(), c)).collect(), other)
    }

    pub fn distinct(&self) -> usize {
        self.strings.distinct()
    }

    /// Whether some strings were only counted: more distinct ones than are tracked.
    pub fn capped(&self) -> bool {
        self.strings.capped()
    }
}
