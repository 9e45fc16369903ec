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

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
        let p = dir.join(name);
        std::fs::write(&p, bytes)?;
        Ok(p)
    }

    #[test]
    fn exit_codes_follow_integrity_and_malformed_input() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let pe: Vec<u8> = [0xB1u8, 0x10, 0, 0].iter().copied().chain([0u8; 60]).collect();
        let good = neff::build::container(2, &[("kelf-0.json", br#"{"target":"cayman"}"#), ("sg00/PE.bin", &pe)])?;
        let ok = write(dir.path(), "ok.neff", &good)?;
        let mut bad_md5 = good.clone();
        let at = neff::NeffHeader::LAYOUT.field_offset("hash").ok_or("no hash field")?;
        bad_md5[at] ^= 1;
        let bad_md5 = write(dir.path(), "md5.neff", &bad_md5)?;
        let short = write(dir.path(), "short.neff", &good[..600])?;
        let run_on = |files: Vec<PathBuf>, json| run(Args { json, max_bytes: neff::MAX_FILE, files });
        assert_eq!(run_on(vec![ok.clone()], false), 0);
        assert_eq!(run_on(vec![ok.clone()], true), 0);
        assert_eq!(run_on(vec![ok.clone(), bad_md5.clone()], false), 1);
        assert_eq!(run_on(vec![bad_md5, short, ok], true), 2);
        Ok(())
    }
}
