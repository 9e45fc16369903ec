//! A bounded histogram of field values: the bytes of a field, counted.
//!
//! A value is the field's bytes read as one little-endian number (as the
//! errata's conditions read fields), printed as lowercase hex padded to the
//! field's width (`0x0a` for a byte, `0x00000200` for an address word).

use super::loc::{self, At, Loc};
use crate::hist::{self, Bounded, Tally};

pub use crate::hist::{MAX_TRACKED, TOP_VALUES};

/// A field's values, bounded as every histogram is ([`crate::hist`]): at
/// most [`MAX_TRACKED`] distinct values of each width class (a field has
/// one width, so one class), the smallest ones, so histograms of any split
/// of the bundles merge into the histogram of all of them. Each value
/// counted with a location keeps the smallest ([`super::loc`]) beside its
/// count: a tracked value was tracked since its first occurrence, so its
/// location is exact too.
#[derive(Clone, Debug, Default)]
pub struct Hist {
    /// Values of at most 8 bytes, keyed by number (most fields; far cheaper than hashing slices).
    narrow: Bounded<(u64, u8), MAX_TRACKED, Seen>,
    /// Wider values (padding byte arrays), keyed by their bytes.
    wide: Bounded<Box<[u8]>, MAX_TRACKED, Seen>,
    /// Narrow values counted by [`Hist::add_pending`] and how many times,
    /// not yet in `narrow` (a slot per value's hash; a count of 0 is an empty
    /// slot): a field holds few values in a stream, a count here is cheaper
    /// than an ordered-map lookup, and counts added at once are counts added
    /// one by one (a histogram depends on no order, [`crate::hist`]). Empty
    /// whenever the histogram is read ([`Hist::flush`]). The third number is
    /// the value's first bundle index in the stream being added.
    pending: [((u64, u8), u64, u64); PENDING],
}

/// A tracked value's count and its smallest location, if it was counted with one.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    n: u64,
    first: Option<Loc>,
}

impl Tally for Seen {
    fn count(&self) -> u64 {
        self.n
    }

    fn absorb(&mut self, o: Seen) {
        self.n += o.n;
        self.first = loc::min(self.first.take(), o.first);
    }
}

/// Equal when they count the same values the same number of times, each
/// tracked one at the same location (pending slots aside).
impl PartialEq for Hist {
    fn eq(&self, o: &Hist) -> bool {
        let mine: Vec<_> = self.tracked_at().collect();
        let theirs: Vec<_> = o.tracked_at().collect();
        mine == theirs && self.untracked() == o.untracked()
    }
}

impl Eq for Hist {}

/// Slots of `Hist::pending` (a power of two).
const PENDING: usize = 8;

impl Hist {
    /// Counts one occurrence of the value `le` (little-endian bytes).
    pub fn add(&mut self, le: &[u8]) {
        self.add_n(le, 1);
    }

    /// Counts `n` occurrences of the value `le`.
    pub fn add_n(&mut self, le: &[u8], n: u64) {
        match u8::try_from(le.len()) {
            Ok(width) if le.len() <= 8 => self.narrow.add(&(tpb_isa::layout::le_u64(le), width), Seen { n, first: None }),
            _ => self.wide.add(le, Seen { n, first: None }),
        }
    }

    /// Counts one value seen at bundle `index` of the stream `at`.
    pub fn add_at(&mut self, le: &[u8], at: &At, index: u64) {
        let seen = Seen { n: 1, first: Some(at.loc(index)) };
        match u8::try_from(le.len()) {
            Ok(width) if le.len() <= 8 => self.narrow.add(&(tpb_isa::layout::le_u64(le), width), seen),
            _ => self.wide.add(le, seen),
        }
    }

    /// Counts one value as [`Hist::add_at`] does; a narrow one waits in
    /// `Hist::pending` until a value of the same slot or [`Hist::flush`] adds it.
    pub fn add_pending(&mut self, le: &[u8], at: &At, index: u64) {
        let Ok(width @ ..=8) = u8::try_from(le.len()) else { return self.add_at(le, at, index) };
        self.add_pending_narrow((tpb_isa::layout::le_u64(le), width), at, index);
    }

