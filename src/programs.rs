//! Programs given as paths, as `tpb evidence` and `tpb infer` take them:
//! files (NEFF containers or raw bundle files) or folders searched for
//! `*.neff`, each stream handed over with the name the output gives it.

use crate::input::{self, Stream};
use std::path::{Component, Path, PathBuf};
use tpb_isa::Generation;

/// Calls `each(shown name, stream, generation)` for every stream of every
/// program under `paths`, in a stable order; returns the usage/I-O exit code
/// once an input could not be read (each is reported, the others still read),
/// else 0. The generation is `arch`, else the container's, else v2 (said once
/// per container whose target names none).
pub fn each_stream(paths: &[PathBuf], arch: Option<Generation>, max_bytes: u64, mut each: impl FnMut(&str, &Stream, Generation)) -> u8 {
    let mut code = 0u8;
    let mut inputs = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, p, &mut inputs, &mut code);
        } else {
            inputs.push((p.clone(), name(p)));
        }
    }
    for (path, shown) in &inputs {
        let streams = match input::load(path, max_bytes) {
            Ok(s) => s,
            Err(e) => {
                code = crate::out::fail(e);
                continue;
            }
        };
        if arch.is_none() && streams.iter().any(|s| !s.member.is_empty() && s.generation.is_none()) {
            eprintln!("tpb: warning: {}: assuming v2 for its streams (choose one with --arch v2|v3|v4)", input::shown(path));
        }
        for s in &streams {
            each(shown, s, arch.or(s.generation).unwrap_or(Generation::V2));
        }
    }
    code
}

/// Every `*.neff` file under `dir`, depth first in name order, named relative
/// to `root`; symlinks are not followed. An unreadable folder is reported.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>, code: &mut u8) {
    let entries = match std::fs::read_dir(dir).and_then(|d| d.collect::<Result<Vec<_>, _>>()) {
        Ok(e) => e,
        Err(e) => {
            *code = crate::out::fail(format!("{}: cannot read folder: {e}", dir.display()));
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
            Err(e) => *code = crate::out::fail(format!("{}: {e}", path.display())),
        }
    }
}

/// A path as the output names it: its components joined with `/`.
pub fn name(p: &Path) -> String {
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
