//! The fast path against the full checks: on generated, corrupted, mutated
//! and random bundles, both give the same findings, and the clean bundles
//! the generator makes are proven clean (the stream functions' speed rests
//! on it). Every kernel is compared with the one-bundle path and the scalar
//! kernel in `kernel.rs`.

use crate::bundle::{Bundle, BUNDLE_BYTES};
use crate::generation::Generation;
use crate::validate::{validate_with, Finding};
use crate::{props, smith};
use arbitrary::Unstructured;

fn both(b: &Bundle, g: Generation) -> (Vec<Finding>, Vec<Finding>) {
    let (mut fast, mut full) = (Vec::new(), Vec::new());
    validate_with(b, g, &mut fast, true);
    validate_with(b, g, &mut full, false);
    (fast, full)
}

#[test]
fn fast_path_matches_full_checks_on_generated_corrupted_and_mutated_bundles() {
    let (mut clean, mut mutated) = (0, 0);
    for seed in 0..3000u64 {
        let bytes = props::seeded_bytes(seed, 512);
        let mut u = Unstructured::new(&bytes);
        for g in Generation::ALL {
            let Ok(b) = smith::bundle(&mut u, g) else { continue };
            let (fast, full) = both(&b, g);
            assert_eq!(fast, full, "{g}: {}", crate::text::disasm(&b));
            // Every clean bundle the generator makes is proven clean here (the
            // stream functions' speed rests on it: `reports/profiling.md`).
            if full.is_empty() {
                clean += 1;
                assert_eq!(super::verdict(&b, g), super::Verdict::Clean, "{g}: a clean bundle left to the full checks: {}", crate::text::disasm(&b));
            }
            // The same bundle read on the other generations exercises availability rules.
            for other in Generation::ALL {
                let (fast, full) = both(&b, other);
                assert_eq!(fast, full, "{g} bundle on {other}: {}", crate::text::disasm(&b));
            }
            // One corrupted byte lands on every field the fast path reads.
            if let (Ok(at), Ok(v)) = (u.int_in_range(0..=BUNDLE_BYTES - 1), u.arbitrary::<u8>()) {
                let mut raw = b.encode();
                raw[at] = v;
                let c = Bundle::decode(&raw);
                let (fast, full) = both(&c, g);
                assert_eq!(fast, full, "{g} byte {at} = {v:#04x}: {}", crate::text::disasm(&c));
            }
            if let Ok(Some(m)) = smith::mutate(&mut u, &b, g) {
                let (fast, full) = both(&m.bundle, g);
                assert_eq!(fast, full, "{g} mutation {}: {}", m.what, crate::text::disasm(&m.bundle));
                mutated += usize::from(!full.is_empty());
            }
        }
    }
    assert!(clean > 1000 && mutated > 1000, "too few cases: {clean} clean, {mutated} mutated");
}

/// A live pattern slot of a bundle: its offset, address word, pattern layout and slot size.
struct PatternSlot {
    at: usize,
    word: crate::addr4::Addr4,
    view: &'static crate::layout::Layout,
    slot_size: usize,
    /// Where its nums are: (offset in the slot, bytes).
    nums: (usize, usize),
}

/// Generated bundles valid under the spec (3000 seeds, the generations in turn), each with
/// its live pattern slots.
fn clean_bundles_with_pattern_slots() -> Vec<(Generation, Bundle, Vec<PatternSlot>)> {
    use crate::operands::{self, SlotType};
    let mut out = Vec::new();
    for seed in 0..3000u64 {
        let bytes = props::seeded_bytes(seed, 512);
        let g = Generation::ALL[seed as usize % 3];
        let Ok(b) = smith::bundle(&mut Unstructured::new(&bytes), g) else { continue };
        let Some(op) = crate::opcode::lookup(b.opcode()) else { continue };
        if !crate::validate::validate(&b, g).is_empty() {
            continue;
        }
        let raw = b.encode();
        let slots = operands::live_slots(op)
            .filter_map(|slot| {
                let SlotType::Pattern(dims) = slot.ty else { return None };
                let at = slot.offset(b.layout());
                let word = u32::from_le_bytes(raw.get(at..at + 4)?.try_into().ok()?);
                let view = crate::descriptor::pattern_layout(dims);
                let Some(nums) = view.resolve("num") else { panic!("{} has no nums", view.name) };
                Some(PatternSlot { at, word: crate::addr4::Addr4::new(word), view, slot_size: slot.size(), nums })
            })
            .collect();
        out.push((g, b, slots));
    }
    out
}

