//! A work entry of the scalar kernel: a bundle of its batch and an item of
//! the bundle's opcode's plan, in 16 bits. The plans lay their items out by
//! it ([`super::plan::Planned::items4`]) and the kernel reads them by it, so
//! both depend on this module and neither on the other.

use super::{disjoint, BATCH, LANE_ONES};

/// Items of a plan a work entry can name: slots and band tests are both
/// at most four per opcode. An item is numbered by its opcode byte, then its
/// index in the plan: its place in the plan's item lists, and the low bits
/// of a work entry.
pub(super) const ITEM_BITS: u32 = 10;
pub(super) const ITEMS: usize = 1 << ITEM_BITS;

// A work entry holds a bundle's index in its batch above an item: 16 bits.
const _: () = assert!((BATCH << ITEM_BITS) <= 1 << 16);

/// A work entry: the bundle's index in its batch, then the item (its
/// opcode byte, then the index of the slot or band test in its plan).
#[inline(always)]
pub(super) fn entry(i: usize, op: u8) -> u16 {
    let i = u16::try_from(i & (BATCH - 1)).unwrap_or(0);
    disjoint(i << ITEM_BITS, u16::from(op) << 2)
}

/// The four work entries naming a plan's items, from its first entry: as
/// the 16-bit lanes of one word, so the kernel writes them in one store.
#[inline(always)]
pub(super) fn entries4(entry: u16) -> u64 {
    const ITEM_INDEX: u64 = 0x0003_0002_0001_0000;
    disjoint(u64::from(entry) * LANE_ONES, ITEM_INDEX)
}
