//! `cargo xtask mutants`: mutation testing (docs/mutation-testing.md),
//! cargo-mutants with the repository's .cargo/mutants.toml. It installs the
//! pinned cargo-mutants and cargo-nextest when missing, leaves out the
//! validator kernels this CPU cannot run (their every mutant would read
//! "missed"), builds a copied tree in target/mutants (kept between runs; never
//! target/, where `cargo test` would take a mutant's build for fresh; with
//! `--jobs N` each job's copy has its own), then becomes `cargo mutants ARGS...`.
//!
//!   cargo xtask mutants [CARGO_MUTANTS_ARGS...]     e.g. --workspace --shard 0/40
//!   cargo xtask mutants summary [--shards N] DIR... one page of markdown from the
//!                                                   mutants.out folders under DIRs
//!
//! Exit: cargo-mutants' own (0 all caught, 2 missed, 3 timeouts, 4 baseline
//! failed; it replaces this process, so a `timeout` around the command
//! signals cargo-mutants itself), 127 when the tools cannot be installed, 1
//! on any other error. summary: 2 when a counted mutant was missed, 1 when
//! there are no outcomes, else 0.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use clap::Parser;
use serde_json::Value;

/// The cargo-mutants release the configuration and the docs are written for.
const VERSION: &str = "27.1.0";
/// The AVX-512 kernel: left out where the CPU lacks its instructions, and counted apart.
const KERNEL: &str = "isa/src/validate/fast/lanes/avx512.rs";
const KERNELS: &str = "validate/fast/lanes/avx";
const APART: &str = "kernels (apart)";

#[derive(Parser, Debug)]
#[command(name = "cargo xtask mutants summary")]
struct Summary {
    /// How many shards make the whole set.
    #[arg(long, default_value_t = 0)]
    shards: u64,
    /// Folders holding cargo-mutants' mutants.out folders.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
}

pub fn run(args: Vec<OsString>) -> ExitCode {
    if args.first().is_some_and(|a| a == "summary") {
        let s = match Summary::try_parse_from(&args) {
            Ok(s) => s,
            Err(e) => {
                let _ = e.print();
                return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
            }
        };
        return summary_command(&s);
    }
    mutate(args)
}

fn mutate(args: Vec<OsString>) -> ExitCode {
    let root = match std::env::current_dir() {
        Ok(r) => r,
        Err(e) => return fail(&format!("no working folder: {e}")),
    };
    let has_mutants = output(Command::new("cargo").args(["mutants", "--version"])).is_some_and(|v| v.contains(VERSION));
    if !has_mutants && !succeeds(Command::new("cargo").args(["install", "cargo-mutants", "--locked", "--version", VERSION])) {
        return ExitCode::from(127);
    }
    // Each mutant's tests run under nextest's `mutants` profile (.config/nextest.toml).
    if output(Command::new("cargo").args(["nextest", "--version"])).is_none()
        && !succeeds(Command::new("cargo").args(["install", "cargo-nextest", "--locked"]))
    {
        return ExitCode::from(127);
    }
    let mut cmd = Command::new("cargo");
    cmd.arg("mutants");
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if !runs_avx512(&cpuinfo) {
        cmd.args(["--exclude", KERNEL]);
    }
    let words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let target = std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty());
    match target_dir(&words, target.is_some()) {
        Err(e) => return fail(&e),
        Ok(true) => {
            cmd.env("CARGO_TARGET_DIR", target.unwrap_or_else(|| root.join("target/mutants").into_os_string()));
        }
        Ok(false) => {}
    }
    // The tests that read real programs look for ../shared beside the tree they
    // run in, and cargo-mutants copies the tree into $TMPDIR: link ../shared there
    // too (when this clone has it, as CI does), or those tests skip and every
    // mutant only they catch reads "missed".
    if let Ok(shared) = root.join("../shared").canonicalize() {
        if shared.is_dir() {
            let tmp = root.join("target/mutants-tmp");
            let link = tmp.join("shared");
            let made = std::fs::create_dir_all(&tmp).and_then(|()| {
                if link.symlink_metadata().is_ok() {
                    std::fs::remove_file(&link)?;
                }
                std::os::unix::fs::symlink(&shared, &link)
            });
            if let Err(e) = made {
                return fail(&format!("{}: {e}", link.display()));
            }
            cmd.env("TMPDIR", &tmp);
        }
    }
    cmd.args(&args);
    // Replaced, not waited for: cargo-mutants gets the signals sent to this
    // process (`timeout --signal=INT` in `cargo xtask ci`) and writes its outcomes.
    let e = std::os::unix::process::CommandExt::exec(&mut cmd);
    eprintln!("cargo xtask mutants: cannot run cargo mutants: {e}");
    ExitCode::from(127)
}

