//! Conformance over the real compiled programs in `../shared/neff/` (compiler
//! 2.23, Trn2). Fails on any harness failure (round-trip mismatch, panic) and
//! never on the spec disagreeing with the compiler. Skips when the files are absent,
//! unless TPB_REQUIRE_SHARED is set.

use std::path::{Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::conform;
use tpb_oracle::neff::{self, integrity::Form, Engine};

fn real_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/neff");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "neff")).collect())
        .unwrap_or_default();
    v.sort();
    if v.is_empty() {
        // `.ci/run` sets TPB_REQUIRE_SHARED when ../shared is there, so losing the files fails CI.
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "no .neff files under {} (TPB_REQUIRE_SHARED is set)", dir.display());
        tpb_isa::test_skip::skipped(&format!("neff_real: no .neff files under {}", dir.display()));
    }
    v
}

#[test]
fn real_containers_parse_with_word_reversed_md5_and_cayman_target() {
    for path in real_files() {
        let n = neff::read_file(&path).unwrap_or_else(|e| panic!("{e}"));
        // Facts measured on every real NEFF (compilers 2.18 and 2.23).
        assert_eq!(n.header.pkg_version.get(), 2, "{}", path.display());
        assert_eq!(n.header.header_size.get(), neff::HEADER_BYTES as u64);
        assert_eq!(n.header.data_size.get() + 0x400, n.file_len);
        assert_eq!(n.integrity.matched, Some(Form::WordReversed), "{}: {}", path.display(), n.integrity.describe());
        assert_eq!(n.compression, neff::Compression::Gzip);
        assert!(n.generation().is_some(), "{}: target {:?}", path.display(), n.target());
        assert!(n.members.iter().any(|m| m.name == "neff.json"));
        assert!(!n.streams.is_empty());
        let v223 = n.tool_version.as_deref().is_some_and(|v| v.starts_with("2.23."));
        for s in &n.streams {
            assert!(Engine::ALL.contains(&s.engine));
            assert_eq!(s.generation, n.generation());
            // Every real stream opens with 0xB1 (then 0xCC on 2.23).
            assert_eq!(s.bytes.first(), Some(&0xB1), "{}", s.member);
            if v223 {
                assert_eq!(s.bytes.get(64), Some(&0xCC), "{}", s.member);
            }
        }
        // The two shared programs: compiler 2.23, Trn2, two subgraphs of five streams.
        if path.file_name().is_some_and(|f| f.to_string_lossy().starts_with("matmul_")) {
            assert!(v223, "{:?}", n.tool_version);
            assert_eq!(n.target(), Some("cayman"));
            assert_eq!(n.generation(), Some(Generation::V3));
            assert_eq!(n.subgraphs(), vec!["sg00", "sg01"]);
            assert_eq!(n.streams.len(), 10);
        }
    }
}

#[test]
fn real_bundles_round_trip_and_disagreements_are_reported_not_failed() {
    let files = real_files();
    if files.is_empty() {
        return;
    }
    let neffs: Vec<_> = files.iter().map(|p| neff::read_file(p).unwrap_or_else(|e| panic!("{e}"))).collect();
    let c = conform::conform_all(&neffs, None);
    let expected: usize = neffs.iter().map(|n| n.bundles()).sum();
    assert_eq!(c.bundles(), expected);
    assert!(c.bundles() > 1000);
    let md = c.to_markdown();
    assert_eq!(c.harness_failures(), 0, "harness failures on real bundles:\n{md}");
    // The spec does not name 0xB1 (every real stream opens with it), so disagreements must be reported.
    let unknown: Vec<u8> = c.unknown_opcodes().iter().map(|u| u.0).collect();
    assert!(unknown.contains(&0xB1), "{unknown:x?}");
    assert!(c.spec_disagreements() >= unknown.iter().map(|op| c.opcode_count(*op)).sum::<usize>());
    assert!(md.contains("## Spec disagrees with compiler output") && md.contains("| 0xb1 |"));
    if c.opcode_count(0x02) > 0 {
        assert!(!c.field_values(0x02, "moving.addr").is_empty());
        assert!(md.contains("### 0x02 MatMul"));
    }
    let j = c.to_json();
    assert_eq!(j["harness_failures"]["count"], 0);
    if let Ok(out) = std::env::var("TPB_NEFF_REPORT") {
        std::fs::write(&out, &md).unwrap_or_else(|e| panic!("{out}: {e}"));
    }
}
