//! `cargo xtask bench [--quick] [--out reports/bench.md] [--elf PATH] [--neff PATH]
//! [--fuzz-secs N | --no-fuzz] [--only SECTIONS] [--strict]`: how close each path is
//! to its physical limit. Every figure is a ratio against a baseline measured in
//! the same run (memcpy of the same stream in the same process; `nm -DC` +
//! `strings` and `gzip -dc | tar t` on the same file, interleaved with `tpb`), so
//! the ratios hold on a noisy machine where absolute times do not. The ratios,
//! machine and date go to a markdown report.
//!
//! Exit 0 when measured (targets missed or not), 1 with `--strict` when a
//! target is missed, 2 on usage or I/O errors: an explicit `--elf`/`--neff`
//! that is not a readable file or an `--out` that cannot be written is
//! refused before anything is measured (and before anything is built).
//!
//! What is timed is optimized code: unless [`ENV_TPB`] names the `tpb` to
//! time, the command builds `tpb` and `xtask` with `cargo build --release`
//! and runs the release `xtask bench` with the same arguments, [`ENV_TPB`]
//! naming the release `tpb`; that process times the codec kernels in itself
//! (tpb-isa's `workload`, the same code as `cargo bench`) and `tpb` end to end.

mod check;
mod codec;
mod differ;
mod end_to_end;
mod error;
mod external;
mod folder;
mod fuzz;
mod machine;
mod neff;
mod report;
mod timing;

use error::{Context as _, Error};
use external::Scratch;
use machine::Machine;
use report::Report;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use tpb_isa::workload;

/// The sections `--only` picks from, in the order a run measures them.
const SECTIONS: [&str; 7] = ["codec", "check", "neff", "end-to-end", "folder", "differ", "fuzz"];

/// Under cargo's build folder, which git ignores: a plain run leaves the checkout clean.
const DEFAULT_OUT: &str = "target/bench.md";

#[derive(clap::Args)]
#[command(
    after_help = "Builds tpb and xtask with cargo build --release and times them, unless TPB_BENCH_TPB names the tpb to time (then this process measures).\n\nExit codes: 0 measured (targets missed or not); 1 with --strict, a target missed; 2 usage, I/O or build error (paths are checked before anything is built or measured)."
)]
pub struct Args {
    /// A quick look: 16 MiB stream, 3 rounds, 2 s fuzz runs (ratios are noisier).
    #[arg(long)]
    quick: bool,
    /// Where to write the report (the default stays out of the checkout; the committed record is
    /// updated with --out reports/bench.md). An explicit --out needs its folder to exist.
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Print the table only; write no report.
    #[arg(long)]
    no_write: bool,
    /// Codec stream size in MiB (default 64, or 16 with --quick; env TPB_BENCH_MIB also works).
    #[arg(long)]
    mib: Option<usize>,
    /// Timed rounds per measurement, best kept (default 7, or 3 with --quick).
    #[arg(long)]
    rounds: Option<usize>,
    /// ELF for the `tpb check` benchmark (default: the oracle's full-size synthetic libwalrus.so).
    #[arg(long)]
    elf: Option<PathBuf>,
    /// NEFF for the ingest benchmark (default: the largest real one, in ../shared/neff or else corpus/neff/real, else a generated one).
    #[arg(long)]
    neff: Option<PathBuf>,
    /// Seconds per fuzz run (each target runs twice; default 5, or 2 with --quick).
    #[arg(long)]
    fuzz_secs: Option<u64>,
    /// Skip the fuzz benchmark (it builds the fuzz targets, minutes on a cold cache).
    #[arg(long)]
    no_fuzz: bool,
    /// Measure only these sections (comma-separated: codec, check, neff, end-to-end, folder, differ, fuzz).
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(SECTIONS))]
    only: Vec<String>,
    /// Exit 1 when any target is missed.
    #[arg(long)]
    strict: bool,
    /// Internal: ingest one NEFF and exit (the child process the NEFF benchmark times).
    #[arg(long, hide = true)]
    ingest: Option<PathBuf>,
}

/// Usage or I/O error (bad arguments, unusable paths, a build that failed).
const EXIT_USAGE: u8 = 2;

/// Names the `tpb` executable to time end to end. When it is set, this
/// process measures (in whatever profile it was built); unset, the command
/// builds the release binaries and hands the run to the release `xtask`,
/// setting it to the release `tpb`.
pub const ENV_TPB: &str = "TPB_BENCH_TPB";

