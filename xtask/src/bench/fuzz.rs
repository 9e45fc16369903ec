//! Fuzzing throughput: `fuzz/bench.sh` runs the `roundtrip` and `empty`
//! cargo-fuzz targets back to back; this reads its figures.

use super::report::{Row, Target};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// roundtrip must keep at least half of libFuzzer's empty-target exec/s.
pub const TARGET: Target = Target::AtLeast(0.5);
const NAME: &str = "fuzz roundtrip vs empty target";

/// The script, from the source tree this binary was built from.
fn script() -> PathBuf {
    crate::root().join("fuzz/bench.sh")
}

/// Whether `cargo fuzz` can run: cargo-fuzz on PATH or in cargo's own bin folder.
pub fn cargo_fuzz_installed() -> bool {
    super::external::which("cargo-fuzz").is_some() || home_bin("cargo-fuzz")
}

/// The fuzz row: measured by the script when `cargo_fuzz` is installed, else skipped saying why.
pub fn run(secs: u64, cargo_fuzz: bool, notes: &mut Vec<String>) -> Vec<Row> {
    let skip = |why: String| vec![Row::skipped("fuzz", NAME, Some(TARGET), why)];
    let script = script();
    if let Some(why) = unavailable(&script, cargo_fuzz) {
        return skip(why);
    }
    // The script builds both targets first, minutes on a cold cache: said before, and cargo's progress shown on a terminal.
    eprintln!("cargo xtask bench: building fuzz targets (cargo fuzz build), first time takes ~4 min; --no-fuzz skips");
    measure(&script, secs, std::io::stderr().is_terminal(), notes)
}

/// Runs `script` and reads its figures. `show`: its stderr (cargo's build
/// progress) goes to ours as it runs; else it is kept, to quote its last line on failure.
fn measure(script: &Path, secs: u64, show: bool, notes: &mut Vec<String>) -> Vec<Row> {
    let skip = |why: String| vec![Row::skipped("fuzz", NAME, Some(TARGET), why)];
    let stderr = if show { Stdio::inherit() } else { Stdio::piped() };
    let out = Command::new("bash").arg(script).arg(secs.to_string()).stdin(Stdio::null()).stderr(stderr).output();
    let out = match out {
        Ok(o) => o,
        Err(e) => return skip(format!("cannot run {}: {e}", script.display())),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    match (out.status.success(), parse(&text)) {
        (true, Some((rt, empty))) => {
            notes.push(format!(
                "fuzz: `fuzz/bench.sh {secs}` (two {secs} s runs per target, each from the same 1 KiB seed, best of each; -s none, cargo-fuzz's default release build with debug assertions)"
            ));
            vec![Row::measured(
                "fuzz",
                NAME,
                format!("{rt:.0} exec/s"),
                format!("empty {empty:.0} exec/s"),
                "exec/s / empty exec/s",
                rt / empty.max(f64::MIN_POSITIVE),
                Some(TARGET),
            )]
        }
        _ => {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or(if show { "its output is above" } else { "no output" });
            skip(format!("fuzz/bench.sh failed ({}): {last}", out.status))
        }
    }
}

/// Why the figures cannot be measured here, if they cannot.
fn unavailable(script: &Path, cargo_fuzz: bool) -> Option<String> {
    if !script.is_file() {
        Some(format!("{} is not there (run from the source tree)", script.display()))
    } else if !cargo_fuzz {
        Some("cargo-fuzz is not installed (cargo install cargo-fuzz)".into())
    } else {
        None
    }
}

/// `tool` in cargo's own bin folder, which may not be on PATH.
fn home_bin(tool: &str) -> bool {
    std::env::var_os("HOME").is_some_and(|h| PathBuf::from(h).join(".cargo/bin").join(tool).is_file())
}

/// `roundtrip exec/s: N` and `empty exec/s: N` from the script's output.
fn parse(text: &str) -> Option<(f64, f64)> {
    let field = |key: &str| text.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.trim().parse::<f64>().ok());
    Some((field("roundtrip exec/s:")?, field("empty exec/s:")?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_script_is_in_the_tree_and_the_reasons_to_skip_are_said() {
        let s = super::script();
        assert!(s.is_file() && s.ends_with("fuzz/bench.sh"), "{}", s.display());
        assert_eq!(super::unavailable(&s, true), None);
        assert_eq!(super::unavailable(&s, false).as_deref(), Some("cargo-fuzz is not installed (cargo install cargo-fuzz)"));
        let gone = std::path::Path::new("/nonexistent/bench.sh");
        assert_eq!(super::unavailable(gone, true).as_deref(), Some("/nonexistent/bench.sh is not there (run from the source tree)"));
        assert!(!super::home_bin("tpb-no-such-tool-anywhere"));
        // Without cargo-fuzz the row says so, and nothing is built or run.
        let mut notes = Vec::new();
        let rows = super::run(1, false, &mut notes);
        assert_eq!(rows.len(), 1);
        assert!(matches!(&rows[0].verdict, Verdict::Skipped(w) if w.starts_with("cargo-fuzz is not installed")), "{:?}", rows[0]);
        assert_eq!((rows[0].name.as_str(), rows[0].target, notes.len()), (super::NAME, Some(super::TARGET), 0));
        let installed = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cargo/bin/cargo"));
        assert_eq!(super::home_bin("cargo"), installed.is_some_and(|p| p.is_file()));
    }

    #[test]
    fn parses_the_script_output() {
        let out = "roundtrip exec/s: 120000\nempty exec/s: 200000\nratio: 0.600 (target >= 0.5)\n";
        assert_eq!(super::parse(out), Some((120000.0, 200000.0)));
        assert_eq!(super::parse("roundtrip exec/s: 5\n"), None);
    }

    use crate::bench::report::Verdict;

    /// A stand-in for fuzz/bench.sh: `body` as a bash script in a new folder.
    fn script(body: &str) -> Result<(tempfile::TempDir, std::path::PathBuf), std::io::Error> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("bench.sh");
        std::fs::write(&p, body)?;
        Ok((dir, p))
    }

    #[test]
    fn the_figures_are_read_and_a_failure_quotes_the_build_output_when_kept() -> Result<(), Box<dyn std::error::Error>> {
        let (_d, ok) = script("echo '   Compiling tpb' >&2\necho 'roundtrip exec/s: 30'\necho 'empty exec/s: 60'\n")?;
        let mut notes = Vec::new();
        let rows = super::measure(&ok, 1, false, &mut notes);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].ratio, Some(0.5));
        assert_eq!(notes.len(), 1);
        let (_d, bad) = script("echo 'error: could not compile' >&2\necho '  ' >&2\nexit 2\n")?;
        let rows = super::measure(&bad, 1, false, &mut notes);
        assert!(matches!(&rows[0].verdict, Verdict::Skipped(w) if w.contains("error: could not compile")), "{:?}", rows[0].verdict);
        // Shown as it ran, the output is not kept: the row points at it.
        let rows = super::measure(&bad, 1, true, &mut notes);
        assert!(matches!(&rows[0].verdict, Verdict::Skipped(w) if w.contains("its output is above")), "{:?}", rows[0].verdict);
        Ok(())
    }
}
