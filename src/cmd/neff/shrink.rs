//! `tpb neff shrink IN --predicate CMD -o OUT [--max-tests N] [--timeout SECS] [-q]`:
//! the smallest container on which `CMD FILE` still exits with the status
//! it did on IN (after C-Reduce and wasm-tools' `shrink`). The reduction
//! is the library's (`tpb_oracle::neff::shrink`); this file runs the
//! command. Each run is `sh -c 'CMD "$1"' sh FILE` on a copy of the
//! candidate in a fresh temporary folder (FILE ends in `.neff`, so IN is
//! never handed to the command), its output discarded, its whole process
//! group killed when `sh` exits or the time runs out (a run that times out
//! has no status to keep). IN is run twice first: the status to keep, and
//! that it is reproducible.

use super::super::fail;
use rustix::process::{kill_process_group, waitid, Pid, Signal, WaitId, WaitIdOptions};
use std::fmt;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tpb_oracle::neff::{self, shrink};

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 written (OUT, atomically); 2 usage, I/O, a malformed container, or a predicate that cannot run, times out on IN or does not exit the same way twice on IN (one error line, nothing written). IN is never changed."
)]
pub struct Args {
    /// The container a simulator or runtime misbehaves on (read only).
    file: PathBuf,
    /// The command whose exit status on IN is kept, run as `CMD FILE` through `sh -c` (CMD may hold arguments) on each candidate.
    #[arg(long, value_name = "CMD")]
    predicate: String,
    /// The container to write (atomically).
    #[arg(short, long)]
    output: PathBuf,
    /// Most predicate runs for the reduction (the two on IN besides).
    #[arg(long, default_value_t = shrink::MAX_TESTS, value_name = "N")]
    max_tests: usize,
    /// Seconds one predicate run may take (fractions allowed); a run that takes longer is killed and counts as another status.
    #[arg(long, default_value = "10", value_parser = parse_timeout, value_name = "SECS")]
    timeout: Duration,
    /// Log no step on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Refuse a container larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = neff::MAX_FILE)]
    max_bytes: u64,
}

/// The longest `--timeout`: a day.
const MAX_TIMEOUT: f64 = 86_400.0;

// A String: clap prints it as is after "invalid value '…' for '--timeout <SECS>'".
fn parse_timeout(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= MAX_TIMEOUT) {
        return Err(format!("{s} seconds is not within (0, {MAX_TIMEOUT}]"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// How a predicate run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Exit(i32),
    Signal(i32),
    TimedOut,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Exit(c) => write!(f, "exit {c}"),
            Status::Signal(s) => write!(f, "signal {s}"),
            Status::TimedOut => write!(f, "timed out"),
        }
    }
}

/// The command, and the file each candidate is written to.
struct Predicate {
    cmd: String,
    file: PathBuf,
    timeout: Duration,
}

impl Predicate {
    /// How `CMD FILE` ends with `bytes` in FILE.
    fn run(&self, bytes: &[u8]) -> std::io::Result<Status> {
        std::fs::write(&self.file, bytes)?;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("{} \"$1\"", self.cmd))
            .arg("sh")
            .arg(&self.file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group, so all it starts is killed with it.
            .process_group(0)
            .spawn()?;
        let pid = Pid::from_child(&child);
        let deadline = Instant::now() + self.timeout;
        let mut nap = Duration::from_millis(1);
        let timed_out = loop {
            // Not reaped (NOWAIT): until it is, its group id cannot be reused, so the kill below hits only its group.
            match waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT) {
                Ok(Some(_)) => break false,
                Ok(None) => {}
                Err(e) => {
                    let _ = kill_process_group(pid, Signal::KILL);
                    let _ = child.wait();
                    return Err(e.into());
                }
            }
            let now = Instant::now();
            if now >= deadline {
                break true;
            }
            std::thread::sleep(nap.min(deadline - now));
            nap = (nap * 2).min(Duration::from_millis(20));
        };
        // Whatever it left running (or, on a timeout, all of it) goes now; none may be left.
        let _ = kill_process_group(pid, Signal::KILL);
        let status = child.wait()?;
        Ok(match (timed_out, status.code(), status.signal()) {
            (true, _, _) => Status::TimedOut,
            (false, Some(c), _) => Status::Exit(c),
            (false, None, Some(s)) => Status::Signal(s),
            (false, None, None) => Status::Exit(-1),
        })
    }
}

