//! The `tpb` command as a library: [`main_with_args`] runs it on any
//! argument list. The binary (`src/main.rs`) is one call of it; so is the
//! Python package's `tpb` command (`python/`), which runs this same code in
//! its process. Programs are read by the library (`tpb_oracle::programs`),
//! as the Python API reads them, so its errors read as the CLI's.
//! Each subcommand lives in `cmd/<name>.rs`; exit codes are part of the contract.
#![forbid(unsafe_code)]

mod ahead;
mod clock;
mod cmd;
mod conform;
pub mod error;
mod html;
mod out;
mod programs;
pub mod shard;
mod worker;

/// The environment variable that sets how many threads load inputs ahead
/// (`tpb validate`, `tpb evidence`: files decompressed on every core by
/// default); a positive number. `cargo xtask bench` sets it to time one core.
pub use ahead::ENV_THREADS;

/// Writes a file whole, as every `tpb` command writes its outputs: a regular
/// file is replaced atomically, a symlink's target replaced with the link kept,
/// a device or FIFO written into (`cargo xtask bench` writes its report so too).
pub use out::write_atomic;

use clap::{Parser, Subcommand};
use std::ffi::OsString;

#[derive(Parser)]
// `tpb --version`: the package version and the commit it was built from (build.rs).
#[command(name = "tpb", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("TPB_COMMIT"), ")"), about = "Conformance and differential-fuzzing harness for the Neuron TPB bundle format")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate bundles (raw N x 64-byte files or NEFF programs) by the spec amended by the errata, or with --spec by the spec alone.
    Validate(cmd::validate::Args),
    /// Print one text line per bundle (raw N x 64-byte files, or every engine stream of a NEFF program).
    Disasm(cmd::disasm::Args),
    /// Assemble text lines back into 64-byte bundles.
    Asm(cmd::asm::Args),
    /// Print every struct with every field's name, offset and size.
    Layout(cmd::layout::Args),
    /// Summarise NEFF containers (header, integrity, members, per-engine opcode histograms); unpack, pack back, mutate or shrink them (subcommands).
    Neff(cmd::neff::Args),
    /// Write the generated C header neuron_isa_tpb.h (stdout, or -o FILE).
    Header(cmd::header::Args),
    /// The nightly conformance run: description, property campaign, corpus replay, C header, --lib and --neff checks (default: corpus/neff/real).
    Conform(cmd::conform::Args),
    /// Regenerate the seed corpus (corpus/<target>/) from the hand files, the generator and the real programs.
    Corpus(cmd::corpus::Args),
    /// Check libwalrus.so (or a wheel) against isa: exit 0 all hold, 4 a fact differs, 1 error.
    Check(cmd::check::Args),
    /// Compare the facts of two libwalrus.so builds: exit bits 1 error, 4 changed, 8 NEW disagrees with isa.
    Diff(cmd::diff::Args),
    /// List the expected facts with provenance (isa constants + library oracle facts).
    Facts(cmd::facts::Args),
    /// Gather evidence from real programs: per generation × build × opcode × field, values, engines, and every check's agreement; errata with their support.
    Evidence(cmd::evidence::Args),
    /// Differential fuzzing of your own decoder, encoder or validator (--cmd or --lib) against the description: grouped disagreements, each reduced to a repro.
    Differ(cmd::differ::Args),
    /// Propose layouts for opcodes the spec leaves opaque, from real bundles: per byte and word, value sets, recognised shapes, evidence.
    Infer(cmd::infer::Args),
}

/// Whether `args` (the first is the program name) is a command line `tpb`
/// accepts, without running it: the docs' examples are held to it.
// A String: clap's whole rendered usage text, which the docs' test prints.
pub fn parses<I, T>(args: I) -> Result<(), String>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    Cli::try_parse_from(args).map(|_| ()).map_err(|e| e.to_string())
}

/// Runs `tpb` with `args` (the first is the program name, as `std::env::args_os` gives it)
/// and returns its exit code. Prints to stdout and stderr as the command does.
pub fn main_with_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { cmd::EXIT_USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    // A kernel chosen for the process that this CPU cannot run is a usage error, not a silent fallback.
    if let Err(e) = tpb_isa::validate::Kernel::from_env() {
        return cmd::fail(e);
    }
    match cli.command {
        Command::Validate(a) => cmd::validate::run(a),
        Command::Disasm(a) => cmd::disasm::run(a),
        Command::Asm(a) => cmd::asm::run(a),
        Command::Layout(a) => cmd::layout::run(a),
        Command::Neff(a) => cmd::neff::run(a),
        Command::Header(a) => cmd::header::run(a),
        Command::Conform(a) => cmd::conform::run(a),
        Command::Corpus(a) => cmd::corpus::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Diff(a) => cmd::diff::run(a),
        Command::Facts(a) => cmd::facts::run(a),
        Command::Evidence(a) => cmd::evidence::run(a),
        Command::Infer(a) => cmd::infer::run(a),
        Command::Differ(a) => cmd::differ::run(a),
    }
}
