//! `cargo xtask fuzz-report`: writes reports/fuzz.md. Every fuzz target
//! (`cargo fuzz list`, but `empty`) runs on one core (one libFuzzer job,
//! `-seed=1`) from its committed seeds (`corpus/<target>` +
//! `corpus/regressions/<target>`, as `cargo fuzz run` and `cargo xtask fuzz` start)
//! with its options file (fuzz/options/): libFuzzer's average exec/s, the
//! final cov/ft, the corpus it ended with, the seeds, and the load average
//! (`cargo xtask fuzz-measure`). Twice where nightly Rust is installed: the stable
//! build without a sanitizer (`-s none`, the throughput baseline) and the
//! AddressSanitizer build `cargo xtask fuzz` uses; once (`-s none`) where it is not.
//!
//! Coverage (ASan build only: it needs the sanitizer's symbolizer): each
//! target's seeds plus what its run found, replayed by `cargo xtask fuzz-coverage`,
//! give the workspace functions it covers. The report compares `roundtrip`
//! (the whole chain) with the union of `structured`, `text` and `validate`
//! (the parts) and lists what `roundtrip` misses. `--before DIR` also
//! measures an older build's `roundtrip` (DIR holds its ASan fuzzers) the
//! same way.
//!
//! The runs are kept in fuzz/report-runs/ (git-ignored); `--render` writes
//! the report again from them without running anything.
//! reports/fuzz-notes.md is appended. Exit: 0 written, 2 build, run or
//! usage error.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::fuzz_measure::awk_num;
use clap::Args;

/// Where the runs are kept between a measurement and a `--render`.
const RUNS: &str = "fuzz/report-runs";
/// The chain, compared with the union of the parts it chains.
pub const CHAIN: &str = "roundtrip";
pub const PARTS: [&str; 3] = ["structured", "text", "validate"];
/// The parts' entry functions (`fuzz/fuzz_targets/<part>.rs` calls them), left
/// out of the union: only their own targets call them.
pub const ENTRIES: [&str; 4] =
    ["tpb_isa::props::structured", "tpb_isa::props::text_roundtrip", "tpb_isa::props::validate_any", "tpb_isa::props::mutation"];

#[derive(Args, Debug)]
pub struct FuzzReport {
    /// Seconds per target and build.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    secs: u64,
    /// Seconds for the coverage targets in the ASan build (default: --secs).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    long: Option<u64>,
    /// Targets run at once, each on its own core (at most the cores).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: u64,
    /// A folder of an older build's ASan fuzzers: its `roundtrip` is measured too.
    #[arg(long, value_name = "DIR")]
    before: Option<PathBuf>,
    /// Write the report again from the last runs, running nothing.
    #[arg(long)]
    render: bool,
    /// The targets to run (default: every target but `empty`).
    targets: Vec<String>,
}

type Result<T> = std::result::Result<T, String>;

/// Runs the command; the error is the message the scripts printed before exiting 2.
pub fn run(args: FuzzReport) -> Result<()> {
    let long = args.long.unwrap_or(args.secs);
    let cores = cores();
    // One libFuzzer job per core: more at once would measure the scheduler, not the target.
    if args.jobs > cores {
        return Err(format!("--jobs {} is more than this machine's {cores} cores", args.jobs));
    }
    if !args.render {
        measure(&args, long)?;
    }
    let report = render_from_disk()?;
    // Written beside the report and renamed, so a failed run leaves the old one whole.
    let tmp = PathBuf::from(format!("reports/.fuzz.md.{}", std::process::id()));
    fs::write(&tmp, report).map_err(|e| format!("{}: {e}", tmp.display()))?;
    fs::rename(&tmp, "reports/fuzz.md").map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("reports/fuzz.md: {e}")
    })?;
    eprintln!("reports/fuzz.md written");
    Ok(())
}

fn cores() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
}

/// A command's standard output, or why it failed.
fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd.stderr(Stdio::inherit()).output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?}: {}", out.status));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("{cmd:?}: {e}"))
}

/// A build's output goes to stderr: stdout is for what the commands report.
fn build(cmd: &mut Command) -> Result<()> {
    let status = cmd.stdout(std::io::stderr()).status().map_err(|e| format!("{cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?}: {status}"))
    }
}

