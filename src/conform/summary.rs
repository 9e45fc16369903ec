//! The human forms of a report: `summary.md` and the one-screen table on stdout.

use super::report::{Report, Section, Status};
use crate::out::count;
use std::fmt::Write as _;
use tpb_oracle::text_safe::{md_cell, md_code_block};

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

/// The real programs' bundles in `tpb validate`'s counts: (bundles, invalid by default, invalid under --spec).
fn real_verdicts(r: &Report) -> Option<(u64, u64, u64)> {
    let v = r.sections.iter().find(|s| s.id == "neff").and_then(|s| s.data.as_ref())?.get("verdicts")?;
    Some((v["bundles"].as_u64()?, v["invalid_amended"].as_u64()?, v["invalid_spec"].as_u64()?))
}

/// The one line that says what passed: the harness's failures (what the
/// verdict is), then the real programs in the counts `tpb validate` gives.
/// Spec disagreements are not in it: they never fail a run, and `--spec`'s
/// count is the one `validate` gives for them.
pub fn headline(r: &Report) -> String {
    // A user's worker that disagrees fails the run too, but it is no harness failure: said apart.
    let worker = r.sections.iter().find(|s| s.id == crate::conform::differential::SECTION).map(|s| s.count(Status::Fail));
    let harness = r.total(Status::Fail) - worker.unwrap_or(0);
    let mut h = format!("{}: harness {}", verdict(r), count(harness as u64, "failure"));
    if let Some(n) = worker {
        let _ = write!(h, ", your worker {}", count(n as u64, "disagreement group"));
    }
    let skipped = r.total(Status::Skip);
    if skipped > 0 {
        let _ = write!(h, " ({} skipped)", count(skipped as u64, "check"));
    }
    match real_verdicts(r) {
        Some((bundles, invalid, spec)) => {
            let _ = write!(h, "; real programs: {}, {bundles} bundles, {invalid} invalid ({spec} under --spec)", count(r.neffs.len() as u64, "file"));
        }
        None => h.push_str("; no real program judged"),
    }
    h
}

fn clip(s: &str, lines: usize) -> String {
    let all: Vec<&str> = s.lines().collect();
    let mut out = all.iter().take(lines).copied().collect::<Vec<_>>().join("\n");
    if all.len() > lines {
        let _ = write!(out, "\n… ({} more lines)", all.len() - lines);
    }
    out
}

/// One-cell markdown text: each line a [`md_cell`], the lines joined by
/// `<br>` (a detail of several lines stays readable in one cell).
fn cell(s: &str) -> String {
    s.split('\n').map(md_cell).collect::<Vec<_>>().join("<br>")
}

/// A section's counts, as both the Markdown table and the terminal table show them:
/// checks, pass, fail, skip, spec disagreements; then the seconds it took.
fn counts(s: &Section) -> ([u64; 5], f64) {
    let n = |st| s.count(st) as u64;
    ([s.cases.len() as u64, n(Status::Pass), n(Status::Fail), n(Status::Skip), s.disagreements()], s.time().as_secs_f64())
}

fn counts_row(s: &Section) -> String {
    let ([checks, pass, fail, skip, disagree], secs) = counts(s);
    format!("| {} | {checks} | {pass} | {fail} | {skip} | {disagree} | {secs:.1} s |", s.title)
}

/// The command that runs this report's checks again: seed, time and every
/// input as the command line gave it (a folder, not every file under it),
/// each one shell word.
pub fn reproduce(r: &Report) -> String {
    let mut c = format!("tpb conform --seed {:#x} --time {}", r.seed, r.time_budget_secs);
    for (flag, v) in r.libs.iter().map(|l| ("--lib", l)).chain(r.neff_args.iter().map(|n| ("--neff", n))) {
        // Control characters escaped first, then quoted for a POSIX shell (a path with a space stays one word).
        let word = tpb_oracle::text_safe::escape(v);
        let quoted = shlex::try_quote(&word).unwrap_or_else(|_| word.clone().into());
        let _ = write!(c, " {flag} {quoted}");
    }
    c
}