pub fn run(a: Args) -> u8 {
    let shown = |p: &Path| crate::programs::shown(p);
    if a.predicate.trim().is_empty() {
        return fail("neff shrink: --predicate is empty: give the command that tells an interesting container (run as `CMD FILE`)");
    }
    if same_file(&a.file, &a.output) {
        return fail(format!("neff shrink: {} is IN and OUT: IN is never changed, choose another -o", shown(&a.file)));
    }
    let name = a.file.display().to_string();
    let opts = shrink::Options { max_tests: a.max_tests, limits: neff::Limits { max_file: a.max_bytes, ..neff::Limits::default() } };
    let bytes = match neff::read_container(&a.file, opts.limits.max_file) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    // Bad input is said before the predicate runs.
    let input = match neff::parse_with(&bytes, &name, &opts.limits) {
        Ok(n) => n,
        Err(e) => return fail(e),
    };
    if let Some(e) = input.unread() {
        return fail(e);
    }
    if !input.integrity.ok() && input.integrity.algorithm.is_some() {
        eprintln!(
            "tpb: warning: {}: payload digest does not match ({}); every candidate carries one that does",
            shown(&a.file),
            input.integrity.describe()
        );
    }
    let dir = match tempfile::Builder::new().prefix("tpb-shrink.").tempdir() {
        Ok(d) => d,
        Err(e) => return fail(format!("neff shrink: cannot create a temporary folder: {e}")),
    };
    let p = Predicate { cmd: a.predicate.clone(), file: dir.path().join("candidate.neff"), timeout: a.timeout };
    let cmd = tpb_oracle::text_safe::escape(&a.predicate);
    let started = Instant::now();
    let keep = match status_on_input(&p, &bytes) {
        Ok(s) => s,
        Err(why) => return fail(format!("neff shrink: predicate `{cmd}` on {}: {why}", shown(&a.file))),
    };
    if !a.quiet {
        eprintln!("tpb: shrink: `{cmd}` gives {keep} on {} (twice): reducing while it does", shown(&a.file));
    }
    let result = shrink::shrink_with(
        &bytes,
        &name,
        &opts,
        |c| p.run(c).map(|s| s == keep),
        |step| {
            if !a.quiet {
                eprintln!("tpb: shrink: {}", tpb_oracle::text_safe::escape(&step.to_string()));
            }
        },
    );
    let s = match result {
        Ok(s) => s,
        Err(shrink::ShrinkError::Input(e)) => return fail(e),
        Err(shrink::ShrinkError::Predicate(e)) => return fail(format!("neff shrink: predicate `{cmd}`: cannot run: {e}")),
    };
    let secs = started.elapsed().as_secs_f64();
    if let Err(e) = crate::out::write_atomic(&a.output, &s.bytes) {
        return fail(format!("{}: cannot write: {e}", shown(&a.output)));
    }
    if s.exhausted {
        eprintln!(
            "tpb: warning: stopped after {} predicate runs (--max-tests): {} is smaller but may not be minimal",
            s.counts.tests,
            shown(&a.output)
        );
    }
    let (before, after) = (size(&input, bytes.len()), s.steps.last().map(|st| st.after).unwrap_or(size(&input, bytes.len())));
    let text = format!(
        "{}: {} -> {} bytes, {} -> {} members, {} -> {} bundles from {}; {keep} kept; {} predicate runs (+2 on IN, {} answered from earlier runs), {} steps in {} rounds, {secs:.1} s\n",
        shown(&a.output),
        before.bytes,
        after.bytes,
        before.members,
        after.members,
        before.bundles,
        after.bundles,
        shown(&a.file),
        s.counts.tests,
        s.counts.cached,
        s.steps.len(),
        s.rounds,
    );
    crate::out::print(&text, 0)
}

/// The input's size as the steps count it.
fn size(n: &neff::Neff, bytes: usize) -> shrink::Size {
    shrink::Size { bytes, members: n.members.len(), bundles: n.bundles() }
}

/// Why the predicate's status on IN cannot lead a reduction.
#[derive(Debug, thiserror::Error)]
enum Unusable {
    #[error("cannot run: {0}")]
    CannotRun(#[source] std::io::Error),
    #[error("timed out after {} s (--timeout)", .0.as_secs_f64())]
    TimedOut(Duration),
    /// What `sh` exits with when it cannot run the command (126, 127).
    #[error("exit {code}: sh could not run it ({why})", code = .0, why = if *.0 == 127 { "command not found" } else { "not executable" })]
    NotRun(i32),
    #[error("not reproducible: {0}, then {1} on the same bytes; a reduction needs a predicate that answers the same way")]
    NotReproducible(Status, Status),
}

/// The status to keep: the predicate's on IN, the same twice, and one that says it ran.
fn status_on_input(p: &Predicate, bytes: &[u8]) -> Result<Status, Unusable> {
    let first = p.run(bytes).map_err(Unusable::CannotRun)?;
    match first {
        Status::TimedOut => return Err(Unusable::TimedOut(p.timeout)),
        Status::Exit(c @ (126 | 127)) => return Err(Unusable::NotRun(c)),
        _ => {}
    }
    let second = p.run(bytes).map_err(Unusable::CannotRun)?;
    if second != first {
        return Err(Unusable::NotReproducible(first, second));
    }
    Ok(first)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
