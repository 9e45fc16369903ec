//! `tpb diff OLD NEW [--json] [--max-bytes N]`: the facts of two builds side by
//! side and a unified diff of their constants. Exit bits as abidiff: 1 error,
//! 2 usage, 4 facts differ between OLD and NEW, 8 NEW disagrees with `isa`.

use std::path::PathBuf;
use tpb_oracle::walrus::{command, DEFAULT_MAX_BYTES};

#[derive(clap::Args)]
#[command(after_help = "Exit codes, bits OR-ed (as abidiff): 1 error; 2 usage; 4 facts differ between OLD and NEW; 8 NEW disagrees with isa.")]
pub struct Args {
    /// The older libwalrus.so or wheel.
    old: PathBuf,
    /// The newer libwalrus.so or wheel.
    new: PathBuf,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Refuse a library (or wheel member) larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: u64,
}

pub fn run(a: Args) -> u8 {
    super::check::emit(command::diff_command(&a.old, &a.new, a.json, a.max_bytes))
}
