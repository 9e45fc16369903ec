//! `tpb`: the command-line front door of the TPB conformance harness.
//! Each subcommand lives in `cmd/<name>.rs`; exit codes are part of the contract.

mod cmd;
mod input;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "tpb", version, about = "Conformance and differential-fuzzing harness for the Neuron TPB bundle format")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate bundles (raw 64-byte bundle files) against the spec's invariants.
    Validate(cmd::validate::Args),
    /// Print one text line per bundle.
    Disasm(cmd::disasm::Args),
    /// Assemble text lines back into 64-byte bundles.
    Asm(cmd::asm::Args),
    /// Print every struct with every field's name, offset and size.
    Layout(cmd::layout::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { cmd::EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let code = match cli.command {
        Command::Validate(a) => cmd::validate::run(a),
        Command::Disasm(a) => cmd::disasm::run(a),
        Command::Asm(a) => cmd::asm::run(a),
        Command::Layout(a) => cmd::layout::run(a),
    };
    ExitCode::from(code)
}
