//! `tpb disasm FILE|DIR…`: one text line per bundle, with its location as a comment.
//! A raw file is read and printed a chunk at a time (bounded memory whatever its size).
//! Exit 0, or 2 once an input could not be read (a NEFF from which no bundle is
//! read included); the others are still disassembled.

use std::io::Write;
use std::path::PathBuf;
use tpb_isa::Bundle;
use tpb_oracle::programs::{self, Input};

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 every input printed; 2 usage or I/O error (an unreadable input, a folder with no *.neff: each reported, the others still printed)."
)]
pub struct Args {
    /// Refuse a file larger than this many bytes (a regular file before it is read; a pipe or
    /// device once the excess arrives, after the bundles before the cap).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// Raw bundle files (N x 64 bytes), NEFF containers (every engine stream), or folders searched for `*.neff`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let mut out = crate::out::Sink::new();
    // 2 once any input could not be read; the others are still disassembled.
    let (files, mut code) = crate::programs::expand(&a.files, false);
    for file in files.iter().map(|f| &f.path) {
        match programs::open(file, a.max_bytes, &mut crate::programs::warn) {
            Err(e) => code = super::fail(e),
            Ok(Input::Raw(mut raw)) => {
                let label = raw.name().to_string();
                if let Err(c) = out.write(code, |w| writeln!(w, "# {label}")) {
                    return c;
                }
                while let Some(chunk) = raw.next_chunk() {
                    match chunk {
                        // The bundles before the error have been printed.
                        Err(e) => code = super::fail(e),
                        Ok(c) => {
                            if let Err(c) = out.write(code, |w| write_bundles(w, "", c.at, c.bytes)) {
                                return c;
                            }
                        }
                    }
                }
            }
            Ok(Input::Neff(program)) => {
                for s in program.streams() {
                    if let Err(e) = tpb_isa::bundle::stream(s.bytes) {
                        code = super::fail(format!("{}: {e}", s.label()));
                        continue;
                    }
                    let member = tpb_oracle::text_safe::escape(s.member);
                    if let Err(c) = out.write(code, |w| writeln!(w, "# {}", s.label()).and_then(|()| write_bundles(w, &member, 0, s.bytes))) {
                        return c;
                    }
                }
            }
        }
    }
    out.finish(code)
}

/// Whole bundles `bytes` at byte `base` of their stream; `member` (escaped) names a container's stream on every line.
fn write_bundles(out: &mut impl Write, member: &str, base: u64, bytes: &[u8]) -> std::io::Result<()> {
    let first = base / tpb_isa::bundle::BUNDLE_BYTES as u64;
    for (i, raw) in bytes.chunks_exact(tpb_isa::bundle::BUNDLE_BYTES).enumerate() {
        let Some(b) = Bundle::decode_slice(raw) else { break };
        let line = tpb_isa::text::disasm(&b);
        let (i, off) = (first + i as u64, base + (i * tpb_isa::bundle::BUNDLE_BYTES) as u64);
        // Container streams name subgraph/engine on every line (raw files keep the short form).
        if member.is_empty() {
            writeln!(out, "{line} # [{i}] +{off:#x}")?;
        } else {
            writeln!(out, "{line} # {member} [{i}] +{off:#x}")?;
        }
    }
    Ok(())
}
