//! A bounded histogram of field values: the bytes of a field, counted.
//!
//! A value is the field's bytes read as one little-endian number (as the
//! errata's conditions read fields), printed as lowercase hex padded to the
//! field's width (`0x0a` for a byte, `0x00000200` for an address word).

use crate::hist::{self, Bounded};
use std::fmt::Write as _;

pub use crate::hist::{MAX_TRACKED, TOP_VALUES};

/// A field's values, bounded as every histogram is ([`crate::hist`]): at
/// most [`MAX_TRACKED`] distinct values of each width class (a field has
/// one width, so one class), the smallest ones, so histograms of any split
/// of the bundles merge into the histogram of all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hist {
    /// Values of at most 8 bytes, keyed by number (most fields; far cheaper than hashing slices).
    narrow: Bounded<(u64, u8)>,
    /// Wider values (padding byte arrays), keyed by their bytes.
    wide: Bounded<Box<[u8]>>,
    /// Narrow values counted by [`Hist::add_pending`] and how many times,
    /// not yet in `narrow` (a slot per value's hash; a count of 0 is an empty
    /// slot): a field holds few values in a stream, a count here is cheaper
    /// than an ordered-map lookup, and counts added at once are counts added
    /// one by one (a histogram depends on no order, [`crate::hist`]). Empty
    /// whenever the histogram is read ([`Hist::flush`]).
    pending: [((u64, u8), u64); PENDING],
}

/// Slots of [`Hist::pending`] (a power of two).
const PENDING: usize = 8;

impl Hist {
    pub fn add(&mut self, le: &[u8]) {
        self.add_n(le, 1);
    }

    pub fn add_n(&mut self, le: &[u8], n: u64) {
        match u8::try_from(le.len()) {
            Ok(width) if le.len() <= 8 => self.narrow.add(&(tpb_isa::layout::le_u64(le), width), n),
            _ => self.wide.add(le, n),
        }
    }

