//! `tpb evidence diff` across generations, and where each difference is:
//! sides that share no generation (a new target's programs against the last
//! release's) are compared per opcode; every difference names its first
//! bundle, and `tpb disasm` of that file shows that bundle with the value
//! the diff reported.

use crate::support::{root, stderr, stdout, tpb};
use std::process::Output;

const REAL: &str = "corpus/neff/real";

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON: {e}\n{}", stderr(o)))
}

fn list(v: &serde_json::Value) -> &[serde_json::Value] {
    v.as_array().map(Vec::as_slice).unwrap_or_default()
}

/// Every example a diff's JSON names, with the opcode of the difference it is under (if one).
fn examples(j: &serde_json::Value) -> Vec<(Option<String>, serde_json::Value)> {
    let mut out = Vec::new();
    let op = |v: &serde_json::Value| v["opcode"].as_str().map(str::to_string);
    for key in ["appeared", "vanished"] {
        out.extend(list(&j["opcodes"][key]).iter().map(|p| (op(p), p["first"].clone())));
    }
    out.extend(list(&j["engines"]).iter().map(|e| (op(e), e["first"].clone())));
    out.extend(list(&j["checks"]).iter().map(|c| (op(c), c["first"].clone())));
    for v in list(&j["values"]) {
        out.extend(v["first"].as_object().into_iter().flatten().map(|(_, e)| (op(v), e.clone())));
    }
    for key in ["new", "gone"] {
        for c in list(&j["contradictions"][key]) {
            out.extend(c["findings"]["first"].as_object().into_iter().flatten().map(|(_, e)| (op(c), e.clone())));
        }
    }
    for key in ["unsupported", "needed"] {
        out.extend(list(&j["errata"][key]).iter().map(|e| (None, e["first"].clone())));
    }
    for key in ["broken", "mended"] {
        out.extend(list(&j["claims"][key]).iter().map(|c| (op(c), c["first"].clone())));
    }
    out
}

/// Every example is resolved to a path and a disassembly line of the difference's opcode.
fn assert_every_difference_has_a_bundle(j: &serde_json::Value, what: &str) {
    let ex = examples(j);
    assert!(ex.len() > 10, "{what}: too few differences to show anything: {}", ex.len());
    for (op, e) in &ex {
        let line = e["disasm"].as_str().unwrap_or_else(|| panic!("{what}: an example not disassembled: {e}"));
        assert!(e["path"].as_str().is_some_and(|p| !p.is_empty()), "{what}: {e}");
        assert_eq!(e["offset"].as_u64(), e["index"].as_u64().map(|i| i * 64), "{what}: {e}");
        if let Some(op) = op {
            assert!(line.starts_with(&format!("{op}:")), "{what}: {line} is not of {op}");
        }
        let member = e["member"].as_str().unwrap_or_default();
        let tail = format!("# {member} [{}] +{:#x}", e["index"], e["offset"].as_u64().unwrap_or(0));
        assert!(line.ends_with(&tail), "{what}: {line} does not end {tail}");
    }
}

