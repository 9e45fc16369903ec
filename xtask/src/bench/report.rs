//! The benchmark report: one row per measured path, each a ratio against a
//! baseline measured in the same run, judged against the issue's target.
//! Absolute figures are printed for context only; the ratios are what hold
//! across machines and load.

use super::machine::Machine;
use std::fmt::Write as _;
use tpb_oracle::text_safe::md_cell;

/// Which way a ratio must lie.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The ratio must be at least this (a speed ratio: higher is better).
    AtLeast(f64),
    /// The ratio must be at most this (a time ratio: lower is better).
    AtMost(f64),
}

impl Target {
    pub fn met(self, ratio: f64) -> bool {
        match self {
            Target::AtLeast(t) => ratio >= t,
            Target::AtMost(t) => ratio <= t,
        }
    }

    fn text(self) -> String {
        match self {
            Target::AtLeast(t) => format!("≥ {t}×"),
            Target::AtMost(t) => format!("≤ {t}×"),
        }
    }
}

/// A row's verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    Miss,
    /// Measured, no target set (context only).
    Info,
    /// Not measured, with the reason.
    Skipped(String),
}

/// One measured path.
#[derive(Clone, Debug)]
pub struct Row {
    /// Section: `codec`, `fuzz`, `check`, `neff`.
    pub area: &'static str,
    pub name: String,
    /// The path's own figure (e.g. `4.1 GiB/s`, `120 ms`).
    pub measured: String,
    /// The baseline and its figure (e.g. `memcpy 8.0 GiB/s`).
    pub baseline: String,
    /// How `ratio` is formed (e.g. `bandwidth / memcpy bandwidth`).
    pub ratio_of: &'static str,
    pub ratio: Option<f64>,
    pub target: Option<Target>,
    pub verdict: Verdict,
}

impl Row {
    /// A measured row; the verdict follows from the ratio and target.
    pub fn measured(
        area: &'static str,
        name: impl Into<String>,
        measured: String,
        baseline: String,
        ratio_of: &'static str,
        ratio: f64,
        target: Option<Target>,
    ) -> Row {
        let verdict = match target {
            None => Verdict::Info,
            Some(t) if t.met(ratio) => Verdict::Pass,
            Some(_) => Verdict::Miss,
        };
        Row { area, name: name.into(), measured, baseline, ratio_of, ratio: Some(ratio), target, verdict }
    }

    /// A row that could not be measured here.
    pub fn skipped(area: &'static str, name: impl Into<String>, target: Option<Target>, reason: impl Into<String>) -> Row {
        Row {
            area,
            name: name.into(),
            measured: "—".into(),
            baseline: "—".into(),
            ratio_of: "",
            ratio: None,
            target,
            verdict: Verdict::Skipped(reason.into()),
        }
    }

    fn verdict_text(&self) -> String {
        match &self.verdict {
            Verdict::Pass => "PASS".into(),
            Verdict::Miss => "MISS".into(),
            Verdict::Info => "info".into(),
            Verdict::Skipped(why) => format!("skipped: {why}"),
        }
    }
}

/// Everything one `cargo xtask bench` run measured.
pub struct Report {
    pub machine: Machine,
    /// The options the run used, as a command line.
    pub invocation: String,
    pub rows: Vec<Row>,
    /// Free-form notes (fixture sizes, what a baseline ran on).
    pub notes: Vec<String>,
}

impl Report {
    pub fn missed(&self) -> usize {
        self.rows.iter().filter(|r| r.verdict == Verdict::Miss).count()
    }

    /// The terminal table.
    pub fn to_text(&self) -> String {
        let cells: Vec<[String; 7]> = self
            .rows
            .iter()
            .map(|r| {
                let ratio = r.ratio.map_or("—".into(), |x| format!("{x:.3}×"));
                let target = r.target.map_or("—".into(), Target::text);
                [r.area.to_string(), r.name.clone(), r.measured.clone(), r.baseline.clone(), ratio, target, r.verdict_text()]
            })
            .collect();
        // Each column as wide as its widest cell (labels vary in length), counted in characters.
        let width = |i: usize| cells.iter().map(|c| c[i].chars().count()).max().unwrap_or(0);
        let w: Vec<usize> = (0..7).map(width).collect();
        let pad = |t: &str, n: usize| format!("{t}{}", " ".repeat(n.saturating_sub(t.chars().count())));
        let lpad = |t: &str, n: usize| format!("{}{t}", " ".repeat(n.saturating_sub(t.chars().count())));
        let mut s = String::new();
        for c in &cells {
            let line = format!(
                "{} {}  {}  vs {}  ratio {}  target {}  {}",
                pad(&c[0], w[0]),
                pad(&c[1], w[1]),
                lpad(&c[2], w[2]),
                pad(&c[3], w[3]),
                lpad(&c[4], w[4]),
                pad(&c[5], w[5]),
                c[6]
            );
            let _ = writeln!(s, "{}", line.trim_end());
        }
        s
    }