    /// Counts one value as [`Hist::add`] does; a narrow one waits in
    /// `Hist::pending` until a value of the same slot or [`Hist::flush`] adds it.
    pub fn add_pending(&mut self, le: &[u8]) {
        let Ok(width @ ..=8) = u8::try_from(le.len()) else { return self.wide.add(le, 1) };
        let key = (tpb_isa::layout::le_u64(le), width);
        let i = (key.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - PENDING.trailing_zeros())) as usize;
        let Some(slot) = self.pending.get_mut(i) else { return self.narrow.add(&key, 1) };
        if slot.1 > 0 && slot.0 == key {
            slot.1 += 1;
        } else {
            let (old, n) = std::mem::replace(slot, (key, 1));
            if n > 0 {
                self.narrow.add(&old, n);
            }
        }
    }

    /// Adds what `Hist::pending` holds; every reader expects it done.
    pub fn flush(&mut self) {
        for slot in &mut self.pending {
            let (k, n) = std::mem::take(slot);
            if n > 0 {
                self.narrow.add(&k, n);
            }
        }
    }

    /// Adds another histogram's counts (exact for any split: [`Bounded::merge`]).
    pub fn merge(&mut self, mut other: Hist) {
        self.flush();
        other.flush();
        self.narrow.merge(other.narrow);
        self.wide.merge(other.wide);
    }

    /// Every tracked value (little-endian bytes) with its count: narrow ones
    /// by number, then wide ones by bytes.
    pub fn tracked(&self) -> impl Iterator<Item = (Vec<u8>, u64)> + '_ {
        let narrow = self.narrow.iter().map(|(&(v, w), c)| (v.to_le_bytes().into_iter().take(usize::from(w)).collect(), c));
        narrow.chain(self.wide.iter().map(|(k, c)| (k.to_vec(), c)))
    }

    /// Occurrences of values past the cap.
    pub fn untracked(&self) -> u64 {
        self.narrow.untracked() + self.wide.untracked()
    }

    /// A histogram read back from its tracked values (little-endian bytes)
    /// and the occurrences past the cap; `None` when no histogram could hold
    /// them. A field has one width, so the untracked occurrences are of the
    /// class that is full (the narrow one, should both be).
    pub fn from_parts(tracked: Vec<(Vec<u8>, u64)>, untracked: u64) -> Option<Hist> {
        let (narrow, wide): (Vec<_>, Vec<_>) = tracked.into_iter().partition(|(v, _)| v.len() <= 8);
        let narrow_full = narrow.len() >= MAX_TRACKED;
        let narrow = narrow.into_iter().map(|(v, n)| ((tpb_isa::layout::le_u64(&v), v.len() as u8), n));
        let wide = wide.into_iter().map(|(v, n)| (v.into_boxed_slice(), n));
        let (a, b) = if narrow_full { (untracked, 0) } else { (0, untracked) };
        Some(Hist { narrow: Bounded::from_parts(narrow, a)?, wide: Bounded::from_parts(wide, b)?, pending: Default::default() })
    }

    /// Every occurrence counted, tracked or not.
    pub fn total(&self) -> u64 {
        self.narrow.total() + self.wide.total()
    }

    /// Distinct values tracked (exact unless [`Hist::capped`]).
    pub fn distinct(&self) -> usize {
        self.narrow.distinct() + self.wide.distinct()
    }

    /// Whether values arrived past the cap (then `distinct` is a lower bound).
    pub fn capped(&self) -> bool {
        self.narrow.capped() || self.wide.capped()
    }

    /// The [`TOP_VALUES`] most frequent values (by count, then by value) and the count of all others.
    pub fn top(&self) -> (Vec<(String, u64)>, u64) {
        let (top, other) = self.top_bytes();
        (top.into_iter().map(|(k, c)| (hex(&k), c)).collect(), other)
    }

    /// [`Hist::top`] with each value as its little-endian bytes.
    pub fn top_bytes(&self) -> (Vec<(Vec<u8>, u64)>, u64) {
        let v: Vec<(Vec<u8>, u64)> = self.tracked().collect();
        // Values of one histogram share a width, so comparing the bytes from the most significant is numeric order.
        hist::top(v, TOP_VALUES, |a: &Vec<u8>, b: &Vec<u8>| a.iter().rev().cmp(b.iter().rev()), self.untracked())
    }
}

/// Little-endian bytes as one lowercase hex number, two digits per byte.
pub fn hex(le: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * le.len());
    s.push_str("0x");
    for b in le.iter().rev() {
        let _ = write!(s, "{b:02x}");
    }
    if le.is_empty() {
        s.push_str("00");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{Hist, MAX_TRACKED};

    /// Values counted through the pending slots, then flushed, are the
    /// histogram of the same values counted one by one.
    fn pending_is_direct(values: Vec<(u16, u8)>) -> bool {
        let (mut direct, mut pending) = (Hist::default(), Hist::default());
        for (v, w) in values {
            let le = u64::from(v).to_le_bytes();
            let width = [1, 2, 4, 8, 12][usize::from(w % 5)];
            let b = if width <= 8 { &le[..width] } else { &[0u8; 12][..] };
            direct.add(b);
            pending.add_pending(b);
        }
        pending.flush();
        direct == pending
    }

    #[test]
    fn values_counted_through_pending_slots_are_the_values_counted_directly() {
        quickcheck::QuickCheck::new().tests(2000).quickcheck(pending_is_direct as fn(Vec<(u16, u8)>) -> bool);
        // Past the cap: largest first, each value twice in a row and again later, so slots and evictions mix.
        let many: Vec<(u16, u8)> = (0..MAX_TRACKED as u16 + 500).rev().flat_map(|v| [(v, 1), (v, 1), (v / 3, 1)]).collect();
        assert!(pending_is_direct(many));
    }
}