/// `summary.md`: the headline, harness failures, verdicts, spec
/// disagreements and errata first; then the sections, the campaign one line
/// per generation (its cases share the budget evenly, so their times say nothing).
pub fn markdown(r: &Report) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# tpb conform — {} — {}\n", r.date, verdict(r));
    let _ = writeln!(m, "**{}**\n", cell(&headline(r)));
    let _ = writeln!(
        m,
        "Started {} (UTC), tpb {}, campaign seed `{:#x}`, {:.1} s in all. Reproduce with `{}`.\n",
        r.started,
        r.tpb_version,
        r.seed,
        r.elapsed.as_secs_f64(),
        cell(&reproduce(r))
    );
    m.push_str(
        "A harness failure (property violation, round-trip mismatch, panic, unreadable vendor input) fails the run; \
         a spec disagreement (vendor output the spec does not describe) is reported, never failed: \
         \"invalid\" counts bundles as `tpb validate` does, by default and under `--spec`.\n",
    );
    let failed: Vec<(&Section, &super::report::Case)> =
        r.sections.iter().flat_map(|s| s.cases.iter().filter(|c| c.status == Status::Fail).map(move |c| (s, c))).collect();
    let _ = writeln!(m, "\n## Harness failures ({})\n", failed.len());
    if failed.is_empty() {
        m.push_str("None.\n");
    }
    for (s, c) in &failed {
        let _ = writeln!(m, "### FAIL: {} / {}\n\n{}\n", s.title, cell(&c.name), md_code_block("text", &clip(&c.detail, DETAIL_LINES * 4)));
    }
    for s in &r.sections {
        if let Some((title, md)) = &s.appendix {
            let _ = writeln!(m, "\n## {title}\n\n{md}");
        }
    }
    // One line per input near the top; what each disagrees on goes last, it runs long over many programs.
    let disagreeing: Vec<&super::report::Case> = r.sections.iter().flat_map(|s| s.cases.iter().filter(|c| c.disagreements > 0)).collect();
    if !disagreeing.is_empty() {
        let _ = writeln!(
            m,
            "\n## Spec disagreements ({} bundles; by finding under [Spec disagreements in detail](#spec-disagreements-in-detail))\n",
            r.disagreements()
        );
        for c in &disagreeing {
            let _ = writeln!(m, "- {}: {} bundles", cell(&c.name), c.disagreements);
        }
    }
    m.push_str("\n## Sections\n\n| section | checks | pass | fail | skip | disagreements | time |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for s in &r.sections {
        let _ = writeln!(m, "{}", counts_row(s));
    }
    for s in &r.sections {
        let _ = writeln!(m, "\n## {}\n", s.title);
        if s.id == "campaign" {
            m.push_str(&by_generation(s));
            continue;
        }
        m.push_str("| check | status | checked | disagreements | time | detail |\n|---|---|---:|---:|---:|---|\n");
        for c in &s.cases {
            let detail = match (&c.artifact, c.status) {
                (Some(a), _) => format!("{} ([details]({a}))", clip(&c.detail, 1)),
                (None, Status::Fail) => "see Harness failures".to_string(),
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
    }
    if !disagreeing.is_empty() {
        m.push_str("\n## Spec disagreements in detail\n");
        for c in disagreeing {
            let _ = writeln!(m, "\n### {} ({})\n", cell(&c.name), c.disagreements);
            for d in &c.disagreement_samples {
                let _ = writeln!(m, "- {}", cell(d));
            }
        }
    }
    m
}

/// The campaign's cases (`family/generation`) one row per generation: how
/// many families passed, failed or were skipped, the inputs checked, and
/// the families that did not pass by name.
fn by_generation(s: &Section) -> String {
    let mut groups: Vec<(&str, Vec<&super::report::Case>)> = Vec::new();
    for c in &s.cases {
        let g = c.name.rsplit_once('/').map_or("", |(_, g)| g);
        match groups.iter_mut().find(|(name, _)| *name == g) {
            Some((_, cases)) => cases.push(c),
            None => groups.push((g, vec![c])),
        }
    }
    let mut m = format!(
        "{} in {:.1} s of wall time, shared evenly by the families.\n\n| generation | families | pass | fail | skip | inputs | not passed |\n|---|---:|---:|---:|---:|---:|---|\n",
        count(s.cases.len() as u64, "check"),
        s.time().as_secs_f64()
    );
    for (g, cases) in groups {
        let n = |st: Status| cases.iter().filter(|c| c.status == st).count();
        let not_passed: Vec<String> =
            cases.iter().filter(|c| c.status != Status::Pass).map(|c| format!("{} ({})", cell(&c.name), c.status.as_str())).collect();
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(g),
            cases.len(),
            n(Status::Pass),
            n(Status::Fail),
            n(Status::Skip),
            cases.iter().map(|c| c.checked).sum::<u64>(),
            if not_passed.is_empty() { "—".to_string() } else { not_passed.join(", ") }
        );
    }
    m
}

