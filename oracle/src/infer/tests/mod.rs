//! Recognisers and the proposal on synthetic bundles: each shape is found
//! where it is, and not where one bundle breaks it.

pub(super) use super::*;
pub(super) use tpb_isa::Generation::{V2, V3};

mod addresses;
mod counts;
mod dtypes;
mod names;
mod proposal;
mod relations;

pub(super) const OP: u8 = 0xC1;

/// A bundle of opcode [`OP`] with the body bytes `set` writes.
pub(super) fn bundle(set: impl FnOnce(&mut Raw)) -> Raw {
    let mut b = [0u8; BUNDLE_BYTES];
    b[0] = OP;
    b[1] = 0x10;
    set(&mut b);
    b
}

pub(super) fn put(b: &mut Raw, at: usize, le: &[u8]) {
    b[at..at + le.len()].copy_from_slice(le);
}

pub(super) fn infer(bundles: &[Raw]) -> Inference {
    let mut inf = Inference::new(&[OP]);
    inf.add_stream("synthetic", Some("b1"), V2, &bundles.concat());
    inf
}

pub(super) fn op(inf: &Inference) -> &OpData {
    let Some(d) = inf.opcode(OP) else { panic!("opcode {OP:#04x} was asked for") };
    d
}

pub(super) fn field_at(fields: &[Field], offset: usize) -> &Field {
    fields.iter().find(|f| f.offset == offset).unwrap_or_else(|| panic!("no field starts at {offset:#04x}: {fields:#?}"))
}

/// The fields tile 0x04..0x40 in order with no gap or overlap, each holding on every bundle.
pub(super) fn assert_tiles(fields: &[Field], bundles: u64) {
    let mut at = BODY.start;
    for f in fields {
        assert_eq!(f.offset, at, "gap or overlap at {at:#04x}: {fields:#?}");
        assert!(f.size > 0);
        assert_eq!(f.bundles, bundles, "{}", f.name);
        at += f.size;
    }
    assert_eq!(at, BODY.end);
}

/// A small deterministic generator (xorshift).
pub(super) struct Rng(u64);
impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

pub(super) fn sbuf_words(outside_at: Option<usize>) -> Vec<Raw> {
    (0..40u32)
        .map(|i| {
            let w = if Some(i as usize) == outside_at { 0x0400_0000 } else { 0x0100_0000 + 0x40 * i + (i % 3) * 0x0001_0000 };
            bundle(|b| put(b, 0x10, &w.to_le_bytes()))
        })
        .collect()
}

/// Bundles with a 3-dim pattern at 0x20 whose N = 1, 2 and 4 readings all break on some bundle.
pub(super) fn pattern3d_bundles() -> Vec<Raw> {
    pattern3d_bundles_at(0x20)
}

/// The same pattern at `at` (at most 0x30, where it ends at the body's end).
pub(super) fn pattern3d_bundles_at(at: usize) -> Vec<Raw> {
    (0..50u32)
        .map(|i| {
            bundle(|b| {
                put(b, at, &(0x0200_0000 + 0x800 * (i % 8) + 4 * i).to_le_bytes());
                let strides: [i16; 3] = [1 + (i % 3) as i16, if i % 5 == 0 { 0 } else { 64 }, if i % 7 == 0 { 0 } else { -2 }];
                let nums: [u16; 3] = [1 + (i % 100) as u16 * 3, 1 + (i % 2) as u16, 1];
                for (k, s) in strides.iter().enumerate() {
                    put(b, at + 4 + 2 * k, &s.to_le_bytes());
                }
                for (k, n) in nums.iter().enumerate() {
                    put(b, at + 0x0a + 2 * k, &n.to_le_bytes());
                }
                // at + 0x10.. zero: a fourth num would be 0.
            })
        })
        .collect()
}

/// 64 bundles with three u16 counts (small, never zero, both bytes varying) from `at`.
pub(super) fn three_counts_at(at: usize, seed: u64) -> Vec<Raw> {
    let mut rng = Rng(seed);
    let count = |rng: &mut Rng| (rng.next() % 0x3FF) as u16 + 1;
    (0..64).map(|_| bundle(|b| (0..3).for_each(|k| put(b, at + 2 * k, &count(&mut rng).to_le_bytes())))).collect()
}
