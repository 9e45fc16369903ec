//! `tpb asm FILE -o OUT`: text lines back to 64-byte bundles (written atomically).

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Text file produced by `tpb disasm` (or written by hand).
    file: PathBuf,
    /// Output file of N x 64 bytes.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(a: Args) -> u8 {
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => return super::fail(format!("{}: cannot read: {e}", a.file.display())),
    };
    let bytes = match tpb_isa::text::assemble(&text) {
        Ok(b) => b,
        Err(e) => return super::fail(format!("{}: {e}", a.file.display())),
    };
    // An empty output is never what was meant: refuse it and leave OUT alone.
    if bytes.is_empty() {
        return super::fail(format!("{}: no bundles (every line is blank or a comment)", a.file.display()));
    }
    match crate::out::write_atomic(&a.output, &bytes) {
        Ok(()) => 0,
        Err(e) => super::fail(format!("{}: cannot write: {e}", a.output.display())),
    }
}
