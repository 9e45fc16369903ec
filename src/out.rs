//! What `tpb` prints and writes. Stdout is buffered, write errors are
//! returned and the final flush is checked. A reader that stops early
//! (`| head`: EPIPE) is not our failure: the command exits quietly with its
//! own verdict. Any other failure (a full disk, `> /dev/full`) is one line,
//! `cannot write to stdout: <error>`, and the I/O exit code. Errors are one
//! line on stderr; files are written whole. Output is never silently lost.

use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::Path;

/// Usage or I/O error (bad arguments, unreadable or malformed input).
pub const EXIT_USAGE: u8 = 2;

/// Prints a one-line error and returns the usage/I-O exit code.
pub fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("tpb: error: {msg}");
    EXIT_USAGE
}

/// Writes through a temporary sibling and renames, so readers never see half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Buffered, locked stdout.
pub type Stdout = BufWriter<StdoutLock<'static>>;

pub fn stdout() -> Stdout {
    BufWriter::new(io::stdout().lock())
}

/// Stdout for a command that goes through several inputs. Once the reader
/// has left, writes are skipped and the command goes on, so its exit code
/// still covers every input.
pub struct Sink {
    out: Stdout,
    left: bool,
}

impl Sink {
    pub fn new() -> Sink {
        Sink { out: stdout(), left: false }
    }

    /// Runs `write` unless the reader has left; `Err(exit code)` when stdout
    /// failed otherwise (`code`: the command's verdict so far).
    pub fn write(&mut self, code: u8, write: impl FnOnce(&mut Stdout) -> io::Result<()>) -> Result<(), u8> {
        if self.left {
            return Ok(());
        }
        match write(&mut self.out) {
            Err(e) if reader_left(&e) => {
                self.left = true;
                Ok(())
            }
            Err(e) => Err(lost(&e, code)),
            Ok(()) => Ok(()),
        }
    }

    /// Flushes: `code`, or the failure's code.
    pub fn finish(mut self, code: u8) -> u8 {
        if self.left {
            code
        } else {
            finish(&mut self.out, code)
        }
    }
}

/// Flushes `out`: `code` when everything reached stdout (or the reader left), else the failure's code.
pub fn finish(out: &mut impl Write, code: u8) -> u8 {
    match out.flush() {
        Ok(()) => code,
        Err(e) => lost(&e, code),
    }
}

/// Writes `text` to stdout and flushes: `code`, or the failure's code.
pub fn print(text: &str, code: u8) -> u8 {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => code,
        Err(e) => lost(&e, code),
    }
}

/// Whether a failed write means the reader stopped early.
pub fn reader_left(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// The exit code after a failed stdout write: `code` (the command's verdict)
/// when the reader left, else one error line and 2.
pub fn lost(e: &io::Error, code: u8) -> u8 {
    lost_or(e, code, EXIT_USAGE)
}

/// As [`lost`], with the command's own I/O error code.
pub fn lost_or(e: &io::Error, code: u8, io_code: u8) -> u8 {
    if reader_left(e) {
        return code;
    }
    eprintln!("tpb: error: cannot write to stdout: {e}");
    io_code
}

/// A string read from an input, made safe for a text line: control
/// characters (a newline could forge a line of output) are escaped.
pub fn escape(s: &str) -> String {
    s.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect()
}
