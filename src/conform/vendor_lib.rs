//! Oracle checks on each `--lib` (a `libwalrus.so` or a wheel holding one),
//! read as bytes and never loaded: every fact the description holds is looked
//! up in the library (`tpb_oracle::walrus`). A library that cannot be read or
//! parsed, or a panic in the oracle, is a harness failure; a fact that differs
//! from the description or is missing is a spec disagreement (the vendor
//! build disagrees with what the spec says), reported but never failed.

use super::panics;
use super::report::{artifact_stem, Artifacts, Case, Section};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tpb_oracle::walrus::{self, command, render, Profiles, Status};

/// Fact ids any ELF file has; the others are the format's own (LUT, asserts, type names, setupHeader).
const GENERIC: [&str; 3] = ["identity.", "elf.", "section."];

/// Disagreeing facts copied into the summary per library.
const SAMPLES: usize = 12;

fn one(path: &Path, i: usize, profiles: &Profiles, artifacts: &mut Artifacts) -> Case {
    let name = path.display().to_string();
    let report = match panics::catching(|| command::check_path(path, walrus::DEFAULT_MAX_BYTES, profiles)) {
        Err(p) => return Case::fail(&name, format!("the oracle panicked: {p}")),
        Ok(Err(e)) => return Case::fail(&name, format!("cannot check the library: {e}")),
        Ok(Ok(r)) => r,
    };
    let base = format!("lib/{}", artifact_stem(i, path.file_name(), "lib"));
    artifacts.push((format!("{base}.txt"), render::report_text(&report).into_bytes()));
    artifacts.push((format!("{base}.json"), serde_json::to_vec_pretty(&report).unwrap_or_default()));
    let s = report.summary;
    let build = match (&report.profile, &report.build_id) {
        (Some(p), _) => format!("known build {p}"),
        (None, Some(id)) => format!("unknown build {id}"),
        (None, None) => "build without a GNU build-id".to_string(),
    };
    let failed: Vec<_> = report.failed().collect();
    let counts = format!("{}: {} facts hold, {} differ, {} missing, {} info; {build}", report.input, s.holds, s.differs, s.missing, s.info);
    // Any ELF has a class, a build-id and sections; only the format's own facts show it is the compiler library.
    let format_facts: Vec<_> = report.rows.iter().filter(|r| !GENERIC.iter().any(|p| r.id.starts_with(p))).collect();
    let located = format_facts.iter().filter(|r| matches!(r.status, Status::Holds | Status::Differs)).count();
    let mut case = if located == 0 {
        let why = format!("not judged: none of the format's {} facts was found in this file (is it libwalrus.so?)", format_facts.len());
        Case::fail(&name, format!("{why}; {counts}"))
    } else {
        Case::pass(&name, counts)
    };
    case.checked = report.rows.len() as u64;
    case.disagreements = failed.len() as u64;
    case.disagreement_samples = failed
        .iter()
        .take(SAMPLES)
        .map(|r| {
            let expected = r.expected.as_deref().unwrap_or("-");
            let found = r.found.as_deref().unwrap_or("not found");
            format!("`{}` (§{}, {:?}): {}; expected {expected}, found {found}", r.id, r.section, r.confidence, r.status.as_str())
        })
        .collect();
    case.artifact = Some(format!("{base}.txt"));
    case
}

/// One case per library, plus its full report as artifacts under `lib/`.
pub fn section(libs: &[PathBuf]) -> (Section, Artifacts) {
    let mut s = Section::new("lib", "library oracle");
    let mut artifacts = Vec::new();
    if libs.is_empty() {
        s.cases.push(Case::skip("libraries", "no --lib given: pass a libwalrus.so or a neuronx_cc wheel with --lib PATH"));
        return (s, artifacts);
    }
    let profiles = match Profiles::embedded() {
        Ok(p) => p,
        Err(e) => {
            s.cases.push(Case::fail("build profiles", format!("the embedded build profiles do not load: {e}")));
            return (s, artifacts);
        }
    };
    let _quiet = panics::Quiet::install();
    for (i, l) in libs.iter().enumerate() {
        let start = Instant::now();
        let case = one(l, i, &profiles, &mut artifacts);
        s.cases.push(case.with_time(start.elapsed()));
    }
    (s, artifacts)
}
