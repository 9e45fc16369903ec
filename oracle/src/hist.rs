//! The one bounded histogram every report counts values with: the evidence
//! (a field's bytes), conformance (a field's disassembled text), inference
//! (a byte, half-word or word of a body; ASCII names).
//!
//! It counts at most `CAP` distinct values exactly ([`MAX_TRACKED`] unless
//! said), so a huge input cannot grow memory without bound: the `CAP`
//! smallest values (by `K`'s order) seen. A value larger than all of them
//! arrives when the histogram is full: it only counts into "other"; a
//! smaller one takes the place of the largest, whose count moves to "other".
//! Which values are tracked, and their counts, thus depend only on the
//! values counted, never on their order or on how the input was split:
//! merging histograms of any split gives the histogram of the whole (see
//! [`Bounded::merge`]). `distinct` is a lower bound once capped
//! ([`Bounded::capped`]).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::AddAssign;

/// Values listed per histogram; the rest are summed as "other".
pub const TOP_VALUES: usize = 8;
/// Distinct values counted exactly per histogram.
pub const MAX_TRACKED: usize = 4096;

/// What a tracked value carries: its count, and whatever else is merged
/// with it (the evidence keeps each value's first location beside its count,
/// so one lookup serves both).
pub trait Tally: Sized {
    /// Occurrences this stands for.
    fn count(&self) -> u64;
    /// Adds another tally of the same value (merging keeps what both say).
    fn absorb(&mut self, other: Self);
}

impl Tally for u64 {
    fn count(&self) -> u64 {
        *self
    }

    fn absorb(&mut self, other: u64) {
        *self += other;
    }
}

/// Occurrences of values of type `K`, the `CAP` smallest distinct ones
/// counted exactly, each with its tally `T` (a count unless said).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounded<K, const CAP: usize = MAX_TRACKED, T = u64> {
    /// Ordered, so the largest tracked value is the one a smaller newcomer evicts.
    counts: BTreeMap<K, T>,
    /// Occurrences of values larger than every tracked one once the cap was reached.
    untracked: u64,
}

impl<K, const CAP: usize, T> Default for Bounded<K, CAP, T> {
    fn default() -> Self {
        Bounded { counts: BTreeMap::new(), untracked: 0 }
    }
}

impl<K: Ord, const CAP: usize, T: Tally> Bounded<K, CAP, T> {
    /// Counts `n` (occurrences of `value`, as a tally), allocating its key
    /// only when it is new and tracked.
    pub fn add<Q>(&mut self, value: &Q, n: T)
    where
        K: Borrow<Q>,
        Q: Ord + ToOwned + ?Sized,
        Q::Owned: Into<K>,
    {
        if let Some(c) = self.counts.get_mut(value) {
            c.absorb(n);
        } else if self.counts.len() < CAP {
            self.counts.insert(value.to_owned().into(), n);
        } else if self.counts.last_key_value().is_some_and(|(max, _)| value < max.borrow()) {
            self.evict_largest();
            self.counts.insert(value.to_owned().into(), n);
        } else {
            self.untracked += n.count();
        }
    }

    /// Counts an owned value (as [`Bounded::add`]).
    fn add_owned(&mut self, value: K, n: T) {
        if let Some(c) = self.counts.get_mut(&value) {
            c.absorb(n);
        } else if self.counts.len() < CAP {
            self.counts.insert(value, n);
        } else if self.counts.last_key_value().is_some_and(|(max, _)| value < *max) {
            self.evict_largest();
            self.counts.insert(value, n);
        } else {
            self.untracked += n.count();
        }
    }

    fn evict_largest(&mut self) {
        if let Some((_, n)) = self.counts.pop_last() {
            self.untracked += n.count();
        }
    }

    /// Adds another histogram's counts. The result is the histogram of both
    /// inputs together, whatever the split: a value among the `CAP` smallest
    /// of the union is among the `CAP` smallest of each part that saw it, so
    /// each part counted it exactly; every other occurrence is "other" on
    /// both sides. So merging is associative and commutative (as far as
    /// [`Tally::absorb`] is).
    pub fn merge(&mut self, other: Bounded<K, CAP, T>) {
        for (k, n) in other.counts {
            self.add_owned(k, n);
        }
        self.untracked += other.untracked;
    }

    /// A histogram read back from its tracked tallies and untracked
    /// occurrences; `None` when they cannot come from one (more values than
    /// the cap, a value never seen, or values untracked while there was room).
    pub fn from_parts(counts: impl IntoIterator<Item = (K, T)>, untracked: u64) -> Option<Self> {
        let mut h = Bounded::default();
        for (k, n) in counts {
            if n.count() == 0 || h.counts.insert(k, n).is_some() {
                return None;
            }
        }
        (h.counts.len() <= CAP && (untracked == 0 || h.counts.len() == CAP)).then_some(Bounded { untracked, ..h })
    }

