//! The repository's workshop, run as `cargo xtask <command>` (the alias is in
//! `.cargo/config.toml`): what used to be shell under `ci/` moves here, one
//! module per command, so it is parsed by clap and tested like the rest.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "The repository's workshop (docs/ci.md)")]
struct Cli {}

/// The repository root: every command works from it, as the scripts did
/// (`cd "$(dirname "$0")/.."`), wherever `cargo xtask` was started.
fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

fn main() -> ExitCode {
    let _cli = Cli::parse();
    if let Err(e) = std::env::set_current_dir(root()) {
        eprintln!("cargo xtask: cannot enter {}: {e}", root().display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
