//! Up-front checks of the paths a command was given, so bad input is a
//! one-line usage/I-O error naming the path and saying what is wrong with
//! it (the system's own words), before any work starts.

use crate::error::{Context as _, Error, Result};
use std::fs::File;
use std::path::Path;

/// `path` is a regular file this process can open for reading.
pub fn readable_file(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).context_with(|| path.display())?;
    if meta.is_dir() {
        return Err(Error::Message(format!("{}: is a directory, not a file", path.display())));
    }
    if !meta.is_file() {
        return Err(Error::Message(format!("{}: not a regular file", path.display())));
    }
    File::open(path).map(drop).context_with(|| format!("{}: cannot open", path.display()))
}

/// `dir` is an existing folder; else one line saying it is missing (or not a
/// folder) and what `what` is meant to be there.
pub fn existing_dir(dir: &Path, what: &str) -> Result<()> {
    let name = crate::programs::shown(dir);
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Error::Message(format!("{name}: not a folder ({what})"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::Message(format!("{name}: no such folder ({what})"))),
        Err(e) => Err(Error::context(format!("{name}: cannot read folder"), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type R<T> = Result<T, Box<dyn std::error::Error>>;

    #[test]
    fn a_readable_file_passes_and_the_rest_say_why_not() -> R<()> {
        let dir = tempfile::tempdir()?;
        let f = dir.path().join("a.bin");
        std::fs::write(&f, b"x")?;
        readable_file(&f)?;
        let e = readable_file(dir.path()).err().ok_or("a directory")?.to_string();
        assert!(e.contains("is a directory") && e.contains(&dir.path().display().to_string()), "{e}");
        let missing = dir.path().join("missing.bin");
        let e = readable_file(&missing).err().ok_or("missing")?.to_string();
        assert!(e.contains("missing.bin") && e.contains("No such file"), "{e}");
        Ok(())
    }

    #[test]
    fn an_existing_dir_passes_and_a_missing_one_is_named() -> R<()> {
        let dir = tempfile::tempdir()?;
        existing_dir(dir.path(), "x")?;
        let missing = dir.path().join("gone");
        let e = existing_dir(&missing, "a folder tpb neff unpack wrote").err().ok_or("missing")?.to_string();
        assert!(e.contains("gone: no such folder (a folder tpb neff unpack wrote)"), "{e}");
        let f = dir.path().join("f");
        std::fs::write(&f, b"x")?;
        assert!(existing_dir(&f, "x").err().ok_or("a file")?.to_string().contains("f: not a folder"));
        // A path through a file is not missing: it cannot be read, and the system says why.
        let e = existing_dir(&f.join("sub"), "x").err().ok_or("a path through a file")?.to_string();
        assert!(e.ends_with("f/sub: cannot read folder: Not a directory (os error 20)"), "{e}");
        Ok(())
    }
}