pub fn run(a: Args) -> u8 {
    if let Some(path) = &a.ingest {
        return match neff::ingest(path) {
            Ok(_) => 0,
            Err(e) => fail(e),
        };
    }
    // What was asked for explicitly must be usable before anything is built or measured.
    if let Err(e) = check_paths(&a) {
        return fail(e);
    }
    if std::env::var_os(ENV_TPB).is_none() {
        return match in_release() {
            Ok(code) => code,
            Err(e) => fail(e),
        };
    }
    if cfg!(debug_assertions) {
        eprintln!("cargo xtask bench: warning: this xtask is a debug build: the in-process codec ratios are not a release build's");
    }
    measure(&a)
}

/// The whole run, in this process, timing the `tpb` that [`ENV_TPB`] names.
fn measure(a: &Args) -> u8 {
    let machine = Machine::probe();
    let Plan { mib, rounds, fuzz_secs } = Plan::of(a);
    let scratch = match Scratch::new() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut notes = Vec::new();
    let mut rows = Vec::new();
    eprintln!("cargo xtask bench: on {} (validator kernel auto picks: {})", machine.cpu_model, tpb_isa::validate::Kernel::Auto.runs().label());
    let wanted = |s: &str| a.only.is_empty() || a.only.iter().any(|o| o == s);
    if wanted("codec") {
        eprintln!("cargo xtask bench: codec over a {mib} MiB stream, {rounds} rounds");
        rows.extend(codec::run(&codec::Options { mib, rounds }, &mut notes));
    }
    if wanted("check") {
        eprintln!("cargo xtask bench: tpb check vs nm -DC + strings");
        rows.extend(check::run(&check::Options { elf: a.elf.clone(), rounds }, &scratch, &mut notes));
    }
    if wanted("neff") {
        eprintln!("cargo xtask bench: NEFF ingest vs gzip -dc | tar t");
        rows.extend(neff::run(&neff::Options { neff: a.neff.clone(), rounds }, &scratch, &mut notes));
    }
    if wanted("end-to-end") {
        eprintln!("cargo xtask bench: tpb validate end to end on real v2 bundles vs cat");
        rows.extend(end_to_end::run(rounds, &scratch, &mut notes));
    }
    if wanted("folder") {
        eprintln!("cargo xtask bench: a folder of NEFFs on every core vs gzip -dc of their payloads");
        rows.extend(folder::run(rounds, &scratch, &mut notes));
    }
    if wanted("differ") {
        eprintln!("cargo xtask bench: tpb differ's transports vs the description's own decode");
        rows.extend(differ::run(rounds, &scratch, &mut notes));
    }
    if wanted("fuzz") && a.no_fuzz {
        rows.push(report::Row::skipped("fuzz", "fuzz roundtrip vs empty target", Some(fuzz::TARGET), "--no-fuzz"));
    } else if wanted("fuzz") {
        eprintln!("cargo xtask bench: fuzz roundtrip vs empty ({fuzz_secs} s runs)");
        rows.extend(fuzz::run(fuzz_secs, fuzz::cargo_fuzz_installed(), &mut notes));
    }
    let invocation = std::iter::once("cargo xtask".to_string()).chain(std::env::args().skip(1)).collect::<Vec<_>>().join(" ");
    let report = Report { machine, invocation, rows, notes };
    if print(&report.to_text()) != 0 {
        return EXIT_USAGE;
    }
    if !a.no_write {
        if let Err(e) = tpb::write_atomic(&a.out, report.to_markdown().as_bytes()) {
            return fail(format!("{}: cannot write: {e}", a.out.display()));
        }
        eprintln!("cargo xtask bench: wrote {}", a.out.display());
    }
    exit_code(a.strict, report.missed())
}

/// The `tpb` the end-to-end rows time: the one [`ENV_TPB`] names (an
/// executable file), or why there is none, as a row's skip reason.
fn tpb() -> Result<PathBuf, String> {
    let Some(path) = std::env::var_os(ENV_TPB).map(PathBuf::from) else {
        return Err(format!("{ENV_TPB} does not name the tpb executable to time"));
    };
    if !path.is_file() {
        return Err(format!("{}: the tpb executable ({ENV_TPB}) is not a file", path.display()));
    }
    Ok(path)
}

