//! A NEFF whose target is unknown or missing is never silently judged under
//! an assumed generation: every command judges it under the generation its
//! bundles fit best (fewest invalid, ties to the lowest), says so on stderr
//! once, and the JSON outputs say how each generation was chosen.

use crate::support::{stderr, stdout, tpb};
use std::path::{Path, PathBuf};
use tpb_isa::validate;
use tpb_isa::{Bundle, Generation, Profile};
use tpb_oracle::neff;

use tpb_isa::bundle::header_only;

fn valid(op: u8, g: Generation) -> bool {
    validate::is_valid(&validate::validate_as(&Bundle::decode(&header_only(op)), g, Profile::Amended))
}

/// Two bundles v3 accepts and v2 refuses, then one every generation accepts:
/// their best fit is v3 (v2: 2 invalid, v3: 0).
fn pe() -> Vec<u8> {
    let v3_only = (0..=u8::MAX).find(|&op| !valid(op, Generation::V2) && valid(op, Generation::V3)).expect("an opcode v3 has and v2 refuses");
    let any = (0..=u8::MAX).find(|&op| Generation::ALL.iter().all(|&g| valid(op, g))).expect("an opcode valid everywhere");
    [header_only(v3_only), header_only(v3_only), header_only(any)].concat()
}

const DEF: &[u8] = br#"{"pe_instr": "PE.bin"}"#;

fn container(dir: &Path, name: &str, kelf: Option<&str>) -> PathBuf {
    let pe = pe();
    let mut members: Vec<(&str, &[u8])> = vec![("info.json", br#"{"tool_version": "2.27.0.0"}"#), ("sg00/PE.bin", &pe), ("sg00/def.json", DEF)];
    if let Some(k) = kelf {
        members.insert(1, ("kelf-0.json", k.as_bytes()));
    }
    let bytes = neff::build::container(2, &members).expect("builds a NEFF");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write neff");
    p
}

fn kelf(target: &str) -> String {
    format!(r#"{{"target": "{target}", "graphs": [{{"name": "sg00", "definition": "sg00/def.json"}}]}}"#)
}

const GUESSED: &str = "judged as v3, the generation under which the fewest of its 3 bundles are invalid (v2: 2, v3: 0, v4: ";

#[test]
fn an_unknown_or_missing_target_is_judged_by_fit_and_said_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let unknown = container(dir.path(), "unknown.neff", Some(&kelf("trn9")));
    let missing = container(dir.path(), "missing.neff", None);
    for (p, what, note) in [
        (&unknown, "target `trn9` maps to no known generation; ", "target `trn9` maps to no known generation"),
        (&missing, "no target (kelf-0.json) names a generation; ", "no kelf-0.json: target unknown"),
    ] {
        let path = p.to_str().unwrap_or_default();
        let warning = format!("tpb: warning: {path}: {what}{GUESSED}");
        let o = tpb(&["validate", path]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("tpb: warning: {path}: {note}")), "{err}");
        assert_eq!(err.matches(&warning).count(), 1, "{err}");
        assert!(err.contains("; choose one with --arch\n"), "{err}");
        assert!(stdout(&o).contains("3 bundles, 3 valid, 0 invalid"), "{}", stdout(&o));
        // --json: each line says the target and how the generation was chosen.
        let o = tpb(&["validate", "--json", path]);
        let lines: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
        assert_eq!(lines.len(), 3);
        let target = if p == &unknown { serde_json::json!("trn9") } else { serde_json::Value::Null };
        for l in &lines {
            assert_eq!((&l["arch"], &l["generation_from"], &l["target"]), (&serde_json::json!("v3"), &serde_json::json!("guessed"), &target), "{l}");
        }
        // --arch chooses: nothing is guessed (the container's notes remain).
        let o = tpb(&["validate", "--arch", "v2", "--json", path]);
        assert_eq!(o.status.code(), Some(1), "v2 refuses two of them: {}", stderr(&o));
        assert!(!stderr(&o).contains("judged as") && stderr(&o).contains(note), "{}", stderr(&o));
        assert!(stdout(&o).lines().all(|l| l.contains(r#""generation_from":"arch""#)), "{}", stdout(&o));
        // tpb neff and tpb evidence judge it alike and say so.
        let o = tpb(&["neff", "--json", path]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stderr(&o).matches(&warning).count(), 1, "{}", stderr(&o));
        let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("neff JSON");
        assert_eq!((&j["generation"], &j["generation_from"], &j["target"]), (&serde_json::json!("v3"), &serde_json::json!("guessed"), &target));
        let fit = &j["generation_fit"];
        assert_eq!(
            (&fit["bundles"], &fit["invalid"][0], &fit["invalid"][1]),
            (&serde_json::json!(3), &serde_json::json!(2), &serde_json::json!(0)),
            "{fit}"
        );
        let o = tpb(&["evidence", "--json", path]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stderr(&o).matches(&warning).count(), 1, "{}", stderr(&o));
        let j: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("evidence JSON");
        let input = &j["inputs"][0];
        assert_eq!(
            (&input["generation"], &input["generation_from"], &input["target"]),
            (&serde_json::json!("v3"), &serde_json::json!("guessed"), &target)
        );
        // conform --neff judges it alike: the warning, and the case says how its generation was chosen.
        let reports = dir.path().join(format!("reports-{}", p.file_stem().and_then(|s| s.to_str()).unwrap_or_default()));
        let o = tpb(&["conform", "--time", "0", "--quiet", "--out", reports.to_str().unwrap_or_default(), "--neff", path]);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        assert_eq!(stderr(&o).matches(&warning).count(), 1, "{}", stderr(&o));
        let summary = std::fs::read_dir(&reports).expect("reports").filter_map(Result::ok).map(|d| d.path().join("summary.json")).next();
        let text = summary.and_then(|s| std::fs::read_to_string(s).ok()).unwrap_or_default();
        assert!(text.contains("v3 from guessed: ") && text.contains(GUESSED), "{text}");
        // disasm needs no generation: nothing guessed, the notes still shown.
        let o = tpb(&["disasm", path]);
        assert!(stderr(&o).contains(note) && !stderr(&o).contains("judged as"), "{}", stderr(&o));
    }
}

#[test]
fn a_known_target_and_a_raw_file_validate_without_warnings_and_say_where_the_generation_came_from() {
    let dir = tempfile::tempdir().expect("tempdir");
    let known = container(dir.path(), "known.neff", Some(&kelf("cayman")));
    let raw = dir.path().join("raw.bin");
    std::fs::write(&raw, pe()).expect("write raw");
    for (p, from, target) in [(&known, "target", serde_json::json!("cayman")), (&raw, "default", serde_json::Value::Null)] {
        let path = p.to_str().unwrap_or_default();
        let o = tpb(&["validate", "--json", path]);
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
        for l in stdout(&o).lines() {
            let l: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            assert_eq!((&l["generation_from"], &l["target"]), (&serde_json::json!(from), &target), "{l}");
        }
    }
    // The known target is v3: valid; a raw file is v2 by default: the two v3-only bundles are invalid.
    let o = tpb(&["validate", known.to_str().unwrap_or_default()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = tpb(&["validate", raw.to_str().unwrap_or_default()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
}
