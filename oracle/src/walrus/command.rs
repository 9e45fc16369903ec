//! The `tpb check` / `tpb diff` / `tpb facts` commands as functions from
//! arguments to output and exit code, so the CLI stays a thin shell and the
//! exit codes are tested here.

use super::diff::{diff, BIT_ERROR};
use super::error::Result;
use super::facts::{fact_list, fact_list_text};
use super::input::Input;
use super::profile::Profiles;
use super::render::{diff_text, report_text};
use super::report::{Report, EXIT_ERROR};
use std::path::Path;

/// What a command prints and its exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// What goes to standard output (the report, text or JSON).
    pub stdout: String,
    /// What goes to standard error (`tpb: error: …`, or nothing).
    pub stderr: String,
    /// The process exit code.
    pub code: u8,
}

impl Outcome {
    fn ok(stdout: String, code: u8) -> Outcome {
        Outcome { stdout, stderr: String::new(), code }
    }
    fn error(e: impl std::fmt::Display, code: u8) -> Outcome {
        Outcome { stdout: String::new(), stderr: format!("tpb: error: {e}\n"), code }
    }
}

/// A report that could not be written as JSON (a map with keys that are
/// not strings, say): a bug here, reported as an error rather than a panic.
#[derive(Debug, thiserror::Error)]
#[error("cannot encode JSON: {0}")]
struct EncodeError(#[source] serde_json::Error);

fn json<T: serde::Serialize>(v: &T) -> std::result::Result<String, EncodeError> {
    serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(EncodeError)
}

/// Loads and checks one library or wheel.
pub fn check_path(path: &Path, max_bytes: u64, profiles: &Profiles) -> Result<Report> {
    let input = Input::open(path, max_bytes)?;
    super::check::check_input(&input, profiles)
}

/// `tpb check PATH [--json]`: 0 every fact holds, 4 a fact differs, 1 error.
pub fn check_command(path: &Path, as_json: bool, max_bytes: u64) -> Outcome {
    let report = match Profiles::embedded().and_then(|p| check_path(path, max_bytes, &p)) {
        Ok(r) => r,
        Err(e) => return Outcome::error(e, EXIT_ERROR),
    };
    let out = if as_json { json(&report) } else { Ok(report_text(&report)) };
    match out {
        Ok(s) => Outcome::ok(s, report.exit),
        Err(e) => Outcome::error(e, EXIT_ERROR),
    }
}

/// `tpb diff OLD NEW [--json]`: bits 1 error, 4 OLD and NEW differ, 8 NEW fails.
pub fn diff_command(old: &Path, new: &Path, as_json: bool, max_bytes: u64) -> Outcome {
    let loaded = Profiles::embedded().and_then(|p| Ok((check_path(old, max_bytes, &p)?, check_path(new, max_bytes, &p)?)));
    let (o, n) = match loaded {
        Ok(x) => x,
        Err(e) => return Outcome::error(e, BIT_ERROR),
    };
    let d = diff(o, n);
    let out = if as_json { json(&d) } else { Ok(diff_text(&d)) };
    match out {
        Ok(s) => Outcome::ok(s, d.exit),
        Err(e) => Outcome::error(e, BIT_ERROR),
    }
}

/// `tpb facts [--json]`: the expected facts with provenance; 0, or 1 on error.
pub fn facts_command(as_json: bool) -> Outcome {
    let profiles = match Profiles::embedded() {
        Ok(p) => p,
        Err(e) => return Outcome::error(e, EXIT_ERROR),
    };
    let f = fact_list(&profiles);
    let out = if as_json { json(&f) } else { Ok(fact_list_text(&f)) };
    match out {
        Ok(s) => Outcome::ok(s, 0),
        Err(e) => Outcome::error(e, EXIT_ERROR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_json_cannot_hold_is_an_error_that_says_so() {
        let keys_not_strings = std::collections::BTreeMap::from([((1u8, 2u8), 3u8)]);
        let e = json(&keys_not_strings).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("cannot encode JSON: key must be a string"));
    }
}
