//! The one bounded histogram every report counts values with: the evidence
//! (a field's bytes), conformance (a field's disassembled text), inference
//! (a byte, half-word or word of a body; ASCII names).
//!
//! It counts at most `CAP` distinct values exactly ([`MAX_TRACKED`] unless
//! said): a new value past the cap only counts into "other", so a huge
//! input cannot grow memory without bound. `distinct` is then a lower bound
//! ([`Bounded::capped`]), and which values got tracked depends on the order
//! they arrived in.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::ops::AddAssign;

/// Values listed per histogram; the rest are summed as "other".
pub const TOP_VALUES: usize = 8;
/// Distinct values counted exactly per histogram.
pub const MAX_TRACKED: usize = 4096;

/// Occurrences of values of type `K`, at most `CAP` distinct ones counted exactly.
#[derive(Clone, Debug)]
pub struct Bounded<K, const CAP: usize = MAX_TRACKED> {
    counts: HashMap<K, u64>,
    /// Occurrences of values that arrived after the cap.
    untracked: u64,
}

impl<K, const CAP: usize> Default for Bounded<K, CAP> {
    fn default() -> Self {
        Bounded { counts: HashMap::new(), untracked: 0 }
    }
}

impl<K: Hash + Eq, const CAP: usize> Bounded<K, CAP> {
    /// Counts `n` occurrences of `value` (allocating its key only when it is new and tracked).
    pub fn add<Q>(&mut self, value: &Q, n: u64)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned + ?Sized,
        Q::Owned: Into<K>,
    {
        self.add_within(value, n, CAP);
    }

    /// [`Bounded::add`] with room for `room` distinct values rather than
    /// `CAP`: for histograms that share one cap between them.
    pub(crate) fn add_within<Q>(&mut self, value: &Q, n: u64, room: usize)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned + ?Sized,
        Q::Owned: Into<K>,
    {
        if let Some(c) = self.counts.get_mut(value) {
            *c += n;
        } else if self.counts.len() < room {
            self.counts.insert(value.to_owned().into(), n);
        } else {
            self.untracked += n;
        }
    }

    /// Adds another histogram's counts: its tracked values as if added here
    /// (new ones past the cap go to "other"), and its untracked occurrences.
    pub fn merge(&mut self, other: Bounded<K, CAP>) {
        for (k, n) in other.counts {
            if let Some(c) = self.counts.get_mut(&k) {
                *c += n;
            } else if self.counts.len() < CAP {
                self.counts.insert(k, n);
            } else {
                self.untracked += n;
            }
        }
        self.untracked += other.untracked;
    }

    /// Every occurrence counted, tracked or not.
    pub fn total(&self) -> u64 {
        self.counts.values().sum::<u64>() + self.untracked
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

    /// Every tracked value with its count, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, u64)> + '_ {
        self.counts.iter().map(|(k, &c)| (k, c))
    }

    /// The `n` most frequent values (by count, then by `order`) and the count of all others.
    pub fn top_by(&self, n: usize, order: impl Fn(&K, &K) -> Ordering) -> (Vec<(&K, u64)>, u64) {
        top(self.iter().collect(), n, |a: &&K, b: &&K| order(a, b), self.untracked)
    }

    /// The `n` most frequent values (by count, then by value) and the count of all others.
    pub fn top(&self, n: usize) -> (Vec<(&K, u64)>, u64)
    where
        K: Ord,
    {
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
    match tally.get_mut(name) {
        Some(n) => *n += N::from(1),
        None => {
            tally.insert(name.to_string(), N::from(1));
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
    fn past_the_cap_new_values_are_only_counted_and_known_ones_still_are() {
        let mut h: Bounded<String> = Bounded::default();
        for v in 0..MAX_TRACKED + 10 {
            h.add(format!("v{v:05}").as_str(), 1);
        }
        h.add("v00000", 1);
        assert_eq!((h.distinct(), h.capped(), h.untracked(), h.total()), (MAX_TRACKED, true, 10, MAX_TRACKED as u64 + 11));
        let (top, other) = h.top(TOP_VALUES);
        assert_eq!((top[0].0.as_str(), top[0].1), ("v00000", 2));
        assert_eq!(top.iter().map(|x| x.1).sum::<u64>() + other, h.total());
        // A smaller cap, as a type parameter.
        let mut small: Bounded<Box<[u8]>, 2> = Bounded::default();
        for s in [&b"a"[..], b"b", b"c", b"a"] {
            small.add(s, 1);
        }
        assert_eq!((small.distinct(), small.untracked(), small.total()), (2, 1, 4));
    }

    #[test]
    fn merged_histograms_add_their_counts_and_what_they_no_longer_track() {
        let with = |values: &[u32], untracked: usize| {
            let mut h: Bounded<u32, 3> = Bounded::default();
            for v in values {
                h.add(v, 1);
            }
            for v in 0..untracked {
                h.add(&(100 + v as u32), 1);
            }
            h
        };
        let mut a = with(&[1, 2, 3], 2);
        a.merge(with(&[1, 4], 0));
        // 1 is known (counted), 4 is new past the cap (other), and a's two untracked stay.
        assert_eq!((a.top(1).0, a.distinct(), a.untracked(), a.total()), (vec![(&1, 2)], 3, 3, 7));
        let mut b = with(&[], 0);
        b.merge(with(&[7], 5));
        assert_eq!((b.distinct(), b.untracked(), b.total()), (3, 3, 6));
    }
}
