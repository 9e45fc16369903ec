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
    match write_atomic(&a.output, &bytes) {
        Ok(()) => 0,
        Err(e) => super::fail(format!("{}: cannot write: {e}", a.output.display())),
    }
}

/// Writes through a temporary sibling and renames, so readers never see half a file.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