fn measure(args: &FuzzReport, long: u64) -> Result<()> {
    let mut targets = args.targets.clone();
    if targets.is_empty() {
        let list = output(Command::new("cargo").args(["fuzz", "list"]))?;
        targets = list.lines().filter(|t| *t != "empty").map(str::to_owned).collect();
    }
    let host = output(Command::new("rustc").arg("-vV"))?
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or("rustc -vV names no host")?;
    // The ASan build where `cargo xtask fuzz` would use it.
    let asan = crate::fuzz::Build::choose().label == "ASan";
    let builds: &[&str] = if asan { &["ASan", "none"] } else { &["none"] };
    let runs = Path::new(RUNS);
    if runs.exists() {
        fs::remove_dir_all(runs).map_err(|e| format!("{RUNS}: {e}"))?;
    }
    for d in ["cov", "grown"] {
        fs::create_dir_all(runs.join(d)).map_err(|e| format!("{RUNS}/{d}: {e}"))?;
    }
    // Outside a git checkout the report still renders, without a commit.
    let commit = output(Command::new("git").args(["rev-parse", "--short", "HEAD"])).unwrap_or_default();
    let clean = Command::new("git").args(["diff", "--quiet", "HEAD", "--", "isa", "oracle", "fuzz", "corpus"]).status().is_ok_and(|s| s.success());
    let meta = format!(
        "secs={}\nlong={long}\njobs={}\ncommit={}{}\n",
        args.secs,
        args.jobs,
        commit.trim_end(),
        if clean { "" } else { " (with local changes)" }
    );
    write(&runs.join("meta"), &meta)?;
    write(&runs.join("rows"), "")?;
    if let Some(before) = &args.before {
        if !asan {
            return Err("--before needs nightly (an ASan build)".into());
        }
        let row = run_one(before, "ASan, before", args.secs, CHAIN)?;
        append(&runs.join("rows"), &row)?;
        let named = output(Command::new("git").arg("-C").arg(before).args(["rev-parse", "--short", "HEAD"]))
            .map(|c| c.trim_end().to_owned())
            .unwrap_or_else(|_| before.display().to_string());
        append(&runs.join("meta"), &format!("before={named}\n"))?;
    }
    for &b in builds {
        let bin = if b == "ASan" {
            build(Command::new("cargo").args(["+nightly", "fuzz", "build", "--target-dir", "fuzz/target-asan"]))?;
            format!("fuzz/target-asan/{host}/release")
        } else {
            build(Command::new("cargo").args(["fuzz", "build", "-s", "none"]))?;
            format!("fuzz/target/{host}/release")
        };
        let rows = run_all(Path::new(&bin), b, &targets, args, long)?;
        append(&runs.join("rows"), &rows)?;
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn append(path: &Path, text: &str) -> Result<()> {
    use std::io::Write as _;
    fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Every target's run in one build, `--jobs` at a time; rows kept in target order.
fn run_all(bin: &Path, build: &str, targets: &[String], args: &FuzzReport, long: u64) -> Result<String> {
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Option<String>>> = Mutex::new(vec![None; targets.len()]);
    std::thread::scope(|s| {
        for _ in 0..args.jobs.min(targets.len() as u64) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(t) = targets.get(i) else { break };
                let secs = if build == "ASan" && (t == CHAIN || PARTS.contains(&t.as_str())) { long } else { args.secs };
                // A failed run leaves no row; it said why on stderr.
                match run_one(bin, build, secs, t) {
                    Ok(row) => {
                        if let Ok(mut rows) = rows.lock() {
                            rows[i] = Some(row);
                        }
                    }
                    Err(e) => eprintln!("cargo xtask fuzz-report: {t} ({build}): {e}"),
                }
            });
        }
    });
    let rows = rows.into_inner().map_err(|_| "a run's thread panicked".to_owned())?;
    let failed = rows.iter().filter(|r| r.is_none()).count();
    if failed > 0 {
        return Err(format!("{failed} of {} runs in the {build} build failed", rows.len()));
    }
    Ok(rows.into_iter().flatten().collect())
}

/// `build` as a file name: what is not a letter or digit becomes `-`.
fn tag(build: &str, target: &str) -> String {
    let b: String = build.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("{b}-{target}")
}

