//! What `tpb` prints and writes. Stdout is buffered, write errors are
//! returned and the final flush is checked. A reader that stops early
//! (`| head`: EPIPE) is not our failure: the command exits quietly with its
//! own verdict. Any other failure (a full disk, `> /dev/full`) is one line,
//! `cannot write to stdout: <error>`, and the I/O exit code. Errors are one
//! line on stderr; files are written whole ([`write_atomic`]). Output is
//! never silently lost, with one exception this code cannot see: a stdout
//! closed when `tpb` starts (`>&-`) is reopened on `/dev/null` by the Rust
//! runtime before `main`, so writes to it succeed.

use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};

/// Usage or I/O error (bad arguments, unreadable or malformed input).
pub const EXIT_USAGE: u8 = 2;

/// `1 input`, `2 inputs`: a count with its noun.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Prints a one-line error and returns the usage/I-O exit code.
pub fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("tpb: error: {msg}");
    EXIT_USAGE
}

/// Writes `bytes` to `path` so that no reader sees half a file and no one
/// else's file is touched:
///
/// * a regular file (or an absent path) is replaced atomically: the bytes go
///   to a temporary file with a random name created exclusively (`O_EXCL`,
///   never through a symlink) in the same folder, which is then renamed over
///   `path`; a replaced file keeps its permissions (and, for root, its owner),
///   a new one gets `0666 & !umask`;
/// * a symlink is followed to its final target, which is replaced atomically
///   (or created, when the link dangles): the link stays a link;
/// * anything else that exists (a device such as `/dev/null`, a FIFO) is
///   opened and written into, never replaced or truncated; so is what a link
///   of `/proc` names (`/dev/stdout`, `/dev/fd/N`), appended to when that is
///   a regular file (as the shell opened it: `>` truncated it, `>>` appends).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let metadata = |p: &Path| match std::fs::metadata(p) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    };
    // What opening `path` reaches, through every link (those of /proc included).
    let opened = metadata(path)?;
    match &opened {
        Some(m) if m.is_dir() => return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")),
        Some(m) if !m.is_file() => return write_into(path, bytes, false),
        _ => {}
    }
    let (target, through_proc) = follow_links(path)?;
    if through_proc && opened.is_some() {
        // A file open in a process (`/dev/stdout`): written into as it was opened.
        return write_into(path, bytes, true);
    }
    let existing = metadata(&target)?.filter(|m| m.is_file());
    replace(&target, bytes, existing.as_ref())
}

/// Writes into what `path` opens (a device, a FIFO, a file open in this
/// process): never created, replaced or truncated.
fn write_into(path: &Path, bytes: &[u8], append: bool) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).append(append).open(path)?;
    if !append && file.metadata()?.is_file() {
        // It became a regular file after it was looked at: leave it whole.
        return Err(io::Error::other("changed into a regular file while being opened"));
    }
    file.write_all(bytes)?;
    file.flush()
}

/// The path a chain of symlinks ends at (itself when `path` is no link; the
/// end may not exist), and whether a link of the chain lives in `/proc` (names
/// what a process has open, as `/dev/stdout` does). Relative links are read
/// from their link's folder.
fn follow_links(path: &Path) -> io::Result<(PathBuf, bool)> {
    let mut at = path.to_path_buf();
    let mut through_proc = false;
    // The kernel's own limit on a chain (ELOOP).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let dir = at.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                through_proc |= std::fs::canonicalize(dir).is_ok_and(|d| d.starts_with("/proc"));
                let to = std::fs::read_link(&at)?;
                at = if to.is_relative() { dir.join(to) } else { to };
            }
            // The end of the chain: what exists, or nothing (a dangling link's
            // target). Only a race gets any other error here, after the caller's
            // look through the chain; writing the end meets it again and says it.
            Ok(_) | Err(_) => return Ok((at, through_proc)),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Replaces (or creates) the regular file `path` through an exclusively
/// created temporary sibling with a random name.
fn replace(path: &Path, bytes: &[u8], existing: Option<&std::fs::Metadata>) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // A short, recognisable prefix: the random part must fit the folder's name limit.
    let name: String = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default().chars().take(64).collect();
    // Created with 0666 under the umask (the mode of a new file), not tempfile's 0600.
    let mut tmp =
        tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").permissions(std::fs::Permissions::from_mode(0o666)).tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    if let Some(m) = existing {
        // Best effort on the owner (only root may give a file away), then the mode:
        // chown clears set-id bits, so the mode comes last.
        let mine = tmp.as_file().metadata()?;
        if (m.uid(), m.gid()) != (mine.uid(), mine.gid()) {
            let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(m.uid()), Some(m.gid()));
        }
        tmp.as_file().set_permissions(m.permissions())?;
    }
    // On failure the temporary file is dropped, which removes it.
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

