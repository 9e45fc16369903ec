//! Correlations between offsets of one opcode's bodies, kept simple: aligned
//! 16-bit and 32-bit words that are equal on every bundle, and, for byte pairs
//! less than [`WINDOW`] bytes apart, equality and functional dependence (the
//! value of one byte decides the value of the other). Memory is fixed: one
//! 256-entry map per ordered byte pair.

use super::stats::read_le;
use super::BODY;

/// Bytes at most this far apart minus one are compared (a window of 8 bytes).
pub const WINDOW: usize = 8;

/// `y = f(x)` seen so far: `map[x]` is `y + 1`, 0 while `x` is unseen.
#[derive(Clone, Debug)]
struct FnMap {
    map: [u16; 256],
    holds: bool,
}

impl FnMap {
    fn new() -> FnMap {
        FnMap { map: [0; 256], holds: true }
    }

    fn add(&mut self, x: u8, y: u8) {
        if !self.holds {
            return;
        }
        let slot = &mut self.map[usize::from(x)];
        let y1 = u16::from(y) + 1;
        if *slot == 0 {
            *slot = y1;
        } else if *slot != y1 {
            self.holds = false;
        }
    }
}

#[derive(Clone, Debug)]
struct BytePair {
    a: usize,
    b: usize,
    equal: bool,
    /// b as a function of a.
    ab: FnMap,
    /// a as a function of b.
    ba: FnMap,
}

/// A relation that held on every bundle.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// The `width`-byte words at `a` and `b` are equal.
    Equal {
        /// The words' width in bytes (1, 2 or 4).
        width: usize,
        /// The first word's offset in the bundle.
        a: usize,
        /// The second word's offset.
        b: usize,
    },
    /// The byte at `to` is a function of the byte at `from` (and not the other way round).
    Function {
        /// Offset of the byte that decides.
        from: usize,
        /// Offset of the byte decided.
        to: usize,
    },
    /// Each of the two bytes decides the other (a bijection, not equality).
    OneToOne {
        /// Offset of the first byte.
        a: usize,
        /// Offset of the second.
        b: usize,
    },
}

#[derive(Clone, Debug)]
pub struct Corr {
    pairs: Vec<BytePair>,
    /// Offsets of the aligned words of each width, and whether each pair (i < j) is still equal.
    words: Vec<(usize, Vec<usize>, Vec<bool>)>,
}

impl Default for Corr {
    fn default() -> Self {
        Self::new()
    }
}

impl Corr {
    pub fn new() -> Corr {
        let mut pairs = Vec::new();
        for a in BODY {
            for b in a + 1..(a + WINDOW).min(BODY.end) {
                pairs.push(BytePair { a, b, equal: true, ab: FnMap::new(), ba: FnMap::new() });
            }
        }
        let words = [2usize, 4]
            .into_iter()
            .map(|w| {
                let offs: Vec<usize> = BODY.step_by(w).collect();
                let n = offs.len();
                (w, offs, vec![true; n * n])
            })
            .collect();
        Corr { pairs, words }
    }

    pub fn add(&mut self, raw: &[u8; 64]) {
        for p in &mut self.pairs {
            let (x, y) = (raw[p.a], raw[p.b]);
            p.equal &= x == y;
            p.ab.add(x, y);
            p.ba.add(y, x);
        }
        for (w, offs, eq) in &mut self.words {
            let vals: Vec<u32> = offs.iter().map(|&o| read_le(raw, o, *w)).collect();
            // Row i holds the pairs (i, j); only j > i is kept up to date and read.
            for (i, row) in eq.chunks_exact_mut(vals.len()).enumerate() {
                for (e, v) in row[i + 1..].iter_mut().zip(&vals[i + 1..]) {
                    *e &= vals[i] == *v;
                }
            }
        }
    }

