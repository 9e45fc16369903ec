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
    let mut out = crate::out::stdout();
    for file in &a.files {
        let streams = match input::load(file, a.max_bytes) {
            Ok(s) => s,
            Err(e) => return super::fail(e),
        };
        for s in &streams {
            let Ok(bundles) = tpb_isa::bundle::stream(&s.bytes) else { return super::fail(format!("{}: not whole bundles", s.label())) };
            if let Err(e) = writeln!(out, "# {}", s.label()) {
                return crate::out::lost(&e, 0);
            }
            for (i, (off, raw)) in bundles.enumerate() {
                let line = tpb_isa::text::disasm(&Bundle::decode(raw));
                // Container streams name subgraph/engine on every line (raw files keep the short form).
                let r = if s.member.is_empty() {
                    writeln!(out, "{line} # [{i}] +{off:#x}")
                } else {
                    writeln!(out, "{line} # {} [{i}] +{off:#x}", s.member)
                };
                if let Err(e) = r {
                    return crate::out::lost(&e, 0);
                }
            }
        }
    }
    crate::out::finish(&mut out, 0)
}
