//! The run's result as data: sections of checks, each passed, failed (a
//! harness failure) or skipped (with the reason), plus the spec disagreements
//! a check observed, which never fail a run.

use serde::Serialize;
use std::time::Duration;

/// What to write into the report folder: (relative path, bytes).
pub type Artifacts = Vec<(String, Vec<u8>)>;

/// The stem of input `i`'s files in the report folder: its index, then `name`
/// (`fallback` when the path has none) with every character but ASCII
/// letters, digits, `-`, `_` and `.` made `_` (an input's name is never a path there).
pub fn artifact_stem(i: usize, name: Option<&std::ffi::OsStr>, fallback: &str) -> String {
    let s = name.map_or_else(|| fallback.to_string(), |s| s.to_string_lossy().into_owned());
    let clean: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    format!("{i:02}-{clean}")
}

/// Outcome of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

impl Status {
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        }
    }
}

/// One check: a testcase in JUnit terms.
#[derive(Clone, Debug, Serialize)]
pub struct Case {
    pub name: String,
    pub status: Status,
    #[serde(serialize_with = "secs")]
    pub time: Duration,
    /// Inputs or items checked (iterations, files, bundles).
    pub checked: u64,
    /// Why it failed or was skipped; what it covered when it passed.
    pub detail: String,
    /// Spec disagreements observed (vendor output the spec does not describe).
    pub disagreements: u64,
    /// A few of them, for people; the full list lives in the linked file.
    pub disagreement_samples: Vec<String>,
    /// A file in the report folder with the full details, if any.
    pub artifact: Option<String>,
}

impl Case {
    pub fn new(name: impl Into<String>, status: Status, detail: impl Into<String>) -> Case {
        Case {
            name: name.into(),
            status,
            time: Duration::ZERO,
            checked: 0,
            detail: detail.into(),
            disagreements: 0,
            disagreement_samples: Vec::new(),
            artifact: None,
        }
    }

    pub fn pass(name: impl Into<String>, detail: impl Into<String>) -> Case {
        Case::new(name, Status::Pass, detail)
    }

    pub fn fail(name: impl Into<String>, detail: impl Into<String>) -> Case {
        Case::new(name, Status::Fail, detail)
    }

    pub fn skip(name: impl Into<String>, reason: impl Into<String>) -> Case {
        Case::new(name, Status::Skip, reason)
    }

    /// Pass when `failures` is empty, else fail listing them.
    pub fn from_failures(name: impl Into<String>, ok_detail: impl Into<String>, failures: &[String]) -> Case {
        if failures.is_empty() {
            Case::pass(name, ok_detail)
        } else {
            Case::fail(name, failures.join("\n"))
        }
    }

    pub fn with_time(mut self, t: Duration) -> Case {
        self.time = t;
        self
    }

    pub fn with_checked(mut self, n: u64) -> Case {
        self.checked = n;
        self
    }
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1000.0).round() / 1000.0)
}

fn secs_opt<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => secs(d, s),
        None => s.serialize_none(),
    }
}

/// A group of checks: a testsuite in JUnit terms.
#[derive(Clone, Debug, Serialize)]
pub struct Section {
    /// Short id (`campaign`), used as the JUnit suite name.
    pub id: &'static str,
    pub title: &'static str,
    pub cases: Vec<Case>,
    /// Wall time of the whole section (cases may run in parallel).
    #[serde(serialize_with = "secs_opt")]
    pub wall: Option<Duration>,
    /// A section of its own in summary.md after this one: (title, Markdown).
    #[serde(skip)]
    pub appendix: Option<(&'static str, String)>,
    /// Structured data behind the appendix, for summary.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// Data only report.html draws (the NEFF section's evidence, per
    /// generation × opcode): too large for summary.json, which keeps its shape.
    #[serde(skip)]
    pub page: Option<serde_json::Value>,
}

impl Section {
    pub fn new(id: &'static str, title: &'static str) -> Section {
        Section { id, title, cases: Vec::new(), wall: None, appendix: None, data: None, page: None }
    }

