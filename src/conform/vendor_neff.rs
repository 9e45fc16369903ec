//! NEFF conformance: every bundle of every engine stream of each `--neff`
//! container through the codec, the text format and the validator
//! (`tpb_oracle::conform`). Round-trip mismatches, panics, an
//! unreadable container, a payload digest mismatch and a container without a
//! bundle fail the input; validator findings and opcodes the spec does not
//! name are spec disagreements, reported but never failed.

use super::report::{artifact_stem, Artifacts, Case, Section};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Instant;
use tpb_oracle::neff;

/// Disagreement and failure lines copied into the summary per container.
const SAMPLES: usize = 12;

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
    let mut dis: Vec<String> = json["spec_disagreements"]["checks"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|c| {
                    format!(
                        "`{}` (§{}): {} bundles under the spec alone, {} of them refused by the errata",
                        c["code"].as_str().unwrap_or("?"),
                        c["section"].as_str().unwrap_or("?"),
                        c["bundles"],
                        c["refused"]
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

/// Why a container that read cannot pass: its payload is not shown to be
/// the one its header vouches for (a mismatch, or a pkg_version with no
/// known digest: `tpb neff` fails both too), or it holds no bundle to check
/// (`unread`: what was looked for and found, when no bundle was read at all).
fn unchecked(n: &neff::Neff, bundles: usize, unread: Option<&neff::NeffError>) -> Option<String> {
    if !n.integrity.ok() {
        return Some(format!("payload digest {}", n.integrity.describe()));
    }
    if bundles == 0 {
        let why = unread.map_or_else(String::new, |e| format!(": {}", tpb_oracle::text_safe::escape(&e.message)));
        return Some(format!("no bundles to check ({} engine streams): nothing was conformed{why}", n.streams.len()));
    }
    None
}

/// One case per container, plus its full report as artifacts under `neff/`.
/// Bundles judged per container unless `--max-bundles` says otherwise: a
/// nightly run must end (one 11 MB NEFF can hold 3.6 GB of bundles), and the
/// largest real program seen holds 107,584.
pub const MAX_BUNDLES: usize = 4_000_000;

/// Keeps the first `max` bundles of a container's streams, in stream order; returns how many there were.
fn bound(n: &mut neff::Neff, max: usize) -> usize {
    let total = n.bundles();
    let mut left = max;
    for s in &mut n.streams {
        let keep = s.len().min(left);
        s.bytes.truncate(keep * tpb_isa::BUNDLE_BYTES);
        left -= keep;
    }
    total
}

pub fn section(files: &[PathBuf], max_bundles: usize) -> (Section, Artifacts) {
    let mut s = Section::new("neff", "NEFF conformance");
    let mut artifacts = Vec::new();
    // Every container's bundles together: the errata, the verdicts under both profiles, and report.html's evidence.
    let mut all = tpb_oracle::conform::NeffConformance::default();
    if files.is_empty() {
        s.cases.push(Case::skip("NEFF files", "no --neff given: pass compiled programs with --neff FILE (CI uses ../shared/neff/*.neff)"));
        return (s, artifacts);
    }
    // Each container is read, decompressed and judged on its own core, a window ahead; cases are recorded in order.
    let judge = |f: &PathBuf| {
        let start = Instant::now();
        let judged = neff::read_file(f).map(|mut n| {
            let unread = n.unread();
            let total = bound(&mut n, max_bundles);
            // A target that names no generation: the best fit of the bundles judged, as every command does.
            let choice = n.choose(None);
            let mut c = tpb_oracle::conform::NeffConformance::default();
            c.add_as(&n, &choice);
            (n, total, c, unread, choice)
        });
        (judged, start.elapsed())
    };
    let Ok(()) = crate::ahead::in_order(files, crate::ahead::threads(), judge, |i, (judged, took)| -> Result<(), std::convert::Infallible> {
        let f = &files[i];
        let name = f.display().to_string();
        let case = match judged {
            Err(e) => Case::fail(&name, format!("cannot read the container: {e}")),
            Ok((n, total, c, unread, choice)) => {
                if unread.is_none() {
                    crate::programs::say(f, &choice);
                }
                let json = c.to_json();
                let base = format!("neff/{}", artifact_stem(i, f.file_stem(), "neff"));
                artifacts.push((format!("{base}.md"), c.to_markdown().into_bytes()));
                artifacts.push((format!("{base}.json"), serde_json::to_vec_pretty(&json).unwrap_or_default()));
                let (failures, dis) = samples(&json);
                let gens: Vec<String> = c.sources().iter().map(|s| format!("{} from {}", s.generation, s.generation_from.as_str())).collect();
                let gens = match choice.warning().filter(|_| unread.is_none()) {
                    Some(w) => vec![format!("{}: {}", gens.join(", "), tpb_oracle::text_safe::escape(&w))],
                    None => gens,
                };
                let summary = format!(
                    "{} bundles in {} streams ({}), integrity {}; {} with spec disagreements; invalid: {} by default, {} under --spec",
                    c.bundles(),
                    n.streams.len(),
                    gens.join(", "),
                    n.integrity.describe(),
                    c.spec_disagreements(),
                    c.invalid_amended(),
                    c.invalid_spec()
                );
                // Said in the detail when hit: the case judged a prefix, by design, not everything.
                let summary = if total > c.bundles() {
                    format!("bounded: judged the first {} of {total} bundles (--max-bundles); {summary}", c.bundles())
                } else {
                    summary
                };
                let mut case = match unchecked(&n, c.bundles(), unread.as_ref()) {
                    Some(why) => Case::fail(&name, format!("{why}; {summary}")),
                    None if c.harness_failures() == 0 => Case::pass(&name, summary),
                    None => Case::fail(&name, format!("{} harness failures; {summary}\n{}", c.harness_failures(), failures.join("\n"))),
                };
                case.checked = c.bundles() as u64;
                case.disagreements = c.spec_disagreements() as u64;
                case.disagreement_samples = dis;
                case.artifact = Some(format!("{base}.md"));
                all.merge(c);
                case
            }
        };
        s.cases.push(case.with_time(took));
        Ok(())
    });
    if all.bundles() > 0 {
        s.appendix = Some(("Errata", all.errata_markdown()));
        s.data = Some(all.errata_json());
        s.page = Some(all.evidence().to_json());
    }
    (s, artifacts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    type R<T> = Result<T, Box<dyn std::error::Error>>;
    use crate::conform::report::Status;

    /// A pkg_version 2 container of `members` written to `dir/name`.
    fn container(dir: &Path, name: &str, members: &[(&str, &[u8])]) -> R<PathBuf> {
        let bytes = neff::build::container(2, members)?;
        let p = dir.join(name);
        std::fs::write(&p, bytes)?;
        Ok(p)
    }

    fn noops() -> Vec<u8> {
        let mut stream = vec![0u8; 2 * tpb_isa::BUNDLE_BYTES];
        for b in stream.chunks_exact_mut(tpb_isa::BUNDLE_BYTES) {
            b[0] = 0xA4;
            b[1] = tpb_isa::bundle::INST_WORD_LEN;
        }
        stream
    }

    fn case(p: &Path) -> R<Case> {
        let (s, _) = section(&[p.to_path_buf()], MAX_BUNDLES);
        Ok(s.cases.into_iter().next().ok_or("one case")?)
    }

    #[test]
    fn a_sound_container_passes() -> R<()> {
        let dir = tempfile::tempdir()?;
        let c = case(&container(dir.path(), "ok.neff", &[("sg00/SP.bin", &noops())])?)?;
        assert_eq!(c.status, Status::Pass, "{}", c.detail);
        assert_eq!(c.checked, 2);
        assert!(c.detail.starts_with("2 bundles in 1 streams ("), "{}", c.detail);
        Ok(())
    }

    #[test]
    fn samples_quote_the_first_failures_and_disagreements_of_a_report() {
        let failure = |i: usize| json!({"file": "p.neff", "member": "sg00/PE.bin", "offset": i * 64, "opcode": "0x41", "kind": "roundtrip", "detail": "differs"});
        let report = json!({
            "harness_failures": {"details": (0..SAMPLES + 1).map(failure).collect::<Vec<_>>()},
            "spec_disagreements": {
                "checks": [{"code": "dtype", "section": "4.2", "bundles": 7, "refused": 0}],
                "unknown_opcodes": [{"opcode": "0xee", "count": 3}, {"opcode": "0xef", "count": 1}],
            },
        });
        let (failures, dis) = samples(&report);
        assert_eq!(failures.len(), SAMPLES);
        assert_eq!(failures[1], "p.neff:sg00/PE.bin +64 op 0x41: roundtrip: differs");
        assert_eq!(
            dis,
            ["`dtype` (§4.2): 7 bundles under the spec alone, 0 of them refused by the errata", "opcodes the spec does not name: 0xee ×3, 0xef ×1"]
        );
        // No unknown opcode: no line for them; nothing at all: nothing quoted.
        let clean = json!({"spec_disagreements": {"checks": [], "unknown_opcodes": []}});
        assert_eq!(samples(&clean), (vec![], vec![]));
        assert_eq!(samples(&json!({})), (vec![], vec![]));
    }

    #[test]
    fn a_digest_mismatch_fails_the_input() -> R<()> {
        let dir = tempfile::tempdir()?;
        let p = container(dir.path(), "bad-digest.neff", &[("sg00/SP.bin", &noops())])?;
        let mut bytes = std::fs::read(&p)?;
        let at = neff::NeffHeader::LAYOUT.field_offset("hash").ok_or("hash field")?;
        bytes[at] ^= 0xFF;
        std::fs::write(&p, bytes)?;
        let c = case(&p)?;
        assert_eq!(c.status, Status::Fail, "{}", c.detail);
        assert!(c.detail.contains("digest") && c.detail.contains("MISMATCH"), "{}", c.detail);
        Ok(())
    }

    #[test]
    fn a_container_with_no_known_digest_fails_the_input() -> R<()> {
        let dir = tempfile::tempdir()?;
        let bytes = neff::build::container(7, &[("sg00/SP.bin", &noops())])?;
        let p = dir.path().join("pkg7.neff");
        std::fs::write(&p, bytes)?;
        let c = case(&p)?;
        assert_eq!(c.status, Status::Fail, "{}", c.detail);
        assert!(c.detail.contains("no known digest"), "{}", c.detail);
        Ok(())
    }

    #[test]
    fn a_container_without_bundles_fails_the_input() -> R<()> {
        let dir = tempfile::tempdir()?;
        for (name, members) in [("none.neff", vec![]), ("empty-stream.neff", vec![("sg00/SP.bin", &[][..])])] {
            let c = case(&container(dir.path(), name, &members)?)?;
            assert_eq!(c.status, Status::Fail, "{name}: {}", c.detail);
            assert!(c.detail.contains("no bundles"), "{name}: {}", c.detail);
        }
        // No bundle judged anywhere: no errata appendix, no data for the page.
        let (s, _) = section(&[dir.path().join("none.neff")], MAX_BUNDLES);
        assert!(s.appendix.is_none() && s.data.is_none() && s.page.is_none());
        let (s, _) = section(&[container(dir.path(), "ok.neff", &[("sg00/SP.bin", &noops())])?], MAX_BUNDLES);
        assert!(s.appendix.is_some() && s.data.is_some() && s.page.is_some());
        Ok(())
    }
}
