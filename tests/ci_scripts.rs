//! The CI's Python helpers (ci/mutants_recheck.py, ci/mutants_report.py) are
//! tested by ci/test_*.py; this runs those tests under `cargo test`.

use std::process::Command;

#[test]
fn ci_python_scripts_pass_their_tests() {
    // CI has python3: one that cannot be spawned fails the test rather than skipping it.
    // -B: no ci/__pycache__ left in the tree.
    let run = Command::new("python3")
        .args(["-B", "-m", "unittest", "discover", "-s", "ci", "-p", "test_*.py", "-v"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    let out = match run {
        Ok(out) => out,
        Err(e) => panic!("cannot run python3: {e}"),
    };
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "python3 -m unittest failed:\n{text}");
    // Python 3.11's discover passes when it finds no test at all.
    assert!(text.contains("\nRan ") && !text.contains("\nRan 0 tests"), "no Python test ran:\n{text}");
}

/// Which paths git keeps, by the checkout's `.gitignore` alone (checked in a
/// scratch repository, so this runs in a tarball too): the kept mutation
/// runs that `reports/mutants.md` is regenerated from must be committed,
/// while the dated conformance folders and build output stay local.
#[test]
fn gitignore_keeps_the_records_and_leaves_out_the_outputs() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let ignore = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/.gitignore")).unwrap_or_else(|e| panic!(".gitignore: {e}"));
    std::fs::write(dir.path().join(".gitignore"), ignore).unwrap_or_else(|e| panic!("write .gitignore: {e}"));
    let git = |args: &[&str]| {
        Command::new("git")
            .args(["-c", "core.excludesFile=/dev/null"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("cannot run git: {e}"))
    };
    assert!(git(&["init", "-q"]).status.success(), "git init failed");
    let kept = [
        "reports/mutants/runs/shard-09-of-40/mutants.out/outcomes.json",
        "reports/mutants/runs/shard-09-of-40.recheck-1/mutants.out/run.json",
        "reports/mutants.md",
        "reports/README.md",
        "reports/bench.md",
        "corpus/roundtrip/seed-01",
    ];
    let ignored = [
        "reports/2026-12-04/summary.md",
        "reports/2026-12-04/neff/01-x.json",
        "target/release/tpb",
        "mutants.out/outcomes.json",
        "fuzz/artifacts/roundtrip/crash-1",
        "corpus/roundtrip/0123456789abcdef0123456789abcdef01234567",
    ];
    // `check-ignore` exits 0 when the path is ignored, 1 when it is not.
    for (path, want) in kept.iter().map(|p| (p, false)).chain(ignored.iter().map(|p| (p, true))) {
        let out = git(&["check-ignore", "--no-index", "-q", path]);
        let is = match out.status.code() {
            Some(0) => true,
            Some(1) => false,
            _ => panic!("git check-ignore {path}: {}", String::from_utf8_lossy(&out.stderr)),
        };
        assert_eq!(is, want, "{path}: ignored = {is}, want {want}");
    }
}
