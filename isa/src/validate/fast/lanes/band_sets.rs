//! The band sets of one rules in lanes: each set its plans test gets a bit
//! (sets that allow the same values share one), and a table gives, by
//! byte value, the bits of the sets that allow it. Sixteen bits, two byte
//! tables: the amended rules of CoreV2 test ten different sets (the
//! errata's row and column groups of LoadStationary and MatMul among them).

use super::super::band_rule::SETS;
use super::super::plan::Planned;

/// Bits a band test's set may have.
pub(super) const BITS: usize = u16::BITS as usize;
// Every set the plans can name gets a bit of its own: more sets is a compile error here, not a fallback.
const _: () = assert!(SETS <= BITS);

pub(super) struct BandSets {
    /// By set: its bit, if a plan tests it.
    pub(super) bit: [Option<u16>; SETS],
    /// By byte value: the bits of the sets that allow it.
    pub(super) allows: [u16; 0x100],
}

impl BandSets {
    /// The bits of the sets `t`'s plans test; `None` when a plan names a set
    /// past the table, or the bits do not read as the sets allow.
    pub(super) fn build(t: &Planned) -> Option<BandSets> {
        let tests = t.plans.iter().flat_map(|p| p.band.iter().take(usize::from(p.head.band_used)));
        let mut s = BandSets { bit: [None; SETS], allows: [0; 0x100] };
        let mut rows: Vec<&[u8; 0x100]> = Vec::new();
        for set in tests.map(|b| usize::from(b.set)) {
            let row = t.allowed.get(set)?;
            let n = match rows.iter().position(|r| *r == row) {
                Some(n) => n,
                None => {
                    rows.push(row);
                    rows.len() - 1
                }
            };
            *s.bit.get_mut(set)? = Some(1 << n);
        }
        for (v, bits) in s.allows.iter_mut().enumerate() {
            *bits = rows.iter().enumerate().fold(0, |acc, (n, row)| acc | (u16::from(row[v] != 0) << n));
        }
        // Every value must read as its set allows it, in each set a plan tests.
        let tested = (0..SETS).filter(|&set| s.bit[set].is_some());
        let holds = tested
            .flat_map(|set| (0..=u8::MAX).map(move |v| (set, v)))
            .all(|(set, v)| s.allowed(set, v) == Some(t.allowed[set][usize::from(v)] != 0));
        holds.then_some(s)
    }

    /// Whether the lanes find value `v` allowed by `set`: the kernel's test.
    pub(super) fn allowed(&self, set: usize, v: u8) -> Option<bool> {
        Some(self.allows[usize::from(v)] & (*self.bit.get(set)?)? != 0)
    }
}
