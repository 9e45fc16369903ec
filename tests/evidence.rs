//! `tpb evidence` end to end: the committed real programs support every
//! erratum with no contradiction left, the output is byte-identical to the
//! committed `corpus/neff/real/EVIDENCE.json`, ../shared/neff (when there)
//! passes `--check` too, and bad inputs are reported with exit 2.
//! `tpb evidence diff` names every opcode one build's programs have and the
//! other's lack, keeps its exit bits, and compares nothing it cannot read.

use crate::support::{self, root, stderr, stdout, tpb};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tpb_isa::errata::ERRATA;

const REAL: &str = "corpus/neff/real";
const BUILDS: [&str; 2] = ["2.14.227.0+2d4f85be", "2.23.6484.0+3b612583"];

fn run(bin: &Path, args: &[&str]) -> Output {
    support::run(Command::new(bin).current_dir(root()).args(args))
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("output is not JSON: {e}\n{}", stderr(o)))
}

/// What `--check` requires of real programs, asserted one by one for a readable failure.
fn assert_supported(j: &serde_json::Value, what: &str) {
    assert_eq!(j["totals"]["invalid_amended"], 0, "{what}: real bundles invalid by default");
    assert!(j["totals"]["invalid_spec"].as_u64().is_some_and(|n| n > 0), "{what}: nothing invalid under the spec alone: {}", j["totals"]);
    assert_eq!(j["contradictions"].as_array().map(Vec::len), Some(0), "{what}: contradictions: {:#}", j["contradictions"]);
    // No real bundle breaks a claim of a recovered field, and some group has claims to count.
    let groups = j["groups"].as_array().map(Vec::as_slice).unwrap_or_default();
    let claims: Vec<&serde_json::Value> = groups.iter().flat_map(|g| g["claims"].as_array().map(Vec::as_slice).unwrap_or_default()).collect();
    assert!(!claims.is_empty(), "{what}: no recovered claims counted");
    assert!(claims.iter().all(|c| c["broken"] == 0), "{what}: a real bundle breaks a recovered claim");
    let errata = j["errata"].as_array().map(Vec::as_slice).unwrap_or_default();
    let ids: Vec<&str> = errata.iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(ids, ERRATA.iter().map(|e| e.id).collect::<Vec<_>>(), "{what}: errata not in table order");
    for e in errata {
        let support: u64 = e["evidence"].as_object().map(|b| b.values().filter_map(|s| s["bundles"].as_u64()).sum()).unwrap_or(0);
        assert!(support > 0, "{what}: erratum {} has no supporting bundle", e["id"]);
    }
}

