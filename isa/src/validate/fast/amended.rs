//! The amended tables: a generation's plans and tables with the errata
//! that decide by one byte folded in, so the fast path proves valid, without
//! a finding, a bundle whose every finding an erratum would amend (and whose
//! slot, read again as an erratum says, is clean). Derived from the same
//! placed errata the amending reads (`amend.rs`): a dtype byte an erratum
//! reads as no dtype (`matmul-dst-dtype-zero`) or as two nibble tags
//! (`activation-in-dtype-nibbles`) gets a dtype section of its own, a PSUM
//! write the errata allow any dtype (`psum-write-dtype-binds-matmul`) the
//! PSUM bit, and a byte rule the values an erratum accepts
//! (`matmul-row-group-zero`). What an erratum accepts by other fields too
//! is left to the reporting checks (the amended verdict is then theirs),
//! but for a byte rule whose errata all read it as their own field (the
//! semaphore's `semaphore-no-wait` and `-no-action`, which tie the byte to
//! the wait or action fields): its test moves to the plan's tied band,
//! which asks those errata (`tied.rs`); and for a slot whose alignment an
//! erratum relaxes to another field's dtype's (`tensortensor-inputs-aligned-to-out`):
//! its dtype section holds no alignment, and `aligned.rs` checks it.
//! The spec's tables are not changed: they stay what findings are made by.

use super::super::amend::{align_amenders, band_amenders, band_value_amended, dtype_reading, psum_write_amended, DtypeReading};
use super::super::band::BYTE_RULES;
use super::aligned::AlignedSlot;
use super::band_rule::{BandTest, SETS};
use super::classes::*;
use super::plan::Plan;
use super::tied::{AmendedTest, TiedBand};
use crate::generation::Generation;
use crate::operands;

/// Dtype sections past the spec's, free for amended columns.
const FIRST_FREE_SECTION: usize = PSUM_KINDS.len() * TAG_READS.len() + 1;

/// What the amended tables check beside the plans: the tests the plans'
/// [`TiedBand::Amended`] bands name, and by opcode the slots whose
/// alignment an erratum relaxes (`aligned.rs`).
pub(super) struct Checks {
    pub(super) tests: Vec<AmendedTest>,
    pub(super) aligned: Vec<Vec<AlignedSlot>>,
}

/// Folds the errata into `plans`, `dtypes` and `allowed` (built by the spec on `g`).
pub(super) fn amend(g: Generation, plans: &mut [Plan; 0x100], dtypes: &mut [u8; DTYPE_ENTRIES], allowed: &mut [[u8; 0x100]; SETS]) -> Checks {
    let mut aligned = vec![Vec::new(); 0x100];
    // Each band test's byte rule (its set, before amended rows move some).
    let rules: Vec<_> = plans.iter().map(|p| p.band.map(|t| t.set)).collect();
    let mut free = FIRST_FREE_SECTION..DTYPE_ENTRIES / SECTION;
    // By byte-rule set: the row each plan's test of it asks for, and where the test is.
    let mut rows: Vec<Vec<([u8; 0x100], usize, usize)>> = vec![Vec::new(); SETS];
    for (op, plan) in (0..=u8::MAX).zip(plans.iter_mut()) {
        let used = usize::from(plan.head.used);
        for (sp, placed) in plan.slots.iter_mut().zip(operands::placed(op)).take(used) {
            if sp.mode_base == ModeSection::Unused.base() {
                continue;
            }
            let Some(at) = placed.dtype_at[g.index()] else { continue };
            let (kind, read) = section_of(sp.dtype_base);
            let Some(read) = read else { continue };
            // Only where the dtype byte reads as the spec's tag: the own alignment checked apart is the spec's.
            let read_otherwise = (0..=u8::MAX).any(|b| dtype_reading(g, op, placed.slot, at, b).is_some());
            let errata = if read_otherwise { Vec::new() } else { align_amenders(g, op, placed.slot) };
            // An alignment an erratum relaxes is checked apart, the spec's or the erratum's (the section holds none).
            let align = if errata.is_empty() { !0 } else { !dclass::ALIGN_MASK };
            let column: [u8; SECTION] = std::array::from_fn(|b| amended_class(g, op, placed.slot, at, kind, read, b as u8) & align);
            if !errata.is_empty() {
                let slot = AlignedSlot { word_at: sp.slot_at, mode_base: sp.mode_base, dtype_at: sp.dtype_at, own_base: sp.dtype_base, errata };
                aligned[usize::from(op)].push(slot);
                plan.head.special_used = 1;
            }
            let base = usize::from(sp.dtype_base);
            if dtypes[base..base + SECTION] == column {
                continue;
            }
            // The same column as an amended section already made, else the next free one (none left: the spec's).
            let made = (FIRST_FREE_SECTION..free.start).find(|&s| dtypes[s * SECTION..(s + 1) * SECTION] == column);
            let Some(section) = made.or_else(|| free.next()) else { continue };
            dtypes[section * SECTION..(section + 1) * SECTION].copy_from_slice(&column);
            sp.dtype_base = u16::try_from(section * SECTION).unwrap_or(sp.dtype_base);
        }
        for (n, t) in plan.band.iter().enumerate().take(usize::from(plan.head.band_used)) {
            let (set, at) = (usize::from(t.set), usize::from(t.at));
            let (Some(rule), Some(row)) = (BYTE_RULES.get(set), allowed.get(set)) else { continue };
            let amended: [u8; 0x100] =
                std::array::from_fn(|v| row[v] | u8::from(band_value_amended(g, op, rule.check.code, rule.field, at, v as u8)));
            rows[set].push((amended, usize::from(op), n));
        }
    }
    // A set whose every test is amended alike is amended in place; otherwise each
    // amended row takes a spare set (the one after the rules' allows every value), while
    // any are left, and the tests asking for it move there (none left: the spec's row stands,
    // and the reporting checks amend).
    let mut spare = BYTE_RULES.len() + 1..SETS;
    for (set, wanted) in rows.iter().enumerate() {
        let Some((first, _, _)) = wanted.first() else { continue };
        if wanted.iter().all(|(w, _, _)| w == first) {
            allowed[set] = *first;
            continue;
        }
        let spec = allowed[set];
        for (row, op, n) in wanted.iter().filter(|(w, _, _)| *w != spec) {
            let made = (BYTE_RULES.len() + 1..spare.start).find(|&s| allowed[s] == *row);
            let Some(to) = made.or_else(|| spare.next()) else { break };
            allowed[to] = *row;
            if let (Some(t), Ok(to)) = (plans[*op].band.get_mut(*n), u8::try_from(to)) {
                t.set = to;
            }
        }
    }
    let mut tests = Vec::new();
    for ((op, plan), rules) in (0..=u8::MAX).zip(plans.iter_mut()).zip(&rules) {
        tie(g, op, plan, rules, &mut tests);
    }
    Checks { tests, aligned }
}

