//! A user's worker as the CLI opens it, for `tpb differ` and `tpb conform
//! --worker-*` alike: a command, or a library run in a child process (this
//! executable again, `differ --serve-lib`) or in-process; and the bundles of
//! real programs fed to it, read as every command reads programs.

use crate::error::{Context as _, Error, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tpb_differ::inputs::Real;
use tpb_differ::worker::{Library, Process, Worker};
use tpb_oracle::text_safe::escape;

/// How one of a worker's requests is reproduced by hand (a shell line).
pub type Reproduce = Box<dyn Fn(&str) -> String>;

/// A worker as a command (`cmd`) or a library (`lib`, in a child process
/// unless `in_process`), and how one of its requests is reproduced by hand.
pub fn open(cmd: Option<&str>, lib: Option<&Path>, in_process: bool, timeout: Duration) -> Result<(Box<dyn Worker>, Reproduce)> {
    let by_hand = |argv: String| -> Reproduce { Box::new(move |line: &str| format!("printf '%s\\n' {} | {argv}", quote(line))) };
    if let Some(cmd) = cmd {
        let p = Process::new(cmd, timeout)?;
        return Ok((Box::new(p), by_hand(cmd.to_string())));
    }
    let Some(lib) = lib else { return Err(Error::from("name a worker: --cmd COMMAND or --lib PATH")) };
    // Loaded here once either way: a library that does not load is a usage error, not a crash per request.
    let loaded = Library::load(lib)?;
    let mut serve = this_command()?;
    serve.extend(["differ".to_string(), "--serve-lib".to_string(), lib.display().to_string()]);
    let shown = shlex::try_join(serve.iter().map(String::as_str)).unwrap_or_else(|_| serve.join(" "));
    if in_process {
        return Ok((Box::new(loaded), by_hand(shown)));
    }
    Ok((Box::new(Process::from_argv(serve, timeout)), by_hand(shown)))
}

/// How to start `tpb` again: `$TPB_SELF` (the Python package sets it: there
/// the executable is the interpreter), else this executable.
fn this_command() -> Result<Vec<String>> {
    if let Ok(cmd) = std::env::var("TPB_SELF") {
        return shlex::split(&cmd).filter(|a| !a.is_empty()).ok_or_else(|| Error::Message(format!("TPB_SELF `{}` is not a command", escape(&cmd))));
    }
    let exe = std::env::current_exe().context_with(|| "cannot find the tpb executable to run the library in")?;
    Ok(vec![exe.display().to_string()])
}

/// The distinct bundles of the programs under `paths` (files, or folders
/// searched for `*.neff`), each judged under its own generation; an
/// unreadable one is reported and its exit code returned.
pub fn real_bundles(paths: &[PathBuf]) -> Result<Real, u8> {
    let mut real = Real::default();
    if paths.is_empty() {
        return Ok(real);
    }
    let code = crate::programs::each_program(paths, None, tpb_oracle::neff::MAX_FILE, |shown, program, choice| {
        for s in program.streams() {
            real.add_stream(choice.generation, s.bytes, &format!("{shown}:{}", s.member));
        }
    });
    if code != 0 {
        return Err(code);
    }
    Ok(real)
}

fn quote(s: &str) -> String {
    shlex::try_quote(s).map_or_else(|_| format!("'{s}'"), |q| q.into_owned())
}
