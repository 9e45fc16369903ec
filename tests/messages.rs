//! The messages a newcomer meets first: each says what is wrong and what to
//! do, names the file, and every command's --help gives its exit codes.

use crate::support::{command, root, run, stderr, stdout, tpb};
use std::path::Path;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write fixture");
    p.display().to_string()
}

const NOOP: &str = "0xa4:NoOp";

#[test]
fn every_command_with_exit_codes_documents_them_in_its_help() {
    let commands: &[&[&str]] = &[
        &["validate"],
        &["disasm"],
        &["asm"],
        &["layout"],
        &["neff"],
        &["neff", "unpack"],
        &["neff", "pack"],
        &["neff", "mutate"],
        &["neff", "shrink"],
        &["header"],
        &["conform"],
        &["corpus"],
        &["check"],
        &["diff"],
        &["facts"],
        &["evidence"],
        &["evidence", "diff"],
        &["infer"],
    ];
    for c in commands {
        let mut args = c.to_vec();
        args.push("--help");
        let o = tpb(&args);
        assert_eq!(o.status.code(), Some(0), "{c:?}");
        let help = stdout(&o);
        assert!(help.contains("Exit codes") && help.contains(" 2 usage"), "{c:?}: {help}");
    }
    let validate = stdout(&tpb(&["validate", "--help"]));
    assert!(validate.contains("0 every bundle valid; 1 a bundle invalid; 2 usage or I/O error"), "{validate}");
}

#[test]
fn a_raw_file_is_said_to_be_judged_as_v2_once_unless_quiet_or_chosen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let noop = tpb_isa::text::assemble(NOOP).expect("assembles");
    let (a, b) = (write(dir.path(), "a.bin", &noop), write(dir.path(), "b.bin", &noop));
    let note = "tpb: note: raw bundles, judged as v2 (default; --arch to choose)\n";
    let o = tpb(&["validate", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), note);
    for args in [vec!["validate", "-q", &a, &b], vec!["validate", "--arch", "v2", &a, &b]] {
        let o = tpb(&args);
        assert_eq!(o.status.code(), Some(0));
        assert!(!stderr(&o).contains("judged as"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn a_small_text_file_is_said_to_be_neither_bundles_nor_a_neff() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = write(dir.path(), "notes.txt", b"hello, this is not a program\n");
    let o = tpb(&["validate", &f]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let want = format!(
        "tpb: error: {f}: offset 0x0: plain text, not a program (neither a NEFF, raw 64-byte bundles, nor bundle text as tpb disasm writes it)\n"
    );
    assert_eq!(err, want);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn neff_alone_shows_its_subcommands_and_pack_names_a_missing_folder() {
    let o = tpb(&["neff"]);
    assert_eq!(o.status.code(), Some(2));
    let help = stderr(&o) + &stdout(&o);
    for sub in ["unpack", "pack", "mutate", "shrink"] {
        assert!(help.contains(sub), "{sub}: {help}");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing").display().to_string();
    let out = dir.path().join("out.neff");
    let o = tpb(&["neff", "pack", &missing, "-o", &out.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(&format!("{missing}: no such folder (give the folder `tpb neff unpack FILE DIR` wrote)")), "{err}");
    assert!(!out.exists());
}

#[test]
fn asm_lists_the_dtype_names_when_one_is_unknown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = write(dir.path(), "bad.tpb", b"0x41:TensorTensor out_dtype=float17\n");
    let out = dir.path().join("out.bin");
    let o = tpb(&["asm", &src, "-o", &out.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("`float17` is not a number or a dtype name (one of ") && err.contains("bf16") && err.contains("f32"), "{err}");
    assert!(!out.exists());
}

/// Plain text (a README) is not called bundle text: nothing in it is a bundle, so "assemble it first" would mislead.
#[test]
fn a_readme_is_plain_text_not_bundle_text() {
    let readme = root().join("README.md");
    let o = tpb(&["validate", &readme.display().to_string()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("README.md: offset 0x0: plain text, not a program"), "{err}");
    assert!(!err.contains("assemble it first"), "{err}");
}

/// A file that is not there is said alike by every command: `FILE: cannot read: …`, no container part or offset.
#[test]
fn a_missing_file_cannot_be_read_in_the_same_words_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gone = dir.path().join("gone.neff").display().to_string();
    for cmd in [&["neff"][..], &["validate"], &["disasm"], &["neff", "unpack"]] {
        let mut args = cmd.to_vec();
        args.push(&gone);
        let out = dir.path().join("out").display().to_string();
        if cmd == ["neff", "unpack"] {
            args.push(&out);
        }
        let err = stderr(&tpb(&args));
        assert!(err.contains(&format!("{gone}: cannot read: ")), "{args:?}: {err}");
        assert!(!err.contains("file offset"), "{args:?}: {err}");
    }
}

/// A TPB_THREADS that is not a positive number is said, once, with the threads used instead.
#[test]
fn a_bad_tpb_threads_is_said_not_ignored() {
    let real = root().join("corpus/neff/real/xla-2.14");
    let o = run(command().args(["validate", "-q"]).arg(&real).env("TPB_THREADS", "abc"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("tpb: warning: TPB_THREADS=abc is not a positive number: using ").count(), 1, "{err}");
    let ok = run(command().args(["validate", "-q"]).arg(&real).env("TPB_THREADS", "2"));
    assert!(!stderr(&ok).contains("TPB_THREADS"), "{}", stderr(&ok));
}