/// One measured run; in the ASan builds, the coverage of the seeds plus what it found. Its row, with a newline.
fn run_one(bin: &Path, build: &str, secs: u64, t: &str) -> Result<String> {
    let tag = tag(build, t);
    eprintln!("== {t} ({build}): {secs}s seeded");
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let grown = cwd.join(RUNS).join("grown").join(&tag);
    let measured = crate::fuzz_measure::measure(bin, build, secs, &[t.to_owned()], Some(&grown)).map_err(|f| f.msg)?;
    let mut seeds = vec![PathBuf::from("corpus").join(t)];
    let regressions = Path::new("corpus/regressions").join(t);
    if regressions.is_dir() {
        seeds.push(regressions);
    }
    let (n, bytes) = seed_files(&seeds);
    let max = fs::read_to_string(format!("fuzz/options/{t}.options")).ok().and_then(|o| max_len(&o));
    let mut row = seeded_row(measured.trim_end_matches('\n'), t, max.as_deref(), n, bytes);
    if build.starts_with("ASan") {
        let dirs: Vec<PathBuf> = std::iter::once(grown.join(t)).chain(seeds.iter().cloned()).collect();
        let tsv = crate::fuzz_measure::coverage(&bin.join(t), &dirs).map_err(|f| f.msg)?;
        let cov = Path::new(RUNS).join("cov").join(format!("{tag}.tsv"));
        write(&cov, &tsv)?;
        let _ = write!(row, " {} |", tsv.matches('\n').count());
    } else {
        row.push_str(" – |");
    }
    row.push('\n');
    Ok(row)
}

/// A libFuzzer find's name: 40 lowercase hex digits (as .gitignore matches it).
fn libfuzzer_find(name: &str) -> bool {
    name.len() == 40 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// How many seed files the folders hold and their bytes: not the notes
/// (`*.md`), not libFuzzer's finds.
fn seed_files(dirs: &[PathBuf]) -> (u64, u64) {
    let (mut n, mut bytes) = (0, 0);
    let mut todo: Vec<PathBuf> = dirs.to_vec();
    while let Some(d) = todo.pop() {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let Ok(meta) = fs::symlink_metadata(e.path()) else { continue };
            let name = e.file_name().to_string_lossy().into_owned();
            if meta.is_dir() {
                todo.push(e.path());
            } else if meta.is_file() && !name.ends_with(".md") && !libfuzzer_find(&name) {
                n += 1;
                bytes += meta.len();
            }
        }
    }
    (n, bytes)
}

/// KiB as `printf %.0f` rounds it: to the nearest, a tie to the even one.
fn kib(bytes: u64) -> u64 {
    let (q, r) = (bytes / 1024, bytes % 1024);
    if r > 512 || (r == 512 && q % 2 == 1) {
        q + 1
    } else {
        q
    }
}

/// `max_len` of an options file (`max_len = 512`).
fn max_len(options: &str) -> Option<String> {
    options.lines().find_map(|l| {
        let rest = l.strip_prefix("max_len")?.trim_start();
        Some(rest.strip_prefix('=')?.trim_start().to_owned())
    })
}

/// fuzz-measure's row is `| target | build | time | exec/s | cov | ft | corp | load |`:
/// max_len and the seeds go after the target.
fn seeded_row(measured: &str, t: &str, max: Option<&str>, n: u64, bytes: u64) -> String {
    let head = format!("| `{t}` |");
    match measured.strip_prefix(&head) {
        Some(rest) => format!("{head} {} | {n} / {} KiB |{rest}", max.unwrap_or("–"), kib(bytes)),
        None => measured.to_owned(),
    }
}

/// What the report is rendered from, read before anything is written.
pub struct Inputs {
    pub meta: String,
    pub rows: String,
    /// When the rows were last written (UTC, RFC 3339).
    pub date: String,
    pub cpuinfo: String,
    pub cores: u64,
    /// `fuzz/report-runs/cov/<tag>.tsv` by tag.
    pub cov: BTreeMap<String, String>,
    pub notes: Option<String>,
}

fn render_from_disk() -> Result<String> {
    let runs = Path::new(RUNS);
    let (rows, meta) = (runs.join("rows"), runs.join("meta"));
    if !rows.is_file() || !meta.is_file() {
        return Err(format!("no runs in {RUNS}/ (run without --render)"));
    }
    let read = |p: &Path| fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let modified = fs::metadata(&rows).and_then(|m| m.modified()).map_err(|e| format!("{}: {e}", rows.display()))?;
    let mut cov = BTreeMap::new();
    for t in PARTS.iter().chain([&CHAIN]) {
        let tag = tag("ASan", t);
        let f = runs.join("cov").join(format!("{tag}.tsv"));
        if f.is_file() {
            cov.insert(tag, read(&f)?);
        }
    }
    let inputs = Inputs {
        meta: read(&meta)?,
        rows: read(&rows)?,
        date: humantime::format_rfc3339_seconds(modified).to_string(),
        cpuinfo: fs::read_to_string("/proc/cpuinfo").unwrap_or_default(),
        cores: cores(),
        cov,
        notes: fs::read_to_string("reports/fuzz-notes.md").ok(),
    };
    Ok(render(&inputs))
}

