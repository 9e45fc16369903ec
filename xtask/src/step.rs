//! What the commands that replaced shell under `ci/` share: a step's failure
//! (an exit status and a one-line message, as `set -e` ended the scripts),
//! running a command line, and the small tests the scripts made with
//! `command -v`, `apt-get` and `mktemp -d`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};

/// Why a command stopped: its exit status and one line saying why (empty
/// when what failed has said so already).
#[derive(Debug, PartialEq, Eq)]
pub struct Fail {
    pub code: u8,
    pub msg: String,
}

pub type Step<T = ()> = Result<T, Fail>;

pub fn fail(code: u8, msg: impl Into<String>) -> Fail {
    Fail { code, msg: msg.into() }
}

/// A command line split at whitespace (no quoting): `cmd("cargo test --workspace --locked")`.
pub fn cmd(line: &str) -> Command {
    let mut words = line.split_whitespace();
    let mut c = Command::new(words.next().unwrap_or("true"));
    c.args(words);
    c
}

/// The status a shell reports for a child: its exit code, or 128 + the signal that ended it.
pub fn code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(c), _) => u8::try_from(c).unwrap_or(1),
        (None, Some(s)) => u8::try_from(128 + s).unwrap_or(1),
        (None, None) => 1,
    }
}

/// A command as a person would type it (for messages).
pub fn shown(c: &Command) -> String {
    let mut s = c.get_program().to_string_lossy().into_owned();
    for a in c.get_args() {
        let _ = write!(s, " {}", a.to_string_lossy());
    }
    s
}

/// Runs it; a failure stops the step with the command's own status, as `set -e` did.
pub fn run(c: &mut Command) -> Step {
    let status = c.status().map_err(|e| fail(127, format!("{}: {e}", shown(c))))?;
    if status.success() {
        Ok(())
    } else {
        Err(fail(code(status), format!("`{}` failed ({status})", shown(c))))
    }
}

/// Whether it runs and exits 0, its output thrown away (`cmd >/dev/null 2>&1`).
pub fn succeeds(c: &mut Command) -> bool {
    c.stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// Its standard output (stderr passes through), or the step's failure.
pub fn capture(c: &mut Command) -> Step<String> {
    let out = c.stderr(Stdio::inherit()).output().map_err(|e| fail(127, format!("{}: {e}", shown(c))))?;
    if !out.status.success() {
        return Err(fail(code(out.status), format!("`{}` failed ({})", shown(c), out.status)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Its standard output when it runs and exits 0, else nothing; stderr thrown away (`$(cmd 2>/dev/null)`).
pub fn quiet_output(c: &mut Command) -> String {
    match c.stderr(Stdio::null()).output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => String::new(),
    }
}

/// `command -v NAME`: an executable of that name on PATH.
pub fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// `apt-get update -qq && apt-get install -y -qq PKGS >/dev/null`.
pub fn apt_install(pkgs: &[&str]) -> Step {
    run(&mut cmd("apt-get update -qq"))?;
    run(cmd("apt-get install -y -qq").args(pkgs).stdout(Stdio::null()))
}

/// `cargo fuzz list` without `empty` (libFuzzer's exec/s floor, not a property).
pub fn fuzz_targets() -> Step<Vec<String>> {
    let list = capture(&mut cmd("cargo fuzz list"))?;
    Ok(list.lines().map(str::trim).filter(|t| !t.is_empty() && *t != "empty").map(str::to_owned).collect())
}

/// The value of `key = value` in an options file (`sed -n 's/^KEY[[:space:]]*=[[:space:]]*//p'`).
pub fn option<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| Some(l.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim()))
}

/// A fresh folder removed when dropped (`mktemp -d` with `trap 'rm -rf' EXIT`).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Step<TempDir> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        for i in 0..100u32 {
            let p = base.join(format!("xtask-{tag}-{}-{nanos}-{i}", std::process::id()));
            if std::fs::create_dir(&p).is_ok() {
                return Ok(TempDir(p));
            }
        }
        Err(fail(2, format!("cannot make a temporary folder in {}", base.display())))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `rm -rf PATH`, an absent path being fine.
pub fn remove(path: &Path) -> Step {
    let r = if path.is_dir() && !path.is_symlink() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) };
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(1, format!("{}: {e}", path.display()))),
        _ => Ok(()),
    }
}

/// `mkdir -p PATH`.
pub fn mkdir(path: &Path) -> Step {
    std::fs::create_dir_all(path).map_err(|e| fail(1, format!("{}: {e}", path.display())))
}

/// The files of a folder whose names match `keep`, sorted (a shell glob: none when it is absent).
pub fn glob(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|es| es.flatten().filter(|e| e.file_name().to_str().is_some_and(|n| !n.starts_with('.') && keep(n))).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// A command's end: its message on one line, its status.
pub fn exit(name: &str, r: Step) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.msg.is_empty() {
                eprintln!("cargo xtask {name}: {}", f.msg);
            }
            ExitCode::from(f.code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_splits_at_whitespace_and_shows_as_typed() {
        let c = cmd("cargo  test --workspace\t--locked");
        assert_eq!(shown(&c), "cargo test --workspace --locked");
        assert_eq!(shown(&cmd("")), "true");
    }

    #[test]
    fn statuses_are_the_shells() {
        use std::os::unix::process::ExitStatusExt as _;
        assert_eq!(code(ExitStatus::from_raw(0)), 0);
        assert_eq!(code(ExitStatus::from_raw(3 << 8)), 3);
        // Killed by SIGINT (2): 130, as bash says.
        assert_eq!(code(ExitStatus::from_raw(2)), 130);
        assert_eq!(run(&mut cmd("true")).map_err(|f| f.code), Ok(()));
        assert_eq!(run(Command::new("sh").args(["-c", "exit 7"])).map_err(|f| f.code), Err(7));
        assert_eq!(run(&mut cmd("/nonexistent/tool")).map_err(|f| f.code), Err(127));
    }

    #[test]
    fn options_read_as_sed_read_them() {
        let text = "[libfuzzer]\nmax_len = 4096\ndict =  bundle.dict \nmax_len_x=1\n";
        assert_eq!(option(text, "max_len"), Some("4096"));
        assert_eq!(option(text, "dict"), Some("bundle.dict"));
        assert_eq!(option(text, "only_ascii"), None);
    }

    #[test]
    fn a_temporary_folder_goes_when_dropped() {
        let t = TempDir::new("test").map_err(|f| f.msg).unwrap_or_else(|e| panic!("{e}"));
        let p = t.path().to_owned();
        assert!(p.is_dir());
        std::fs::write(p.join("f"), "x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(glob(&p, |n| n == "f"), [p.join("f")]);
        drop(t);
        assert!(!p.exists());
        assert_eq!(remove(&p), Ok(()));
    }
}