    /// `reports/bench.md`.
    pub fn to_markdown(&self) -> String {
        let m = &self.machine;
        let mut s = String::new();
        s.push_str("# Benchmarks: each path against its physical limit\n\n");
        s.push_str(
            "Generated by `cargo xtask bench`; do not edit by hand. Every ratio compares a path with a baseline \
             measured in the same run (the codec kernels alternate with `memcpy` in one process; the \
             external tools run just before or after `tpb`), keeping the best of several rounds on each \
             side. The ratios are the result; the absolute figures only say how busy this machine was.\n\n",
        );
        let _ = writeln!(s, "- date (UTC): {}", m.date);
        let _ = writeln!(s, "- machine: {} × {} ({} cores seen by this process), {} memory", m.logical_cpus, m.cpu_model, m.parallelism, m.memory);
        let _ = writeln!(s, "- kernel: {}", m.kernel);
        let _ = writeln!(s, "- load average before the run: {}", m.loadavg);
        let _ = writeln!(s, "- rustc: {}", m.rustc);
        let _ = writeln!(s, "- commit: {}", m.commit);
        let _ = writeln!(s, "- run: `{}`", self.invocation);
        s.push('\n');
        let missed = self.missed();
        let judged = self.rows.iter().filter(|r| matches!(r.verdict, Verdict::Pass | Verdict::Miss)).count();
        let _ = writeln!(s, "**{} of {judged} targets met**{}.\n", judged - missed, if missed > 0 { " (see MISS rows)" } else { "" });
        s.push_str("| area | path | measured | baseline | ratio | ratio is | target | verdict |\n");
        s.push_str("|---|---|---:|---|---:|---|---|---|\n");
        for r in &self.rows {
            let ratio = r.ratio.map_or("—".into(), |x| format!("{x:.3}×"));
            let target = r.target.map_or("—".into(), Target::text);
            let cells =
                [r.area.to_string(), r.name.clone(), r.measured.clone(), r.baseline.clone(), ratio, r.ratio_of.to_string(), target, r.verdict_text()];
            let cells: Vec<String> = cells.iter().map(|c| md_cell(c)).collect();
            let _ = writeln!(s, "| {} |", cells.join(" | "));
        }
        if !self.notes.is_empty() {
            s.push_str("\n## Notes\n\n");
            for n in &self.notes {
                let _ = writeln!(s, "- {n}");
            }
        }
        s.push_str(&profiling_section());
        s
    }
}

/// Where the hand-written profiling notes live (relative to the workspace):
/// what was profiled, what was fixed, and why a miss remains.
pub const PROFILING_NOTES: &str = "reports/profiling.md";

