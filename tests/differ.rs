//! `tpb differ` run as a user runs it: shell workers that agree, disagree,
//! crash or cannot start; the report folder, the repro files and `--replay`;
//! a library worker that does not load; `tpb header --worker`. The C and
//! planted-bug workers are tested in `differ/tests/`.

use crate::support::{stderr, stdout, tpb};
use std::path::Path;
use std::process::{Command, Output};

type R<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// A shell worker that decodes the opcode only: `wrong` is a case pattern
/// of bundles (hex) it names 0x47 instead, `die` one it dies on.
fn worker(wrong: &str, die: &str) -> String {
    format!(
        "sh -c 'while read k g h; do case $k in decode) case $h in {die}) kill -9 $$;; {wrong}) echo opcode=0x47;; *) echo opcode=0x${{h%${{h#??}}}};; esac;; *) echo unsupported;; esac; done'"
    )
}

fn run(cmd: &str, out: &Path, extra: &[&str]) -> R<Output> {
    let out = out.display().to_string();
    let mut args = vec!["differ", "--cmd", cmd, "--no-real", "--count", "400", "--timeout", "5", "--out", &out, "-q"];
    args.extend_from_slice(extra);
    Ok(tpb(&args))
}

#[test]
fn a_worker_that_agrees_exits_0_with_its_report() -> R {
    let dir = tempfile::tempdir()?;
    let o = run(&worker("none", "none"), &dir.path().join("r"), &[])?;
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("answers decode\n") && out.contains("no disagreement"), "{out}");
    assert!(out.contains("inputs: 400 generated, "), "{out}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/report.json"))?)?;
    assert_eq!(json["stats"]["inputs"]["generated"], 400);
    assert_eq!(json["groups"].as_array().map(Vec::len), Some(0));
    Ok(())
}

#[test]
fn a_disagreement_exits_4_with_reduced_repros_that_replay() -> R {
    let dir = tempfile::tempdir()?;
    let cmd = worker("46*", "none");
    let o = run(&cmd, &dir.path().join("r"), &[])?;
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(4), "{out}{err}");
    assert!(out.contains("decode v2 0x46 TensorCopy opcode"), "{out}");
    assert!(out.contains("in opcode (bytes +0x00)"), "{out}");
    let repros: Vec<_> = std::fs::read_dir(dir.path().join("r/repros"))?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    assert_eq!(repros.len(), 3, "one per generation: {repros:?}");
    // The reproduce line of the report runs as printed and shows the wrong answer.
    let line = out.lines().find_map(|l| l.trim().strip_prefix("reproduce: ")).ok_or("no reproduce line")?;
    let by_hand = Command::new("sh").args(["-c", line]).output()?;
    assert_eq!(stdout(&by_hand).trim(), "opcode=0x47");
    // --replay asks the repros again: still wrong (4); with the worker fixed, 0.
    let files: Vec<String> = repros.iter().map(|p| p.display().to_string()).collect();
    let mut replay = vec!["differ", "--cmd", &cmd, "-q"];
    for f in &files {
        replay.extend(["--replay", f.as_str()]);
    }
    let again = tpb(&replay);
    assert_eq!(again.status.code(), Some(4), "{}{}", stdout(&again), stderr(&again));
    assert!(stdout(&again).contains("replayed: 3 request(s)"));
    let fixed = worker("none", "none");
    replay[2] = &fixed;
    assert_eq!(tpb(&replay).status.code(), Some(0));
    Ok(())
}

#[test]
fn a_crash_is_a_finding_with_its_input_and_exit_bit_8() -> R {
    let dir = tempfile::tempdir()?;
    let o = run(&worker("none", "43*"), &dir.path().join("r"), &[])?;
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(8), "{out}{err}");
    assert!(out.contains("crash v2 0x43 TensorScalar decode"), "{out}");
    assert!(out.contains("killed by signal 9"), "{out}");
    assert!(out.contains("quarantined after repeated crashes or hangs"), "{out}");
    Ok(())
}

#[test]
fn workers_that_cannot_run_are_usage_errors() -> R {
    let dir = tempfile::tempdir()?;
    let o = run("/nonexistent/worker --flag", &dir.path().join("r"), &[])?;
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot start `/nonexistent/worker`"), "{}{}", stdout(&o), stderr(&o));
    assert!(!dir.path().join("r").exists(), "nothing written");
    let not_a_lib = dir.path().join("lib.so");
    std::fs::write(&not_a_lib, b"not an ELF")?;
    let o = tpb(&["differ", "--lib", &not_a_lib.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot load the worker library"), "{}{}", stdout(&o), stderr(&o));
    let o = tpb(&["differ", "--cmd", "cat", "--replay", &dir.path().join("none.txt").display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("none.txt: cannot read"), "{}{}", stdout(&o), stderr(&o));
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "# a repro\ndecode v9 00\n")?;
    let o = tpb(&["differ", "--cmd", "cat", "--replay", &bad.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt: line 2: unknown generation `v9`"), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(tpb(&["differ"]).status.code(), Some(2), "no worker named");
    assert_eq!(tpb(&["differ", "--cmd", "cat", "--timeout", "0"]).status.code(), Some(2));
    Ok(())
}

#[test]
fn header_worker_writes_the_worker_abi() -> R {
    let o = tpb(&["header", "--worker"]);
    assert_eq!(o.status.code(), Some(0));
    let h = stdout(&o);
    assert!(h.contains("#ifndef TPB_WORKER_H") && h.contains("int tpb_worker_validate("), "{h}");
    Ok(())
}
