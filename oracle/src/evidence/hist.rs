//! A bounded histogram of field values: the bytes of a field, counted.
//!
//! A value is the field's bytes read as one little-endian number (as the
//! errata's conditions read fields), printed as lowercase hex padded to the
//! field's width (`0x0a` for a byte, `0x00000200` for an address word).

use std::collections::HashMap;
use std::fmt::Write as _;

/// Values listed per histogram; the rest are summed as "other".
pub const TOP_VALUES: usize = 8;
/// Distinct values counted exactly per histogram. A new value past the cap
/// only counts into "other", so a huge input cannot grow memory without
/// bound; `distinct` is then a lower bound (`distinct_capped`), and which
/// values got tracked depends on the order bundles arrived in.
pub const MAX_TRACKED: usize = 4096;

#[derive(Clone, Debug, Default)]
pub struct Hist {
    /// Values of at most 8 bytes, keyed by number (most fields; far cheaper than hashing slices).
    narrow: HashMap<(u64, u8), u64>,
    /// Wider values (padding byte arrays), keyed by their bytes.
    wide: HashMap<Box<[u8]>, u64>,
    /// Occurrences of values that arrived after the cap.
    untracked: u64,
}

impl Hist {
    pub fn add(&mut self, le: &[u8]) {
        self.add_n(le, 1);
    }

    pub fn add_n(&mut self, le: &[u8], n: u64) {
        let full = self.distinct() >= MAX_TRACKED;
        let counted = if let (Ok(width), true) = (u8::try_from(le.len()), le.len() <= 8) {
            let key = (tpb_isa::layout::le_u64(le), width);
            match self.narrow.get_mut(&key) {
                Some(c) => Some(c),
                None if full => None,
                None => Some(self.narrow.entry(key).or_insert(0)),
            }
        } else {
            match self.wide.get_mut(le) {
                Some(c) => Some(c),
                None if full => None,
                None => Some(self.wide.entry(le.into()).or_insert(0)),
            }
        };
        match counted {
            Some(c) => *c += n,
            None => self.untracked += n,
        }
    }

    /// Every occurrence counted, tracked or not.
    pub fn total(&self) -> u64 {
        self.narrow.values().chain(self.wide.values()).sum::<u64>() + self.untracked
    }

    /// Distinct values tracked (exact unless [`Hist::capped`]).
    pub fn distinct(&self) -> usize {
        self.narrow.len() + self.wide.len()
    }

    /// Whether values arrived past the cap (then `distinct` is a lower bound).
    pub fn capped(&self) -> bool {
        self.untracked > 0
    }

    /// The [`TOP_VALUES`] most frequent values (by count, then by value) and the count of all others.
    pub fn top(&self) -> (Vec<(String, u64)>, u64) {
        let narrow = self.narrow.iter().map(|(&(v, w), &c)| (v.to_le_bytes().into_iter().take(usize::from(w)).collect(), c));
        let mut v: Vec<(Vec<u8>, u64)> = narrow.chain(self.wide.iter().map(|(k, &c)| (k.to_vec(), c))).collect();
        // Values of one histogram share a width, so comparing the bytes from the most significant is numeric order.
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.iter().rev().cmp(b.0.iter().rev())));
        let other = v.iter().skip(TOP_VALUES).map(|x| x.1).sum::<u64>() + self.untracked;
        (v.into_iter().take(TOP_VALUES).map(|(k, c)| (hex(&k), c)).collect(), other)
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