#[test]
fn committed_real_programs_support_every_erratum_and_match_evidence_json() {
    let o = tpb(&["evidence", "--json", "--check", "--check-support", REAL]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_supported(&j, REAL);
    let inputs = j["inputs"].as_array().map(Vec::as_slice).unwrap_or_default();
    assert_eq!(inputs.len(), 11, "{:#}", j["inputs"]);
    for build in BUILDS {
        assert!(inputs.iter().any(|i| i["build"] == build), "no input of build {build}");
        assert!(j["groups"].as_array().is_some_and(|g| g.iter().any(|g| g["build"] == build)), "no group of build {build}");
    }
    // Names are relative to the folder given: nothing absolute, nothing machine-specific.
    assert!(inputs.iter().all(|i| i["file"].as_str().is_some_and(|f| f.starts_with("xla-2.14/") || f.starts_with("nki-2.23/"))));

    let committed = root().join(REAL).join("EVIDENCE.json");
    let want = std::fs::read(&committed).unwrap_or_default();
    assert!(
        want == o.stdout,
        "{} differs from `tpb evidence --json {REAL}` (the description, the errata or the programs changed). Regenerate it:\n    \
         cargo build --release && target/release/tpb evidence --json {REAL} > {REAL}/EVIDENCE.json\nand review the diff.",
        committed.display()
    );
}

/// The release binary when it was built after this test's binary (it is
/// about ten times faster on the full set), else the test's own.
fn fastest_tpb() -> PathBuf {
    let own = PathBuf::from(env!("CARGO_BIN_EXE_tpb"));
    let release = own.parent().and_then(Path::parent).map(|t| t.join("release").join(format!("tpb{}", std::env::consts::EXE_SUFFIX)));
    let built = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match release {
        Some(r) if built(&r).zip(built(&own)).is_some_and(|(r, o)| r >= o) => r,
        _ => own,
    }
}

#[test]
fn shared_real_programs_pass_check() {
    let shared = root().join("../shared/neff");
    if !shared.is_dir() {
        // `.ci/run` sets TPB_REQUIRE_SHARED when ../shared is there, so losing the files fails CI.
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "{} absent (TPB_REQUIRE_SHARED is set)", shared.display());
        tpb_isa::test_skip::skipped(&format!("evidence: {} absent", shared.display()));
        return;
    }
    let o = run(&fastest_tpb(), &["evidence", "--json", "--check", "--check-support", "../shared/neff"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_supported(&j, "../shared/neff");
    assert!(j["totals"]["bundles"].as_u64().is_some_and(|n| n > 100_000), "{}", j["totals"]);
}

fn copy_real(name: &str, to: &Path) -> Vec<u8> {
    let bytes = std::fs::read(root().join(REAL).join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    std::fs::write(to, &bytes).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    bytes
}

#[test]
fn a_malformed_input_is_named_and_the_others_still_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = copy_real("xla-2.14/MODULE_11790936170214357810.neff", &dir.path().join("sub/good.neff"));
    let bad = dir.path().join("bad.neff");
    std::fs::write(&bad, &good[..good.len() / 2]).expect("write truncated copy");
    // Not a .neff: a folder is searched for containers only.
    std::fs::write(dir.path().join("notes.txt"), "not a program").expect("write notes");
    let path = dir.path().display().to_string();
    let o = tpb(&["evidence", "--json", &path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&format!("tpb: error: {}", bad.display())), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("tpb: error:")).count(), 1, "{err}");
    let j = json(&o);
    let files: Vec<&str> = j["inputs"].as_array().map(|v| v.iter().filter_map(|i| i["file"].as_str()).collect()).unwrap_or_default();
    assert_eq!(files, ["sub/good.neff"]);
    assert_eq!(j["totals"]["bundles"], 13);

    // No bundles at all is an error, not an empty report: one line, naming the folder.
    let empty = tempfile::tempdir().expect("tempdir");
    let o = tpb(&["evidence", &empty.path().display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("no *.neff file in this folder"), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("tpb: error:")).count(), 1, "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn check_names_every_contradiction_and_unsupported_erratum() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A raw file: one bundle of an opcode no table and no erratum names.
    let mut raw = [0u8; 64];
    raw[0] = 0x3B;
    raw[1] = tpb_isa::bundle::INST_WORD_LEN;
    let file = dir.path().join("odd.bin");
    std::fs::write(&file, raw).expect("write raw");
    let path = file.display().to_string();

    let o = tpb(&["evidence", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("contradictions:\n  v2 unknown 0x3b unknown unknown-opcode opcode: 0x3b ×1"), "{text}");

    let o = tpb(&["evidence", "--check", "--arch", "v3", &path]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("tpb: evidence: contradiction with no erratum: v3 unknown 0x3b unknown unknown-opcode opcode: 0x3b ×1\n"), "{err}");
    // Not exercised is no contradiction: said, not failed (the contradiction above fails the run).
    for e in ERRATA {
        assert!(err.contains(&format!("tpb: evidence: note: erratum {}: not exercised by these programs\n", e.id)), "{}: {err}", e.id);
    }
    // The full-set gate also fails each erratum without support.
    let o = tpb(&["evidence", "--check", "--check-support", "--arch", "v3", &path]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    for e in ERRATA {
        assert!(stderr(&o).contains(&format!("tpb: evidence: erratum {}: no supporting bundle in these inputs\n", e.id)), "{}", e.id);
    }
    // A file argument is named as given.
    let j = json(&tpb(&["evidence", "--json", &path]));
    assert_eq!(j["inputs"][0]["file"], path.as_str());
    assert_eq!(j["inputs"][0]["generation"], "v2");
}

#[test]
fn check_passes_one_real_program_that_exercises_only_some_errata() {
    let one = format!("{REAL}/xla-2.14/MODULE_11790936170214357810.neff");
    let o = tpb(&["evidence", "--check", &one]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let notes = err.lines().filter(|l| l.starts_with("tpb: evidence: note: erratum ") && l.ends_with(": not exercised by these programs")).count();
    assert!(notes > 0 && notes < ERRATA.len(), "{err}");
    assert!(!err.contains("contradiction"), "{err}");
    // Held to the full set's gate, the same program fails on the errata it does not exercise.
    let o = tpb(&["evidence", "--check", "--check-support", &one]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().filter(|l| l.ends_with(": no supporting bundle in these inputs")).count(), notes);
}

#[test]
fn propose_drafts_an_erratum_for_each_contradiction_and_holdout_prints_the_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    // An opcode no table or erratum names, and one an erratum accepts (0xB1).
    let mut raw = vec![0u8; 128];
    raw[0] = 0x8D;
    raw[1] = 0x10;
    raw[64] = 0xB1;
    raw[65] = 0x10;
    let file = dir.path().join("odd.bin");
    std::fs::write(&file, &raw).expect("write");
    let o = tpb(&["evidence", "--propose", file.to_str().unwrap_or_default()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(r#""draft-unknown-opcode-8d" UNKNOWN_OPCODE Only(&[0x8D]), Only(&["opcode"]), EVERY_GENERATION, Accepts::Opcode, Inferred;"#),
        "{text}"
    );
    assert_eq!(text.matches("\n    claim ").count(), 1, "one draft: {text}");
    // The committed programs need no draft.
    let o = tpb(&["evidence", "--propose", REAL]);
    assert_eq!(stdout(&o), "// no contradiction lacks an erratum: nothing to draft\n");
    // The held-out table: one row per build and generation, every erratum together leaving 0 invalid.
    let o = tpb(&["evidence", "--holdout", REAL]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    for build in BUILDS {
        let row = table.lines().find(|l| l.starts_with(&format!("| {build} |"))).unwrap_or_else(|| panic!("no row for {build}: {table}"));
        assert_eq!(row.split('|').nth(6).map(str::trim), Some("0"), "{row}");
    }
    assert!(tpb(&["evidence", "--propose", "--json", REAL]).status.code() == Some(2), "--propose and --json conflict");
}

/// (generation, opcode) of every group `tpb evidence --json` finds in `path`
/// (or lists, when `path` is evidence JSON it wrote).
fn opcodes_of(bin: &Path, path: &str) -> std::collections::BTreeSet<(String, String)> {
    let j = if path.ends_with(".json") {
        let bytes = std::fs::read(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"))
    } else {
        let o = run(bin, &["evidence", "--json", path]);
        assert_eq!(o.status.code(), Some(0), "{path}: {}", stderr(&o));
        json(&o)
    };
    let groups = j["groups"].as_array().map(Vec::as_slice).unwrap_or_default();
    groups.iter().map(|g| (g["generation"].as_str().unwrap_or("?").to_string(), g["opcode"].as_str().unwrap_or("?").to_string())).collect()
}

/// `tpb evidence diff --per-generation OLD NEW` names every opcode one side has and the other
/// lacks (computed here from each side's own evidence), in JSON and in
/// Markdown, and nothing else as appeared or vanished; returns its JSON.
fn assert_diff_names_every_opcode_difference(bin: &Path, old: &str, new: &str) -> serde_json::Value {
    let (a, b) = (opcodes_of(bin, old), opcodes_of(bin, new));
    let o = run(bin, &["evidence", "diff", "--per-generation", "--json", old, new]);
    let code = o.status.code().unwrap_or(-1);
    assert!(code & 4 == 4 && code & 3 == 0, "{old} → {new}: exit {code}: {}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["exit"], code, "{old} → {new}");
    let listed = |key: &str| -> std::collections::BTreeSet<(String, String)> {
        let v = j["opcodes"][key].as_array().map(Vec::as_slice).unwrap_or_default();
        v.iter().map(|p| (p["generation"].as_str().unwrap_or("?").to_string(), p["opcode"].as_str().unwrap_or("?").to_string())).collect()
    };
    let (vanished, appeared): (std::collections::BTreeSet<_>, std::collections::BTreeSet<_>) =
        (a.difference(&b).cloned().collect(), b.difference(&a).cloned().collect());
    assert!(!vanished.is_empty() || !appeared.is_empty(), "{old} → {new}: the sides hold the same opcodes; the test shows nothing");
    assert_eq!(listed("vanished"), vanished, "{old} → {new}");
    assert_eq!(listed("appeared"), appeared, "{old} → {new}");
    let md = run(bin, &["evidence", "diff", "--per-generation", old, new]);
    assert_eq!(md.status.code(), Some(code), "{}", stderr(&md));
    let md = stdout(&md);
    for ((g, op), side) in vanished.iter().map(|x| (x, "OLD")).chain(appeared.iter().map(|x| (x, "NEW"))) {
        let name = tpb_isa::opcode::name(u8::from_str_radix(op.trim_start_matches("0x"), 16).unwrap_or(0));
        let line = format!("\n- {g} `{op}` {name}: ");
        let at = md.find(&line).unwrap_or_else(|| panic!("{old} → {new}: {g} {op} not named:\n{md}"));
        assert!(md[at..].lines().nth(1).is_some_and(|l| l.contains(&format!(" in {side}"))), "{old} → {new}: {g} {op}");
    }
    j
}

#[test]
fn evidence_diff_of_the_committed_builds_names_every_opcode_one_has_and_the_other_lacks() {
    let bin = Path::new(env!("CARGO_BIN_EXE_tpb"));
    let (old, new) = (format!("{REAL}/xla-2.14"), format!("{REAL}/nki-2.23"));
    let j = assert_diff_names_every_opcode_difference(bin, &old, &new);
    // The corpus has no contradiction and breaks no claim: the builds differ, NEW disagrees in no new way.
    assert_eq!(j["exit"], 4, "{:#}", j["contradictions"]);
    assert_eq!(j["old"]["builds"].as_object().map(|b| b.keys().cloned().collect::<Vec<_>>()), Some(vec![BUILDS[0].to_string()]));
    assert_eq!(j["new"]["builds"].as_object().map(|b| b.keys().cloned().collect::<Vec<_>>()), Some(vec![BUILDS[1].to_string()]));
    assert_eq!(j["old"]["name"], old.as_str());
    // The other way round, appeared and vanished trade places.
    let back = json(&tpb(&["evidence", "diff", "--per-generation", "--json", &new, &old]));
    // (their first bundles, the same bundles, on the other side)
    let strip = |v: &serde_json::Value| {
        let mut v = v.clone();
        v.as_array_mut().into_iter().flatten().for_each(|p| p["first"]["side"] = serde_json::Value::Null);
        v
    };
    assert_eq!(strip(&back["opcodes"]["appeared"]), strip(&j["opcodes"]["vanished"]));
    assert_eq!(strip(&back["opcodes"]["vanished"]), strip(&j["opcodes"]["appeared"]));
    // The committed evidence read back is the programs it was written from: nothing moved.
    let o = tpb(&["evidence", "diff", &format!("{REAL}/EVIDENCE.json"), REAL]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("\nNothing moved.\n"));
}

#[test]
fn evidence_diff_of_shared_builds_names_every_opcode_one_has_and_the_other_lacks() {
    let shared = root().join("../shared/neff");
    if !shared.is_dir() {
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "{} absent (TPB_REQUIRE_SHARED is set)", shared.display());
        tpb_isa::test_skip::skipped(&format!("evidence: {} absent", shared.display()));
        return;
    }
    let bin = fastest_tpb();
    // OLD's evidence gathered once (850,716 bundles), then read back by each diff.
    let dir = tempfile::tempdir().expect("tempdir");
    let o = run(&bin, &["evidence", "--json", "../shared/neff/xla-2.14"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let old = dir.path().join("xla-2.14.json");
    std::fs::write(&old, &o.stdout).expect("write evidence");
    let old = old.display().to_string();
    for new in ["../shared/neff/nki-2.23", "../shared/neff/xla-2.23-sunda"] {
        let j = assert_diff_names_every_opcode_difference(&bin, &old, new);
        // Bit 8 is set exactly when the report lists a new disagreement.
        let listed = |v: &serde_json::Value| v.as_array().is_some_and(|a| !a.is_empty());
        let refused = j["checks"].as_array().is_some_and(|c| c.iter().any(|c| c["change"] == "now refused"));
        let disagrees = listed(&j["contradictions"]["new"]) || listed(&j["claims"]["broken"]) || refused;
        assert_eq!(j["exit"].as_u64().map(|e| e & 8 == 8), Some(disagrees), "{new}");
    }
}

fn write_raw(dir: &Path, name: &str, bundles: &[&str]) -> String {
    let bytes = tpb_isa::text::assemble(&bundles.join("\n")).expect("assembles");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write raw");
    path.display().to_string()
}

const COPY: &str = "0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]";

#[test]
fn evidence_diff_exit_bits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write_raw(dir.path(), "good.bin", &[COPY, COPY]);
    let same = write_raw(dir.path(), "same.bin", &[COPY, COPY]);
    // An opcode no table and no erratum names: a contradiction.
    let odd = write_raw(dir.path(), "odd.bin", &[COPY, "0x3b:unknown"]);

    let o = tpb(&["evidence", "diff", &good, &same]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("\nNothing moved.\n"));

    let o = tpb(&["evidence", "diff", &good, &odd]);
    assert_eq!(o.status.code(), Some(4 | 8), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("## Contradictions new in NEW\n"), "{md}");
    assert!(md.contains("- v2 `0x3b` unknown `unknown-opcode` `opcode`: `0x3b` ×1\n"), "{md}");
    // Gone is a change, not a disagreement.
    let o = tpb(&["evidence", "diff", "--json", &odd, &good]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(json(&o)["contradictions"]["gone"][0]["opcode"], "0x3b");

    // Evidence JSON on either side reads as the programs it was written from.
    let odd_json = dir.path().join("odd.json");
    let o = tpb(&["evidence", "--json", &odd]);
    std::fs::write(&odd_json, &o.stdout).expect("write evidence");
    let odd_json = odd_json.display().to_string();
    let from_json = tpb(&["evidence", "diff", "--json", &good, &odd_json]);
    let from_programs = tpb(&["evidence", "diff", "--json", &good, &odd]);
    assert_eq!(from_json.status.code(), Some(12), "{}", stderr(&from_json));
    let (mut a, mut b) = (json(&from_json), json(&from_programs));
    a["new"]["name"] = serde_json::Value::Null;
    b["new"]["name"] = serde_json::Value::Null;
    assert_eq!(a, b);
    assert_eq!(tpb(&["evidence", "diff", &odd_json, &odd]).status.code(), Some(0));

    // -o writes the report there and nothing to stdout; the verdict stands.
    let report = dir.path().join("report.md");
    let o = tpb(&["evidence", "diff", &good, &odd, "-o", &report.display().to_string()]);
    assert_eq!(o.status.code(), Some(12), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read(&report).expect("report written"), tpb(&["evidence", "diff", &good, &odd]).stdout);

    // Usage: bit 2 (clap's usage code).
    assert_eq!(tpb(&["evidence", "diff", &good]).status.code(), Some(2));
    // `tpb evidence PATH…` is unchanged.
    assert_eq!(tpb(&["evidence", &good, &odd]).status.code(), Some(0));
}

#[test]
fn evidence_diff_refuses_what_it_cannot_read_and_compares_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write_raw(dir.path(), "good.bin", &[COPY]);
    let error = |args: &[&str], says: &[&str]| {
        let o = tpb(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}: a report was printed");
        let err = stderr(&o);
        for s in says {
            assert!(err.contains(s), "{args:?}: {err}");
        }
    };
    // JSON that is not evidence: named, and why.
    let infer = dir.path().join("infer.json");
    std::fs::write(&infer, br#"{"bundles_read": 5, "opcodes": []}"#).expect("write");
    let infer = infer.display().to_string();
    error(&["evidence", "diff", &infer, &good], &[&format!("OLD {infer}: not evidence written by `tpb evidence --json`: missing field `inputs`")]);
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, b"{\"inputs\": [").expect("write");
    let broken = broken.display().to_string();
    error(&["evidence", "diff", &good, &broken], &[&format!("NEW {broken}: not evidence"), "EOF"]);
    // Over the cap: JSON is capped as programs are.
    let ev = dir.path().join("ev.json");
    std::fs::write(&ev, tpb(&["evidence", "--json", &good]).stdout).expect("write");
    let ev = ev.display().to_string();
    error(&["evidence", "diff", "--max-bytes", "100", &ev, &good], &["cap of 100 bytes"]);
    assert_eq!(tpb(&["evidence", "diff", &ev, &good]).status.code(), Some(0));
    let gone = dir.path().join("gone.json").display().to_string();
    error(&["evidence", "diff", &good, &gone], &[&format!("NEW {gone}: cannot read: No such file")]);
    // A missing path, and a folder with one unreadable program (the others would look vanished).
    let missing = dir.path().join("missing.neff").display().to_string();
    error(&["evidence", "diff", &missing, &good], &[&format!("OLD {missing}: not every program could be read"), "nothing compared"]);
    let folder = dir.path().join("progs");
    copy_real("xla-2.14/MODULE_11790936170214357810.neff", &folder.join("a.neff"));
    std::fs::write(folder.join("b.neff"), b"not a container").expect("write");
    let folder = folder.display().to_string();
    error(&["evidence", "diff", &folder, &good], &["b.neff", &format!("OLD {folder}: not every program could be read")]);
    // A folder with no programs.
    let empty = tempfile::tempdir().expect("tempdir");
    let empty = empty.path().display().to_string();
    error(&["evidence", "diff", &good, &empty], &[&format!("{empty}: no *.neff file in this folder"), "nothing compared"]);
}

/// `-q` prints the count line only, as on every command; JSON is still the JSON asked for.
#[test]
fn quiet_evidence_prints_the_count_line_only() {
    let o = tpb(&["evidence", "-q", REAL]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("tpb evidence: 38676 bundles from 11 files; invalid under the spec alone: "), "{out}");
    let full = tpb(&["evidence", REAL]);
    assert_eq!(stdout(&full).lines().next(), out.lines().next());
    assert_eq!(tpb(&["evidence", "-q", "--json", REAL]).stdout, tpb(&["evidence", "--json", REAL]).stdout);
}
