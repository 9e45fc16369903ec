//! The portable kernel: [`super::verdicts`] in scalar code, on every CPU
//! and architecture ([`verdicts_scalar`]). A batch is judged in passes over
//! work lists, each a list of 16-bit entries naming a bundle of the batch
//! and an item of its opcode's plan, so no pass branches on how many slots
//! or band tests an opcode has.

use super::entry::{entry, ITEMS, ITEM_BITS};
use super::plan::{Planned, MAX_BAND, MAX_SLOTS, SLOT_ENTRIES};
use super::{disjoint, prefetch, verdict_of, Batch, Raw, Rules, Verdict, BAND_CLEAN, BATCH, LANE_ONES};

/// Work lists of a batch: at most [`MAX_SLOTS`] slots and [`MAX_BAND`]
/// band tests per bundle, written [`SLOT_ENTRIES`] at a time at the list's
/// length under a mask ([`push4`]), so a list has that many spare entries
/// past its power-of-two length. An MX operand or a tied band is one per bundle.
const SLOT_WORK: usize = (MAX_SLOTS * BATCH).next_power_of_two();
const BAND_WORK: usize = (MAX_BAND * BATCH).next_power_of_two();

/// Appends `n` (at most 4) of the four work `entries` (from [`super::entry::entries4`]),
/// writing all four so the loop has no data-dependent exit. The mask never
/// binds (a list holds at most `MAX * BATCH` entries); it lets the compiler
/// see the write in bounds.
#[inline(always)]
fn push4<const W: usize, const L: usize>(work: &mut [u16; L], len: &mut usize, entries: u64, n: u8) {
    const { assert!(W.is_power_of_two() && L == W + SLOT_ENTRIES) };
    let at = *len & (W - 1);
    // The lanes as entries in order, on hosts of either byte order (one 8-byte store on x86-64).
    let lanes: [u16; SLOT_ENTRIES] = std::array::from_fn(|k| (entries >> (16 * k)) as u16);
    work[at..at + SLOT_ENTRIES].copy_from_slice(&lanes);
    *len = at + usize::from(n);
}

/// Appends `entry` when `n` is 1 (an MX operand or a tied band).
#[inline(always)]
fn push1(work: &mut [u16; BATCH], len: &mut usize, entry: u16, n: u8) {
    let at = *len & (BATCH - 1);
    work[at] = entry;
    *len = at + usize::from(n);
}

/// The scalar kernel's work lists, kept for a whole stream: a batch reads
/// only the entries it wrote, so they are not cleared between batches
/// (clearing them cost ~3 instructions per bundle).
pub(in super::super) struct Work {
    slots: [u16; SLOT_WORK + SLOT_ENTRIES],
    bands: [u16; BAND_WORK + SLOT_ENTRIES],
    specials: [u16; BATCH],
}

impl Default for Work {
    fn default() -> Work {
        Work { slots: [0; SLOT_WORK + SLOT_ENTRIES], bands: [0; BAND_WORK + SLOT_ENTRIES], specials: [0; BATCH] }
    }
}

/// [`super::verdicts`] on any CPU, in passes with no data-dependent branch: the
/// first tests each header and lists the slots and band tests to run
/// (always writing a plan's worth of entries, keeping as many as the
/// opcode has); the others run the listed ones. Running each bundle's own
/// in a loop mispredicts the loop exits on a mixed stream about every
/// other bundle, which costs more than the checks. (The AVX-512 kernel
/// judges each bundle whole in one pass instead.) Inlined into its one
/// caller, the dispatch, as it was when both sat in one file.
#[inline]
pub(super) fn verdicts_scalar(batch: &Batch, rules: Rules, work: &mut Work) -> [Verdict; BATCH] {
    let t = Planned::get(rules);
    let mut state = [0u8; BATCH];
    let Work { slots, bands, specials } = work;
    let (mut n_slots, mut n_bands, mut n_specials) = (0usize, 0usize, 0usize);
    for (i, (raw, st)) in batch.iter().zip(state.iter_mut()).enumerate() {
        prefetch::next_batch(raw);
        let op = raw[0];
        let head = &t.heads[usize::from(op)].0;
        *st = t.head(head, Raw(raw));
        // entries4(entry(i, op)), without its multiply: the item bits from the table.
        let e4 = disjoint(t.items4[usize::from(op)], u64::from(entry(i, 0)) * LANE_ONES);
        push4::<SLOT_WORK, { SLOT_WORK + SLOT_ENTRIES }>(slots, &mut n_slots, e4, head.used);
        push4::<BAND_WORK, { BAND_WORK + SLOT_ENTRIES }>(bands, &mut n_bands, e4, head.band_used);
        push1(specials, &mut n_specials, e4 as u16, head.special_used);
    }
    let bundle = |e: u16| usize::from(e >> ITEM_BITS) & (BATCH - 1);
    let item = |e: u16| usize::from(e) & (ITEMS - 1);
    let op = |e: u16| item(e) >> 2;
    for &e in &slots[..n_slots.min(SLOT_WORK)] {
        let i = bundle(e);
        state[i] &= !u8::from(!t.slot_clean(Raw(&batch[i]), &t.slot_items[item(e)]));
    }
    for &e in &bands[..n_bands.min(BAND_WORK)] {
        let i = bundle(e);
        state[i] &= !(u8::from(!t.band_clean(Raw(&batch[i]), t.band_items[item(e)])) * BAND_CLEAN);
    }
    for &e in &specials[..n_specials.min(BATCH)] {
        let (i, plan) = (bundle(e), &t.plans[op(e)]);
        let mx_ok = plan.mx_used == 0 || t.mx_clean(Raw(&batch[i]), &plan.mx);
        let tied_ok = t.tied_clean(Raw(&batch[i]), plan.tied);
        // A slot whose alignment an erratum relaxes fails the bundle as a slot does.
        let slots_ok = mx_ok & t.aligned_clean(Raw(&batch[i]));
        state[i] &= !disjoint(u8::from(!slots_ok), u8::from(!tied_ok) * BAND_CLEAN);
    }
    state.map(verdict_of)
}
