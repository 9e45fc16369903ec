//! `cargo xtask fuzz-measure BIN_DIR BUILD SECONDS TARGET...` and
//! `cargo xtask fuzz-coverage FUZZER DIR...` (were `ci/fuzz-measure.sh` and
//! `ci/fuzz-coverage.sh`); `cargo xtask fuzz-report` calls both.
//!
//! Measure: each TARGET in BIN_DIR runs SECONDS on one core (one libFuzzer
//! job, `-seed=1`), seeded from `corpus/<target>` + `corpus/regressions/<target>`
//! (what `cargo fuzz run` and `cargo xtask fuzz` start from), with its
//! `fuzz/options/<target>.options`. One markdown row per target:
//! `| target | build | seconds | exec/s | cov | ft | corp | load |`:
//! libFuzzer's average exec/s, its last status line, and the 1-minute load
//! average when the run ended. BUILD is only a label (`none`, `ASan`).
//! `--keep DIR` keeps each run's new inputs in `DIR/<target>` (emptied first).
//!
//! Coverage: which workspace functions a built fuzzer covers on a corpus:
//! replays DIRs once (`-runs=0`) with `-print_coverage=1` and keeps its
//! COVERED_FUNC lines for code under isa/, oracle/ or src/. Needs a sanitizer
//! build (its symbolizer names the functions). One line per function, sorted:
//! `name<TAB>covered/edges<TAB>file` (file relative to the repository the
//! binary was built from, the folder above its `fuzz/`; a generic function's
//! instances are one line, with the most edges any covers).
//!
//! Exit: 0 measured or printed, 2 usage or run error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::step::{fail, Step};

#[derive(Args, Debug)]
pub struct Measure {
    /// The folder of built fuzzers.
    bin: PathBuf,
    /// The build's label in the rows (`none`, `ASan`).
    build: String,
    /// Seconds per target.
    secs: u64,
    /// The targets.
    #[arg(required = true)]
    targets: Vec<String>,
    /// Keep each run's new inputs in DIR/TARGET (emptied first).
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct Coverage {
    /// A built fuzzer, under a repository's `fuzz/target*/`.
    fuzzer: PathBuf,
    /// The corpus folders it replays.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
}

pub fn run_measure(a: Measure) -> Step {
    print!("{}", measure(&a.bin, &a.build, a.secs, &a.targets, a.keep.as_deref())?);
    Ok(())
}

pub fn run_coverage(a: Coverage) -> Step {
    print!("{}", coverage(&a.fuzzer, &a.dirs)?);
    Ok(())
}

const LIMITS: [&str; 3] = ["-rss_limit_mb=2048", "-malloc_limit_mb=512", "-timeout=20"];

/// stdout and stderr of a run, or its tail on stderr and a failure.
fn log_of(c: &mut Command, tail: usize) -> Step<String> {
    let out = c.output().map_err(|e| fail(2, format!("{}: {e}", crate::step::shown(c))))?;
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        let lines: Vec<&str> = log.lines().collect();
        eprintln!("{}", lines[lines.len().saturating_sub(tail)..].join("\n"));
        return Err(fail(2, format!("{} failed ({})", c.get_program().to_string_lossy(), out.status)));
    }
    Ok(log)
}

/// One row per target (each with its newline).
pub fn measure(bin: &Path, build: &str, secs: u64, targets: &[String], keep: Option<&Path>) -> Step<String> {
    let root = std::env::current_dir().map_err(|e| fail(2, e.to_string()))?;
    let scratch = crate::step::TempDir::new("measure")?;
    let mut rows = String::new();
    for t in targets {
        let fuzzer = bin.join(t);
        if !fuzzer.is_file() {
            return Err(fail(2, format!("no fuzzer {}", fuzzer.display())));
        }
        let out = match keep {
            Some(k) => {
                let o = k.join(t);
                crate::step::remove(&o)?;
                o
            }
            None => scratch.path().join(format!("new-{t}")),
        };
        crate::step::mkdir(&out)?;
        let mut seeds = vec![root.join("corpus").join(t)];
        let reg = root.join("corpus/regressions").join(t);
        if reg.is_dir() {
            seeds.push(reg);
        }
        let opts = crate::fuzz::options(&std::fs::read_to_string(root.join(format!("fuzz/options/{t}.options"))).unwrap_or_default(), &root);
        // New inputs go to a scratch folder first, so the committed seeds stay as they are.
        let log = log_of(
            Command::new(&fuzzer)
                .arg(&out)
                .args(&seeds)
                .args(&opts)
                .arg(format!("-max_total_time={secs}"))
                .args(["-seed=1", "-print_final_stats=1"])
                .args(LIMITS),
            30,
        )?;
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        rows.push_str(&row(&log, t, build, secs, load.split_whitespace().next().unwrap_or("")));
        rows.push('\n');
    }
    Ok(rows)
}