/// A small deterministic generator, seeded from the clock (and printed), to pick "one at random".
fn pick(n: usize) -> usize {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(7, |d| d.as_nanos() as u64);
    let seed = std::env::var("TPB_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(seed);
    println!("pick: TPB_TEST_SEED={seed}");
    (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 33) as usize % n.max(1)
}

/// One new value picked at random: `tpb disasm` of its path prints, at its
/// member, index and offset, the line the diff printed, and that line
/// assembles back to a bundle holding the value at the field's offset.
fn assert_a_random_value_is_where_it_is_said_to_be(j: &serde_json::Value) {
    let mut values = Vec::new();
    for v in list(&j["values"]) {
        for (x, n) in list(&v["new"]).iter().filter_map(|p| Some((p[0].as_str()?, p[1].as_u64()?))) {
            values.push((v.clone(), x.to_string(), n));
        }
    }
    assert!(!values.is_empty(), "no new value to pick from");
    let (v, value, count) = &values[pick(values.len())];
    let e = &v["first"][value.as_str()];
    println!("picked {} {} {value} ×{count} at {e}", v["opcode"], v["field"]);
    let path = e["path"].as_str().expect("resolved");
    let o = tpb(&["disasm", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let line = e["disasm"].as_str().expect("disassembled");
    assert!(out.lines().any(|l| l == line), "tpb disasm {path} has no line\n{line}");
    let text = line.split(" # ").next().unwrap_or_default();
    let bytes = tpb_isa::text::assemble(text).expect("the line assembles");
    let at = v["offset"].as_u64().expect("offset") as usize;
    let width = (value.len() - 2) / 2;
    let held: String = bytes[at..at + width].iter().rev().map(|b| format!("{b:02x}")).collect();
    assert_eq!(format!("0x{held}"), *value, "{line}");
}

#[test]
fn the_committed_builds_of_two_generations_are_compared_per_opcode() {
    let (old, new) = (format!("{REAL}/xla-2.14"), format!("{REAL}/nki-2.23"));
    let o = tpb(&["evidence", "diff", "--json", &old, &new]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["across_generations"], serde_json::json!({"old": ["v2"], "new": ["v3"]}));
    // Opcodes both have are compared, not listed: fewer appear and vanish than kept apart.
    let apart = json(&tpb(&["evidence", "diff", "--per-generation", "--json", &old, &new]));
    let n = |j: &serde_json::Value| list(&j["opcodes"]["appeared"]).len() + list(&j["opcodes"]["vanished"]).len();
    assert!(n(&j) < n(&apart), "{} vs {}", n(&j), n(&apart));
    assert!(list(&apart["values"]).is_empty() && !list(&j["values"]).is_empty());
    assert_every_difference_has_a_bundle(&j, "xla-2.14 → nki-2.23");
    assert_a_random_value_is_where_it_is_said_to_be(&j);
    let md = stdout(&tpb(&["evidence", "diff", &old, &new]));
    assert!(md.contains("The sides share no generation (v2→v3): compared per opcode across generations"), "{md}");
    // Dtypes by name, as `tpb disasm` prints them; possibly-seen values folded into one line.
    assert!(md.contains("- v2→v3 `0x47` TensorCopyCast `src_dtype` +0x20: `0x06` (bf16) ×"), "{md}");
    assert!(!md.contains("## Field values possibly seen") && md.contains(" may be among OLD's unlisted values"), "{md}");
}

/// A new target judged as a known generation differs from the same
/// compiler's programs judged as theirs: forcing NEW's generation (as a
/// guess would) still compares opcode by opcode, with a bundle for each new value.
#[test]
fn forcing_one_sides_generation_still_compares_opcodes_and_names_new_values_with_a_bundle() {
    let dir = tempfile::tempdir().expect("tempdir");
    for m in ["MODULE_11790936170214357810", "MODULE_4195419208161846083", "MODULE_8491332056243811040"] {
        std::fs::copy(root().join(REAL).join("xla-2.14").join(format!("{m}.neff")), dir.path().join(format!("{m}.neff"))).expect("copy");
    }
    let old = dir.path().display().to_string();
    let new = format!("{REAL}/xla-2.14");
    let o = tpb(&["evidence", "diff", "--json", "--new-arch", "v3", &old, &new]);
    assert_eq!(o.status.code().map(|c| c & 4), Some(4), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["across_generations"], serde_json::json!({"old": ["v2"], "new": ["v3"]}));
    assert!(!list(&j["values"]).is_empty());
    assert_every_difference_has_a_bundle(&j, "forced v3");
    assert_a_random_value_is_where_it_is_said_to_be(&j);
    // The committed evidence JSON as OLD: its programs are found beside it.
    let o = tpb(&["evidence", "diff", "--json", "--new-arch", "v3", &format!("{REAL}/EVIDENCE.json"), &format!("{REAL}/nki-2.23")]);
    let j = json(&o);
    assert_every_difference_has_a_bundle(&j, "EVIDENCE.json → nki-2.23");
}

#[test]
fn shared_builds_of_two_targets_are_compared_per_opcode_with_a_bundle_each() {
    let shared = root().join("../shared/neff");
    if !shared.is_dir() {
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "{} absent (TPB_REQUIRE_SHARED is set)", shared.display());
        tpb_isa::test_skip::skipped(&format!("evidence diff: {} absent", shared.display()));
        return;
    }
    let o = tpb(&["evidence", "diff", "--json", "../shared/neff/xla-2.23-sunda", "../shared/neff/nki-2.23"]);
    let j = json(&o);
    assert!(j["across_generations"].is_object(), "{}", j["across_generations"]);
    assert_every_difference_has_a_bundle(&j, "shared xla-2.23-sunda → nki-2.23");
    assert_a_random_value_is_where_it_is_said_to_be(&j);
}
