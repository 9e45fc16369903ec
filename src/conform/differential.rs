//! `tpb conform --worker-cmd CMD | --worker-lib PATH`: the user's own
//! implementation fuzzed against the description inside the nightly run
//! (tpb_differ; `tpb differ` is the same run on its own). One case per
//! disagreement group, failed, with its reduced repro as an artifact; one
//! passing case when the worker agrees on everything it was asked.

use super::report::{Artifacts, Case, Section};
use std::time::{Duration, Instant};
use tpb_differ::campaign::{self, Config};
use tpb_differ::inputs::Real;
use tpb_differ::worker::Worker;

/// The id of this section in the report; the page and the summary find it by it.
pub const SECTION: &str = "differential";

/// The worker to fuzz, opened by the caller, and how its requests are reproduced by hand.
pub struct Fuzzed<'a> {
    pub worker: &'a mut dyn Worker,
    pub reproduce: &'a dyn Fn(&str) -> String,
}

pub fn section(w: Fuzzed<'_>, real: &Real, time: Duration, seed: u64) -> (Section, Artifacts) {
    let mut s = Section::new(SECTION, "your worker");
    let mut artifacts = Artifacts::new();
    let t = Instant::now();
    let cfg = Config { time, seed, ..Config::default() };
    let outcome = match campaign::run(w.worker, real, &cfg, &|_| {}) {
        Ok(o) => o,
        Err(e) => {
            s.cases.push(Case::fail("worker", e.to_string()));
            return (s, artifacts);
        }
    };
    let sent: u64 = outcome.stats.inputs.values().sum();
    let inputs: Vec<String> = campaign::sources(&outcome.stats).iter().map(|(src, n)| format!("{n} {}", src.as_str())).collect();
    let summary = format!("worker `{}` answers {}; inputs: {}", outcome.worker, join(&outcome), inputs.join(", "));
    if let Ok(json) = serde_json::to_vec_pretty(&tpb_differ::report::json(&outcome)) {
        artifacts.push(("differential/report.json".to_string(), json));
    }
    if outcome.groups.by_signature.is_empty() {
        s.cases.push(Case::pass("worker agrees", summary.clone()).with_checked(sent).with_time(t.elapsed()));
    }
    for (i, g) in outcome.groups.by_signature.values().enumerate() {
        let sig = &g.signature;
        let file = format!("differential/{}", tpb_differ::report::repro_name(i + 1, g));
        artifacts.push((file.clone(), tpb_differ::report::repro_file(g, w.reproduce).into_bytes()));
        let reduced = g.repro.as_ref().map_or_else(|| "not reduced".to_string(), |r| format!("reduced to {}", r.fields.join(", ")));
        let detail = format!("{} input(s); worker: {}; expected: {}; {reduced}", g.count, g.disagreement.worker, g.disagreement.expected);
        let mut case = Case::fail(sig.describe(), detail).with_checked(g.count);
        case.artifact = Some(file);
        s.cases.push(case);
    }
    s.data = Some(serde_json::json!({ "summary": summary, "stats": outcome.stats }));
    (s, artifacts)
}

fn join(o: &campaign::Outcome) -> String {
    o.asks.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_differ::worker::Reference;
    use tpb_differ::Ask;

    #[test]
    fn a_worker_that_agrees_is_one_passing_case_and_one_that_does_not_is_a_failed_case_per_group() {
        let mut good = Reference { profile: tpb_isa::Profile::Amended, asks: Ask::ALL.to_vec() };
        let cfg_time = Duration::from_secs(30);
        let real = Real::default();
        let (s, a) = section(Fuzzed { worker: &mut good, reproduce: &|l| l.to_string() }, &real, cfg_time, 1);
        assert_eq!(s.cases.len(), 1, "{:?}", s.cases.iter().map(|c| &c.name).collect::<Vec<_>>());
        assert_eq!(s.cases[0].status, super::super::report::Status::Pass);
        assert!(s.cases[0].detail.contains("generated"), "{}", s.cases[0].detail);
        assert!(a.iter().any(|(p, _)| p == "differential/report.json"));

        // A shell worker that decodes only the opcode, and wrongly for 0x46.
        let script = "while read k g h; do case $k in decode) case $h in 46*) echo opcode=0x47;; *) echo opcode=0x${h%${h#??}};; esac;; *) echo unsupported;; esac; done";
        let mut bad = tpb_differ::worker::Process::from_argv(vec!["sh".into(), "-c".into(), script.into()], Duration::from_secs(5));
        let (s, a) = section(Fuzzed { worker: &mut bad, reproduce: &|l| l.to_string() }, &real, Duration::from_secs(5), 1);
        assert_eq!(s.cases.len(), 3, "one group per generation: {:?}", s.cases.iter().map(|c| &c.name).collect::<Vec<_>>());
        assert!(s.cases.iter().all(|c| c.status == super::super::report::Status::Fail && c.name.contains("0x46 TensorCopy opcode")));
        assert!(s.cases.iter().all(|c| c.artifact.as_ref().is_some_and(|f| a.iter().any(|(p, _)| p == f))));
    }
}
