//! `tpb check PATH [--json] [--max-bytes N]`: every fact about a libwalrus.so
//! (or a wheel holding one) against `isa`. Exit 0 every fact holds, 4 a fact
//! differs or is missing, 1 error (unreadable, not ELF, corrupt wheel…), 2 usage.

use std::io::Write;
use std::path::PathBuf;
use tpb_oracle::walrus::{command, DEFAULT_MAX_BYTES};

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 every fact holds; 1 error (unreadable, not ELF, corrupt wheel); 2 usage; 4 a fact differs or is missing.")]
pub struct Args {
    /// A libwalrus.so, or a neuronx_cc wheel (.whl) holding neuronxcc/starfish/lib/libwalrus.so.
    path: PathBuf,
    /// One JSON report instead of text.
    #[arg(long)]
    json: bool,
    /// Refuse a library (or wheel member) larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: u64,
}

pub fn run(a: Args) -> u8 {
    emit(command::check_command(&a.path, a.json, a.max_bytes))
}

/// Prints an outcome and returns its exit code (1, these commands' error
/// code, if stdout fails; the outcome's own when the reader left, see `crate::out`).
pub fn emit(o: command::Outcome) -> u8 {
    let mut out = std::io::stdout().lock();
    let written = out.write_all(o.stdout.as_bytes()).and_then(|()| out.flush());
    eprint!("{}", o.stderr);
    match written {
        Ok(()) => o.code,
        Err(e) => crate::out::lost_or(&e, o.code, 1),
    }
}
