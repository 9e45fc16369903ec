//! Every command that reads programs takes a folder the same way: every
//! `*.neff` under it, in name order, listed with -v where the command has it;
//! a folder with none is an error naming it (exit 2).

use crate::support::{root, stderr, stdout, tpb};
use std::path::PathBuf;

const SMALL: &str = "corpus/neff/real/xla-2.14/MODULE_11790936170214357810.neff";
const OTHER: &str = "corpus/neff/real/xla-2.14/MODULE_4195419208161846083.neff";

/// A folder holding two real programs (one in a subfolder) and a file that is not one.
fn programs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = root();
    let (a, b) = (dir.path().join("b.neff"), dir.path().join("a/c.neff"));
    std::fs::create_dir_all(dir.path().join("a")).expect("mkdir");
    std::fs::copy(root.join(SMALL), &a).expect("copy");
    std::fs::copy(root.join(OTHER), &b).expect("copy");
    std::fs::write(dir.path().join("notes.txt"), "not a program").expect("write");
    (dir, a, b)
}

#[test]
fn validate_disasm_and_neff_read_a_folder_as_its_programs_in_name_order() {
    let (dir, a, b) = programs();
    let d = dir.path().display().to_string();
    let (a, b) = (a.display().to_string(), b.display().to_string());

    // validate: the folder judges what the files judge, and -v lists them in order (a/c.neff before b.neff).
    let by_files = tpb(&["validate", "-q", &b, &a]);
    let by_folder = tpb(&["validate", "-q", &d]);
    assert_eq!(by_folder.status.code(), Some(0), "{}", stderr(&by_folder));
    assert_eq!(stdout(&by_folder), stdout(&by_files));
    // Without -v the finds are not listed.
    assert!(!stderr(&by_folder).contains("found:"), "{}", stderr(&by_folder));
    assert!(stdout(&by_folder).ends_with(" 0 invalid\n"), "{}", stdout(&by_folder));
    let v = tpb(&["validate", "-v", &d]);
    let err = stderr(&v);
    assert!(err.contains(&format!("tpb: {d}: 2 *.neff file(s) found:\ntpb:   {b}\ntpb:   {a}\n")), "{err}");
    assert!(!err.contains("notes.txt"), "{err}");

    // disasm: the same bundles as the files given one by one.
    let by_folder = tpb(&["disasm", &d]);
    assert_eq!(by_folder.status.code(), Some(0), "{}", stderr(&by_folder));
    assert_eq!(by_folder.stdout, tpb(&["disasm", &b, &a]).stdout);

    // neff: one summary per program.
    let o = tpb(&["neff", "--json", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let files: Vec<String> =
        stdout(&o).lines().map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json")["file"].as_str().unwrap_or("?").to_string()).collect();
    assert_eq!(files, [b.as_str(), a.as_str()]);
}

#[test]
fn a_folder_without_programs_is_an_error_naming_it_in_every_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("readme.txt"), "nothing here").expect("write");
    let d = dir.path().display().to_string();
    let reports = dir.path().join("reports").display().to_string();
    let want = format!("tpb: error: {d}: no *.neff file in this folder");
    for args in [
        vec!["validate", d.as_str()],
        vec!["disasm", d.as_str()],
        vec!["neff", d.as_str()],
        vec!["evidence", d.as_str()],
        vec!["infer", "--op", "0xC1", d.as_str()],
        vec!["conform", "--time", "1", "--quiet", "--out", reports.as_str(), "--neff", d.as_str()],
    ] {
        let o = tpb(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&want), "{args:?}: {}", stderr(&o));
    }
    // conform refused before running anything: no report.
    assert!(!dir.path().join("reports").exists());
}
