//! A NEFF whose target is unknown or missing is not silently validated as v2:
//! its notes are warnings on stderr, and `validate` says it assumes v2 and how
//! to choose (`--arch`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tpb_oracle::neff;

fn tpb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tpb")).args(args).output().expect("runs tpb")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn pe() -> Vec<u8> {
    let line = "0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]";
    tpb_isa::text::assemble(line).expect("assembles")
}

fn container(dir: &Path, name: &str, kelf: Option<&str>) -> PathBuf {
    let pe = pe();
    let mut members: Vec<(&str, &[u8])> = vec![("info.json", br#"{"tool_version": "2.0"}"#), ("sg00/PE.bin", &pe)];
    if let Some(k) = kelf {
        members.insert(1, ("kelf-0.json", k.as_bytes()));
    }
    let bytes = neff::build::container(2, &members).expect("builds a NEFF");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write neff");
    p
}

const ASSUMES: &str = "assuming v2 for its streams (choose one with --arch";

#[test]
fn an_unknown_or_missing_target_warns_that_v2_is_assumed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let unknown = container(dir.path(), "unknown.neff", Some(r#"{"target": "nosuch", "graphs": [{"name": "sg00"}]}"#));
    let missing = container(dir.path(), "missing.neff", None);
    for (p, note) in [(&unknown, "target `nosuch` maps to no known generation"), (&missing, "no kelf-0.json: target unknown")] {
        let path = p.to_str().unwrap_or_default();
        let o = tpb(&["validate", path]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("tpb: warning: {path}: {note}")), "{err}");
        assert!(err.contains(&format!("tpb: warning: {path}: ")) && err.contains(ASSUMES), "{err}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("1 bundles, 1 valid"));
        // --arch chooses: no assumption to warn about (the container's notes remain).
        let o = tpb(&["validate", "--arch", "v3", path]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!stderr(&o).contains(ASSUMES) && stderr(&o).contains(note), "{}", stderr(&o));
        // disasm needs no generation but still shows the notes.
        assert!(stderr(&tpb(&["disasm", path])).contains(note));
    }
}

#[test]
fn a_known_target_and_a_raw_file_validate_without_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let known = container(dir.path(), "known.neff", Some(r#"{"target": "cayman", "graphs": [{"name": "sg00"}]}"#));
    let raw = dir.path().join("raw.bin");
    std::fs::write(&raw, pe()).expect("write raw");
    for p in [known, raw] {
        let o = tpb(&["validate", p.to_str().unwrap_or_default()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    }
}