#[test]
fn a_gathers_static_num_bytes_are_never_read() {
    // A gather reads its slot as INDIRECT16B (or only its index word, when narrow): the
    // static pattern's nums lie in bytes it does not read, so zeros there change nothing.
    let mut zeroed = [0usize; 2];
    for (g, b, slots) in clean_bundles_with_pattern_slots() {
        let mut raw = b.encode();
        for s in slots {
            let (num, size) = s.nums;
            if s.word.is_indirect() && !s.word.is_register() && s.slot_size == s.view.size {
                raw[s.at + num..s.at + num + size].fill(0);
                zeroed[usize::from(s.view.size >= crate::descriptor::Indirect16b::LAYOUT.size)] += 1;
            }
        }
        let c = Bundle::decode(&raw);
        assert_eq!(crate::validate::validate(&c, g), [], "{g}: {}", crate::text::disasm(&c));
        assert_eq!(super::verdict(&c, g), super::Verdict::Clean, "{g}: {}", crate::text::disasm(&c));
    }
    // The generator makes gathers of source slots, which are all wide today.
    assert!(zeroed[1] > 20, "gathers zeroed (narrow, wide): {zeroed:?}");
}

#[test]
fn a_narrow_gathers_nums_are_never_read() {
    // An indirect word in a slot too narrow for INDIRECT16B gathers through its index
    // word alone: its nums are never read, so zero nums leave a clean bundle clean.
    use crate::addr4::{MODE_INDIRECT, MODE_MASK};
    let mut narrow = 0;
    for (g, b, slots) in clean_bundles_with_pattern_slots() {
        let mut raw = b.encode();
        let mut changed = 0;
        for s in slots {
            if s.word.is_register() || s.slot_size >= crate::descriptor::Indirect16b::LAYOUT.size {
                continue;
            }
            let (num, size) = s.nums;
            raw[s.at..s.at + 4].copy_from_slice(&(s.word.word() & !MODE_MASK | MODE_INDIRECT).to_le_bytes());
            raw[s.at + num..s.at + num + size].fill(0);
            changed += 1;
        }
        if changed == 0 {
            continue;
        }
        let c = Bundle::decode(&raw);
        let (fast, full) = both(&c, g);
        assert_eq!(fast, full, "{g}: {}", crate::text::disasm(&c));
        if full.is_empty() {
            narrow += changed;
            assert_eq!(super::verdict(&c, g), super::Verdict::Clean, "{g}: {}", crate::text::disasm(&c));
        }
    }
    assert!(narrow > 20, "narrow gathers with zero nums judged clean: {narrow}");
}

/// Generated bundles that `pick` selects: most clean ones are proven
/// clean by the fast path, and every byte of the body set to a few
/// telling values gives the same findings on both paths.
fn every_corruption_agrees(what: &str, pick: impl Fn(&Bundle) -> bool) {
    let (mut clean, mut proven, mut corrupted) = (0, 0, 0);
    for seed in 0..6000u64 {
        let bytes = props::seeded_bytes(seed, 512);
        let mut u = Unstructured::new(&bytes);
        let g = Generation::ALL[seed as usize % Generation::ALL.len()];
        let Ok(b) = smith::bundle(&mut u, g) else { continue };
        if !pick(&b) {
            continue;
        }
        let (fast, full) = both(&b, g);
        assert_eq!(fast, full);
        clean += usize::from(full.is_empty());
        proven += usize::from(super::verdict(&b, g) == super::Verdict::Clean);
        for at in 4..BUNDLE_BYTES {
            // As an address word's top byte: 0x22 an indirect PSUM address, 0x24 an indirect one outside memory.
            for v in [0x00, 0x01, 0x02, 0x03, 0x20, 0x22, 0x24, 0x40, 0x60, 0x7F, 0x80, 0xFF, b.encode()[at] ^ 1] {
                let mut raw = b.encode();
                raw[at] = v;
                let c = Bundle::decode(&raw);
                for g in Generation::ALL {
                    let (fast, full) = both(&c, g);
                    assert_eq!(fast, full, "{what}, {g}, byte {at} = {v:#04x}: {}", crate::text::disasm(&c));
                    corrupted += usize::from(!full.is_empty());
                }
            }
        }
    }
    assert!(clean > 30 && corrupted > 1000, "{what}: {clean} clean, {corrupted} corrupted");
    assert!(proven * 10 > clean * 9, "{what}: fast path proved {proven} of {clean} clean bundles");
}

