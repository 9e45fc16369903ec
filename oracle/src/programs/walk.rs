//! The programs paths name, as every command that reads programs takes
//! them: files as given, folders searched for `*.neff`. The order is stable,
//! and each find carries the path a shard is chosen by, the same on any machine.

use super::ProgramError;
use std::path::{Component, Path, PathBuf};

/// A program file to read: its path, and the name outputs give it (a file
/// argument as given, a file found in a folder relative to that folder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Where to read it.
    pub path: PathBuf,
    /// The name outputs give it, control characters escaped.
    pub shown: String,
    /// Its path relative to the argument it was found under (a file given
    /// itself: its file name): what a shard is chosen by, the same on any machine.
    pub relative: String,
}

/// The program files `paths` name, in a stable order ([`find`]'s for each),
/// and the errors met on the way (each folder still searched to its end).
pub fn list(paths: &[PathBuf]) -> (Vec<Found>, Vec<ProgramError>) {
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    for p in paths {
        let (here, e) = find(p);
        found.extend(here);
        errors.extend(e);
    }
    (found, errors)
}

/// The program files one path names: a file as given, a folder replaced by
/// every `*.neff` under it, depth first in name order (symlinks not
/// followed). A folder holding none, or one that cannot be read, is an error.
pub fn find(p: &Path) -> (Vec<Found>, Vec<ProgramError>) {
    if !p.is_dir() {
        let relative = p.file_name().map_or_else(|| name(p), |f| f.to_string_lossy().into_owned());
        return (vec![Found { path: p.to_path_buf(), shown: name(p), relative }], Vec::new());
    }
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    walk(p, p, &mut found, &mut errors);
    // An unreadable folder has been named already.
    if found.is_empty() && errors.is_empty() {
        errors.push(ProgramError::NoPrograms { dir: p.to_path_buf() });
    }
    (found, errors)
}

/// Every `*.neff` file under `dir`, depth first in name order, named relative
/// to `root`; symlinks are not followed. An unreadable folder is reported.
fn walk(root: &Path, dir: &Path, out: &mut Vec<Found>, errors: &mut Vec<ProgramError>) {
    let entries = match std::fs::read_dir(dir).and_then(|d| d.collect::<Result<Vec<_>, _>>()) {
        Ok(e) => e,
        Err(source) => {
            errors.push(ProgramError::Folder { dir: dir.to_path_buf(), source });
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
            Err(source) => errors.push(ProgramError::Entry { path, source }),
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
    fn list_gives_the_finds_in_order_and_the_errors() -> Result<(), Box<dyn std::error::Error>> {
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
        assert!(errors[0].to_string().contains("empty: no *.neff file in this folder"), "{errors:?}");
        let (found, errors) = list(&[] as &[PathBuf]);
        assert!(found.is_empty() && errors.is_empty());
        Ok(())
    }
}
