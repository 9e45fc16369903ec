//! `tpb evidence [--json] [--check] [--arch v2|v3|v4] [--max-bytes N] PATH…`:
//! the evidence real compiled programs give about the format (per generation
//! × compiler build × opcode: bundles, engines, field values, every check's
//! agreement; errata with their support; contradictions no erratum accepts).
//! Deterministic, so it can be committed and diffed between compiler releases.
//! Exit 0; with `--check`, 1 when a contradiction lacks an erratum or an
//! erratum lacks support here; 2 usage/I-O (an unreadable input is reported,
//! the others still read).

use crate::input;
use std::path::{Component, Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::evidence::Evidence;
use tpb_oracle::neff::stream::engine_member;

#[derive(clap::Args)]
pub struct Args {
    /// Pretty JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Exit 1 when a spec disagreement has no erratum, or an erratum has no supporting bundle here.
    #[arg(long)]
    check: bool,
    /// Generation of every stream (v2, v3, v4). Default: the container's, else v2.
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
    // The usage/I-O code once any input could not be read; it outranks the verdict.
    let mut code = 0u8;
    let mut inputs = Vec::new();
    for p in &a.paths {
        if p.is_dir() {
            walk(p, p, &mut inputs, &mut code);
        } else {
            inputs.push((p.clone(), name(p)));
        }
    }
    let mut ev = Evidence::new();
    for (path, shown) in &inputs {
        let streams = match input::load(path, a.max_bytes) {
            Ok(s) => s,
            Err(e) => {
                code = super::fail(e);
                continue;
            }
        };
        // A container whose target names no generation is read as v2: say so (its note says why).
        if a.arch.is_none() && streams.iter().any(|s| !s.member.is_empty() && s.generation.is_none()) {
            eprintln!("tpb: warning: {}: assuming v2 for its streams (choose one with --arch v2|v3|v4)", path.display());
        }
        for s in &streams {
            let g = a.arch.or(s.generation).unwrap_or(Generation::V2);
            let engine = engine_member(&s.member).map_or("", |(_, e)| e.stem());
            ev.add_stream(shown, s.build.as_deref(), g, engine, &s.bytes);
        }
    }
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

/// Every `*.neff` file under `dir`, depth first in name order, named relative
/// to `root`; symlinks are not followed. An unreadable folder is reported.
pub(crate) fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>, code: &mut u8) {
    let entries = match std::fs::read_dir(dir).and_then(|d| d.collect::<Result<Vec<_>, _>>()) {
        Ok(e) => e,
        Err(e) => {
            *code = super::fail(format!("{}: cannot read folder: {e}", dir.display()));
            return;
        }
    };
    let mut entries: Vec<_> = entries.into_iter().map(|e| (e.file_name(), e.path(), e.file_type())).collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, path, kind) in entries {
        match kind {
            Ok(t) if t.is_dir() => walk(root, &path, out, code),
            Ok(t) if t.is_file() && path.extension().is_some_and(|x| x.eq_ignore_ascii_case("neff")) => {
                let shown = name(path.strip_prefix(root).unwrap_or(&path));
                out.push((path, shown));
            }
            Ok(_) => {}
            Err(e) => *code = super::fail(format!("{}: {e}", path.display())),
        }
    }
}

/// A path as the output names it: its components joined with `/`.
pub(crate) fn name(p: &Path) -> String {
    let parts: Vec<String> = p
        .components()
        .map(|c| match c {
            Component::RootDir => String::new(),
            c => c.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    if parts.len() == 1 && parts[0].is_empty() {
        return "/".to_string();
    }
    parts.join("/")
}
