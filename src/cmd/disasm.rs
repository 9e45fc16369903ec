//! `tpb disasm FILE…`: one text line per bundle, with its location as a comment.

use crate::input;
use std::io::Write;
use std::path::PathBuf;
use tpb_isa::Bundle;

#[derive(clap::Args)]
pub struct Args {
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for file in &a.files {
        let streams = match input::load(file) {
            Ok(s) => s,
            Err(e) => return super::fail(e),
        };
        for s in &streams {
            let Ok(bundles) = tpb_isa::bundle::stream(&s.bytes) else { return super::fail(format!("{}: not whole bundles", s.label())) };
            if writeln!(out, "# {}", s.label()).is_err() {
                return super::fail("cannot write to stdout");
            }
            for (i, (off, raw)) in bundles.enumerate() {
                let line = tpb_isa::text::disasm(&Bundle::decode(raw));
                // Container streams name subgraph/engine on every line (raw files keep the short form).
                let r = if s.member.is_empty() {
                    writeln!(out, "{line} # [{i}] +{off:#x}")
                } else {
                    writeln!(out, "{line} # {} [{i}] +{off:#x}", s.member)
                };
                if r.is_err() {
                    return super::fail("cannot write to stdout");
                }
            }
        }
    }
    let _ = out.flush();
    0
}