    pub fn count(&self, s: Status) -> usize {
        self.cases.iter().filter(|c| c.status == s).count()
    }

    pub fn disagreements(&self) -> u64 {
        self.cases.iter().map(|c| c.disagreements).sum()
    }

    /// Wall time when measured, else the sum of the cases' times.
    pub fn time(&self) -> Duration {
        self.wall.unwrap_or_else(|| self.cases.iter().map(|c| c.time).sum())
    }
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `YYYY-MM-DD` (UTC), the report folder's name.
    pub date: String,
    /// RFC 3339 UTC start time.
    pub started: String,
    pub tpb_version: &'static str,
    /// Campaign seed, to reproduce with `--seed`.
    pub seed: u64,
    pub time_budget_secs: u64,
    /// The command line's inputs.
    pub libs: Vec<String>,
    /// Every program judged (folders walked).
    pub neffs: Vec<String>,
    /// The `--neff` arguments as given (empty: the default programs).
    pub neff_args: Vec<String>,
    pub sections: Vec<Section>,
    #[serde(serialize_with = "secs")]
    pub elapsed: Duration,
}

impl Report {
    pub fn total(&self, s: Status) -> usize {
        self.sections.iter().map(|x| x.count(s)).sum()
    }

    pub fn disagreements(&self) -> u64 {
        self.sections.iter().map(Section::disagreements).sum()
    }

    /// Exit status: no harness check failed.
    pub fn passed(&self) -> bool {
        self.total(Status::Fail) == 0
    }

    pub fn cases(&self) -> usize {
        self.sections.iter().map(|s| s.cases.len()).sum()
    }
}

#[cfg(test)]
impl Report {
    /// A report of `sections` and nothing else (no inputs, seed 0), for tests.
    pub(crate) fn of(sections: Vec<Section>, started: &str, elapsed: Duration) -> Report {
        Report {
            date: String::new(),
            started: started.into(),
            tpb_version: "",
            seed: 0,
            time_budget_secs: 0,
            libs: vec![],
            neffs: vec![],
            neff_args: vec![],
            sections,
            elapsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{artifact_stem, Case, Duration, Report, Section, Status};
    use std::path::Path;

    #[test]
    fn an_artifact_stem_is_the_index_and_the_name_in_safe_characters() {
        let name = |p: &'static str| Path::new(p).file_name();
        assert_eq!(artifact_stem(3, name("/a/b/my prog.v1.neff"), "neff"), "03-my_prog.v1.neff");
        assert_eq!(artifact_stem(12, name("x-y_Z9"), "neff"), "12-x-y_Z9");
        assert_eq!(artifact_stem(0, name("../é;rm"), "lib"), "00-__rm");
        assert_eq!(artifact_stem(7, name("/"), "lib"), "07-lib");
    }

    #[test]
    fn a_section_takes_its_wall_time_when_measured_else_its_cases_sum_and_a_report_counts_every_case() {
        let ms = Duration::from_millis;
        let mut s = Section::new("a", "A");
        s.cases = vec![Case::pass("x", "").with_time(ms(30)), Case::fail("y", "why").with_time(ms(12)), Case::skip("z", "no cc")];
        assert_eq!(s.time(), ms(42));
        s.wall = Some(ms(31));
        assert_eq!(s.time(), ms(31));
        let mut t = Section::new("b", "B");
        t.cases = vec![Case::pass("w", "")];
        let r = Report::of(vec![s, t], "", Duration::ZERO);
        assert_eq!((r.cases(), r.total(Status::Pass), r.total(Status::Fail), r.total(Status::Skip), r.passed()), (4, 2, 1, 1, false));
    }

    #[test]
    fn times_are_seconds_to_the_millisecond_in_json() -> Result<(), serde_json::Error> {
        let mut c = Case::pass("c", "d");
        c.time = Duration::from_micros(1_234_567);
        let v = serde_json::to_value(&c)?;
        assert_eq!(v["time"], serde_json::json!(1.235));
        Ok(())
    }
}