#[test]
fn mx_operands_are_proven_clean_and_every_corruption_is_caught() {
    every_corruption_agrees("MX matmul", |b| b.kind() == crate::bundle::BodyKind::MatmulMx);
}

#[test]
fn pool_and_branch_bands_are_proven_clean_and_every_corruption_is_caught() {
    every_corruption_agrees("Pool", |b| b.opcode() == crate::validate::POOL_OPCODE);
    every_corruption_agrees("Branch", |b| b.kind() == crate::bundle::BodyKind::Branch);
}

#[test]
fn fast_path_matches_full_checks_on_random_bytes() {
    let bytes = props::seeded_bytes(0x5eed, 20_000 * BUNDLE_BYTES);
    for raw in bytes.chunks_exact(BUNDLE_BYTES) {
        let Some(b) = Bundle::decode_slice(raw) else { continue };
        for g in Generation::ALL {
            let (fast, full) = both(&b, g);
            assert_eq!(fast, full, "{g}: {}", crate::text::disasm(&b));
        }
    }
}

/// The bytes where the amended tables of `g` read opcode `op` otherwise than the
/// spec's: each slot's dtype byte given an amended section, each band byte given an amended set.
fn amended_bytes(g: Generation, op: u8) -> Vec<usize> {
    use super::build::tables;
    use super::Rules;
    use crate::errata::Profile;
    let (spec, amended) = (&tables()[Rules::spec(g).index()], &tables()[Rules { generation: g, profile: Profile::Amended }.index()]);
    let (s, a) = (&spec.plans[usize::from(op)], &amended.plans[usize::from(op)]);
    let slots = s.slots.iter().zip(&a.slots).take(usize::from(a.head.used)).filter(|(s, a)| s.dtype_base != a.dtype_base).map(|(_, a)| a.dtype_at);
    let band = s.band.iter().zip(&a.band).take(usize::from(a.head.band_used));
    let band = band.filter(|(s, a)| spec.allowed[usize::from(s.set)] != amended.allowed[usize::from(a.set)]).map(|(_, a)| a.at);
    slots.chain(band).map(usize::from).collect()
}

/// The amended tables prove valid exactly what the errata accept by one byte:
/// on generated bundles of every opcode whose amended plan differs, each amended
/// byte swept over every value, a bundle the amended fast path proves clean (or
/// its header and slots clean) is valid (or has only band findings) under the
/// amended profile by the reporting checks, and bundles the spec's tables leave
/// to those checks are proven so (the errata's fields do reach the fast path).
#[test]
fn the_amended_tables_prove_only_what_the_errata_accept() {
    use super::{verdict_raw, Rules, Verdict};
    use crate::errata::Profile;
    use crate::validate::{is_valid, validate_as};
    let (mut swept, mut gained) = (0usize, 0usize);
    let mut seen = std::collections::HashSet::new();
    for seed in 0..6000u64 {
        let bytes = props::seeded_bytes(seed ^ 0xa3e5, 512);
        let g = Generation::ALL[seed as usize % 3];
        let Ok(b) = smith::bundle(&mut Unstructured::new(&bytes), g) else { continue };
        let at = amended_bytes(g, b.opcode());
        // Two bundles per generation and opcode.
        let n = seen.iter().filter(|&&(sg, op, _)| sg == g && op == b.opcode()).count();
        if at.is_empty() || n >= 2 {
            continue;
        }
        seen.insert((g, b.opcode(), seed));
        let amended = Rules { generation: g, profile: Profile::Amended };
        for &at in &at {
            for v in 0..=u8::MAX {
                let mut raw = b.encode();
                raw[at] = v;
                let c = Bundle::decode(&raw);
                let found = validate_as(&c, g, Profile::Amended);
                match verdict_raw(&raw, amended) {
                    Verdict::Clean => assert!(is_valid(&found), "{g} byte {at:#x} = {v:#04x}: proven clean, yet {found:?}"),
                    Verdict::BandUnknown => {
                        let mut band = Vec::new();
                        super::super::report(&c, g, &mut band, Verdict::BandUnknown, false);
                        super::super::amend::amend_from(&c, g, &mut band, 0, false);
                        assert_eq!(is_valid(&band), is_valid(&found), "{g} byte {at:#x} = {v:#04x}: slots proven clean, yet {found:?}");
                    }
                    Verdict::Unknown => {}
                }
                gained += usize::from(verdict_raw(&raw, amended) != Verdict::Unknown && verdict_raw(&raw, Rules::spec(g)) == Verdict::Unknown);
                swept += 1;
            }
        }
    }
    let ops: std::collections::BTreeSet<u8> = seen.iter().map(|&(_, op, _)| op).collect();
    // MatMul's destination dtype and row group, LoadStationary's group selectors, Activation's nibbles, at least.
    assert!([0x01, 0x02, 0x21].iter().all(|op| ops.contains(op)), "opcodes swept: {ops:02x?}");
    assert!(swept > 5000 && gained > 100, "{swept} swept, {gained} decided only by the amended tables");
}