    /// Every occurrence counted, tracked or not.
    pub fn total(&self) -> u64 {
        self.counts.values().map(Tally::count).sum::<u64>() + self.untracked
    }

    /// Whether `value` is tracked (counted exactly).
    pub fn contains<Q>(&self, value: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.counts.contains_key(value)
    }

    /// The tally of a tracked value.
    pub fn get<Q>(&self, value: &Q) -> Option<&T>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.counts.get(value)
    }

    /// Every tracked value with its tally, smallest value first.
    pub fn tallies(&self) -> impl Iterator<Item = (&K, &T)> + '_ {
        self.counts.iter()
    }

    /// Distinct values tracked (exact unless [`Bounded::capped`]).
    pub fn distinct(&self) -> usize {
        self.counts.len()
    }

    /// Whether values arrived past the cap (then `distinct` is a lower bound).
    pub fn capped(&self) -> bool {
        self.untracked > 0
    }

    /// Occurrences of values that arrived past the cap.
    pub fn untracked(&self) -> u64 {
        self.untracked
    }

    /// Every tracked value with its count, smallest value first.
    pub fn iter(&self) -> impl Iterator<Item = (&K, u64)> + '_ {
        self.counts.iter().map(|(k, c)| (k, c.count()))
    }

    /// The `n` most frequent values (by count, then by `order`) and the count of all others.
    pub fn top_by(&self, n: usize, order: impl Fn(&K, &K) -> Ordering) -> (Vec<(&K, u64)>, u64) {
        top(self.iter().collect(), n, |a: &&K, b: &&K| order(a, b), self.untracked)
    }

    /// The `n` most frequent values (by count, then by value) and the count of all others.
    pub fn top(&self, n: usize) -> (Vec<(&K, u64)>, u64) {
        self.top_by(n, K::cmp)
    }
}

/// Sorts counted values by count, most first, then by `order`; keeps the
/// first `n` and sums the rest, with `untracked`, as "other". Shared by
/// [`Bounded::top_by`] and histograms made of more than one [`Bounded`].
pub fn top<T>(mut v: Vec<(T, u64)>, n: usize, order: impl Fn(&T, &T) -> Ordering, untracked: u64) -> (Vec<(T, u64)>, u64) {
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| order(&a.0, &b.0)));
    let other = v.iter().skip(n).map(|x| x.1).sum::<u64>() + untracked;
    v.truncate(n);
    (v, other)
}

/// Counts one more under `name` in a small exact tally (the engines an
/// opcode's bundles were on), allocating the name only the first time: the
/// names are few, the bundles many.
pub fn bump<N: AddAssign + From<u8>>(tally: &mut BTreeMap<String, N>, name: &str) {
    bump_n(tally, name, N::from(1));
}