    /// [`Hist::add_pending`] of a narrow value already read: (number, width in bytes).
    pub(crate) fn add_pending_narrow(&mut self, key: (u64, u8), at: &At, index: u64) {
        let i = (key.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - PENDING.trailing_zeros())) as usize;
        let Some(slot) = self.pending.get_mut(i) else { return self.narrow.add(&key, Seen { n: 1, first: Some(at.loc(index)) }) };
        if slot.1 > 0 && slot.0 == key {
            slot.1 += 1;
        } else {
            let (old, n, first) = std::mem::replace(slot, (key, 1, index));
            if n > 0 {
                self.narrow.add(&old, Seen { n, first: Some(at.loc(first)) });
            }
        }
    }

    /// Adds what `Hist::pending` holds (counted in the stream `at`); every reader expects it done.
    pub fn flush(&mut self, at: Option<&At>) {
        for i in 0..PENDING {
            let Some(slot) = self.pending.get_mut(i) else { continue };
            let (k, n, first) = std::mem::take(slot);
            if n > 0 {
                self.narrow.add(&k, Seen { n, first: at.map(|a| a.loc(first)) });
            }
        }
    }

    /// Adds another histogram's counts (exact for any split: [`Bounded::merge`]) and keeps each value's smaller location.
    pub fn merge(&mut self, mut other: Hist) {
        self.flush(None);
        other.flush(None);
        self.narrow.merge(other.narrow);
        self.wide.merge(other.wide);
    }

    /// The smallest location of a tracked value (little-endian bytes), if it was counted with one.
    pub fn first(&self, le: &[u8]) -> Option<&Loc> {
        let seen = match u8::try_from(le.len()) {
            Ok(width) if le.len() <= 8 => self.narrow.get(&(tpb_isa::layout::le_u64(le), width)),
            _ => self.wide.get(le),
        };
        seen?.first.as_ref()
    }

    /// Every tracked value (little-endian bytes) with its count: narrow ones
    /// by number, then wide ones by bytes.
    pub fn tracked(&self) -> impl Iterator<Item = (Vec<u8>, u64)> + '_ {
        self.tracked_at().map(|(v, c, _)| (v, c))
    }

    /// [`Hist::tracked`] with each value's smallest location, if it was counted with one.
    pub fn tracked_at(&self) -> impl Iterator<Item = (Vec<u8>, u64, Option<&Loc>)> + '_ {
        let narrow = self.narrow.tallies().map(|(&(v, w), s)| (v.to_le_bytes().into_iter().take(usize::from(w)).collect(), s.n, s.first.as_ref()));
        narrow.chain(self.wide.tallies().map(|(k, s)| (k.to_vec(), s.n, s.first.as_ref())))
    }

    /// Occurrences of values past the cap.
    pub fn untracked(&self) -> u64 {
        self.narrow.untracked() + self.wide.untracked()
    }

    /// A histogram read back from its tracked values (little-endian bytes)
    /// and the occurrences past the cap; `None` when no histogram could hold
    /// them. A field has one width, so the untracked occurrences are of the
    /// class that is full (the narrow one, should both be).
    pub fn from_parts(tracked: Vec<(Vec<u8>, u64, Option<Loc>)>, untracked: u64) -> Option<Hist> {
        let (narrow, wide): (Vec<_>, Vec<_>) = tracked.into_iter().partition(|(v, _, _)| v.len() <= 8);
        let narrow_full = narrow.len() >= MAX_TRACKED;
        let key = |v: &[u8]| (tpb_isa::layout::le_u64(v), v.len() as u8);
        let narrow = narrow.into_iter().map(|(v, n, first)| (key(&v), Seen { n, first }));
        let wide = wide.into_iter().map(|(v, n, first)| (v.into_boxed_slice(), Seen { n, first }));
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
/// (Digits by table: the evidence of a large run writes a value per tracked
/// value, and `write!` per byte cost a tenth of the whole run.)
pub fn hex(le: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 + 2 * le.len().max(1));
    s.push_str("0x");
    for b in le.iter().rev() {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    if le.is_empty() {
        s.push_str("00");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{At, Hist, MAX_TRACKED};

    /// Values counted through the pending slots, then flushed, are the
    /// histogram of the same values counted one by one.
    fn pending_is_direct(values: Vec<(u16, u8)>) -> bool {
        let (mut direct, mut pending) = (Hist::default(), Hist::default());
        let at = At::new("f", "m");
        for (i, (v, w)) in values.into_iter().enumerate() {
            let le = u64::from(v).to_le_bytes();
            let width = [1, 2, 4, 8, 12][usize::from(w % 5)];
            let b = if width <= 8 { &le[..width] } else { &[0u8; 12][..] };
            direct.add_at(b, &at, i as u64);
            pending.add_pending(b, &at, i as u64);
        }
        pending.flush(Some(&at));
        direct.flush(Some(&at));
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
