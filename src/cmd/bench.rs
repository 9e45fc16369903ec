//! `tpb bench [--quick] [--out reports/bench.md] [--elf PATH] [--neff PATH]
//! [--fuzz-secs N | --no-fuzz] [--strict]`: measures each path against its
//! baseline and writes the ratios, machine and date to a markdown report.
//! Exit 0 when measured (targets missed or not), 1 with `--strict` when a
//! target is missed, 2 on usage or I/O errors: an explicit `--elf`/`--neff`
//! that is not a readable file or an `--out` that cannot be written is
//! refused before anything is measured.

use crate::bench::{check, codec, external::Scratch, fuzz, machine::Machine, neff, report::Report, workload};
use crate::error::{Context as _, Error};
use std::path::PathBuf;

/// The sections `--only` picks from, in the order a run measures them.
const SECTIONS: [&str; 7] = ["codec", "check", "neff", "end-to-end", "folder", "differ", "fuzz"];

/// Under cargo's build folder, which git ignores: a plain run leaves the checkout clean.
const DEFAULT_OUT: &str = "target/bench.md";

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 measured (targets missed or not); 1 with --strict, a target missed; 2 usage or I/O error (checked before anything is measured)."
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

pub fn run(a: Args) -> u8 {
    if let Some(path) = &a.ingest {
        return match neff::ingest(path) {
            Ok(_) => 0,
            Err(e) => super::fail(e),
        };
    }
    // What was asked for explicitly must be usable before anything is measured.
    if let Err(e) = check_paths(&a) {
        return super::fail(e);
    }
    let machine = Machine::probe();
    let Plan { mib, rounds, fuzz_secs } = Plan::of(&a);
    let scratch = match Scratch::new() {
        Ok(s) => s,
        Err(e) => return super::fail(e),
    };
    let mut notes = Vec::new();
    let mut rows = Vec::new();
    eprintln!("tpb bench: on {} (validator kernel auto picks: {})", machine.cpu_model, tpb_isa::validate::Kernel::Auto.runs().label());
    let wanted = |s: &str| a.only.is_empty() || a.only.iter().any(|o| o == s);
    if wanted("codec") {
        eprintln!("tpb bench: codec over a {mib} MiB stream, {rounds} rounds");
        rows.extend(codec::run(&codec::Options { mib, rounds }, &mut notes));
    }
    if wanted("check") {
        eprintln!("tpb bench: tpb check vs nm -DC + strings");
        rows.extend(check::run(&check::Options { elf: a.elf.clone(), rounds }, &scratch, &mut notes));
    }
    if wanted("neff") {
        eprintln!("tpb bench: NEFF ingest vs gzip -dc | tar t");
        rows.extend(neff::run(&neff::Options { neff: a.neff.clone(), rounds }, &scratch, &mut notes));
    }
    if wanted("end-to-end") {
        eprintln!("tpb bench: tpb validate end to end on real v2 bundles vs cat");
        rows.extend(crate::bench::end_to_end::run(rounds, &scratch, &mut notes));
    }
    if wanted("folder") {
        eprintln!("tpb bench: a folder of NEFFs on every core vs gzip -dc of their payloads");
        rows.extend(crate::bench::folder::run(rounds, &scratch, &mut notes));
    }
    if wanted("differ") {
        eprintln!("tpb bench: tpb differ's transports vs the description's own decode");
        rows.extend(crate::bench::differ::run(rounds, &scratch, &mut notes));
    }
    if wanted("fuzz") && a.no_fuzz {
        rows.push(crate::bench::report::Row::skipped("fuzz", "fuzz roundtrip vs empty target", Some(fuzz::TARGET), "--no-fuzz"));
    } else if wanted("fuzz") {
        eprintln!("tpb bench: fuzz roundtrip vs empty ({fuzz_secs} s runs)");
        rows.extend(fuzz::run(fuzz_secs, fuzz::cargo_fuzz_installed(), &mut notes));
    }
    let invocation = std::iter::once("tpb".to_string()).chain(std::env::args().skip(1)).collect::<Vec<_>>().join(" ");
    let report = Report { machine, invocation, rows, notes };
    if crate::out::print(&report.to_text(), 0) != 0 {
        return crate::cmd::EXIT_USAGE;
    }
    if !a.no_write {
        if let Err(e) = crate::out::write_atomic(&a.out, report.to_markdown().as_bytes()) {
            return super::fail(format!("{}: cannot write: {e}", a.out.display()));
        }
        eprintln!("tpb bench: wrote {}", a.out.display());
    }
    exit_code(a.strict, report.missed())
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
fn check_paths(a: &Args) -> crate::error::Result<()> {
    for p in a.elf.iter().chain(&a.neff) {
        super::paths::readable_file(p)?;
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
    let dir = a.out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !dir.exists() {
        // Only the default's folder is made (an installed tpb may run where no target/ exists yet).
        if a.out != std::path::Path::new(DEFAULT_OUT) {
            return Err(Error::Message(format!("{}: folder does not exist (create it, or choose another --out)", dir.display())));
        }
        std::fs::create_dir_all(dir).context_with(|| format!("{}: cannot create", dir.display()))?;
    }
    super::paths::writable_dir(dir)
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
        Ok(Plan::of(&Cli::try_parse_from(std::iter::once("tpb").chain(args.iter().copied()))?.bench))
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
    fn only_strict_runs_fail_on_a_missed_target() {
        assert_eq!([exit_code(false, 0), exit_code(false, 2), exit_code(true, 0), exit_code(true, 1)], [0, 0, 0, 1]);
    }
}
