//! The repository's workshop, run as `cargo xtask <command>` (the alias is in
//! `.cargo/config.toml`): what used to be shell under `ci/` moves here, one
//! module per command, so it is parsed by clap and tested like the rest.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod fuzz;
mod fuzz_report;
mod mutants;

#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", about = "The repository's workshop (docs/ci.md)")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
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
        Cmd::Fuzz(args) => fuzz::run(args),
        Cmd::FuzzReport(args) => match fuzz_report::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("cargo xtask fuzz-report: {e}");
                ExitCode::from(2)
            }
        },
        Cmd::Mutants { args } => mutants::run(args),
    }
}