/// Buffered, locked stdout.
pub type Stdout = BufWriter<StdoutLock<'static>>;

pub fn stdout() -> Stdout {
    BufWriter::new(io::stdout().lock())
}

/// Stdout for a command that goes through several inputs. Once the reader
/// has left, writes are skipped and the command goes on, so its exit code
/// still covers every input.
pub struct Sink {
    out: Stdout,
    left: bool,
}

impl Sink {
    pub fn new() -> Sink {
        Sink { out: stdout(), left: false }
    }

    /// Runs `write` unless the reader has left; `Err(exit code)` when stdout
    /// failed otherwise (`code`: the command's verdict so far).
    pub fn write(&mut self, code: u8, write: impl FnOnce(&mut Stdout) -> io::Result<()>) -> Result<(), u8> {
        if self.left {
            return Ok(());
        }
        match write(&mut self.out) {
            Err(e) if reader_left(&e) => {
                self.left = true;
                Ok(())
            }
            Err(e) => Err(lost(&e, code)),
            Ok(()) => Ok(()),
        }
    }

    /// Flushes: `code`, or the failure's code.
    pub fn finish(mut self, code: u8) -> u8 {
        if self.left {
            code
        } else {
            finish(&mut self.out, code)
        }
    }
}

/// Flushes `out`: `code` when everything reached stdout (or the reader left), else the failure's code.
pub fn finish(out: &mut impl Write, code: u8) -> u8 {
    match out.flush() {
        Ok(()) => code,
        Err(e) => lost(&e, code),
    }
}

/// Writes `text` to stdout and flushes: `code`, or the failure's code.
pub fn print(text: &str, code: u8) -> u8 {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => code,
        Err(e) => lost(&e, code),
    }
}

