//! Programs given as paths, as `tpb evidence` and `tpb infer` take them:
//! files (NEFF containers or raw bundle files) or folders searched for
//! `*.neff`, each stream handed over with the name the output gives it.

use crate::input::{self, Program};
use std::path::{Component, Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::neff::Choice;

/// Calls `each(shown name, program, generation)` for every program under
/// `paths`, in a stable order; returns the usage/I-O exit code once an input
/// could not be read (each is reported, the others still read; a container
/// from which no bundle is read is one), else 0. The generation is
/// [`Program::generation`]'s: `arch`, else the container's target's, else the
/// best fit of its bundles (said once per container), v2 for a raw file.
pub fn each_program(paths: &[PathBuf], arch: Option<Generation>, max_bytes: u64, mut each: impl FnMut(&str, &Program, &Choice)) -> u8 {
    let (inputs, mut code) = find(paths);
    for Found { path, shown, .. } in &inputs {
        let program = match input::load(path, max_bytes) {
            Ok(p) => p,
            Err(e) => {
                code = crate::out::fail(e);
                continue;
            }
        };
        let choice = program.generation(arch);
        each(shown, &program, &choice);
    }
    code
}

/// One program file found under the paths given.
pub struct Found {
    pub path: PathBuf,
    /// Its name in the output: relative to the folder given, or the file as given.
    pub shown: String,
    /// Its path relative to the argument it was found under (a file given
    /// itself: its file name): what a shard is chosen by, the same on any machine.
    pub relative: String,
}

/// Every program under `paths` in a stable order (folders walked for
/// `*.neff`), and the usage/I-O code if a folder could not be read.
pub fn find(paths: &[PathBuf]) -> (Vec<Found>, u8) {
    let mut code = 0u8;
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, p, &mut found, &mut code);
            out.extend(found.into_iter().map(|(path, shown)| Found { path, relative: shown.clone(), shown }));
        } else {
            let relative = p.file_name().map_or_else(|| name(p), |f| f.to_string_lossy().into_owned());
            out.push(Found { path: p.clone(), shown: name(p), relative });
        }
    }
    (out, code)
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
