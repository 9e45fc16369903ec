//! `tpb neff FILE… [--json]`: what a NEFF container holds: header fields,
//! payload integrity, members, and per engine the bundle count and opcode
//! histogram. Exit 0 all read and intact, 1 a payload digest mismatch,
//! 2 usage, I/O or a malformed container (the other files are still shown).

use std::io::Write;
use std::path::PathBuf;
use tpb_oracle::neff;

#[derive(clap::Args)]
pub struct Args {
    /// One JSON object per file per line.
    #[arg(long)]
    json: bool,
    /// Refuse a file larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let limits = neff::Limits { max_file: a.max_bytes, ..neff::Limits::default() };
    let mut out = crate::out::Sink::new();
    let mut code = 0u8;
    for file in &a.files {
        let n = match neff::read_file_with(file, &limits) {
            Ok(n) => n,
            Err(e) => {
                // What was printed so far goes out before the error line.
                if let Err(c) = out.write(code, |w| w.flush()) {
                    return c;
                }
                code = code.max(super::fail(e));
                continue;
            }
        };
        if !n.integrity.ok() {
            code = code.max(1);
        }
        let written = out.write(code, |w| if a.json { writeln!(w, "{}", neff::summary::json(&n)) } else { write!(w, "{}", neff::summary::text(&n)) });
        if let Err(c) = written {
            return c;
        }
    }
    out.finish(code)
}
