//! Output is never silently lost: every command that writes stdout fails with
//! one line and exit 2 when stdout cannot take it (`> /dev/full`), and exits
//! quietly with its own verdict when the reader stops early (a broken pipe, `| head`).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use support::{command, run, stderr};

const IO_ERROR: i32 = 2;

fn bundles(n: usize) -> Vec<u8> {
    let line = "0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]\n";
    tpb_isa::text::assemble(&line.repeat(n)).expect("assembles")
}

fn fixtures(dir: &Path) -> (PathBuf, PathBuf) {
    let raw = dir.join("prog.bin");
    std::fs::write(&raw, bundles(4)).expect("write raw");
    let kelf = br#"{"target": "cayman", "graphs": [{"name": "sg00", "definition": "sg00/def.json"}]}"#;
    let members: [(&str, &[u8]); 4] = [
        ("info.json", br#"{"tool_version": "2.0"}"#),
        ("kelf-0.json", kelf),
        ("sg00/def.json", br#"{"pe_instr": "PE.bin"}"#),
        ("sg00/PE.bin", &bundles(4)),
    ];
    let neff = tpb_oracle::neff::build::container(2, &members).expect("builds a NEFF");
    let path = dir.join("prog.neff");
    std::fs::write(&path, neff).expect("write neff");
    (raw, path)
}

fn to_dev_full(args: &[&str]) -> Output {
    let full = std::fs::File::create("/dev/full").expect("/dev/full");
    run(command().args(args).stdout(full).stderr(Stdio::piped()))
}

/// Runs tpb with the read end of its stdout closed before it writes: every write is EPIPE.
fn reader_gone(args: &[impl AsRef<std::ffi::OsStr>]) -> Output {
    let mut child = command().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawns tpb");
    drop(child.stdout.take());
    child.wait_with_output().expect("waits for tpb")
}

fn commands(dir: &Path) -> Vec<Vec<String>> {
    let (raw, neff) = fixtures(dir);
    let (raw, neff, d) = (raw.display().to_string(), neff.display().to_string(), dir.display().to_string());
    // More text than stdout's buffer holds: the write itself fails, not only the last flush.
    let big = dir.join("big.bin");
    std::fs::write(&big, bundles(1024)).expect("write big");
    let big = big.display().to_string();
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["disasm", &big]),
        v(&["neff", &neff]),
        v(&["neff", "--json", &neff]),
        v(&["disasm", &raw]),
        v(&["disasm", &neff]),
        // The generation is chosen: stderr holds only what stdout's fate says.
        v(&["validate", "--arch", "v2", "-v", &raw]),
        v(&["validate", "--arch", "v2", &raw]),
        v(&["validate", "--json", &neff]),
        v(&["layout"]),
        v(&["layout", "--json"]),
        v(&["header"]),
        v(&["corpus", "--count", "1", "--out", &format!("{d}/corpus")]),
    ]
}

#[test]
fn a_full_stdout_is_an_io_error_in_every_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in commands(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = to_dev_full(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(IO_ERROR), "tpb {args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "tpb {args:?}: {err}");
        assert!(err.starts_with("tpb: error: cannot write to stdout: "), "tpb {args:?}: {err}");
    }
}

#[test]
fn conform_with_a_full_stdout_is_an_io_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().display().to_string();
    let o = to_dev_full(&["conform", "--time", "1", "--quiet", "--seed", "7", "--out", &out]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(IO_ERROR), "{err}");
    assert!(err.contains("tpb: error: cannot write to stdout: "), "{err}");
}

#[test]
fn a_broken_pipe_keeps_the_verdict_of_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bad = bundles(4);
    bad[1] = 0x11; // inst_word_len
    let path = dir.path().join("bad.bin");
    std::fs::write(&path, bad).expect("write");
    let p = path.display().to_string();
    for args in [vec!["validate", "--arch", "v2", "-v", &p], vec!["validate", "--json", &p], vec!["validate", "--arch", "v2", &p]] {
        let o = reader_gone(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "tpb {args:?}: the reader left, the bundles are still invalid: {err}");
        assert!(err.is_empty(), "tpb {args:?}: {err}");
    }
}

#[test]
fn a_broken_pipe_still_reads_every_file_and_reports_a_bad_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (raw, neff) = fixtures(dir.path());
    let bad = dir.path().join("short.neff");
    std::fs::write(&bad, b"short").expect("write");
    let (raw, neff, bad) = (raw.display().to_string(), neff.display().to_string(), bad.display().to_string());
    for args in [vec!["neff", &neff, &bad], vec!["neff", &bad, &neff], vec!["disasm", &raw, &bad], vec!["disasm", &bad, &raw]] {
        let o = reader_gone(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(IO_ERROR), "tpb {args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "tpb {args:?}: {err}");
        assert!(err.contains("short.neff"), "tpb {args:?}: {err}");
    }
}

#[test]
fn a_broken_pipe_exits_0_quietly_in_every_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in commands(dir.path()) {
        let o = reader_gone(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "tpb {args:?}: {err}");
        assert!(err.is_empty(), "tpb {args:?}: {err}");
    }
}
