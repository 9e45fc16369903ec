//! The dated report folder, built whole beside its final place and swapped
//! in when complete: a reader sees the previous complete report or the new
//! one, never a mix (between the two renames of `commit`, for an instant, no
//! folder at all: a true exchange needs `renameat2`, which std does not
//! offer). The run writes into `<out>/.<date>.tmp-<pid>`; `commit` renames
//! any existing `<out>/<date>` to `<out>/.<date>.old-<pid>`, renames the new
//! folder into place and removes the old one. Dropped without a commit (an
//! error on the way), the temporary folder is removed; one left by a killed
//! run is removed by the next run once its process is gone, unless the kill
//! came between the two renames: then the finished report is moved into place.

use crate::error::{Context as _, Result};
use std::path::{Path, PathBuf};

/// A report folder under construction.
pub struct Staging {
    /// Where the run writes.
    tmp: PathBuf,
    /// Where the finished report goes.
    dest: PathBuf,
    committed: bool,
}

impl Staging {
    /// An empty temporary folder for the report `<out>/<name>`.
    pub fn new(out: &Path, name: &str) -> Result<Staging> {
        std::fs::create_dir_all(out).context_with(|| format!("{}: cannot create the reports root", out.display()))?;
        sweep_stale(out);
        let tmp = out.join(format!(".{name}.tmp-{}", std::process::id()));
        // Left by an earlier process with our pid that was killed mid-run.
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).context_with(|| format!("{}: cannot remove a stale temporary folder", tmp.display()))?;
        }
        std::fs::create_dir(&tmp).context_with(|| format!("{}: cannot create the report folder", tmp.display()))?;
        Ok(Staging { tmp, dest: out.join(name), committed: false })
    }

    /// The folder to write the report into.
    pub fn dir(&self) -> &Path {
        &self.tmp
    }

    /// Swaps the finished folder into place; the final path.
    pub fn commit(mut self) -> Result<PathBuf> {
        let name = self.dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let backup = self.dest.with_file_name(format!(".{name}.old-{}", std::process::id()));
        let had_old = std::fs::symlink_metadata(&self.dest).is_ok();
        if had_old {
            if backup.exists() {
                remove_any(&backup).context_with(|| format!("{}: cannot remove a stale backup", backup.display()))?;
            }
            std::fs::rename(&self.dest, &backup).context_with(|| format!("{}: cannot move the previous report aside", self.dest.display()))?;
        }
        if let Err(e) = std::fs::rename(&self.tmp, &self.dest) {
            if had_old {
                let _ = std::fs::rename(&backup, &self.dest);
            }
            return Err(crate::error::Error::context(format!("{}: cannot move the new report into place", self.dest.display()), e));
        }
        self.committed = true;
        // The new report is in place; a backup that will not go is only worth a warning.
        if had_old {
            if let Err(e) = remove_any(&backup) {
                eprintln!("tpb: warning: {}: cannot remove the previous report: {e}", backup.display());
            }
        }
        Ok(self.dest.clone())
    }
}

/// Sweeps the `.<date>.tmp-<pid>` and `.<date>.old-<pid>` folders of runs
/// killed mid-way, of any date, once `/proc` shows their process is gone
/// (where there is no `/proc`, or the process lives, they stay). A run killed
/// between the two renames of `commit` left no `<date>` folder: its finished
/// report (a staging folder holding `summary.md`, written last) is moved into
/// place, else the report it had moved aside is put back.
fn sweep_stale(out: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(out) else { return };
    // (date, finished new report?, path) of every dead run's folder.
    let mut dead: Vec<(String, bool, PathBuf)> = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let file_name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix('.') else { continue };
        let parsed = rest.rsplit_once(".tmp-").map(|(d, p)| (d, p, true)).or_else(|| rest.rsplit_once(".old-").map(|(d, p)| (d, p, false)));
        let Some((date, pid, is_tmp)) = parsed else { continue };
        let gone = pid.parse::<u32>().is_ok_and(|p| !Path::new(&format!("/proc/{p}")).exists());
        if gone {
            let finished = is_tmp && e.path().join("summary.md").is_file();
            dead.push((date.to_string(), finished || !is_tmp, e.path()));
        }
    }
    // Finished new reports first, then the ones moved aside.
    dead.sort_by_key(|(_, keep, p)| (!keep, !p.to_string_lossy().contains(".tmp-")));
    for (date, keep, path) in &dead {
        let dest = out.join(date);
        if *keep && std::fs::symlink_metadata(&dest).is_err() && std::fs::rename(path, &dest).is_ok() {
            continue;
        }
        let _ = remove_any(path);
    }
}