/// The number after the last `key` in a line (`sed 's/.*cov: \([0-9]*\).*/\1/'`).
fn after<'a>(line: &'a str, key: &str, digits: bool) -> &'a str {
    let Some(i) = line.rfind(key) else { return "" };
    let rest = &line[i + key.len()..];
    let end = rest.find(|c: char| if digits { !c.is_ascii_digit() } else { c == ' ' }).unwrap_or(rest.len());
    &rest[..end]
}

/// A status line: `#N<space>DONE|pulse|NEW|REDUCE|INITED`.
fn status_line(l: &str) -> bool {
    let Some(rest) = l.strip_prefix('#') else { return false };
    let n = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let tail = &rest[n..];
    n > 0 && tail.starts_with(char::is_whitespace) && ["DONE", "pulse", "NEW", "REDUCE", "INITED"].iter().any(|k| tail.trim_start().starts_with(k))
}

/// A run's row from libFuzzer's log.
pub fn row(log: &str, t: &str, build: &str, secs: u64, load: &str) -> String {
    let eps = log.lines().rev().find_map(|l| l.strip_prefix("stat::average_exec_per_sec:")).unwrap_or("").trim();
    let line = log.lines().rev().find(|l| status_line(l)).unwrap_or("");
    let (cov, ft, corp) = (after(line, "cov: ", true), after(line, " ft: ", true), after(line, " corp: ", false));
    format!("| `{t}` | {build} | {secs} s | {eps} | {cov} | {ft} | {corp} | {load} |")
}

/// The functions a fuzzer covers on DIRs, sorted lines `name<TAB>covered/edges<TAB>file`.
pub fn coverage(fuzzer: &Path, dirs: &[PathBuf]) -> Step<String> {
    if !fuzzer.is_file() {
        return Err(fail(2, format!("no fuzzer {}", fuzzer.display())));
    }
    let abs = std::fs::canonicalize(fuzzer).map_err(|e| fail(2, format!("{}: {e}", fuzzer.display())))?;
    let dir = abs.parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    let Some(root) = dir.find("/fuzz/target").map(|i| &dir[..i]) else {
        return Err(fail(2, format!("{} is not under a repository's fuzz/target*/", fuzzer.display())));
    };
    let log = log_of(Command::new(fuzzer).args(dirs).args(["-runs=0", "-print_coverage=1"]).args(LIMITS), 30)?;
    if !log.lines().any(|l| l.starts_with("COVERED_FUNC: ")) {
        return Err(fail(2, format!("{} printed no COVERED_FUNC (not a sanitizer build?)", fuzzer.display())));
    }
    Ok(functions(&log, root))
}

/// `COVERED_FUNC: hits: H edges: C/E in NAME PATH:LINE` lines (the path holds no spaces;
/// names may) of the workspace's crates, a name's instances as one.
pub fn functions(log: &str, root: &str) -> String {
    let root = format!("{root}/");
    let mut best: BTreeMap<(String, String), (f64, String, String)> = BTreeMap::new();
    for l in log.lines().filter(|l| l.starts_with("COVERED_FUNC: ")) {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 7 {
            continue;
        }
        let (covered, total) = f[4].split_once('/').unwrap_or((f[4], ""));
        let mut at = f[f.len() - 1];
        // PATH:LINE or PATH:LINE:COLUMN.
        for _ in 0..2 {
            if let Some((p, n)) = at.rsplit_once(':') {
                if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                    at = p;
                }
            }
        }
        let Some(file) = at.strip_prefix(&root) else { continue };
        if !["isa/", "oracle/", "src/"].iter().any(|p| file.starts_with(p)) {
            continue;
        }
        let words = &f[5..f.len() - 1];
        let words = if words.first() == Some(&"in") { &words[1..] } else { words };
        let mut name = words.join(" ");
        // Legacy mangling ends in ::h and a 16-digit hash.
        if let Some(i) = name.rfind("::h") {
            let h = &name[i + 3..];
            if h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
                name.truncate(i);
            }
        }
        let n = awk_num(covered);
        let key = (name, file.to_owned());
        if best.get(&key).is_none_or(|b| n > b.0) {
            best.insert(key, (n, covered.to_owned(), total.to_owned()));
        }
    }
    let mut lines: Vec<String> = best.into_iter().map(|((name, file), (_, c, t))| format!("{name}\t{c}/{t}\t{file}\n")).collect();
    lines.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    lines.concat()
}

