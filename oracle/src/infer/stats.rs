//! Per-offset statistics of one opcode's bundle bodies: value histograms of
//! every byte (at most 256 values: exact) and of every aligned 16-bit and
//! 32-bit word (bounded as every histogram is, [`crate::hist`]: at most
//! [`MAX_TRACKED`] distinct values counted each, the rest summed as
//! untracked; minimum and maximum stay exact), and how often a
//! value steps by +1 from the previous bundle of the opcode in the same stream.

use crate::hist::Bounded;

pub use crate::hist::{MAX_TRACKED, TOP_VALUES};

/// The values one little-endian field of 1, 2 or 4 bytes took: a bounded
/// histogram ([`crate::hist`]) with an exact count, minimum and maximum.
#[derive(Clone, Debug)]
pub struct Values {
    /// Width in bytes (1, 2 or 4).
    pub width: usize,
    counts: Bounded<u32>,
    total: u64,
    min: u32,
    max: u32,
}

impl Values {
    /// No value yet, of `width` bytes.
    pub(crate) fn new(width: usize) -> Values {
        Values { width, counts: Bounded::default(), total: 0, min: u32::MAX, max: 0 }
    }

    /// Counts one bundle's value.
    pub(crate) fn add(&mut self, v: u32) {
        self.total += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.counts.add(&v, 1);
    }

    /// Occurrences counted, tracked or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Distinct values tracked (exact unless [`Values::capped`]).
    pub fn distinct(&self) -> usize {
        self.counts.distinct()
    }

    /// Whether values arrived past the cap (`distinct` is then a lower bound).
    pub fn capped(&self) -> bool {
        self.counts.capped()
    }

    /// Smallest value (exact); 0 when nothing was counted.
    pub fn min(&self) -> u32 {
        if self.total == 0 {
            0
        } else {
            self.min
        }
    }

    /// Largest value (exact).
    pub fn max(&self) -> u32 {
        self.max
    }

    /// One value on every occurrence (none when empty: `min` starts at
    /// `u32::MAX` and `max` at 0, which never meet).
    pub fn constant(&self) -> bool {
        self.min == self.max
    }

    /// Zero on every occurrence.
    pub fn always_zero(&self) -> bool {
        self.total > 0 && self.max == 0
    }

    /// More than one value.
    pub fn varies(&self) -> bool {
        self.total > 0 && self.min != self.max
    }

    /// The [`TOP_VALUES`] most frequent values (by count, then by value) and the count of all others.
    pub fn top(&self) -> (Vec<(u32, u64)>, u64) {
        self.top_n(TOP_VALUES)
    }

    /// The `n` most frequent values (by count, then by value) and the count of all others.
    pub(crate) fn top_n(&self, n: usize) -> (Vec<(u32, u64)>, u64) {
        let (top, other) = self.counts.top(n);
        (top.into_iter().map(|(&v, c)| (v, c)).collect(), other)
    }

    /// Every tracked value, in value order (all values unless [`Values::capped`]).
    pub fn tracked(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.counts.iter().map(|(&k, _)| k).collect();
        v.sort_unstable();
        v
    }

    /// Occurrences of values at most `bound` (exact only when not capped; untracked ones count as not).
    pub fn at_most(&self, bound: u32) -> u64 {
        self.counts.iter().filter(|(&k, _)| k <= bound).map(|(_, c)| c).sum()
    }
}

/// How often a field's value is the previous bundle's (same opcode, same stream) plus one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Steps {
    /// Pairs in which the value is the previous one plus one.
    pub plus_one: u64,
    /// Pairs of consecutive bundles seen.
    pub pairs: u64,
}

impl Steps {
    /// Counts one pair: the previous bundle's value, then this one's.
    pub(crate) fn add(&mut self, prev: u32, v: u32) {
        self.pairs += 1;
        self.plus_one += u64::from(prev.checked_add(1) == Some(v));
    }

    /// Steps by +1 between at least three quarters of the consecutive bundles (and at least two of them).
    pub fn counts_up(&self) -> bool {
        self.pairs >= 2 && self.plus_one * 4 >= self.pairs * 3
    }
}

/// A little-endian read of `width` bytes at `offset` (zero past the end).
pub fn read_le(raw: &[u8], offset: usize, width: usize) -> u32 {
    // `width` is 1, 2 or 4: the value fits the u32.
    raw.get(offset..offset + width).map_or(0, |b| tpb_isa::layout::le_u64(b) as u32)
}

/// A value as hex padded to its width: `0x05`, `0x0010`, `0x00000200`.
pub fn hex(v: u32, width: usize) -> String {
    format!("{v:#0w$x}", w = 2 + 2 * width)
}