/// Builds `tpb` and `xtask` in release (`cargo build --release --locked`)
/// and runs the release `xtask bench` with this run's arguments and
/// [`ENV_TPB`] naming the release `tpb`; its exit code.
fn in_release() -> error::Result<u8> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("cargo xtask bench: building tpb and xtask (cargo build --release --locked -p tpb -p xtask --bins)");
    let out = std::process::Command::new(&cargo)
        .args(["build", "--release", "--locked", "-p", "tpb", "-p", "xtask", "--bins", "--message-format=json-render-diagnostics"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .context_with(|| "cannot run cargo build")?;
    if !out.status.success() {
        return Err(Error::Message(format!("cargo build --release failed ({}): nothing measured", out.status)));
    }
    let built = executables(&String::from_utf8_lossy(&out.stdout));
    let find = |name: &str| {
        built
            .iter()
            .find(|p| p.file_name().is_some_and(|n| n == name))
            .cloned()
            .ok_or_else(|| Error::Message(format!("cargo build --release named no `{name}` executable")))
    };
    let (tpb, xtask) = (find("tpb")?, find("xtask")?);
    let status = std::process::Command::new(&xtask)
        .args(std::env::args_os().skip(1))
        .env(ENV_TPB, &tpb)
        .status()
        .context_with(|| format!("cannot run {}", xtask.display()))?;
    // A signal is reported as the I/O code: nothing complete was measured.
    Ok(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(EXIT_USAGE))
}

/// The executables a `cargo build --message-format=json` run names (its
/// `compiler-artifact` lines' `executable`), in order.
fn executables(json_lines: &str) -> Vec<PathBuf> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "compiler-artifact")
        .filter_map(|v| v["executable"].as_str().map(PathBuf::from))
        .collect()
}

/// Prints a one-line error and returns the usage/I-O exit code.
fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("cargo xtask bench: {msg}");
    EXIT_USAGE
}

/// Writes `text` to stdout: 0, or (the reader gone aside) one line and the I/O code.
fn print(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => fail(format!("cannot write to stdout: {e}")),
    }
}

/// How much a run measures: the options, else their defaults (`--quick`'s smaller ones).
#[derive(Debug, PartialEq)]
struct Plan {
    /// Codec stream size.
    mib: usize,
    rounds: usize,
    fuzz_secs: u64,
}

impl Plan {
    fn of(a: &Args) -> Plan {
        Plan {
            mib: a.mib.unwrap_or_else(|| workload::stream_bytes(if a.quick { 16 } else { workload::DEFAULT_MIB }) >> 20).max(1),
            rounds: a.rounds.unwrap_or(if a.quick { 3 } else { 7 }).max(1),
            fuzz_secs: a.fuzz_secs.unwrap_or(if a.quick { 2 } else { 5 }).max(1),
        }
    }
}

/// 1 when `--strict` and a target was missed, else 0: a miss is a finding, not a failure to measure.
fn exit_code(strict: bool, missed: usize) -> u8 {
    u8::from(strict && missed > 0)
}

/// `--elf` and `--neff`, when given, are readable regular files (the ELF
/// starts with the ELF magic, the NEFF reads as a container); unless
/// `--no-write`, the report's folder exists (created if need be) and takes
/// files, and `--out` is not a folder. Only defaults may be skipped later.
fn check_paths(a: &Args) -> error::Result<()> {
    for p in a.elf.iter().chain(&a.neff) {
        readable_file(p)?;
    }
    // A malformed container, or a file `nm` cannot read, would otherwise only show as a skipped row.
    if let Some(p) = &a.neff {
        neff::ingest(p)?;
    }
    if let Some(p) = &a.elf {
        let mut magic = [0u8; 4];
        let read = std::fs::File::open(p).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
        if read.is_err() || &magic != tpb_oracle::walrus::ELF_MAGIC {
            return Err(Error::Message(format!("{}: not an ELF file (the benchmark compares `tpb check` with nm and strings on one)", p.display())));
        }
    }
    if a.no_write {
        return Ok(());
    }
    if a.out.is_dir() {
        return Err(Error::Message(format!("{}: is a directory; --out names the report file", a.out.display())));
    }
    let dir = a.out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.exists() {
        // Only the default's folder is made (a checkout whose builds go elsewhere has no target/).
        if a.out != Path::new(DEFAULT_OUT) {
            return Err(Error::Message(format!("{}: folder does not exist (create it, or choose another --out)", dir.display())));
        }
        std::fs::create_dir_all(dir).context_with(|| format!("{}: cannot create", dir.display()))?;
    }
    writable_dir(dir)
}