/// The report's closing section: a pointer to the profiling notes, which
/// change only when someone profiles, unlike the table.
fn profiling_section() -> String {
    format!(
        "\n## Profiling\n\nHow the hot paths were profiled, what was fixed, and why a missed target \
         remains: `{PROFILING_NOTES}` (written by hand; this report is regenerated on every run).\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> Machine {
        Machine {
            date: "2026-01-02 03:04".into(),
            cpu_model: "cpu".into(),
            logical_cpus: 2,
            parallelism: 2,
            memory: "1 GiB".into(),
            kernel: "k".into(),
            loadavg: "0".into(),
            rustc: "r".into(),
            commit: "c".into(),
        }
    }

    #[test]
    fn verdicts_follow_target_direction() {
        let at_least = Row::measured("codec", "x", "a".into(), "b".into(), "r", 0.4, Some(Target::AtLeast(0.5)));
        assert_eq!(at_least.verdict, Verdict::Miss);
        let at_most = Row::measured("check", "y", "a".into(), "b".into(), "r", 0.4, Some(Target::AtMost(0.5)));
        assert_eq!(at_most.verdict, Verdict::Pass);
        let info = Row::measured("codec", "z", "a".into(), "b".into(), "r", 9.0, None);
        assert_eq!(info.verdict, Verdict::Info);
    }

    #[test]
    fn markdown_counts_targets_and_shows_skips() {
        let rows = vec![
            Row::measured("codec", "decode+validate", "1".into(), "memcpy 2".into(), "bw", 0.6, Some(Target::AtLeast(0.5))),
            Row::measured("neff", "ingest", "1".into(), "gzip".into(), "t", 1.5, Some(Target::AtMost(1.2))),
            Row::skipped("fuzz", "roundtrip", Some(Target::AtLeast(0.5)), "cargo-fuzz not installed"),
        ];
        let r = Report { machine: machine(), invocation: "cargo xtask bench".into(), rows, notes: vec!["n1".into()] };
        let md = r.to_markdown();
        assert!(md.contains("**1 of 2 targets met** (see MISS rows)"), "{md}");
        assert!(md.contains("| codec | decode+validate | 1 | memcpy 2 | 0.600× | bw | ≥ 0.5× | PASS |"), "{md}");
        assert!(md.contains("| neff | ingest | 1 | gzip | 1.500× | t | ≤ 1.2× | MISS |"), "{md}");
        assert!(md.contains("skipped: cargo-fuzz not installed"), "{md}");
        assert!(md.contains("- n1"));
        assert!(
            md.contains(&format!(
                "## Profiling\n\nHow the hot paths were profiled, what was fixed, and why a missed target remains: `{PROFILING_NOTES}`"
            )),
            "{md}"
        );
        assert_eq!(super::md_cell("gzip -dc | tar t"), "gzip -dc \\| tar t");
        assert_eq!(r.missed(), 1);
    }

    /// Columns line up whatever the labels' lengths in characters; targets,
    /// ratios and verdicts read as the markdown's do.
    #[test]
    fn the_terminal_table_lines_up_and_says_each_verdict() {
        let rows = vec![
            Row::measured("codec", "décodé", "1.00 GiB/s".into(), "memcpy 2".into(), "bw", 0.5, Some(Target::AtLeast(0.5))),
            Row::measured("neff", "a much longer path name", "9 ms".into(), "gzip 3 ms".into(), "t", 3.0, Some(Target::AtMost(1.5))),
            Row::measured("check", "rss", "1 MiB".into(), "file".into(), "r", 0.25, None),
            Row::skipped("fuzz", "roundtrip", None, "why | not"),
        ];
        let r = Report { machine: machine(), invocation: "cargo xtask bench".into(), rows, notes: vec![] };
        let text = r.to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        let col = |l: &str, at: &str| l.find(at).map(|b| l[..b].chars().count());
        let ratio: Vec<Option<usize>> = lines.iter().map(|l| col(l, " ratio ")).collect();
        assert!(ratio.iter().all(|c| c.is_some() && *c == ratio[0]), "{text}");
        let vs: Vec<Option<usize>> = lines.iter().map(|l| col(l, "  vs ")).collect();
        assert!(vs.iter().all(|c| *c == vs[0]), "{text}");
        assert!(lines[0].starts_with("codec décodé                   1.00 GiB/s  vs memcpy 2   ratio 0.500×  target ≥ 0.5×  PASS"), "{text}");
        assert!(lines[1].ends_with("ratio 3.000×  target ≤ 1.5×  MISS"), "{text}");
        assert!(lines[2].ends_with("ratio 0.250×  target —       info"), "{text}");
        assert!(lines[3].ends_with("ratio      —  target —       skipped: why | not"), "{text}");
        assert_eq!(r.missed(), 1);
        // The markdown: no MISS pointer when every target is met, no notes heading without notes.
        let met = Report { rows: r.rows[..1].to_vec(), ..r };
        let md = met.to_markdown();
        assert!(md.contains("**1 of 1 targets met**.\n"), "{md}");
        assert!(!md.contains("## Notes"), "{md}");
        assert_eq!(met.missed(), 0);
        for line in [
            "- date (UTC): 2026-01-02 03:04",
            "- machine: 2 × cpu (2 cores seen by this process), 1 GiB memory",
            "- kernel: k",
            "- load average before the run: 0",
            "- rustc: r",
            "- commit: c",
            "- run: `cargo xtask bench`",
        ] {
            assert!(md.contains(&format!("{line}\n")), "{line}: {md}");
        }
    }

    #[test]
    fn profiling_notes_exist_where_the_report_points() {
        let notes = crate::root().join(PROFILING_NOTES);
        let text = std::fs::read_to_string(&notes).unwrap_or_default();
        assert!(text.starts_with("# Profiling notes"), "{} is missing or has no title", notes.display());
    }
}