/// Whether a failed write means the reader stopped early.
pub fn reader_left(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// The exit code after a failed stdout write: `code` (the command's verdict)
/// when the reader left, else one error line and 2.
pub fn lost(e: &io::Error, code: u8) -> u8 {
    lost_or(e, code, EXIT_USAGE)
}

/// As [`lost`], with the command's own I/O error code.
pub fn lost_or(e: &io::Error, code: u8, io_code: u8) -> u8 {
    if reader_left(e) {
        return code;
    }
    eprintln!("tpb: error: cannot write to stdout: {e}");
    io_code
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt as _};

    type Result = std::result::Result<(), Box<dyn std::error::Error>>;

    fn mode(path: &Path) -> io::Result<u32> {
        Ok(std::fs::metadata(path)?.permissions().mode() & 0o7777)
    }

    /// Names in `dir` other than `keep`: a temporary file left behind.
    fn others(dir: &Path, keep: &[&str]) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for e in std::fs::read_dir(dir)? {
            let name = e?.file_name().to_string_lossy().into_owned();
            if !keep.contains(&name.as_str()) {
                names.push(name);
            }
        }
        Ok(names)
    }

    #[test]
    fn a_symlink_planted_at_the_old_temporary_name_redirects_nothing() -> Result {
        let dir = tempfile::tempdir()?;
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious")?;
        // The name the old code wrote through, following links, without O_EXCL.
        let planted = dir.path().join(format!(".out.bin.tmp{}", std::process::id()));
        symlink(&victim, &planted)?;
        let out = dir.path().join("out.bin");
        write_atomic(&out, b"new bytes")?;
        assert_eq!(std::fs::read_to_string(&victim)?, "precious");
        assert_eq!(std::fs::read(&out)?, b"new bytes");
        assert!(std::fs::symlink_metadata(&planted)?.file_type().is_symlink());
        Ok(())
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() -> Result {
        let dir = tempfile::tempdir()?;
        for m in [0o600, 0o755, 0o640] {
            let path = dir.path().join(format!("f{m:o}"));
            std::fs::write(&path, "old")?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(m))?;
            write_atomic(&path, b"new")?;
            assert_eq!(std::fs::read(&path)?, b"new");
            assert_eq!(mode(&path)?, m, "{}", path.display());
        }
        Ok(())
    }

    #[test]
    fn a_reader_that_left_keeps_the_verdict_and_any_other_failure_is_an_io_error() {
        let (gone, full) = (io::Error::from(io::ErrorKind::BrokenPipe), io::Error::from(io::ErrorKind::StorageFull));
        assert!(reader_left(&gone) && !reader_left(&full));
        assert_eq!((lost(&gone, 1), lost(&full, 1)), (1, EXIT_USAGE));
        assert_eq!((lost_or(&gone, 1, 3), lost_or(&full, 1, 3)), (1, 3));
        // A Sink stops writing once the reader has left, and reports any other failure.
        let mut sink = Sink::new();
        assert_eq!(sink.write(1, |_| Err(io::Error::from(io::ErrorKind::BrokenPipe))), Ok(()));
        let mut called = false;
        assert_eq!(
            sink.write(1, |_| {
                called = true;
                Ok(())
            }),
            Ok(())
        );
        assert!(!called, "written after the reader left");
        assert_eq!(sink.finish(1), 1);
        let mut sink = Sink::new();
        assert_eq!(sink.write(1, |_| Err(io::Error::from(io::ErrorKind::StorageFull))), Err(EXIT_USAGE));
    }

    #[test]
    fn a_replaced_file_keeps_its_owner_where_root_can_give_it() -> Result {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("owned");
        std::fs::write(&path, "old")?;
        let (uid, gid) = (4321, 4322);
        if std::os::unix::fs::chown(&path, Some(uid), Some(gid)).is_err() {
            tpb_isa::test_skip::skipped("out: not root here (cannot give a file away)");
            return Ok(());
        }
        write_atomic(&path, b"new")?;
        let m = std::fs::metadata(&path)?;
        use std::os::unix::fs::MetadataExt as _;
        assert_eq!((m.uid(), m.gid()), (uid, gid));
        assert_eq!(std::fs::read(&path)?, b"new");
        Ok(())
    }

    #[test]
    fn a_new_file_gets_the_mode_of_any_new_file() -> Result {
        let dir = tempfile::tempdir()?;
        let reference = dir.path().join("reference");
        std::fs::File::create(&reference)?;
        let path = dir.path().join("new");
        write_atomic(&path, b"x")?;
        assert_eq!(mode(&path)?, mode(&reference)?);
        assert_eq!(others(dir.path(), &["reference", "new"])?, Vec::<String>::new());
        Ok(())
    }

    #[test]
    fn a_symlink_stays_a_link_and_its_target_is_replaced() -> Result {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("real"))?;
        std::fs::write(dir.path().join("real/out.h"), "old")?;
        // A chain of two relative links, the second from another folder.
        symlink("real/hop", dir.path().join("out.h"))?;
        symlink("out.h", dir.path().join("real/hop"))?;
        write_atomic(&dir.path().join("out.h"), b"new")?;
        assert!(std::fs::symlink_metadata(dir.path().join("out.h"))?.file_type().is_symlink());
        assert!(std::fs::symlink_metadata(dir.path().join("real/hop"))?.file_type().is_symlink());
        assert_eq!(std::fs::read(dir.path().join("real/out.h"))?, b"new");
        assert_eq!(others(&dir.path().join("real"), &["out.h", "hop"])?, Vec::<String>::new());
        Ok(())
    }

    #[test]
    fn a_dangling_symlink_gets_its_target_created() -> Result {
        let dir = tempfile::tempdir()?;
        symlink("real.h", dir.path().join("out.h"))?;
        write_atomic(&dir.path().join("out.h"), b"new")?;
        assert!(std::fs::symlink_metadata(dir.path().join("out.h"))?.file_type().is_symlink());
        assert_eq!(std::fs::read(dir.path().join("real.h"))?, b"new");
        Ok(())
    }

    #[test]
    fn a_symlink_loop_is_an_error() -> Result {
        let dir = tempfile::tempdir()?;
        symlink("b", dir.path().join("a"))?;
        symlink("a", dir.path().join("b"))?;
        let e = write_atomic(&dir.path().join("a"), b"x").err().ok_or("a loop was written")?;
        // The kernel's own error (ELOOP) from the first look, never taken for an absent file.
        assert_eq!(e.raw_os_error(), Some(40), "{e}");
        assert_eq!(others(dir.path(), &["a", "b"])?, Vec::<String>::new());
        Ok(())
    }

    #[test]
    fn a_folder_is_not_replaced_and_nothing_is_left_behind() -> Result {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("sub"))?;
        // Refused before anything is opened, in its own words.
        let e = write_atomic(&dir.path().join("sub"), b"x").err().ok_or("a folder was written")?;
        assert_eq!(e.to_string(), "is a directory");
        assert!(dir.path().join("sub").is_dir());
        assert_eq!(others(dir.path(), &["sub"])?, Vec::<String>::new());
        Ok(())
    }

    #[test]
    fn a_long_name_still_fits_the_temporary_name() -> Result {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("n".repeat(250));
        write_atomic(&path, b"x")?;
        write_atomic(&path, b"y")?;
        assert_eq!(std::fs::read(&path)?, b"y");
        Ok(())
    }
}
