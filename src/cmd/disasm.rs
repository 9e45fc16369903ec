//! `tpb disasm FILE…`: one text line per bundle, with its location as a comment.

use crate::input;
use std::io::Write;
use std::path::PathBuf;
use tpb_isa::Bundle;

#[derive(clap::Args)]
pub struct Args {
    /// Refuse a file larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let mut out = crate::out::Sink::new();
    // 2 once any input could not be read; the others are still disassembled.
    let mut code = 0u8;
    for file in &a.files {
        let streams = match input::load(file, a.max_bytes) {
            Ok(s) => s,
            Err(e) => {
                code = super::fail(e);
                continue;
            }
        };
        for s in &streams {
            let Ok(bundles) = tpb_isa::bundle::stream(&s.bytes) else {
                code = super::fail(format!("{}: not whole bundles", s.label()));
                continue;
            };
            if let Err(c) = out.write(code, |w| write_stream(w, s, bundles)) {
                return c;
            }
        }
    }
    out.finish(code)
}

fn write_stream<'a>(out: &mut impl Write, s: &input::Stream, bundles: impl Iterator<Item = (usize, &'a tpb_isa::Raw)>) -> std::io::Result<()> {
    writeln!(out, "# {}", s.label())?;
    for (i, (off, raw)) in bundles.enumerate() {
        let line = tpb_isa::text::disasm(&Bundle::decode(raw));
        // Container streams name subgraph/engine on every line (raw files keep the short form).
        if s.member.is_empty() {
            writeln!(out, "{line} # [{i}] +{off:#x}")?;
        } else {
            writeln!(out, "{line} # {} [{i}] +{off:#x}", s.member)?;
        }
    }
    Ok(())
}
