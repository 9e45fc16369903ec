//! What the package's test files share: running the built `tpb` and reading
//! what a process said. One copy, so how the binary is run changes in one place.
//! `integration.rs` declares it once for its modules (`crate::support`); the
//! test binaries of their own (`bounded`, `stdout`) declare it too.

// Each test binary uses a part of it.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// The package's folder (the workspace root): where `tpb` runs, so the
/// relative paths the tests give (`corpus/neff/real`) name the repository's.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The built `tpb`, run in [`root`], for a caller that sets more (the
/// environment, pipes, another folder).
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tpb"));
    c.current_dir(root());
    c
}

/// Runs `c` to its end; a program that cannot start fails the test.
pub fn run(c: &mut Command) -> Output {
    c.output().unwrap_or_else(|e| panic!("cannot run {:?}: {e}", c.get_program()))
}

/// `tpb ARGS…` run to its end.
pub fn tpb<S: AsRef<OsStr>>(args: &[S]) -> Output {
    run(command().args(args))
}

/// [`tpb`] with words and paths mixed: `tpb_os(&[&"neff", &path])`.
pub fn tpb_os(args: &[&dyn AsRef<OsStr>]) -> Output {
    tpb(args)
}

/// What the process wrote on stdout, as text (invalid UTF-8 replaced).
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What the process wrote on stderr, as text (invalid UTF-8 replaced).
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The exit code; -1 when a signal ended the process.
pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}
