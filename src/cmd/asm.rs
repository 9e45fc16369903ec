//! `tpb asm [--max-bytes N] FILE -o OUT`: text lines back to 64-byte bundles
//! (written atomically). The input is read under a size cap, binary input is
//! refused at once, and errors quote the input only cut short and escaped.

use crate::error::Error;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 written; 2 usage or I/O error, or text that does not assemble (nothing written).")]
pub struct Args {
    /// Refuse an input larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// Text file produced by `tpb disasm` (or written by hand).
    file: PathBuf,
    /// Output file of N x 64 bytes.
    #[arg(short, long)]
    output: PathBuf,
}

/// How much of the input is looked at for a NUL byte before anything else is read.
const BINARY_SNIFF: usize = 64 << 10;

/// The longest run of quoted input an error repeats.
const QUOTE_CHARS: usize = 80;

/// The longest error message (before escaping).
const MESSAGE_CHARS: usize = 300;

pub fn run(a: Args) -> u8 {
    let text = match read_text(&a.file, a.max_bytes) {
        Ok(t) => t,
        Err(e) => return super::fail(e),
    };
    let bytes = match tpb_isa::text::assemble(&text) {
        Ok(b) => b,
        Err(e) => return super::fail(format!("{}: {}", a.file.display(), bounded(&e.to_string()))),
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

/// Reads `path` as text of at most `cap` bytes (pipes and devices included,
/// never holding more than `cap + 1` bytes). Input with a NUL byte in its
/// first 64 KiB, or that is not UTF-8, is refused as soon as that is seen.
fn read_text(path: &Path, cap: u64) -> crate::error::Result<String> {
    let name = path.display();
    let unreadable = |e: std::io::Error| Error::context(format!("{name}: cannot read"), e);
    let too_large = || Error::Message(format!("{name}: offset {cap:#x}: more than the cap of {cap} bytes"));
    let binary = |off: usize, what: &str| {
        Error::Message(format!(
            "{name}: offset {off:#x}: {what}: this looks like binary bundles, not text (turn them into text with `tpb disasm` first)"
        ))
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    let len = meta.len();
    if len > cap {
        return Err(Error::Message(format!("{name}: offset {cap:#x}: {len} bytes is over the cap of {cap} bytes")));
    }
    let mut reader = tpb_oracle::programs::Reader::new(file, cap);
    // The head first: binary input (`/dev/zero`, a bundle file) is refused before more is read.
    let mut bytes = Vec::new();
    reader.fill(&mut bytes, BINARY_SNIFF).map_err(unreadable)?;
    if let Some(off) = bytes.iter().position(|&b| b == 0) {
        return Err(binary(off, "NUL byte"));
    }
    if let Err(e) = std::str::from_utf8(&bytes) {
        // A character cut by the end of the head is judged once the rest is read
        // (in a file shorter than the head, by the same check at the end).
        if e.error_len().is_some() {
            return Err(binary(e.valid_up_to(), "not UTF-8"));
        }
    }
    reader.rest(&mut bytes, meta.is_file().then_some(len)).map_err(unreadable)?;
    if reader.over() {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| binary(e.utf8_error().valid_up_to(), "not UTF-8"))
}

/// An assembler message made safe to print on one line: every run of input it
/// quotes (between backticks) is cut at 80 characters with `…`, the whole at
/// 300, and control characters (an escape sequence, a newline) are escaped.
fn bounded(message: &str) -> String {
    let cut = |s: &str, n: usize| match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    };
    // Odd parts are the quoted ones; the message's own words (a list of valid names) are cut only by the whole's bound.
    let parts: Vec<String> =
        message.split('`').enumerate().map(|(i, part)| if i % 2 == 1 { cut(part, QUOTE_CHARS) } else { part.to_string() }).collect();
    tpb_oracle::text_safe::escape(&cut(&parts.join("`"), MESSAGE_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_quoted_token_is_cut_and_its_control_characters_escaped() {
        let token = format!("\x1b[31m{}\nforged", "x".repeat(1 << 20));
        let message = format!("line 1: `{token}`: expected field=value");
        let safe = bounded(&message);
        assert!(safe.chars().count() < 400, "{} chars", safe.chars().count());
        assert!(!safe.chars().any(char::is_control), "{safe:?}");
        assert!(safe.starts_with("line 1: `\\u{1b}[31mxxx"), "{safe}");
        assert!(safe.contains("…`: expected field=value"), "{safe}");
    }

    #[test]
    fn a_short_message_is_unchanged() {
        let message = "line 3: `src.adr`: no such field in TensorCopy";
        assert_eq!(bounded(message), message);
    }
}
