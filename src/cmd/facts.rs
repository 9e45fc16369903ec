//! `tpb facts [--json]`: the expected facts with provenance — `isa`'s
//! constants, then the library oracle's facts and each known build's pins.

use tpb_oracle::walrus::command;

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 printed; 2 usage error.")]
pub struct Args {
    /// JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> u8 {
    super::check::emit(command::facts_command(a.json))
}