fn fail(message: &str) -> ExitCode {
    eprintln!("cargo xtask mutants: {message}");
    ExitCode::from(1)
}

fn succeeds(cmd: &mut Command) -> bool {
    cmd.status().is_ok_and(|s| s.success())
}

/// A command's stdout when it ran and succeeded.
fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether this CPU runs the AVX-512 kernel (/proc/cpuinfo's first `flags`).
fn runs_avx512(cpuinfo: &str) -> bool {
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, f)| f.split_whitespace().collect())
        .unwrap_or_default();
    flags.contains(&"avx512vbmi") && flags.contains(&"avx512bw")
}

/// `--jobs` as cargo-mutants reads it (`-j N`, `--jobs N`, `--jobs=N`, `-jN`),
/// before any `--`; the last one counts.
fn jobs(args: &[String]) -> &str {
    let mut jobs = "1";
    for (i, a) in args.iter().enumerate() {
        if a == "--" {
            break;
        }
        if a == "-j" || a == "--jobs" {
            jobs = args.get(i + 1).map(String::as_str).filter(|n| !n.is_empty()).unwrap_or("1");
        } else if let Some(n) = a.strip_prefix("--jobs=") {
            jobs = n;
        } else if let Some(n) = a.strip_prefix("-j") {
            jobs = n;
        }
    }
    jobs
}

/// Whether cargo-mutants builds in one kept target folder (CARGO_TARGET_DIR,
/// else target/mutants). A kept folder serves one job: with `--jobs N`, each
/// job builds in its own copy's target/, or one job would test another's
/// mutant; `--in-place` builds in the tree's own.
fn target_dir(args: &[String], target_set: bool) -> Result<bool, String> {
    let jobs = jobs(args);
    if jobs != "1" {
        if target_set {
            return Err(format!("--jobs {jobs} with CARGO_TARGET_DIR set: the jobs would share one target folder"));
        }
        return Ok(false);
    }
    Ok(!args.iter().any(|a| a == "--in-place"))
}

fn summary_command(s: &Summary) -> ExitCode {
    let mut files = Vec::new();
    for d in &s.dirs {
        find_outcomes(d, &mut files);
    }
    files.sort();
    if files.is_empty() {
        let dirs: Vec<String> = s.dirs.iter().map(|d| d.display().to_string()).collect();
        eprintln!("no outcomes.json (cargo-mutants' mutants.out) under {}", dirs.join(" "));
        return ExitCode::from(1);
    }
    let mut runs = Vec::new();
    for f in &files {
        match std::fs::read_to_string(f).map_err(|e| e.to_string()).and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string())) {
            Ok(v) => runs.push(v),
            Err(e) => return fail(&format!("{}: {e}", f.display())),
        }
    }
    let commit = output(Command::new("git").args(["rev-parse", "--short", "HEAD"])).map_or_else(|| "unknown".to_owned(), |c| c.trim_end().to_owned());
    let (page, missed) = summary(&runs, s.shards, &commit);
    print!("{page}");
    ExitCode::from(if missed > 0 { 2 } else { 0 })
}

/// Every outcomes.json under `dir` (cargo-mutants' mutants.out).
fn find_outcomes(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.file_name().is_some_and(|n| n == "outcomes.json") && dir.is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            find_outcomes(&p, out);
        } else if e.file_name() == "outcomes.json" {
            out.push(p);
        }
    }
}

/// One tested mutant.
struct Mutant<'a> {
    name: &'a str,
    /// Its package, or the kernels, counted apart: where the CPU has their
    /// instructions, `cpu_has_features -> true` cannot be caught.
    group: &'a str,
    summary: &'a str,
}

#[derive(Default)]
struct Counts {
    caught: u64,
    missed: u64,
    timeout: u64,
    unviable: u64,
}

