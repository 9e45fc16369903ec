//! The errata against real compiled programs: `corpus/neff/real/` (committed)
//! and `../shared/neff/` when present (required when TPB_REQUIRE_SHARED is set).
//! Real programs are valid by default, every erratum is supported by them, no
//! contradiction lacks an erratum, and out-of-spec values no real program
//! writes are still errors.

use std::collections::BTreeMap;
use std::path::PathBuf;
use tpb_isa::errata::{Accepts, Profile, ERRATA};
use tpb_isa::operands::{self, DtypeRef};
use tpb_isa::validate::{self, Finding};
use tpb_isa::{checks, opcode, Bundle, Generation, Raw, Severity};
use tpb_oracle::conform;
use tpb_oracle::evidence::detection;
use tpb_oracle::evidence::holdout::{self, Labelled};
use tpb_oracle::neff;

use crate::common;
use common::{bundles, corpus, shared};

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// What the amended profile still says about a bundle (notes aside).
fn refused(f: &[Finding]) -> Vec<String> {
    f.iter().filter(|x| x.severity != Severity::Note).map(|x| format!("{} {} ({})", x.code, x.field, x.message)).collect()
}

fn judge(files: &[PathBuf], what: &str) -> R<()> {
    if files.is_empty() {
        return Ok(());
    }
    let all = bundles(files)?;
    assert!(all.len() > 10_000, "{what}: {} bundles", all.len());
    let (mut invalid_spec, mut invalid_amended) = (0usize, 0usize);
    let mut support: BTreeMap<&str, usize> = BTreeMap::new();
    // Not even a warning or an info is left: every contradiction with the spec has its erratum.
    let mut left: BTreeMap<String, usize> = BTreeMap::new();
    for (g, raw) in &all {
        let b = Bundle::decode(raw);
        let spec = validate::validate_as(&b, *g, Profile::Spec);
        let mut amended = spec.clone();
        validate::amend(&b, *g, &mut amended);
        invalid_spec += usize::from(!validate::is_valid(&spec));
        invalid_amended += usize::from(!validate::is_valid(&amended));
        for id in amended.iter().filter_map(|f| f.erratum) {
            *support.entry(id).or_insert(0) += 1;
        }
        for r in refused(&amended) {
            *left.entry(format!("{g} {:#04x} {}: {r}", raw[0], opcode::name(raw[0]))).or_insert(0) += 1;
        }
    }
    assert!(left.is_empty(), "{what}: contradictions with no erratum:\n{left:#?}");
    // Nothing real is refused by default; under the spec alone the count is reported, not hidden.
    assert_eq!(invalid_amended, 0, "{what}: real bundles called invalid by default");
    assert!(invalid_spec > all.len() / 10, "{what}: {invalid_spec} of {} invalid under the spec alone", all.len());
    for e in ERRATA {
        assert!(support.contains_key(e.id), "{what}: erratum {} accepts no real bundle", e.id);
    }
    Ok(())
}

