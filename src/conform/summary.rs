//! The human forms of a report: `summary.md` and the one-screen table on stdout.

use super::report::{Report, Section, Status};
use std::fmt::Write as _;

/// Lines of a failure's detail shown before "…".
const DETAIL_LINES: usize = 12;
/// Failed or skipped checks listed under the stdout table (one screen).
const TABLE_LINES: usize = 10;

fn verdict(r: &Report) -> &'static str {
    if r.passed() {
        "PASS"
    } else {
        "FAIL"
    }
}

fn clip(s: &str, lines: usize) -> String {
    let all: Vec<&str> = s.lines().collect();
    let mut out = all.iter().take(lines).copied().collect::<Vec<_>>().join("\n");
    if all.len() > lines {
        let _ = write!(out, "\n… ({} more lines)", all.len() - lines);
    }
    out
}

/// One-cell markdown text: pipes escaped, newlines folded.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

fn counts_row(s: &Section) -> String {
    format!(
        "| {} | {} | {} | {} | {} | {} | {:.1} s |",
        s.title,
        s.cases.len(),
        s.count(Status::Pass),
        s.count(Status::Fail),
        s.count(Status::Skip),
        s.disagreements(),
        s.time().as_secs_f64()
    )
}

/// The command that runs this report's checks again: seed, time and every input.
pub fn reproduce(r: &Report) -> String {
    let mut c = format!("tpb conform --seed {:#x} --time {}", r.seed, r.time_budget_secs);
    for l in &r.libs {
        c.push_str(&format!(" --lib {}", crate::out::escape(l)));
    }
    for n in &r.neffs {
        c.push_str(&format!(" --neff {}", crate::out::escape(n)));
    }
    c
}

/// `summary.md`.
pub fn markdown(r: &Report) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# tpb conform — {} — {}\n", r.date, verdict(r));
    let _ = writeln!(
        m,
        "Started {} (UTC), tpb {}, campaign seed `{:#x}` (reproduce with `{}`), {:.1} s in all.\n",
        r.started,
        r.tpb_version,
        r.seed,
        cell(&reproduce(r)),
        r.elapsed.as_secs_f64()
    );
    let _ = writeln!(
        m,
        "**{}** harness failures, **{}** spec disagreements, **{}** skipped checks, {} checks in all. \
         A harness failure (property violation, round-trip mismatch, panic, unreadable vendor input) fails the run; \
         a spec disagreement (vendor output the spec does not describe) is reported, never failed.\n",
        r.total(Status::Fail),
        r.disagreements(),
        r.total(Status::Skip),
        r.cases()
    );
    m.push_str("| section | checks | pass | fail | skip | disagreements | time |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for s in &r.sections {
        let _ = writeln!(m, "{}", counts_row(s));
    }
    for s in &r.sections {
        let _ = writeln!(m, "\n## {}\n", s.title);
        m.push_str("| check | status | checked | disagreements | time | detail |\n|---|---|---:|---:|---:|---|\n");
        for c in &s.cases {
            let detail = match (&c.artifact, c.status) {
                (Some(a), _) => format!("{} ([details]({a}))", clip(&c.detail, 1)),
                (None, Status::Fail) => "see below".to_string(),
                (None, _) => clip(&c.detail, 2),
            };
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} | {:.2} s | {} |",
                cell(&c.name),
                c.status.as_str(),
                c.checked,
                c.disagreements,
                c.time.as_secs_f64(),
                cell(&detail)
            );
        }
        for c in s.cases.iter().filter(|c| c.status == Status::Fail) {
            let _ = writeln!(m, "\n### FAIL: {}\n\n```text\n{}\n```", c.name, clip(&c.detail, DETAIL_LINES * 4));
        }
        for c in s.cases.iter().filter(|c| c.disagreements > 0) {
            let _ = writeln!(m, "\n### Spec disagreements: {} ({})\n", cell(&c.name), c.disagreements);
            for d in &c.disagreement_samples {
                let _ = writeln!(m, "- {}", cell(d));
            }
        }
        if let Some((title, md)) = &s.appendix {
            let _ = writeln!(m, "\n## {title}\n\n{md}");
        }
    }
    m
}

/// The table printed on stdout at the end of a run.
pub fn table(r: &Report, folder: &str) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "{:<24} {:>6} {:>6} {:>6} {:>6} {:>9} {:>8}", "section", "checks", "pass", "fail", "skip", "disagree", "time");
    for s in &r.sections {
        let _ = writeln!(
            t,
            "{:<24} {:>6} {:>6} {:>6} {:>6} {:>9} {:>7.1}s",
            s.title,
            s.cases.len(),
            s.count(Status::Pass),
            s.count(Status::Fail),
            s.count(Status::Skip),
            s.disagreements(),
            s.time().as_secs_f64()
        );
    }
    let not_passed: Vec<String> = r
        .sections
        .iter()
        .flat_map(|s| s.cases.iter().filter(|c| c.status != Status::Pass).map(move |c| (s.id, c)))
        .map(|(id, c)| format!("  {} {id} / {}: {}", c.status.as_str(), c.name, clip(&c.detail, 1)))
        .collect();
    for line in not_passed.iter().take(TABLE_LINES) {
        let _ = writeln!(t, "{line}");
    }
    if not_passed.len() > TABLE_LINES {
        let _ = writeln!(t, "  … {} more in summary.md", not_passed.len() - TABLE_LINES);
    }
    let _ = writeln!(
        t,
        "{}: {} harness failure(s), {} spec disagreement(s), {} skipped; reports in {folder}/",
        verdict(r),
        r.total(Status::Fail),
        r.disagreements(),
        r.total(Status::Skip)
    );
    t
}