/// The first line's value after `key` (`secs=120`).
fn value<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines().find_map(|l| l.strip_prefix(key)).unwrap_or("")
}

/// /proc/cpuinfo's first `key : value`.
fn cpu_field<'a>(cpuinfo: &'a str, key: &str) -> &'a str {
    cpuinfo
        .lines()
        .find_map(|l| {
            let rest = l.strip_prefix(key)?.trim_start();
            Some(rest.strip_prefix(':')?.trim_start())
        })
        .unwrap_or("")
}

/// Markdown code span of a name (a `|` would end the table cell).
fn code(s: &str) -> String {
    format!("`{}`", s.replace('|', "\\|"))
}

/// Names as a list of code spans: "`a`, `b`".
fn spans(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// reports/fuzz.md from the runs.
pub fn render(i: &Inputs) -> String {
    let (secs, long) = (value(&i.meta, "secs="), value(&i.meta, "long="));
    let jobs = match value(&i.meta, "jobs=") {
        "" => "1",
        j => j,
    };
    let (commit, before) = (value(&i.meta, "commit="), value(&i.meta, "before="));
    let cpu =
        format!("{} (family {}, model {})", cpu_field(&i.cpuinfo, "model name"), cpu_field(&i.cpuinfo, "cpu family"), cpu_field(&i.cpuinfo, "model"));
    let mut o = String::new();
    let mut line = |s: &str| {
        o.push_str(s);
        o.push('\n');
    };
    line("# Fuzzing throughput and coverage");
    line("");
    line(&format!("Written by `cargo xtask fuzz-report --secs {secs} --long {long} --jobs {jobs}`; do not edit by hand. Each"));
    line(&format!("target ran on one core (one libFuzzer job, `-seed=1`; {jobs} target(s) at a time) for the time in its row"));
    line(&format!("({secs} s; {long} s for `{CHAIN}`, {} in the ASan build) with its", spans(&PARTS)));
    for l in [
        "`fuzz/options/<target>.options` (max_len, dictionary), from its committed seeds",
        "(`corpus/<target>` + `corpus/regressions/<target>`, what `cargo fuzz run <target>` and",
        "`cargo xtask fuzz` start from), once per build: `none` is stable Rust without a sanitizer",
        "(`-s none`), `ASan` nightly Rust with AddressSanitizer (`cargo +nightly fuzz`, what",
        "`cargo xtask fuzz` uses where nightly is installed). exec/s is libFuzzer's average; cov/ft and",
        "corp (inputs/bytes) its last status line (cov counts a binary's own edges: compare it",
        "within a row's build only); load the 1-minute load average when the run ended (the machine",
        "is shared: a load of 4 on 2 cores halves exec/s). Seeds: files / size on disk. funcs:",
        "workspace functions (isa/, oracle/) the seeds plus the run's new inputs cover",
        "(`cargo xtask fuzz-coverage`, ASan builds only).",
    ] {
        line(l);
    }
    if !before.is_empty() {
        line(&format!("`ASan, before` is `{CHAIN}` built from commit {before}, on the same seeds."));
    }
    line("");
    line(&format!("- date: {}Z", i.date.get(..16).unwrap_or(&i.date)));
    line(&format!("- commit: {commit}"));
    line(&format!("- CPU: {cpu}, {} cores", i.cores));
    let loads: Vec<f64> = i.rows.lines().map(|r| awk_num(r.split('|').nth(10).unwrap_or(""))).collect();
    let lo = loads.iter().copied().reduce(f64::min).unwrap_or(0.0);
    // awk's `hi` starts at 0.
    let hi = loads.iter().copied().fold(0.0, f64::max);
    line(&format!("- load average (1 min) at the end of each run: {lo:.2} to {hi:.2}"));
    line("");
    line("| target | max_len | seeds | build | time | exec/s | cov | ft | corp | load | funcs |");
    line("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    o.push_str(&i.rows);
    o.push_str(&coverage_union(i));
    if let Some(notes) = &i.notes {
        o.push('\n');
        o.push_str(notes);
    }
    o
}

/// One function's coverage: the edges covered, of how many.
#[derive(Clone, Copy)]
struct Edges<'a> {
    covered: &'a str,
    total: &'a str,
}

/// A coverage file's lines (`name<TAB>covered/edges<TAB>file`) by (name, file).
fn functions(tsv: &str) -> Vec<((&str, &str), Edges<'_>)> {
    tsv.lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (name, counts, file) = (f.next()?, f.next().unwrap_or(""), f.next().unwrap_or(""));
            let (covered, total) = counts.split_once('/').unwrap_or((counts, ""));
            Some(((name, file), Edges { covered, total }))
        })
        .collect()
}