#[test]
fn conform_reports_the_errata_and_both_verdicts_on_the_committed_programs() -> R<()> {
    let neffs: Vec<_> = corpus().iter().map(|p| neff::read_file(p)).collect::<Result<_, _>>()?;
    let c = conform::conform_all(&neffs, None);
    assert_eq!(c.harness_failures(), 0);
    assert_eq!(c.invalid_amended(), 0);
    assert!(c.invalid_spec() > 0);
    let md = c.errata_markdown();
    assert!(md.contains("**0 invalid by default**"), "{md}");
    // Each erratum's bundle count, tallied here from the amended findings of every bundle.
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    for (g, raw) in bundles(&corpus())? {
        let b = Bundle::decode(&raw);
        let mut amended = validate::validate_as(&b, g, Profile::Spec);
        validate::amend(&b, g, &mut amended);
        let ids: std::collections::BTreeSet<&str> = amended.iter().filter_map(|f| f.erratum).collect();
        ids.into_iter().for_each(|id| *tally.entry(id).or_default() += 1);
    }
    for e in ERRATA {
        let by_build = c.erratum_bundles(e.id);
        assert!(!by_build.is_empty(), "{} has no bundle in the conform report", e.id);
        assert_eq!(by_build.values().sum::<usize>(), tally.get(e.id).copied().unwrap_or(0), "{}: {by_build:?}", e.id);
        assert!(by_build.keys().all(|b| b.starts_with("2.14.") || b.starts_with("2.23.")), "{by_build:?}");
        assert!(md.contains(&format!("`{}`", e.id)), "{} missing from the Errata section", e.id);
    }
    // EventSemaphore runs on every engine in real programs, though the table says SP: counted as a disagreement about the table.
    let mismatches = c.engine_mismatches();
    let sema = mismatches.get(&0xA0).ok_or("no EventSemaphore off SP")?;
    assert!(!sema.contains_key("SP") && sema.values().sum::<usize>() > 0, "{sema:?}");
    assert!(c.to_markdown().contains("### Engines the opcode table does not name"));
    // The JSON report lists the same: one entry per opcode, its table engine and the counts.
    let j = c.to_json();
    let listed = j["spec_disagreements"]["engine_mismatches"].as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), c.engine_mismatches().len(), "{listed:?}");
    let Some(sema_json) = listed.iter().find(|e| e["opcode"] == "0xa0") else { panic!("no EventSemaphore in {listed:?}") };
    assert_eq!(sema_json["table"], "SP");
    for (engine, n) in sema {
        assert_eq!(sema_json["engines"][engine.as_str()], *n, "{engine}: {sema_json}");
    }
    // A bundle disagrees with the spec through a finding or an engine the table does not name.
    let off_engine: usize = c.engine_mismatches().values().flat_map(|m| m.values()).sum();
    assert!(c.spec_disagreements() >= c.invalid_spec().max(off_engine), "{} < {} or {off_engine}", c.spec_disagreements(), c.invalid_spec());
    assert!(c.spec_disagreements() <= c.bundles());
    // Per opcode, the bundles add up to all of them; each check's, to its bundles over the opcodes.
    let ops = j["opcodes"].as_array().cloned().unwrap_or_default();
    assert_eq!(ops.iter().map(|o| o["count"].as_u64().unwrap_or(0) as usize).sum::<usize>(), c.bundles());
    let by_op: u64 = ops.iter().flat_map(|o| o["checks"].as_array().cloned().unwrap_or_default()).filter_map(|x| x["disagree"].as_u64()).sum();
    let by_code: u64 = j["spec_disagreements"]["checks"].as_array().map_or(0, |v| v.iter().filter_map(|x| x["bundles"].as_u64()).sum());
    assert!(by_op > 0 && by_op == by_code, "{by_op} bundles by opcode, {by_code} by check");
    // A field with more values than the table shows says how many others there were.
    assert!(c.to_markdown().contains(", other x"), "no field lists its other values");
    let j = c.errata_json();
    assert_eq!(j["verdicts"]["invalid_amended"], 0);
    assert_eq!(j["errata"].as_array().map(Vec::len), Some(ERRATA.len()));
    // Each erratum's files, over its builds: the programs with a bundle it accepts (a program is of one build).
    let mut files: BTreeMap<&str, usize> = BTreeMap::new();
    for p in corpus() {
        let mut ids = std::collections::BTreeSet::new();
        for (g, raw) in bundles(std::slice::from_ref(&p))? {
            let b = Bundle::decode(&raw);
            let mut amended = validate::validate_as(&b, g, Profile::Spec);
            validate::amend(&b, g, &mut amended);
            ids.extend(amended.iter().filter_map(|f| f.erratum));
        }
        ids.into_iter().for_each(|id| *files.entry(id).or_default() += 1);
    }
    for e in j["errata"].as_array().cloned().unwrap_or_default() {
        let id = e["id"].as_str().unwrap_or_default();
        let listed: u64 = e["bundles"].as_object().map(|b| b.values().filter_map(|x| x["files"].as_u64()).sum()).unwrap_or(0);
        assert_eq!(listed as usize, files.get(id).copied().unwrap_or(0), "{id}: {e}");
    }
    Ok(())
}

#[test]
fn committed_real_programs_are_valid_by_default_and_support_every_erratum() -> R<()> {
    let files = corpus();
    assert!(files.len() >= 10, "corpus/neff/real holds {} programs", files.len());
    judge(&files, "corpus/neff/real")
}

#[test]
fn shared_real_programs_are_valid_by_default_and_support_every_erratum() -> R<()> {
    judge(&shared(), "../shared/neff")
}

/// Real bundles the default profile refuses nothing of (notes allowed), at most `per_op` of each opcode and generation.
fn clean(per_op: usize) -> R<Vec<(Generation, Raw)>> {
    let mut seen: BTreeMap<(Generation, u8), usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (g, raw) in bundles(&corpus())? {
        let n = seen.entry((g, raw[0])).or_insert(0);
        if *n < per_op && refused(&validate::validate_as(&Bundle::decode(&raw), g, Profile::Amended)).is_empty() {
            *n += 1;
            out.push((g, raw));
        }
    }
    Ok(out)
}