/// `path` is a regular file this process can open; else one line saying why not.
fn readable_file(path: &Path) -> error::Result<()> {
    let meta = std::fs::metadata(path).context_with(|| path.display())?;
    if meta.is_dir() {
        return Err(Error::Message(format!("{}: is a directory, not a file", path.display())));
    }
    if !meta.is_file() {
        return Err(Error::Message(format!("{}: not a regular file", path.display())));
    }
    std::fs::File::open(path).map(drop).context_with(|| format!("{}: cannot open", path.display()))
}

/// `dir` is a directory this process can create files in (tried with a
/// probe file, removed at once).
fn writable_dir(dir: &Path) -> error::Result<()> {
    let meta = std::fs::metadata(dir).context_with(|| dir.display())?;
    if !meta.is_dir() {
        return Err(Error::Message(format!("{}: not a directory", dir.display())));
    }
    let probe = dir.join(format!(".tpb-probe-{}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe).context_with(|| format!("{}: not writable", dir.display()))?;
    std::fs::remove_file(&probe).context_with(|| format!("{}: cannot remove", probe.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        bench: Args,
    }

    fn plan(args: &[&str]) -> Result<Plan, clap::Error> {
        Ok(Plan::of(&Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))?.bench))
    }

    #[test]
    fn the_plan_takes_the_options_else_the_defaults() -> Result<(), clap::Error> {
        // The stream's default size is the environment's when set (TPB_BENCH_MIB), so compare with it.
        let mib = |default| workload::stream_bytes(default) >> 20;
        assert_eq!(plan(&[])?, Plan { mib: mib(workload::DEFAULT_MIB), rounds: 7, fuzz_secs: 5 });
        assert_eq!(plan(&["--quick"])?, Plan { mib: mib(16), rounds: 3, fuzz_secs: 2 });
        assert_eq!(plan(&["--quick", "--mib", "5", "--rounds", "9", "--fuzz-secs", "11"])?, Plan { mib: 5, rounds: 9, fuzz_secs: 11 });
        assert_eq!(plan(&["--mib", "0", "--rounds", "0", "--fuzz-secs", "0"])?, Plan { mib: 1, rounds: 1, fuzz_secs: 1 });
        Ok(())
    }

    #[test]
    fn a_writable_dir_passes_and_leaves_nothing() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        writable_dir(dir.path())?;
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 0);
        let f = dir.path().join("f");
        std::fs::write(&f, b"x")?;
        assert!(writable_dir(&f).err().ok_or("a file")?.to_string().contains("not a directory"));
        assert!(writable_dir(&dir.path().join("nope")).is_err());
        Ok(())
    }

    #[test]
    fn the_report_is_replaced_whole_and_a_device_written_into() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let out = dir.path().join("bench.md");
        tpb::write_atomic(&out, b"one")?;
        std::os::unix::fs::symlink(&out, dir.path().join("link.md"))?;
        tpb::write_atomic(&dir.path().join("link.md"), b"two")?;
        assert_eq!(std::fs::read(&out)?, b"two", "a link's target is replaced, not appended to");
        assert!(std::fs::symlink_metadata(dir.path().join("link.md"))?.file_type().is_symlink());
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 2, "no temporary file left");
        tpb::write_atomic(Path::new("/dev/null"), b"x")?;
        assert!(tpb::write_atomic(&dir.path().join("missing/bench.md"), b"x").is_err());
        Ok(())
    }

    #[test]
    fn the_release_binaries_are_read_from_cargo_s_messages() {
        let lines = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"tpb"},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"tpb"},"executable":"/t/release/tpb"}"#,
            "\nnot json\n",
            r#"{"reason":"build-finished","success":true}"#,
            "\n",
            r#"{"reason":"compiler-artifact","executable":"/t/release/xtask"}"#,
        );
        assert_eq!(executables(lines), [PathBuf::from("/t/release/tpb"), PathBuf::from("/t/release/xtask")]);
    }

    #[test]
    fn only_strict_runs_fail_on_a_missed_target() {
        assert_eq!([exit_code(false, 0), exit_code(false, 2), exit_code(true, 0), exit_code(true, 1)], [0, 0, 0, 1]);
    }
}