impl Counts {
    fn of<'a>(ms: impl Iterator<Item = &'a Mutant<'a>>) -> Counts {
        let mut c = Counts::default();
        for m in ms {
            match m.summary {
                "CaughtMutant" => c.caught += 1,
                "MissedMutant" => c.missed += 1,
                "Timeout" => c.timeout += 1,
                "Unviable" => c.unviable += 1,
                _ => {}
            }
        }
        c
    }

    fn row(&self) -> String {
        let viable = self.caught + self.missed + self.timeout;
        let pct = if viable > 0 { format!("{}%", (self.caught as f64 * 1000.0 / viable as f64).round() / 10.0) } else { "–".into() };
        format!("{} | {} | {} | {} | {pct} |", self.caught, self.missed, self.timeout, self.unviable)
    }
}

/// A JSON value as jq's string interpolation writes it.
fn interp(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "null".into(),
    }
}

/// A string's first 16 characters (jq's `.[:16]`; null stays null).
fn first16(s: Option<&str>) -> String {
    s.map_or_else(|| "null".into(), |s| s.chars().take(16).collect())
}

/// The summary page of cargo-mutants' runs (outcomes.json each), and how many
/// counted mutants were missed.
fn summary(runs: &[Value], shards: u64, commit: &str) -> (String, usize) {
    let mut ms: Vec<Mutant> = runs
        .iter()
        .flat_map(|r| r["outcomes"].as_array().into_iter().flatten())
        .filter_map(|o| {
            let m = o["scenario"].get("Mutant")?;
            let file = m["file"].as_str().unwrap_or("");
            Some(Mutant {
                name: m["name"].as_str().unwrap_or(""),
                group: if file.contains(KERNELS) { APART } else { m["package"].as_str().unwrap_or("null") },
                summary: o["summary"].as_str().unwrap_or(""),
            })
        })
        .collect();
    let start = runs.iter().filter_map(|r| r["start_time"].as_str()).min();
    let end = runs.iter().map(|r| r["end_time"].as_str().unwrap_or("")).max();
    let finished = runs.iter().filter(|r| !matches!(r["end_time"], Value::Null | Value::Bool(false))).count() as u64;
    let whole = match shards {
        0 => String::new(),
        n if n == finished => ": the whole set".into(),
        n => format!(" of {n} shards: NOT the whole set"),
    };
    let mut groups: BTreeMap<&str, Vec<&Mutant>> = BTreeMap::new();
    for m in &ms {
        groups.entry(m.group).or_default().push(m);
    }
    let mut lines = vec![
        "# Mutation testing: summary".to_owned(),
        String::new(),
        format!(
            "- commit {commit}, cargo-mutants {}; {} to {} UTC",
            interp(runs.first().and_then(|r| r.get("cargo_mutants_version"))),
            first16(start),
            first16(end)
        ),
        format!("- runs: {}, {finished} finished{whole}", runs.len()),
        format!("- mutants tested: {}", ms.len()),
        String::new(),
        "| | caught | missed | timeout | unviable | caught / viable |".into(),
        "|---|---:|---:|---:|---:|---:|".into(),
    ];
    for (k, g) in &groups {
        lines.push(format!("| `{k}` | {}", Counts::of(g.iter().copied()).row()));
    }
    lines.push(format!("| **all counted** | {}", Counts::of(ms.iter().filter(|m| m.group != APART)).row()));
    // jq's sort_by is stable: equal names keep the order of the runs.
    ms.sort_by(|a, b| a.name.cmp(b.name));
    let missed: Vec<&Mutant> = ms.iter().filter(|m| m.summary == "MissedMutant").collect();
    let timeouts: Vec<&Mutant> = ms.iter().filter(|m| m.summary == "Timeout").collect();
    lines.extend([String::new(), format!("## Missed ({})", missed.len()), String::new()]);
    lines.extend(missed.iter().map(|m| format!("- `{}`{}", m.name, if m.group == APART { " (kernel, apart)" } else { "" })));
    lines.extend([String::new(), format!("## Timeouts ({})", timeouts.len()), String::new()]);
    lines.extend(timeouts.iter().map(|m| format!("- `{}`", m.name)));
    let mut page = lines.join("\n");
    page.push('\n');
    (page, missed.iter().filter(|m| m.group != APART).count())
}

#[cfg(test)]
mod tests;
