//! `tpb evidence [--json] [--check] [--arch v2|v3|v4] [--max-bytes N] PATH…`:
//! the evidence real compiled programs give about the format (per generation
//! × compiler build × opcode: bundles, engines, field values, every check's
//! agreement; errata with their support; contradictions no erratum accepts).
//! Deterministic, so it can be committed and diffed between compiler releases.
//! Exit 0; with `--check`, 1 when a contradiction lacks an erratum or an
//! erratum lacks support here; 2 usage/I-O (an unreadable input, or a NEFF
//! from which no bundle is read, is reported, the others still read).

use crate::programs;
use std::path::PathBuf;
use tpb_isa::Generation;
use tpb_oracle::evidence::Evidence;

#[derive(clap::Args)]
pub struct Args {
    /// Pretty JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Exit 1 when a spec disagreement has no erratum, or an erratum has no supporting bundle here.
    #[arg(long)]
    check: bool,
    /// Generation of every stream (v2, v3, v4). Default: the container's target's, else the
    /// generation its bundles fit best (said on stderr); v2 for a raw file.
    #[arg(long)]
    arch: Option<Generation>,
    /// Refuse a file larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// NEFF containers or raw bundle files; a folder is searched for `*.neff` (symlinks not followed).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let mut ev = Evidence::new();
    // The usage/I-O code once any input could not be read; it outranks the verdict.
    let code = programs::each_program(&a.paths, a.arch, a.max_bytes, |shown, p, c| {
        ev.set_source(shown, c.target.as_deref(), c.from);
        for s in &p.streams {
            ev.add_stream(shown, s.build.as_deref(), c.generation, &s.engine, &s.bytes);
        }
    });
    if ev.bundles() == 0 {
        return super::fail("evidence: no bundles in the inputs");
    }
    let text = if a.json {
        match serde_json::to_string_pretty(&ev.to_json()) {
            Ok(j) => j + "\n",
            Err(e) => return super::fail(format!("evidence: cannot render JSON: {e}")),
        }
    } else {
        ev.to_text()
    };
    let mut reasons = Vec::new();
    if a.check {
        reasons.extend(ev.contradictions().iter().map(|c| format!("contradiction with no erratum: {c}")));
        reasons.extend(
            ev.errata().iter().filter(|e| e.bundles() == 0).map(|e| format!("erratum {}: no supporting bundle in these inputs", e.erratum.id)),
        );
    }
    let verdict = code.max(u8::from(!reasons.is_empty()));
    let code = crate::out::print(&text, verdict);
    for r in &reasons {
        eprintln!("tpb: evidence: {r}");
    }
    code
}
