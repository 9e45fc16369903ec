//! The repository's workshop, run as `cargo xtask <command>` (the alias is in
//! `.cargo/config.toml`): what used to be shell under `ci/` moves here, one
//! module per command, so it is parsed by clap and tested like the rest; so
//! does the benchmark suite that used to be `tpb bench` (it needs the source tree).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod cflite;
mod ci;
mod cross;
mod fuzz;
mod fuzz_measure;
mod fuzz_report;
mod mutants;
mod nightly;
mod package;
mod step;
mod workflows;

#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", about = "The repository's workshop (docs/ci.md)")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Measure each path against its physical limit (ratios) and write a report (target/bench.md, or --out);
    /// builds and times the release binaries (docs/benchmarks.md).
    Bench(bench::Args),
    /// Run every fuzz target for a fixed time on every core; keep findings as regressions (docs/fuzzing.md).
    Fuzz(fuzz::Fuzz),
    /// Write reports/fuzz.md: every fuzz target's throughput and coverage (docs/fuzzing.md).
    FuzzReport(fuzz_report::FuzzReport),
    /// cargo-mutants with the pinned tools and the repository's settings, or `summary` of its runs
    /// (docs/mutation-testing.md). Every argument, `--help` too, goes to `cargo mutants`.
    #[command(disable_help_flag = true)]
    Mutants {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Everything `.ci/run` does after installing system packages (docs/ci.md).
    Ci,
    /// Build every fuzz target and its seed zip, options and dictionary into OUT (.clusterfuzzlite/build.sh).
    CfliteBuild(cflite::Build),
    /// Run .clusterfuzzlite/build.sh outside Docker and check what it made; each fuzzer replays its seeds.
    CfliteTest,
    /// Test crates for another Linux architecture under qemu-user (docs/kernels.md).
    Cross(cross::Cross),
    /// Measure built fuzzers: one markdown row per target (cargo xtask fuzz-report uses it).
    FuzzMeasure(fuzz_measure::Measure),
    /// The workspace functions a sanitizer-built fuzzer covers on corpus folders.
    FuzzCoverage(fuzz_measure::Coverage),
    /// The nightly runs: `tpb conform`, then `cargo xtask fuzz`.
    Nightly(nightly::Nightly),
    /// The crates packaged, `cargo publish --dry-run`, and `tpb` installed from the .crate files.
    PackageCheck,
    /// The workflows checked: zizmor, actionlint, shellcheck, the pins (docs/ci.md, "Workflows").
    WorkflowLint,
}

/// The repository root: every command works from it, as the scripts did
/// (`cd "$(dirname "$0")/.."`), wherever `cargo xtask` was started.
fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = std::env::set_current_dir(root()) {
        eprintln!("cargo xtask: cannot enter {}: {e}", root().display());
        return ExitCode::from(2);
    }
    match cli.cmd {
        Cmd::Bench(args) => ExitCode::from(bench::run(args)),
        Cmd::Fuzz(args) => fuzz::run(args),
        Cmd::FuzzReport(args) => match fuzz_report::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("cargo xtask fuzz-report: {e}");
                ExitCode::from(2)
            }
        },
        Cmd::Mutants { args } => mutants::run(args),
        Cmd::Ci => step::exit("ci", ci::run_ci()),
        Cmd::CfliteBuild(a) => step::exit("cflite-build", cflite::build(a)),
        Cmd::CfliteTest => step::exit("cflite-test", cflite::test()),
        Cmd::Cross(a) => step::exit("cross", cross::run_cross(a)),
        Cmd::FuzzMeasure(a) => step::exit("fuzz-measure", fuzz_measure::run_measure(a)),
        Cmd::FuzzCoverage(a) => step::exit("fuzz-coverage", fuzz_measure::run_coverage(a)),
        Cmd::Nightly(a) => step::exit("nightly", nightly::run_nightly(a)),
        Cmd::PackageCheck => step::exit("package-check", package::run_check()),
        Cmd::WorkflowLint => step::exit("workflow-lint", workflows::run_lint()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `cargo xtask` line of the docs' code blocks parses as written
    /// (tests/doc_commands.rs checks the other cargo lines).
    #[test]
    fn the_docs_command_lines_parse() {
        let docs = root().join("docs");
        let mut pages: Vec<PathBuf> = std::fs::read_dir(&docs)
            .unwrap_or_else(|e| panic!("{}: {e}", docs.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        pages.push(root().join("fuzz/README.md"));
        let mut seen = 0;
        for page in pages {
            let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
            for line in text.lines().map(str::trim).filter(|l| l.starts_with("cargo xtask ")) {
                let command = line.split(" #").next().unwrap_or(line);
                let words = std::iter::once("cargo xtask").chain(command.split_whitespace().skip(2));
                if let Err(e) = Cli::try_parse_from(words) {
                    panic!("{}: `{command}` does not parse: {e}", page.display());
                }
                seen += 1;
            }
        }
        assert!(seen >= 3, "only {seen} `cargo xtask` lines found in the docs");
    }
}
