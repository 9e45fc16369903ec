//! NEFF conformance: every bundle of every engine stream of each `--neff`
//! container through the codec, the text format and the validator
//! (`tpb_oracle::neff::conform`). Round-trip mismatches, panics and an
//! unreadable container are harness failures; validator findings and opcodes
//! the spec does not name are spec disagreements, reported but never failed.

use super::report::{Case, Section};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tpb_oracle::neff;

/// Disagreement and failure lines copied into the summary per container.
const SAMPLES: usize = 12;

/// What to write into the report folder: (relative path, bytes).
pub type Artifacts = Vec<(String, Vec<u8>)>;

fn stem(p: &Path, i: usize) -> String {
    let s = p.file_stem().map_or_else(|| "neff".to_string(), |s| s.to_string_lossy().into_owned());
    let clean: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    format!("{i:02}-{clean}")
}

fn samples(json: &Value) -> (Vec<String>, Vec<String>) {
    let failures = json["harness_failures"]["details"]
        .as_array()
        .map(|v| {
            v.iter()
                .take(SAMPLES)
                .map(|f| {
                    format!(
                        "{}:{} +{} op {}: {}: {}",
                        f["file"].as_str().unwrap_or("?"),
                        f["member"].as_str().unwrap_or("?"),
                        f["offset"],
                        f["opcode"].as_str().unwrap_or("?"),
                        f["kind"].as_str().unwrap_or("?"),
                        f["detail"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let mut dis: Vec<String> = json["spec_disagreements"]["findings"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|c| {
                    format!(
                        "`{}` ({}, §{}) on {} bundles",
                        c["code"].as_str().unwrap_or("?"),
                        c["severity"].as_str().unwrap_or("?"),
                        c["section"].as_str().unwrap_or("?"),
                        c["count"]
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(u) = json["spec_disagreements"]["unknown_opcodes"].as_array().filter(|u| !u.is_empty()) {
        let ops: Vec<String> = u.iter().map(|o| format!("{} ×{}", o["opcode"].as_str().unwrap_or("?"), o["count"])).collect();
        dis.push(format!("opcodes the spec does not name: {}", ops.join(", ")));
    }
    dis.truncate(SAMPLES);
    (failures, dis)
}

/// One case per container, plus its full report as artifacts under `neff/`.
pub fn section(files: &[PathBuf]) -> (Section, Artifacts) {
    let mut s = Section::new("neff", "NEFF conformance");
    let mut artifacts = Vec::new();
    if files.is_empty() {
        s.cases.push(Case::skip("NEFF files", "no --neff given: pass compiled programs with --neff FILE (CI uses ../shared/neff/*.neff)"));
        return (s, artifacts);
    }
    for (i, f) in files.iter().enumerate() {
        let start = Instant::now();
        let name = f.display().to_string();
        let case = match neff::read_file(f) {
            Err(e) => Case::fail(&name, format!("cannot read the container: {e}")),
            Ok(n) => {
                let c = neff::conform::conform(&n, None);
                let json = c.to_json();
                let base = format!("neff/{}", stem(f, i));
                artifacts.push((format!("{base}.md"), c.to_markdown().into_bytes()));
                artifacts.push((format!("{base}.json"), serde_json::to_vec_pretty(&json).unwrap_or_default()));
                let (failures, dis) = samples(&json);
                let gens: Vec<String> = c.sources().iter().map(|s| format!("{} from {:?}", s.generation, s.generation_from)).collect();
                let summary = format!(
                    "{} bundles in {} streams ({}), integrity {}; {} with spec disagreements",
                    c.bundles(),
                    n.streams.len(),
                    gens.join(", "),
                    n.integrity.describe(),
                    c.spec_disagreements()
                );
                let mut case = if c.harness_failures() == 0 {
                    Case::pass(&name, summary)
                } else {
                    Case::fail(&name, format!("{} harness failures; {summary}\n{}", c.harness_failures(), failures.join("\n")))
                };
                case.checked = c.bundles() as u64;
                case.disagreements = c.spec_disagreements() as u64;
                case.disagreement_samples = dis;
                case.artifact = Some(format!("{base}.md"));
                case
            }
        };
        s.cases.push(case.with_time(start.elapsed()));
    }
    (s, artifacts)
}
