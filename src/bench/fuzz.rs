//! Fuzzing throughput: `fuzz/bench.sh` runs the `roundtrip` and `empty`
//! cargo-fuzz targets back to back; this reads its figures.

use super::report::{Row, Target};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// roundtrip must keep at least half of libFuzzer's empty-target exec/s.
pub const TARGET: Target = Target::AtLeast(0.5);
const NAME: &str = "fuzz roundtrip vs empty target";

/// The script, from the source tree this binary was built from.
fn script() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/bench.sh"))
}

pub fn run(secs: u64, notes: &mut Vec<String>) -> Vec<Row> {
    let skip = |why: String| vec![Row::skipped("fuzz", NAME, Some(TARGET), why)];
    let script = script();
    if !script.is_file() {
        return skip(format!("{} is not there (run from the source tree)", script.display()));
    }
    if super::external::which("cargo-fuzz").is_none() && !home_bin("cargo-fuzz") {
        return skip("cargo-fuzz is not installed (cargo install cargo-fuzz)".into());
    }
    let out = Command::new("bash").arg(&script).arg(secs.to_string()).stdin(Stdio::null()).stderr(Stdio::piped()).output();
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
            let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output");
            skip(format!("fuzz/bench.sh failed ({}): {last}", out.status))
        }
    }
}

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
    fn parses_the_script_output() {
        let out = "roundtrip exec/s: 120000\nempty exec/s: 200000\nratio: 0.600 (target >= 0.5)\n";
        assert_eq!(super::parse(out), Some((120000.0, 200000.0)));
        assert_eq!(super::parse("roundtrip exec/s: 5\n"), None);
    }
}
