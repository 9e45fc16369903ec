//! Programs given as paths, as every command that reads programs takes them:
//! files (NEFF containers or raw bundle files) or folders searched for
//! `*.neff`, each with the name the output gives it. [`expand`] is the one
//! walker; [`each_program`] loads what it finds.

use crate::input::{self, Program};
use std::path::{Component, Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::neff::Choice;

/// A program file to read: its path, and the name outputs give it (a file
/// argument as given, a file found in a folder relative to that folder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub shown: String,
    /// Its path relative to the argument it was found under (a file given
    /// itself: its file name): what a shard is chosen by, the same on any machine.
    pub relative: String,
}

/// The program files `paths` name, in a stable order: a file as given, a
/// folder replaced by every `*.neff` under it ([`walk`]'s order). A folder
/// holding none, or one that cannot be read, is reported (one error line
/// naming it) and the usage/I-O code returned with what was found; with
/// `verbose`, each folder's finds are listed on stderr.
pub fn expand(paths: &[PathBuf], verbose: bool) -> (Vec<Found>, u8) {
    let mut code = 0u8;
    let mut found = Vec::new();
    for p in paths {
        let (here, errors) = list_one(p);
        for e in &errors {
            code = crate::out::fail(e);
        }
        if verbose && p.is_dir() && !here.is_empty() {
            eprintln!("tpb: {}: {} *.neff file(s) found:", input::shown(p), here.len());
            for f in &here {
                eprintln!("tpb:   {}", input::shown(&f.path));
            }
        }
        found.extend(here);
    }
    (found, code)
}

/// What [`expand`] finds, with its error messages instead of printing them
/// (for callers that raise rather than print, as the Python API does).
pub fn list(paths: &[PathBuf]) -> (Vec<Found>, Vec<String>) {
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    for p in paths {
        let (here, e) = list_one(p);
        found.extend(here);
        errors.extend(e);
    }
    (found, errors)
}

fn list_one(p: &Path) -> (Vec<Found>, Vec<String>) {
    if !p.is_dir() {
        let relative = p.file_name().map_or_else(|| name(p), |f| f.to_string_lossy().into_owned());
        return (vec![Found { path: p.to_path_buf(), shown: name(p), relative }], Vec::new());
    }
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    walk(p, p, &mut found, &mut errors);
    // An unreadable folder has been named already.
    if found.is_empty() && errors.is_empty() {
        errors.push(format!("{}: no *.neff file in this folder (searched with its subfolders)", input::shown(p)));
    }
    (found, errors)
}

/// Calls `each(shown name, program, generation)` for every program under
/// `paths`, in a stable order; returns the usage/I-O exit code once an input
/// could not be read (each is reported, the others still read; a container
/// from which no bundle is read is one), else 0. The generation is
/// [`Program::generation`]'s: `arch`, else the container's target's, else the
/// best fit of its bundles (said once per container), v2 for a raw file.
pub fn each_program(paths: &[PathBuf], arch: Option<Generation>, max_bytes: u64, mut each: impl FnMut(&str, &Program, &Choice)) -> u8 {
    let (inputs, mut code) = expand(paths, false);
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

/// Every `*.neff` file under `dir`, depth first in name order, named relative
/// to `root`; symlinks are not followed. An unreadable folder is reported.
fn walk(root: &Path, dir: &Path, out: &mut Vec<Found>, errors: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir).and_then(|d| d.collect::<Result<Vec<_>, _>>()) {
        Ok(e) => e,
        Err(e) => {
            errors.push(format!("{}: cannot read folder: {e}", input::shown(dir)));
            return;
        }
    };
    let mut entries: Vec<_> = entries.into_iter().map(|e| (e.file_name(), e.path(), e.file_type())).collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, path, kind) in entries {
        match kind {
            Ok(t) if t.is_dir() => walk(root, &path, out, errors),
            Ok(t) if t.is_file() && path.extension().is_some_and(|x| x.eq_ignore_ascii_case("neff")) => {
                let shown = name(path.strip_prefix(root).unwrap_or(&path));
                out.push(Found { path, relative: shown.clone(), shown });
            }
            Ok(_) => {}
            Err(e) => errors.push(format!("{}: {e}", input::shown(&path))),
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

#[cfg(test)]
mod tests {
    use super::list;
    use std::path::PathBuf;

    #[test]
    fn list_gives_the_finds_and_the_errors_expand_would_print() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let (full, empty) = (dir.path().join("full"), dir.path().join("empty"));
        std::fs::create_dir_all(full.join("sub"))?;
        std::fs::create_dir_all(&empty)?;
        for f in ["b.neff", "sub/a.neff", "notes.txt"] {
            std::fs::write(full.join(f), b"")?;
        }
        let file = dir.path().join("x.bin");
        let (found, errors) = list(&[full.clone(), empty.clone(), file.clone()]);
        let relative: Vec<&str> = found.iter().map(|f| f.relative.as_str()).collect();
        assert_eq!(relative, ["b.neff", "sub/a.neff", "x.bin"]);
        assert_eq!(found[2].path, file);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("empty: no *.neff file in this folder"), "{errors:?}");
        assert_eq!(list(&[] as &[PathBuf]), (vec![], vec![]));
        Ok(())
    }
}