    /// The relations that held, sorted. `varies(offset, width)` says whether a
    /// field took more than one value (a constant is equal to, and a function
    /// of, anything: never reported); `distinct(offset)` is a byte's distinct
    /// values, and a dependence is reported only when its source repeats values
    /// (`2 × distinct ≤ bundles`), so that it could have failed.
    pub fn relations(&self, bundles: u64, varies: impl Fn(usize, usize) -> bool, distinct: impl Fn(usize) -> usize) -> Vec<Relation> {
        let mut out = Vec::new();
        let mut words_equal: Vec<(usize, usize, usize)> = Vec::new();
        for (w, offs, eq) in self.words.iter().rev() {
            let n = offs.len();
            for i in 0..n {
                for j in i + 1..n {
                    let (a, b) = (offs[i], offs[j]);
                    if !eq[i * n + j] || !varies(a, *w) {
                        continue;
                    }
                    // Inside a wider equal pair at the same distance: already said. (Widths come
                    // widest first, and a pair inside one of its own width is that pair, met once.)
                    if words_equal.iter().any(|&(ww, wa, wb)| wb - wa == b - a && a >= wa && a + w <= wa + ww) {
                        continue;
                    }
                    words_equal.push((*w, a, b));
                    out.push(Relation::Equal { width: *w, a, b });
                }
            }
        }
        let covered = |a: usize, b: usize| words_equal.iter().any(|&(w, wa, wb)| b - a == wb - wa && a >= wa && a < wa + w);
        let supported = |x: usize| (distinct(x) as u64) * 2 <= bundles;
        for p in &self.pairs {
            if !varies(p.a, 1) || !varies(p.b, 1) {
                continue;
            }
            if p.equal {
                if !covered(p.a, p.b) {
                    out.push(Relation::Equal { width: 1, a: p.a, b: p.b });
                }
                continue;
            }
            let ab = p.ab.holds && supported(p.a);
            let ba = p.ba.holds && supported(p.b);
            match (ab, ba) {
                (true, true) => out.push(Relation::OneToOne { a: p.a, b: p.b }),
                (true, false) => out.push(Relation::Function { from: p.a, to: p.b }),
                (false, true) => out.push(Relation::Function { from: p.b, to: p.a }),
                (false, false) => {}
            }
        }
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{Corr, Relation};

    /// xorshift64: eight pseudo-random bytes per call.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> [u8; 8] {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0.to_le_bytes()
        }
    }

    #[test]
    fn a_function_is_said_only_from_a_byte_seen_at_most_half_as_often_as_there_are_bundles() {
        // Body byte 0x11 = byte 0x10 / 2 on every bundle. Over 8 bundles with 0x10 taking 4 values, each
        // value meets byte 1 twice, so the function could have failed and is said; with 5
        // values (2 x 5 > 8) it could hardly fail and is not, nor the other way round.
        let run = |values: u8| {
            let mut corr = Corr::new();
            for i in 0..8u8 {
                let mut raw = [0u8; 64];
                raw[0x10] = 2 * (i % values) + 2;
                raw[0x11] = raw[0x10] / 2;
                corr.add(&raw);
            }
            corr.relations(8, |o, w| o >= 0x10 && o + w <= 0x12, |_| usize::from(values))
        };
        assert_eq!(run(4), [Relation::OneToOne { a: 0x10, b: 0x11 }]);
        assert_eq!(run(5), []);
    }

    #[test]
    fn an_equal_word_is_said_once_not_again_byte_by_byte() {
        // The 32-bit words at 8 and 12 are equal on every bundle and take many values.
        let mut corr = Corr::new();
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..64 {
            let w = rng.next();
            let mut raw = [0u8; 64];
            raw[8..12].copy_from_slice(&w[..4]);
            raw[12..16].copy_from_slice(&w[..4]);
            corr.add(&raw);
        }
        let varies = |o: usize, w: usize| (o..o + w).any(|b| (8..16).contains(&b));
        let relations = corr.relations(64, varies, |_| 64);
        assert_eq!(relations, [Relation::Equal { width: 4, a: 8, b: 12 }]);
    }

    #[test]
    fn an_equal_byte_pair_at_another_distance_than_an_equal_word_is_said() {
        // The words at 0x10 and 0x30 are equal; byte 0x14 copies byte 0x11, 3 apart: not a
        // part of the word pair (another distance), so its own relation.
        let mut corr = Corr::new();
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..64 {
            let w = rng.next();
            let mut raw = [0u8; 64];
            raw[0x10..0x14].copy_from_slice(&w[..4]);
            raw[0x30..0x34].copy_from_slice(&w[..4]);
            raw[0x14] = w[1];
            raw[0x15] = w[6]; // so the half words at 0x14 and 0x12 differ
            corr.add(&raw);
        }
        let varies = |o: usize, w: usize| (o..o + w).any(|b| (0x10..0x16).contains(&b) || (0x30..0x34).contains(&b));
        let relations = corr.relations(64, varies, |_| 64);
        assert_eq!(relations, [Relation::Equal { width: 1, a: 0x11, b: 0x14 }, Relation::Equal { width: 4, a: 0x10, b: 0x30 }]);
    }

    #[test]
    fn an_equal_half_word_just_past_an_equal_word_is_said_too() {
        // Bytes 16..22 equal 32..38 on every bundle, 22..24 and 38..40 do not:
        // the word at 16 and the half word at 20, at the same distance, are two
        // relations; the half word starts inside nothing wider.
        let mut corr = Corr::new();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..64 {
            let (same, own, other) = (rng.next(), rng.next(), rng.next());
            let mut raw = [0u8; 64];
            raw[16..22].copy_from_slice(&same[..6]);
            raw[32..38].copy_from_slice(&same[..6]);
            raw[22..24].copy_from_slice(&own[..2]);
            raw[38..40].copy_from_slice(&other[..2]);
            corr.add(&raw);
        }
        let varies = |o: usize, w: usize| (o..o + w).any(|b| (16..24).contains(&b) || (32..40).contains(&b));
        let relations = corr.relations(64, varies, |_| 64);
        assert_eq!(relations, [Relation::Equal { width: 2, a: 20, b: 36 }, Relation::Equal { width: 4, a: 16, b: 32 }]);
    }
}