/// What the table's `disagree` column counts, and why it is not the headline's `--spec` count.
pub const LEGEND: &str = "disagree: bundles with any finding of the spec alone (error, warning or note) or on an engine it does not list: \
reported, never failed; \"invalid under --spec\" counts only those with an error, so it is smaller.";

/// The table printed on stdout at the end of a run.
pub fn table(r: &Report, folder: &str) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "{:<24} {:>6} {:>6} {:>6} {:>6} {:>9} {:>8}", "section", "checks", "pass", "fail", "skip", "disagree", "time");
    for s in &r.sections {
        let ([checks, pass, fail, skip, disagree], secs) = counts(s);
        let _ = writeln!(t, "{:<24} {checks:>6} {pass:>6} {fail:>6} {skip:>6} {disagree:>9} {secs:>7.1}s", s.title);
    }
    let _ = writeln!(t, "{LEGEND}");
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
    let _ = writeln!(t, "{}; reports in {folder}/", headline(r));
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::report::Case;
    use std::time::Duration;

    fn report(sections: Vec<Section>) -> Report {
        Report {
            date: "2026-12-06".into(),
            started: "2026-12-06T01:02:03Z".into(),
            tpb_version: "0.1.0",
            seed: 0x2a,
            time_budget_secs: 7,
            libs: vec!["a b/libwalrus.so".into()],
            neffs: Vec::new(),
            neff_args: vec!["progs".into()],
            sections,
            elapsed: Duration::from_millis(1500),
        }
    }

    fn failing(n: usize) -> Section {
        let mut s = Section::new("hand", "Hand checks");
        s.cases = (0..n).map(|i| Case::fail(format!("case {i}"), format!("broke {i}\nsecond line"))).collect();
        s.cases.push(Case::pass("fine", "ok"));
        s
    }

    #[test]
    fn the_table_lists_one_screen_of_failures_and_counts_the_rest() {
        let exactly = table(&report(vec![failing(TABLE_LINES)]), "out");
        assert_eq!(exactly.matches("  FAIL hand / case ").count(), TABLE_LINES);
        assert!(!exactly.contains("more in summary.md"), "{exactly}");
        let over = table(&report(vec![failing(TABLE_LINES + 3)]), "out");
        assert_eq!(over.matches("  FAIL hand / case ").count(), TABLE_LINES);
        assert!(over.contains("  … 3 more in summary.md"), "{over}");
        // Only a failure's first line, and the headline with the folder last.
        assert!(over.contains("case 0: broke 0\n… (1 more lines)"), "{over}");
        assert!(over.trim_end().ends_with("FAIL: harness 13 failures; no real program judged; reports in out/"), "{over}");
        // The legend is under the rows: what `disagree` counts and why it exceeds `--spec`'s invalid.
        let rows: Vec<&str> = over.lines().collect();
        assert_eq!(rows.get(2).copied(), Some(LEGEND), "{over}");
    }

    #[test]
    fn the_headline_counts_failures_skips_and_real_verdicts() {
        let mut s = Section::new("neff", "Real programs");
        s.cases = vec![Case::pass("a", ""), Case::skip("b", "no lib"), Case::skip("c", "no lib")];
        s.data = Some(serde_json::json!({"verdicts": {"bundles": 900, "invalid_amended": 0, "invalid_spec": 12}}));
        let mut r = report(vec![s]);
        r.neffs = vec!["x.neff".into()];
        assert_eq!(headline(&r), "PASS: harness 0 failures (2 checks skipped); real programs: 1 file, 900 bundles, 0 invalid (12 under --spec)");
        let one = report(vec![failing(1)]);
        assert_eq!(headline(&one), "FAIL: harness 1 failure; no real program judged");
        // A worker's disagreements fail the run and are counted apart from the harness's failures.
        let mut w = Section::new(crate::conform::differential::SECTION, "your worker");
        w.cases = vec![Case::fail("decode v2 0x46 TensorCopy src.stride", ""), Case::fail("hang v2 0x45 Pool decode", "")];
        let both = report(vec![failing(1), w]);
        assert_eq!(headline(&both), "FAIL: harness 1 failure, your worker 2 disagreement groups; no real program judged");
        assert!(!both.passed());
    }

    #[test]
    fn clip_and_cell_keep_markdown_whole() {
        assert_eq!(clip("a\nb\nc", 2), "a\nb\n… (1 more lines)");
        assert_eq!(clip("a\nb", 2), "a\nb");
        assert_eq!(cell("x|y\nz"), "x\\|y<br>z");
    }

    #[test]
    fn a_failure_cannot_close_its_code_block_or_move_the_cursor() {
        let mut s = Section::new("hand", "Hand checks");
        s.cases = vec![Case::fail("case x".to_string(), "```\n# not a heading\u{1b}[2J".to_string())];
        let m = markdown(&report(vec![s]));
        assert!(m.contains("### FAIL: Hand checks / case x\n\n````text\n```\n# not a heading\\u{1b}[2J\n````\n"), "{m}");
    }

    #[test]
    fn the_markdown_leads_with_failures_and_reproduces_the_run() {
        let mut r = report(vec![failing(2)]);
        r.sections[0].cases[0].disagreements = 4;
        r.sections[0].cases[0].disagreement_samples = vec!["op|x".into()];
        let m = markdown(&r);
        assert!(m.starts_with("# tpb conform — 2026-12-06 — FAIL\n"), "{m}");
        assert!(m.contains("## Harness failures (2)"), "{m}");
        assert!(m.contains("### FAIL: Hand checks / case 1\n\n```text\nbroke 1\nsecond line\n```"), "{m}");
        assert!(m.contains("tpb conform --seed 0x2a --time 7 --lib 'a b/libwalrus.so' --neff progs"), "{m}");
        assert!(m.contains("## Spec disagreements (4 bundles;"), "{m}");
        assert!(m.contains("- case 0: 4 bundles"), "{m}");
        assert!(m.contains("### case 0 (4)\n\n- op\\|x"), "{m}");
        assert!(m.contains("| Hand checks | 3 | 1 | 2 | 0 | 4 | 0.0 s |"), "{m}");
        // The terminal table shows the same counts, in columns.
        let t = table(&r, "out");
        assert!(t.contains("\nHand checks                   3      1      2      0         4     0.0s\n"), "{t}");
        assert!(m.contains("| fine | pass | 0 | 0 | 0.00 s | ok |"), "{m}");
        assert!(m.contains("| case 0 | FAIL | 0 | 4 | 0.00 s | see Harness failures |"), "{m}");
        assert!(markdown(&report(vec![])).contains("## Harness failures (0)\n\nNone.\n"));
    }

    #[test]
    fn the_campaign_reads_one_row_per_generation() {
        let mut s = Section::new("campaign", "Property campaign");
        s.cases = vec![
            Case::pass("branch/v2", "").with_checked(10),
            Case::fail("dma/v2", "x").with_checked(5),
            Case::pass("branch/v3", "").with_checked(7),
        ];
        let m = by_generation(&s);
        assert!(m.starts_with("3 checks in 0.0 s"), "{m}");
        assert!(m.contains("| v2 | 2 | 1 | 1 | 0 | 15 | dma/v2 (FAIL) |"), "{m}");
        assert!(m.contains("| v3 | 1 | 1 | 0 | 0 | 7 | — |"), "{m}");
    }
}