/// A number as awk reads one (`$11 + 0`): its leading numeric part, else 0.
pub fn awk_num(s: &str) -> f64 {
    let s = s.trim_start();
    let mut end = 0;
    let mut seen_dot = false;
    for (i, c) in s.char_indices() {
        let ok = c.is_ascii_digit() || (c == '.' && !seen_dot) || (i == 0 && (c == '-' || c == '+'));
        if !ok {
            break;
        }
        seen_dot |= c == '.';
        end = i + c.len_utf8();
    }
    s[..end].parse().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_takes_the_average_and_the_last_status_line() {
        let log = "INFO: Seed: 1\n#2\tINITED cov: 10 ft: 11 corp: 3/30b exec/s: 0 rss: 30Mb\n#100\tNEW    cov: 12 ft: 14 corp: 4/40b lim: 4 exec/s: 0\n\
                   #512\tpulse  cov: 12 ft: 14 corp: 4/40b lim: 4 exec/s: 256\nDone 900 runs\nstat::number_of_executed_units: 900\nstat::average_exec_per_sec:     450\n";
        assert_eq!(row(log, "text", "none", 5, "1.25"), "| `text` | none | 5 s | 450 | 12 | 14 | 4/40b | 1.25 |");
        assert_eq!(row("", "text", "ASan", 5, ""), "| `text` | ASan | 5 s |  |  |  |  |  |");
        assert!(!status_line("#x NEW"));
        assert!(!status_line("#12NEW"));
        assert!(status_line("#12 DONE cov: 1"));
    }

    #[test]
    fn covered_functions_of_the_workspace_once_each_with_their_best() {
        let log = "COVERED_FUNC: hits: 3 edges: 2/5 in tpb_isa::decode::h0123456789abcdef /r/isa/src/decode.rs:10\n\
                   COVERED_FUNC: hits: 3 edges: 4/5 in tpb_isa::decode::h00000000000000ff /r/isa/src/decode.rs:10:3\n\
                   COVERED_FUNC: hits: 1 edges: 1/2 in <Vec<u8> as Foo>::bar /r/src/main.rs:3\n\
                   COVERED_FUNC: hits: 1 edges: 1/1 in fuzz_shim /r/fuzz/fuzz_targets/x.rs:1\n\
                   COVERED_FUNC: hits: 1 edges: 1/1 in dep::f /home/.cargo/registry/x.rs:1\n\
                   COVERED_FUNC: hits: 1 edges: 1/1 in tpb_isa::h::habc /r/isa/src/h.rs:1\n";
        assert_eq!(
            functions(log, "/r"),
            "<Vec<u8> as Foo>::bar\t1/2\tsrc/main.rs\ntpb_isa::decode\t4/5\tisa/src/decode.rs\ntpb_isa::h::habc\t1/1\tisa/src/h.rs\n"
        );
    }

    #[test]
    fn the_arguments_parse() {
        use clap::Parser;
        #[derive(Parser)]
        struct M {
            #[command(flatten)]
            m: Measure,
        }
        let m = M::try_parse_from(["m", "bin", "ASan", "5", "text", "--keep", "k"]).unwrap_or_else(|e| panic!("{e}")).m;
        assert_eq!((m.secs, m.targets.len(), m.keep.as_deref()), (5, 1, Some(Path::new("k"))));
        assert!(M::try_parse_from(["m", "bin", "ASan", "5"]).is_err());
        assert!(M::try_parse_from(["m", "bin", "ASan", "x", "t"]).is_err());
    }
}