/// Counts `n` more under `name`, as [`bump`] counts one.
pub fn bump_n<N: AddAssign>(tally: &mut BTreeMap<String, N>, name: &str, n: N) {
    match tally.get_mut(name) {
        Some(c) => *c += n,
        None => {
            tally.insert(name.to_string(), n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{bump, Bounded, MAX_TRACKED, TOP_VALUES};
    use std::collections::BTreeMap;

    #[test]
    fn a_tally_counts_each_name() {
        let mut t: BTreeMap<String, u64> = BTreeMap::new();
        for name in ["SP", "PE", "SP"] {
            bump(&mut t, name);
        }
        assert_eq!(t, BTreeMap::from([("PE".to_string(), 1), ("SP".to_string(), 2)]));
    }

    #[test]
    fn values_are_listed_by_count_then_value_and_the_rest_summed() {
        let mut h: Bounded<u32> = Bounded::default();
        for (v, n) in [(5, 3), (2, 3), (9, 1), (1, 7), (3, 1), (4, 1), (6, 1), (7, 1), (8, 1), (10, 1)] {
            h.add(&v, n);
        }
        let (top, other) = h.top(TOP_VALUES);
        let values: Vec<u32> = top.iter().map(|(v, _)| **v).collect();
        assert_eq!(values, [1, 2, 5, 3, 4, 6, 7, 8]);
        assert_eq!((top[0].1, other, h.distinct(), h.capped(), h.total()), (7, 2, 10, false, 20));
        // Another order for ties: the largest value first.
        let (top, _) = h.top_by(3, |a, b| b.cmp(a));
        assert_eq!(top.iter().map(|(v, c)| (**v, *c)).collect::<Vec<_>>(), [(1, 7), (5, 3), (2, 3)]);
    }

    #[test]
    fn past_the_cap_the_smallest_values_are_kept_and_the_rest_counted_as_other() {
        let mut h: Bounded<String> = Bounded::default();
        // Largest first: each newcomer past the cap is smaller, so it evicts the largest tracked.
        for v in (0..MAX_TRACKED + 10).rev() {
            h.add(format!("v{v:05}").as_str(), 1);
        }
        h.add("v00000", 1);
        assert_eq!((h.distinct(), h.capped(), h.untracked(), h.total()), (MAX_TRACKED, true, 10, MAX_TRACKED as u64 + 11));
        let (top, other) = h.top(TOP_VALUES);
        assert_eq!((top[0].0.as_str(), top[0].1), ("v00000", 2));
        assert_eq!(top.iter().map(|x| x.1).sum::<u64>() + other, h.total());
        assert_eq!(h.iter().last().map(|(k, _)| k.as_str()), Some(format!("v{:05}", MAX_TRACKED - 1).as_str()));
        // A smaller cap, as a type parameter: "c" arrives last and is the largest, so it is other.
        let mut small: Bounded<Box<[u8]>, 2> = Bounded::default();
        for s in [&b"b"[..], b"c", b"a", b"a"] {
            small.add(s, 1);
        }
        let kept: Vec<(&[u8], u64)> = small.iter().map(|(k, n)| (&k[..], n)).collect();
        assert_eq!((kept, small.untracked(), small.total()), (vec![(&b"a"[..], 2), (&b"b"[..], 1)], 1, 4));
    }

    #[test]
    fn merged_histograms_keep_the_smallest_values_of_both() {
        let with = |values: &[u32]| {
            let mut h: Bounded<u32, 3> = Bounded::default();
            for v in values {
                h.add(v, 1);
            }
            h
        };
        let mut a = with(&[1, 2, 3, 100, 101]);
        a.merge(with(&[1, 0]));
        // 0 is new and smallest: it evicts 3; 1 is counted; 100 and 101 stayed other.
        let kept: Vec<(u32, u64)> = a.iter().map(|(k, n)| (*k, n)).collect();
        assert_eq!((kept, a.untracked(), a.total()), (vec![(0, 1), (1, 2), (2, 1)], 3, 7));
        assert_eq!(a, with(&[1, 2, 3, 100, 101, 1, 0]));
    }

    #[test]
    fn parts_read_back_only_when_one_histogram_could_hold_them() {
        type H = Bounded<u32, 2>;
        assert_eq!(H::from_parts([(1, 2), (5, 1)], 4).map(|h| h.total()), Some(7));
        assert!(H::from_parts([(1, 2)], 4).is_none(), "untracked with room left");
        assert!(H::from_parts([(1, 2), (2, 1), (3, 1)], 0).is_none(), "over the cap");
        assert!(H::from_parts([(1, 2), (1, 1)], 0).is_none(), "a value twice");
        assert!(H::from_parts([(1, 0)], 0).is_none(), "a value never seen");
    }

    /// Values split into parts by `part`, counted part by part and merged in
    /// the order `order` gives, equal the values counted in one pass; merged
    /// as a tree (left half, right half) too.
    fn split_merges_exactly(values: Vec<u8>, part: Vec<u8>, order: Vec<u8>) -> bool {
        type H = Bounded<u8, 5>;
        let mut whole = H::default();
        for v in &values {
            whole.add(v, 1);
        }
        let parts_n = 1 + usize::from(part.first().copied().unwrap_or(0) % 6);
        let mut parts = vec![H::default(); parts_n];
        for (i, v) in values.iter().enumerate() {
            let k = usize::from(part.get(i % part.len().max(1)).copied().unwrap_or(0)) % parts_n;
            parts[k].add(v, 1);
        }
        let mut shuffled = parts.clone();
        for (i, o) in order.iter().enumerate() {
            let n = shuffled.len();
            shuffled.swap(i % n, usize::from(*o) % n);
        }
        let mut folded = H::default();
        for p in shuffled.clone() {
            folded.merge(p);
        }
        let (left, right) = shuffled.split_at(shuffled.len() / 2);
        let half = |ps: &[H]| {
            let mut h = H::default();
            ps.iter().cloned().for_each(|p| h.merge(p));
            h
        };
        let mut tree = half(right);
        tree.merge(half(left));
        folded == whole && tree == whole
    }

    #[test]
    fn any_split_merged_in_any_order_is_the_whole() {
        quickcheck::QuickCheck::new().tests(2000).quickcheck(split_merges_exactly as fn(Vec<u8>, Vec<u8>, Vec<u8>) -> bool);
    }
}