/// Moves the band tests of `plan` (of opcode `op`, each of the byte rule
/// `rules` names by index) that an erratum amends
/// by other fields too into a [`TiedBand::Amended`] band, their tests
/// appended to `tests`. Only where the plan has no tied band of its own and
/// every erratum that may amend the rule reads it as its own field (else
/// the test stays, and the reporting checks decide as before).
fn tie(g: Generation, op: u8, plan: &mut Plan, rules: &[u8], tests: &mut Vec<AmendedTest>) {
    if plan.tied != TiedBand::None {
        return;
    }
    let used = usize::from(plan.head.band_used);
    let (mut kept, mut tied) = (Vec::new(), Vec::new());
    for (t, &rule) in plan.band.iter().zip(rules).take(used) {
        let errata = BYTE_RULES.get(usize::from(rule)).and_then(|r| band_amenders(g, op, r.check.code, r.field, usize::from(t.at)));
        match errata {
            Some(errata) if errata.iter().any(|e| !e.by_value_alone()) => tied.push(AmendedTest { test: *t, errata }),
            _ => kept.push(*t),
        }
    }
    let (Ok(first), Ok(count), Ok(band_used)) = (u8::try_from(tests.len()), u8::try_from(tied.len()), u8::try_from(kept.len())) else { return };
    if count == 0 {
        return;
    }
    // The kept tests first, then tests that always pass (the set of all values), as the plan has them.
    let always = plan.band.get(used).copied().unwrap_or(BandTest { at: 0, set: u8::try_from(BYTE_RULES.len()).unwrap_or(u8::MAX) });
    plan.band = std::array::from_fn(|n| kept.get(n).copied().unwrap_or(always));
    plan.head.band_used = band_used;
    plan.tied = TiedBand::Amended { first, count };
    plan.head.special_used = 1;
    tests.extend(tied);
}

/// The PSUM kind and tag reading of the spec's dtype section at `base`
/// (`None` reading: the no-field section).
fn section_of(base: u16) -> (PsumWrite, Option<TagRead>) {
    let sections = PSUM_KINDS.iter().flat_map(|&k| TAG_READS.iter().map(move |&r| (k, r)));
    sections.clone().find(|&(k, r)| dtype_base(Some(r), k) == base).map_or((PsumWrite::Reads, None), |(k, r)| (k, Some(r)))
}

/// The class of dtype byte `byte` of `slot` (at `at`, read as `read`, of
/// PSUM kind `kind`) under the errata: the spec's, with the PSUM bit where
/// the errata allow any dtype there; where the spec refuses the tag, the
/// class of the erratum's reading (refused still where none accepts it).
fn amended_class(g: Generation, op: u8, slot: &operands::Slot, at: usize, kind: PsumWrite, read: TagRead, byte: u8) -> u8 {
    let spec = dtype_class(Some(read.tag(byte)), kind, g);
    if spec & dclass::VALID != 0 {
        let psum_any = kind == PsumWrite::Writes && psum_write_amended(g, op, slot);
        return spec | if psum_any { dclass::PSUM_OK } else { 0 };
    }
    // A tag the spec refuses reads as no dtype only where the slot's checks skip every dtype rule then.
    match dtype_reading(g, op, slot, at, byte) {
        Some(DtypeReading::NoDtype) => dtype_class(None, kind, g),
        // Checked again with the erratum's tag, whose findings are not amended.
        Some(DtypeReading::Tag(t)) => dtype_class(Some(t), kind, g),
        None => spec,
    }
}