/// `raw` must get `code` by default exactly as the spec alone gives it (an
/// error where the check, field and body are CONFIRMED), never a note.
fn assert_error(g: Generation, raw: &Raw, code: &str, field: &str, what: &str) {
    let b = Bundle::decode(raw);
    let on = |f: &Finding| f.code == code && f.field == field;
    let spec: Vec<Finding> = validate::validate_as(&b, g, Profile::Spec).into_iter().filter(on).collect();
    let amended: Vec<Finding> = validate::validate_as(&b, g, Profile::Amended).into_iter().filter(on).collect();
    assert!(!spec.is_empty() && spec == amended, "{g} {:#04x} with {what}: expected {code} as the spec gives it, got {amended:#?}", raw[0]);
    let confirmed = spec.iter().any(|x| x.confidence == tpb_isa::Confidence::Confirmed);
    assert!(!confirmed || spec.iter().any(|x| x.severity == Severity::Error), "{g} {:#04x} with {what}: {spec:#?}", raw[0]);
}

fn field(raw: &Raw, name: &str) -> Option<(usize, usize)> {
    Bundle::decode(raw).layout().resolve(name)
}

#[test]
fn out_of_spec_values_no_real_program_writes_stay_errors() -> R<()> {
    let clean = clean(4)?;
    assert!(clean.len() > 50, "{} clean real bundles", clean.len());
    // Opcodes in no table and no erratum (no real program writes them).
    let accepted_ops: Vec<u8> =
        ERRATA.iter().filter(|e| matches!(e.accepts, Accepts::Opcode)).flat_map(|e| e.amends.opcodes.listed().iter().copied()).collect();
    let nowhere: Vec<u8> = (0..=255u8).filter(|b| opcode::lookup(*b).is_none() && !accepted_ops.contains(b)).collect();
    assert!(nowhere.len() > 100);
    let (mut tried, mut semaphores) = (0, 0);
    for (g, raw) in &clean {
        let mut r = *raw;
        r[1] = 0x33;
        assert_error(*g, &r, checks::INST_WORD_LEN.code, "inst_word_len", "inst_word_len 0x33");
        if raw[0] != 0xDA {
            let mut r = *raw;
            r[1] = 0;
            assert_error(*g, &r, checks::INST_WORD_LEN.code, "inst_word_len", "inst_word_len 0 (accepted only on 0xDA)");
        }
        let mut r = *raw;
        r[2] = 0x01;
        assert_error(*g, &r, checks::HEADER_RESERVED.code, "reserved", "reserved byte set");
        for &op in nowhere.iter().step_by(17) {
            let mut r = *raw;
            r[0] = op;
            assert_error(*g, &r, checks::UNKNOWN_OPCODE.code, "opcode", &format!("opcode {op:#04x}"));
        }
        // Every whole-byte dtype field typing a live operand: tags over 16 are refused, every time.
        let Some(op) = opcode::lookup(raw[0]) else { continue };
        for slot in operands::live_slots(op) {
            if matches!(slot.dtype, DtypeRef::Nibble(..)) {
                continue;
            }
            let name = slot.dtype.field(*g);
            let corrected = ERRATA.iter().any(|e| matches!(e.accepts, Accepts::NibbleDtypes { .. }) && e.covers("invalid-dtype", raw[0], name, *g));
            let Some((off, 1)) = field(raw, name) else { continue };
            if corrected {
                continue;
            }
            for tag in [17u8, 0x20, 0x7F, 0xFF] {
                let mut r = *raw;
                r[off] = tag;
                assert_error(*g, &r, checks::INVALID_DTYPE.code, name, &format!("{name} = {tag:#04x}"));
                tried += 1;
            }
        }
        // Where +0x20 reads as two nibble tags, a zero nibble is no tag.
        if let Some(e) = ERRATA
            .iter()
            .find(|e| matches!(e.accepts, Accepts::NibbleDtypes { .. }) && e.amends.opcodes.contains(&raw[0]) && e.amends.generations.contains(g))
        {
            for field_name in e.amends.fields.listed() {
                let (off, _) = field(raw, field_name).ok_or("nibble field")?;
                for b in [0xA0u8, 0x00, 0xF0] {
                    let mut r = *raw;
                    r[off] = b;
                    assert_error(*g, &r, checks::INVALID_DTYPE.code, field_name, &format!("{field_name} = {b:#04x}"));
                }
            }
        }
        if raw[0] == 0xA0 {
            let at = |n: &str| field(raw, n).map(|(o, _)| o).ok_or(format!("semaphore field {n}"));
            for v in [0x02u8, 0x03, 0x06, 0x7F, 0xFF] {
                let mut r = *raw;
                r[at("cmp_op")?] = v;
                assert_error(*g, &r, checks::SEMAPHORE_CMP_OP.code, "cmp_op", &format!("cmp_op {v:#04x}"));
                let mut r = *raw;
                r[at("subtype")?] = v;
                assert_error(*g, &r, checks::SEMAPHORE_SUBTYPE.code, "subtype", &format!("subtype {v:#04x}"));
            }
            // 0 means "no wait" / "no action" only with the wait / action fields zero.
            let mut r = *raw;
            r[at("cmp_op")?] = 0;
            r[at("wait_idx")?] = 7;
            assert_error(*g, &r, checks::SEMAPHORE_CMP_OP.code, "cmp_op", "cmp_op 0 with a wait index");
            let mut r = *raw;
            r[at("subtype")?] = 0;
            r[at("act_value")?] = 1;
            assert_error(*g, &r, checks::SEMAPHORE_SUBTYPE.code, "subtype", "subtype 0 with an action value");
            semaphores += 1;
        }
    }
    assert!(tried > 100 && semaphores > 4, "only {tried} dtype and {semaphores} semaphore cases");
    Ok(())
}