/// Where the amended tables test a byte rule by errata that tie it to other
/// fields (`tied.rs`), every kernel proves clean exactly what `validate_as`
/// finds valid: on bundles of each such opcode (the semaphore's), each byte
/// the tests and their errata read swept over every value, from bases that
/// wait or not and act or not.
#[test]
fn byte_rules_tied_by_errata_are_decided_exactly() {
    use super::build::tables;
    use super::tied::TiedBand;
    use super::{verdicts, Batch, Kernel, Rules, Verdict, Work, BATCH};
    use crate::errata::Profile;
    use crate::validate::{is_valid, validate_as};
    let mut work = Work::default();
    for g in Generation::ALL {
        let rules = Rules { generation: g, profile: Profile::Amended };
        let t = &tables()[rules.index()];
        let tied: Vec<u8> = (0..=u8::MAX).filter(|&op| matches!(t.plans[usize::from(op)].tied, TiedBand::Amended { .. })).collect();
        assert_eq!(tied, [0xA0], "{g}: opcodes with amended tied tests");
        for op in tied {
            let TiedBand::Amended { first, count } = t.plans[usize::from(op)].tied else { continue };
            let tests = &t.amended[usize::from(first)..usize::from(first + count)];
            let mut read: Vec<usize> =
                tests.iter().flat_map(|a| std::iter::once(usize::from(a.test.at)).chain(a.errata.iter().flat_map(|e| e.reads()))).collect();
            read.sort_unstable();
            read.dedup();
            // cmp_op, wait_idx, subtype, act_idx and the two 4-byte values.
            let layout = Bundle::decode(&[op; BUNDLE_BYTES]).layout();
            let fields = ["cmp_op", "wait_idx", "subtype", "act_idx", "wait_value", "act_value"];
            let mut want: Vec<usize> = fields.iter().filter_map(|f| layout.resolve(f)).flat_map(|(at, size)| at..at + size).collect();
            want.sort_unstable();
            assert_eq!(read, want, "{g} {op:#04x}: the bytes the tied tests read");
            let at = |f: &str| layout.field_offset(f).unwrap_or(0);
            // No wait and no action; a wait (0x05) and no action; no wait and an action (0x13); both.
            let bases = [
                vec![],
                vec![(at("cmp_op"), 0x05), (at("wait_idx"), 3)],
                vec![(at("subtype"), 0x13), (at("act_idx"), 7)],
                vec![(at("cmp_op"), 0x05), (at("subtype"), 0x13), (at("wait_value"), 1), (at("act_value"), 1)],
            ];
            let mut raws = Vec::new();
            for base in &bases {
                let mut raw = [0u8; BUNDLE_BYTES];
                raw[..2].copy_from_slice(&[op, crate::bundle::INST_WORD_LEN]);
                base.iter().for_each(|&(at, v)| raw[at] = v);
                for &at in &read {
                    for v in 0..=u8::MAX {
                        let mut r = raw;
                        r[at] = v;
                        raws.push(r);
                    }
                }
            }
            let want: Vec<bool> = raws.iter().map(|r| is_valid(&validate_as(&Bundle::decode(r), g, Profile::Amended))).collect();
            assert!(want.iter().filter(|&&v| v).count() > 100 && want.iter().filter(|&&v| !v).count() > 1000, "{g}: one-sided sweep");
            for kernel in Kernel::available_kernels() {
                for (chunk, want) in raws.chunks(BATCH).zip(want.chunks(BATCH)) {
                    let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
                    batch.iter_mut().zip(chunk).for_each(|(d, s)| *d = *s);
                    for ((raw, v), &valid) in chunk.iter().zip(verdicts(&batch, rules, kernel, &mut work)).zip(want) {
                        // Header and slots always pass here: the band is all there is to decide.
                        assert_eq!(v == Verdict::Clean, valid, "{g} {}: {v:?} for {raw:02x?}", kernel.name());
                        assert_ne!(v, Verdict::Unknown, "{g} {}: {raw:02x?}", kernel.name());
                    }
                }
            }
        }
    }
}