/// `roundtrip`'s functions against the union of the parts' (ASan build); empty
/// without every part's coverage and the chain's.
fn coverage_union(i: &Inputs) -> String {
    let parts: Vec<&String> = PARTS.iter().filter_map(|p| i.cov.get(&tag("ASan", p))).collect();
    let Some(rt_tsv) = i.cov.get(&tag("ASan", CHAIN)) else { return String::new() };
    if parts.len() != PARTS.len() {
        return String::new();
    }
    // A function counts once, with the most edges any part covers; not the parts' own entry functions.
    let mut union: BTreeMap<(&str, &str), Edges> = BTreeMap::new();
    for (k, e) in parts.iter().flat_map(|t| functions(t)) {
        if ENTRIES.contains(&k.0) {
            continue;
        }
        match union.get(&k) {
            Some(best) if awk_num(e.covered) <= awk_num(best.covered) => {}
            _ => {
                union.insert(k, e);
            }
        }
    }
    let rt: BTreeMap<(&str, &str), &str> = functions(rt_tsv).into_iter().map(|(k, e)| (k, e.covered)).collect();
    let (mut both, mut fewer, mut miss, mut ue, mut re) = (0u64, 0u64, 0u64, 0f64, 0f64);
    let mut missed = Vec::new();
    let mut fewer_list = Vec::new();
    for (k, e) in &union {
        let best = awk_num(e.covered);
        ue += best;
        match rt.get(k) {
            Some(mine) => {
                both += 1;
                let m = awk_num(mine);
                re += m.min(best);
                if m < best {
                    fewer += 1;
                    fewer_list.push((k.1, k.0, *mine, e.covered, e.total));
                }
            }
            None => {
                miss += 1;
                missed.push((k.1, k.0));
            }
        }
    }
    let u = union.len() as u64;
    let n = rt.len() as u64;
    let pct = |a: f64, b: f64| if b != 0.0 { 100.0 * a / b } else { 0.0 };
    let mut o = String::new();
    let mut line = |s: &str| {
        o.push_str(s);
        o.push('\n');
    };
    line("");
    line(&format!("## Coverage: `{CHAIN}` against the union of {}", spans(&PARTS)));
    line("");
    line("Workspace functions covered in the ASan build (seeds plus each run's new inputs; a");
    line("function counts once, its edges the most any of its instances covers; inlined functions");
    line(&format!("count as part of their caller). The parts' entry functions ({})", spans(&ENTRIES)));
    line("are left out: only their own targets call them.");
    line("");
    line("| | functions | edges in them |");
    line("|---|---:|---:|");
    line(&format!("| union of the parts | {u} | {} |", ue as i64));
    line(&format!("| `{CHAIN}` | {n} | |"));
    line(&format!("| union ∩ `{CHAIN}` | {both} ({:.1} %) | {} ({:.1} %) |", pct(both as f64, u as f64), re as i64, pct(re, ue)));
    line(&format!("| in the union, not in `{CHAIN}` | {miss} | |"));
    line(&format!("| in both, fewer edges in `{CHAIN}` | {fewer} | |"));
    line(&format!("| in `{CHAIN}` only | {} | |", n - both));
    line("");
    line(&format!("What `{CHAIN}` misses (functions of the union it does not cover):"));
    line("");
    missed.sort();
    if missed.is_empty() {
        line("- none");
    }
    for (file, name) in missed {
        line(&format!("- {} ({})", code(name), code(file)));
    }
    line("");
    line(&format!("Functions both cover where `{CHAIN}` covers fewer edges (its / the union's best):"));
    line("");
    fewer_list.sort();
    if fewer_list.is_empty() {
        line("- none");
    }
    for (file, name, mine, best, total) in fewer_list {
        line(&format!("- {} ({}): {mine} / {best} of {total}", code(name), code(file)));
    }
    o
}

#[cfg(test)]
mod tests;