/// Every stream of some programs with its build and generation.
fn labelled(files: &[PathBuf]) -> R<Vec<(String, Generation, Vec<u8>)>> {
    let mut out = Vec::new();
    for f in files {
        let n = neff::read_file(f)?;
        let g = n.generation().ok_or_else(|| format!("{}: no generation", f.display()))?;
        let build = n.tool_version.clone().unwrap_or_default();
        out.extend(n.streams.into_iter().map(|s| (build.clone(), g, s.bytes)));
    }
    Ok(out)
}

fn views(streams: &[(String, Generation, Vec<u8>)]) -> Vec<Labelled<'_>> {
    streams.iter().map(|(b, g, bytes)| Labelled { build: b, generation: *g, bytes }).collect()
}

fn detection_of(files: &[PathBuf], per_opcode: usize, what: &str) -> R<()> {
    let streams = labelled(files)?;
    let d = detection::detection(&views(&streams), per_opcode, 8, 0x7e57);
    assert!(d.mutations > 2000, "{what}: {} mutations", d.mutations);
    eprintln!("{what}: {} of {} single out-of-spec mutations of clean real bundles caught ({:.2}%)", d.caught, d.mutations, d.rate() * 100.0);
    eprintln!("missed (check, erratum): {:#?}", d.missed);
    assert!(d.rate() >= 0.99, "{what}: only {:.2}% caught; missed:\n{:#?}", d.rate() * 100.0, d.missed);
    Ok(())
}

#[test]
fn single_out_of_spec_mutations_of_clean_real_bundles_are_caught() -> R<()> {
    detection_of(&corpus(), 40, "corpus/neff/real")
}

#[test]
fn single_out_of_spec_mutations_of_shared_real_bundles_are_caught() -> R<()> {
    let files = shared();
    if files.is_empty() {
        return Ok(());
    }
    detection_of(&files, 40, "../shared/neff")
}

/// The errata carry to a build they were not drawn from: each build of the
/// shared programs, held out, is judged with the errata the other builds
/// support, and the table in docs/errata.md ("Held out, build by build") is what this computes.
#[test]
fn errata_supported_by_the_other_builds_carry_to_a_held_out_build() -> R<()> {
    let files = shared();
    if files.is_empty() {
        return Ok(());
    }
    let streams = labelled(&files)?;
    let folds = holdout::hold_out_each_build(&views(&streams));
    assert_eq!(folds.len(), 2, "{folds:#?}");
    let table = holdout::markdown(&folds);
    eprintln!("{table}");
    for f in &folds {
        // Every erratum together leaves nothing real invalid; held out, a build can only lose errata.
        assert!(f.by_generation.values().all(|&(n, invalid, all)| all == 0 && invalid <= n), "{}\n{table}", f.build);
    }
    let page = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/errata.md"))?;
    assert!(page.contains(&table), "docs/errata.md's held-out table is stale; it should read:\n{table}");
    Ok(())
}

#[test]
fn a_held_out_build_loses_the_errata_only_it_supports() {
    // Two builds: only "a" writes a stream that needs the unnamed-opcode erratum.
    let mut a = vec![0u8; 128];
    a[0] = 0xB1;
    a[1] = 0x10;
    a[64] = 0xA4; // NoOp: clean
    a[65] = 0x10;
    let mut b = vec![0u8; 64];
    b[0] = 0xA4;
    b[1] = 0x10;
    let streams = [Labelled { build: "a", generation: Generation::V2, bytes: &a }, Labelled { build: "b", generation: Generation::V2, bytes: &b }];
    let folds = holdout::hold_out_each_build(&streams);
    assert_eq!(folds.len(), 2);
    assert_eq!((folds[0].build.as_str(), folds[0].bundles(), folds[0].invalid()), ("a", 2, 1), "{folds:#?}");
    assert_eq!(folds[0].dropped, ["unnamed-opcodes"]);
    assert_eq!(folds[0].by_generation[&Generation::V2].2, 0, "valid with every erratum");
    assert_eq!((folds[1].bundles(), folds[1].invalid()), (1, 0));
    assert!(folds[1].dropped.is_empty());
}