/// Removes a folder with its contents, or a file.
fn remove_any(p: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(p)?.is_dir() {
        std::fs::remove_dir_all(p)
    } else {
        std::fs::remove_file(p)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type R<T> = Result<T, Box<dyn std::error::Error>>;

    fn names(dir: &Path) -> R<Vec<String>> {
        let mut v: Vec<String> = std::fs::read_dir(dir)?.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        Ok(v)
    }

    #[test]
    fn commit_replaces_the_previous_report_entirely() -> R<()> {
        let out = tempfile::tempdir()?;
        let old = out.path().join("2026-01-02");
        std::fs::create_dir_all(old.join("failures"))?;
        std::fs::write(old.join("failures/stale.bin"), b"x")?;
        std::fs::write(old.join("summary.md"), b"old")?;
        let s = Staging::new(out.path(), "2026-01-02")?;
        std::fs::write(s.dir().join("summary.md"), b"new")?;
        let dest = s.commit()?;
        assert_eq!(dest, old);
        assert_eq!(names(out.path())?, ["2026-01-02"]);
        assert_eq!(names(&dest)?, ["summary.md"]);
        assert_eq!(std::fs::read(dest.join("summary.md"))?, b"new");
        Ok(())
    }

    #[test]
    fn folders_of_killed_runs_are_swept_once_their_process_is_gone() -> R<()> {
        if !Path::new("/proc/self").exists() {
            return Ok(());
        }
        let out = tempfile::tempdir()?;
        // No pid is this large on Linux (pid_max is at most 2^22).
        let dead = u32::MAX;
        let live = std::process::id();
        for n in [format!(".2026-01-02.tmp-{dead}"), format!(".2026-01-02.old-{dead}"), format!(".2026-01-02.tmp-{live}")] {
            std::fs::create_dir(out.path().join(n))?;
        }
        std::fs::create_dir(out.path().join(".2026-01-03.tmp-1"))?;
        std::fs::create_dir(out.path().join(format!(".2025-12-31.tmp-{dead}")))?;
        let s = Staging::new(out.path(), "2026-01-02")?;
        // Our own pid's leftover is replaced by the fresh folder; a live process's stays; dead ones of any day go,
        // but for a report a dead run had moved aside with nothing in its place: that one is put back.
        let want = [".2026-01-02.tmp-".to_string() + &live.to_string(), ".2026-01-03.tmp-1".to_string(), "2026-01-02".to_string()];
        assert_eq!(names(out.path())?, want);
        drop(s);
        Ok(())
    }

    #[test]
    fn a_run_killed_between_its_renames_keeps_its_finished_report() -> R<()> {
        if !Path::new("/proc/self").exists() {
            return Ok(());
        }
        let out = tempfile::tempdir()?;
        let dead = u32::MAX;
        // Killed after moving the old report aside, before moving the new one in.
        for (n, text) in [(format!(".2026-01-02.old-{dead}"), "old"), (format!(".2026-01-02.tmp-{dead}"), "new")] {
            std::fs::create_dir(out.path().join(&n))?;
            std::fs::write(out.path().join(&n).join("summary.md"), text)?;
        }
        // Killed mid-run on another day, after moving its old report aside: the old one comes back.
        std::fs::create_dir(out.path().join(format!(".2026-01-01.old-{dead}")))?;
        std::fs::write(out.path().join(format!(".2026-01-01.old-{dead}/summary.md")), "older")?;
        std::fs::create_dir(out.path().join(format!(".2026-01-01.tmp-{dead}")))?;
        let s = Staging::new(out.path(), "2026-01-05")?;
        drop(s);
        assert_eq!(names(out.path())?, ["2026-01-01", "2026-01-02"]);
        assert_eq!(std::fs::read(out.path().join("2026-01-02/summary.md"))?, b"new");
        assert_eq!(std::fs::read(out.path().join("2026-01-01/summary.md"))?, b"older");
        Ok(())
    }

    #[test]
    fn commit_without_a_previous_report() -> R<()> {
        let out = tempfile::tempdir()?;
        let root = out.path().join("reports");
        let s = Staging::new(&root, "2026-01-02")?;
        std::fs::write(s.dir().join("junit.xml"), b"<x/>")?;
        let dest = s.commit()?;
        assert_eq!(names(&root)?, ["2026-01-02"]);
        assert_eq!(names(&dest)?, ["junit.xml"]);
        Ok(())
    }

    #[test]
    fn dropped_without_commit_removes_the_temporary_folder_and_keeps_the_old_report() -> R<()> {
        let out = tempfile::tempdir()?;
        std::fs::create_dir(out.path().join("2026-01-02"))?;
        std::fs::write(out.path().join("2026-01-02/summary.md"), b"old")?;
        {
            let s = Staging::new(out.path(), "2026-01-02")?;
            std::fs::write(s.dir().join("summary.md"), b"half")?;
        }
        assert_eq!(names(out.path())?, ["2026-01-02"]);
        assert_eq!(std::fs::read(out.path().join("2026-01-02/summary.md"))?, b"old");
        Ok(())
    }
}
