//! Running baselines and `tpb` itself as child processes: wall time with
//! output discarded, and peak resident memory through GNU time.

use super::error::{Context as _, Error, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A tool on PATH, or `None`.
pub fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(tool)).find(|p| p.is_file())
}

/// One command line, for messages.
fn shown(program: &Path, args: &[&str]) -> String {
    std::iter::once(program.display().to_string()).chain(args.iter().map(|a| a.to_string())).collect::<Vec<_>>().join(" ")
}

/// Runs `program args` with stdout and stderr discarded; its wall time, or
/// why it failed (cannot start, or an exit code outside `ok_codes`).
pub fn timed(program: &Path, args: &[&str], ok_codes: &[i32]) -> Result<Duration> {
    timed_env(program, args, &[], ok_codes)
}

/// The environment under which `tpb` runs as a CPU without AVX-512 does:
/// the portable kernel chosen, the AVX-512 one hidden (rows so marked say
/// what the common CPU gets, on every machine).
pub const FORCED_PORTABLE: [(&str, &str); 2] = [(tpb_isa::validate::ENV_KERNEL, "portable"), (tpb_isa::validate::ENV_HIDE, "avx512")];

/// [`timed`] with variables added to the child's environment.
pub fn timed_env(program: &Path, args: &[&str], env: &[(&str, &str)], ok_codes: &[i32]) -> Result<Duration> {
    let (d, status) = super::timing::time(|| {
        Command::new(program).args(args).envs(env.iter().copied()).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status()
    });
    let status = status.context_with(|| format!("cannot run `{}`", shown(program, args)))?;
    match status.code() {
        Some(c) if ok_codes.contains(&c) => Ok(d),
        // What a shell, or a spawn under qemu-user, reports for a program that could not be started.
        Some(127) => Err(Error::Message(format!("cannot run `{}`: it exited with 127 (not found or not executable)", shown(program, args)))),
        Some(c) => Err(Error::Message(format!("`{}` exited with {c}", shown(program, args)))),
        None => Err(Error::Message(format!("`{}` was killed by a signal", shown(program, args)))),
    }
}

/// Peak resident set of `program args` in KiB, measured by GNU time's `%M`.
pub fn peak_rss_kib(program: &Path, args: &[&str], ok_codes: &[i32], scratch: &Path) -> Result<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return Err(Error::from("/usr/bin/time (GNU time) is not installed"));
    }
    let out = scratch.join("rss.txt");
    let out_s = out.display().to_string();
    let program_s = program.display().to_string();
    let mut full = vec!["-f", "%M", "-o", out_s.as_str(), program_s.as_str()];
    full.extend_from_slice(args);
    // GNU time passes the child's exit code through.
    timed(time, &full, ok_codes)?;
    let text = std::fs::read_to_string(&out).context_with(|| format!("{out_s}: cannot read"))?;
    // A non-zero exit adds a "Command exited with non-zero status" line first.
    text.lines().filter_map(|l| l.trim().parse::<u64>().ok()).next_back().ok_or_else(|| Error::Message(format!("{out_s}: no %M figure in {text:?}")))
}

/// A scratch directory for fixtures, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Result<Scratch> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("tpb-bench-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).context_with(|| format!("{}: cannot create", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_reports_exit_codes() {
        let Some(sh) = which("sh") else {
            eprintln!("note: no sh on PATH; skipped");
            return;
        };
        assert!(timed(&sh, &["-c", "exit 0"], &[0]).is_ok());
        assert!(timed(&sh, &["-c", "exit 4"], &[0, 4]).is_ok());
        let e = timed(&sh, &["-c", "exit 3"], &[0]).unwrap_err().to_string();
        assert!(e.contains("exited with 3"), "{e}");
        assert!(timed(Path::new("/nonexistent/tool"), &[], &[0]).unwrap_err().to_string().contains("cannot run"));
        let e = timed(&sh, &["-c", "exit 127"], &[0]).unwrap_err().to_string();
        assert!(e.contains("cannot run") && e.contains("exited with 127"), "{e}");
        assert!(timed(&sh, &["-c", "exit 127"], &[0, 127]).is_ok(), "a listed 127 is accepted");
    }

    #[test]
    fn tools_are_found_on_path_and_shown_as_command_lines() -> Result<(), Box<dyn std::error::Error>> {
        let sh = which("sh").ok_or("no sh on PATH")?;
        assert!(sh.is_absolute() && sh.ends_with("sh") && sh.is_file(), "{}", sh.display());
        assert_eq!(which("tpb-no-such-tool-anywhere"), None);
        assert_eq!(shown(Path::new("/bin/x"), &["-a", "b c"]), "/bin/x -a b c");
        assert_eq!(shown(Path::new("x"), &[]), "x");
        // The child sees the variables given, and the exit code decides.
        assert!(timed_env(&sh, &["-c", r#"test "$TPB_BENCH_X" = yes"#], &[("TPB_BENCH_X", "yes")], &[0]).is_ok());
        let e = timed_env(&sh, &["-c", r#"test "$TPB_BENCH_X" = yes"#], &[("TPB_BENCH_X", "no")], &[0])
            .err()
            .ok_or("a failing child passed")?
            .to_string();
        assert!(e.ends_with("exited with 1"), "{e}");
        let d = timed(&sh, &["-c", "sleep 0.05"], &[0])?;
        assert!(d >= Duration::from_millis(50), "{d:?}");
        let e = timed(&sh, &["-c", "kill -9 $$"], &[0]).err().ok_or("a killed child passed")?.to_string();
        assert!(e.contains("was killed by a signal"), "{e}");
        Ok(())
    }

    #[test]
    fn a_scratch_folder_is_new_each_time_and_gone_when_dropped() -> Result<(), Box<dyn std::error::Error>> {
        let (a, b) = (Scratch::new()?, Scratch::new()?);
        assert_ne!(a.0, b.0);
        std::fs::write(a.0.join("f"), b"x")?;
        let kept = a.0.clone();
        drop(a);
        assert!(!kept.exists() && b.0.is_dir());
        Ok(())
    }

    #[test]
    fn peak_rss_reads_gnu_time() -> Result<(), Box<dyn std::error::Error>> {
        let (Some(sh), true) = (which("sh"), Path::new("/usr/bin/time").is_file()) else {
            eprintln!("note: no sh or GNU time; skipped");
            return Ok(());
        };
        let s = Scratch::new()?;
        let kib = peak_rss_kib(&sh, &["-c", "exit 4"], &[4], &s.0)?;
        assert!(kib > 0 && kib < 1 << 20, "{kib} KiB");
        // A child that holds 64 MiB shows it.
        let big = peak_rss_kib(&sh, &["-c", "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}"], &[0], &s.0)?;
        assert!(big > 64 << 10, "{big} KiB");
        let e = peak_rss_kib(&sh, &["-c", "exit 4"], &[0], &s.0).err().ok_or("exit 4 passed")?.to_string();
        assert!(e.contains("exited with 4"), "{e}");
        Ok(())
    }
}
