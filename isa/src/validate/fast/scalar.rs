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
/// length ([`push4`]), so a list has that many spare entries past its 256.
/// A list's length is a byte of one word ([`Head::counts`](super::plan::Head::counts)):
/// a batch makes fewer than 256 entries of each list, so a length indexes
/// its list with no mask. An MX operand or a tied band is one per bundle.
const WORK: usize = 0x100;
const _: () = assert!(MAX_SLOTS * BATCH < WORK && MAX_BAND * BATCH < WORK && BATCH < WORK);

/// Writes the four work `entries` (from [`super::entry::entries4`]) at
/// `at`, all four so the loop has no data-dependent exit: the list's
/// length then counts those the opcode has.
#[inline(always)]
fn push4(work: &mut [u16; WORK + SLOT_ENTRIES], at: u8, entries: u64) {
    let at = usize::from(at);
    // The lanes as entries in order, on hosts of either byte order (one 8-byte store on x86-64).
    let lanes: [u16; SLOT_ENTRIES] = std::array::from_fn(|k| (entries >> (16 * k)) as u16);
    work[at..at + SLOT_ENTRIES].copy_from_slice(&lanes);
}

/// The scalar kernel's work lists, kept for a whole stream: a batch reads
/// only the entries it wrote, so they are not cleared between batches
/// (clearing them cost ~3 instructions per bundle).
pub(in super::super) struct Work {
    slots: [u16; WORK + SLOT_ENTRIES],
    bands: [u16; WORK + SLOT_ENTRIES],
    specials: [u16; WORK],
}

impl Default for Work {
    fn default() -> Work {
        Work { slots: [0; WORK + SLOT_ENTRIES], bands: [0; WORK + SLOT_ENTRIES], specials: [0; WORK] }
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
    // The three lists' lengths, a byte each: slots, band tests, specials.
    let mut lens = 0u32;
    for (i, (raw, st)) in batch.iter().zip(state.iter_mut()).enumerate() {
        prefetch::next_batch(raw);
        let op = raw[0];
        let head = &t.heads[usize::from(op)];
        *st = t.head(&head.head, Raw(raw));
        // entries4(entry(i, op)), without its multiply: the item bits from the table.
        let e4 = disjoint(t.items4[usize::from(op)], u64::from(entry(i, 0)) * LANE_ONES);
        let [at_slot, at_band, at_special, _] = lens.to_le_bytes();
        push4(slots, at_slot, e4);
        push4(bands, at_band, e4);
        specials[usize::from(at_special)] = e4 as u16;
        lens += head.counts;
    }
    let [n_slots, n_bands, n_specials, _] = lens.to_le_bytes();
    let bundle = |e: u16| usize::from(e >> ITEM_BITS) & (BATCH - 1);
    let item = |e: u16| usize::from(e) & (ITEMS - 1);
    let op = |e: u16| item(e) >> 2;
    slot_pass(t, batch, &slots[..usize::from(n_slots)], &mut state);
    for &e in &bands[..usize::from(n_bands)] {
        let i = bundle(e);
        state[i] &= !(u8::from(!t.band_clean(Raw(&batch[i]), t.band_items[item(e)])) * BAND_CLEAN);
    }
    for &e in &specials[..usize::from(n_specials)] {
        let (i, plan) = (bundle(e), &t.plans[op(e)]);
        let mx_ok = plan.mx_used == 0 || t.mx_clean(Raw(&batch[i]), &plan.mx);
        let tied_ok = t.tied_clean(Raw(&batch[i]), plan.tied);
        // A slot whose alignment an erratum relaxes fails the bundle as a slot does.
        let slots_ok = mx_ok & t.aligned_clean(Raw(&batch[i]));
        state[i] &= !disjoint(u8::from(!slots_ok), u8::from(!tied_ok) * BAND_CLEAN);
    }
    state.map(verdict_of)
}

/// The slot pass: a function of its own, so the lengths of the other lists
/// wait in memory rather than in registers the pass needs (inlined, the
/// table's base was reloaded from the stack up to eight times per slot).
#[inline(never)]
fn slot_pass(t: &Planned, batch: &Batch, entries: &[u16], state: &mut [u8; BATCH]) {
    for &e in entries {
        let i = usize::from(e >> ITEM_BITS) & (BATCH - 1);
        state[i] &= !u8::from(!t.slot_clean(Raw(&batch[i]), &t.slot_items[usize::from(e) & (ITEMS - 1)]));
    }
}
