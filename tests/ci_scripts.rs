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