/// Where the amended tables check a slot's alignment apart (an erratum
/// accepts it aligned to another field's dtype: TensorTensor's inputs to
/// out_dtype's), every kernel proves clean only what `validate_as` finds
/// valid, and proves clean every bundle whose only findings are the
/// erratum's notes: on generated TensorTensor bundles, the low byte and the top byte
/// of each such slot's address word, its dtype byte and the erratum's dtype
/// byte each swept over every value.
#[test]
fn slots_aligned_by_an_erratum_are_decided_exactly() {
    use super::build::tables;
    use super::{verdicts, Batch, Kernel, Rules, Verdict, Work, BATCH};
    use crate::errata::Profile;
    use crate::validate::{is_valid, validate_as};
    let mut work = Work::default();
    let (mut proven, mut misaligned_own) = (0usize, 0usize);
    for g in Generation::ALL {
        let rules = Rules { generation: g, profile: Profile::Amended };
        let t = &tables()[rules.index()];
        let ops: Vec<u8> = (0..=u8::MAX).filter(|&op| !t.aligned[usize::from(op)].is_empty()).collect();
        assert_eq!(ops, [0x41], "{g}: opcodes with slots aligned by an erratum");
        let slots = &t.aligned[0x41];
        assert_eq!(slots.len(), 2, "{g}: TensorTensor's in0 and in1");
        let layout = Bundle::decode(&[0x41; BUNDLE_BYTES]).layout();
        let Some(out_at) = layout.field_offset("out_dtype") else { panic!("no out_dtype") };
        let mut raws = Vec::new();
        let mut bases = 0;
        for seed in 0..20_000u64 {
            let bytes = props::seeded_bytes(seed ^ 0xa11e, 512);
            let Ok(b) = smith::bundle(&mut Unstructured::new(&bytes), g) else { continue };
            if b.opcode() != 0x41 || bases >= 6 {
                continue;
            }
            bases += 1;
            let raw = b.encode();
            let mut at: Vec<usize> = vec![out_at];
            for a in slots {
                at.extend([usize::from(a.word_at), usize::from(a.word_at) + 3, usize::from(a.dtype_at)]);
            }
            for &at in &at {
                for v in 0..=u8::MAX {
                    let mut r = raw;
                    r[at] = v;
                    raws.push(r);
                }
            }
        }
        assert!(bases >= 3, "{g}: only {bases} TensorTensor bundles");
        // Valid, and whether nothing but the erratum's notes was found (then the fast path must decide).
        let want: Vec<(bool, bool)> = raws
            .iter()
            .map(|r| {
                let found = validate_as(&Bundle::decode(r), g, Profile::Amended);
                (is_valid(&found), found.iter().all(|f| f.erratum == Some("tensortensor-inputs-aligned-to-out")))
            })
            .collect();
        for kernel in Kernel::available_kernels() {
            for (chunk, want) in raws.chunks(BATCH).zip(want.chunks(BATCH)) {
                let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
                batch.iter_mut().zip(chunk).for_each(|(d, s)| *d = *s);
                for ((raw, v), &(valid, only_aligned)) in chunk.iter().zip(verdicts(&batch, rules, kernel, &mut work)).zip(want) {
                    // Proven clean only if valid; valid with nothing but the erratum's notes, always proven.
                    assert!(v != Verdict::Clean || valid, "{g} {}: proven clean, yet invalid: {raw:02x?}", kernel.name());
                    assert!(v == Verdict::Clean || !(valid && only_aligned), "{g} {}: {v:?} for {raw:02x?}", kernel.name());
                    proven += usize::from(v == Verdict::Clean);
                    // Valid only by the erratum: the spec's own tables refuse it.
                    misaligned_own += usize::from(v == Verdict::Clean && super::verdict_raw(raw, Rules::spec(g)) == Verdict::Unknown);
                }
            }
        }
    }
    assert!(proven > 1000 && misaligned_own > 100, "{proven} proven clean, {misaligned_own} of them only by the erratum");
}
