//! Real compiled programs for the tests: `corpus/neff/real/` (committed) and
//! `../shared/neff/` when present (required when TPB_REQUIRE_SHARED is set).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use tpb_isa::{Generation, Raw};
use tpb_oracle::neff;

pub type R<T> = Result<T, Box<dyn std::error::Error>>;

pub fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "neff") {
            out.push(p);
        }
    }
}

pub fn neffs_under(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    walk(dir, &mut v);
    v.sort();
    v
}

pub fn corpus() -> Vec<PathBuf> {
    neffs_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/neff/real"))
}

pub fn shared() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/neff");
    let v = neffs_under(&dir);
    if v.is_empty() {
        // `.ci/run` sets TPB_REQUIRE_SHARED when ../shared is there, so losing the files fails CI.
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "no .neff files under {} (TPB_REQUIRE_SHARED is set)", dir.display());
        tpb_isa::test_skip::skipped(&format!("the ../shared programs: no .neff files under {}", dir.display()));
    }
    v
}

/// Every bundle of some programs, with its generation.
pub fn bundles(files: &[PathBuf]) -> R<Vec<(Generation, Raw)>> {
    let mut out = Vec::new();
    for f in files {
        let n = neff::read_file(f)?;
        let g = n.generation().ok_or_else(|| format!("{}: no generation", f.display()))?;
        for s in &n.streams {
            out.extend(s.bundles().map(|(_, _, raw)| (g, *raw)));
        }
    }
    Ok(out)
}
