//! The commands on containers whose streams are named only by their graph
//! definitions (read, under their engines), and on containers from which no
//! bundle is read: an error in every command that judges one, naming what
//! was looked for and what is there, never a green `0 bundles` run.

use crate::support::{stderr, stdout, tpb};
use std::path::{Path, PathBuf};
use tpb_oracle::neff;

use tpb_isa::bundle::header_only_stream as bundles;

const KELF: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#;

fn write(dir: &Path, name: &str, members: &[(&str, &[u8])]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, neff::build::container(2, members).expect("builds a NEFF")).expect("write neff");
    p
}

/// As a compiler that renamed its stream members could write it: only the definition says which members are streams.
fn renamed(dir: &Path) -> PathBuf {
    let pe = bundles(&[0xB1, 0xCC, 0xA4]);
    let unknown_engine = bundles(&[0xB1, 0xA4]);
    // A table that holds a valid bundle: no command may read it as one.
    let table = bundles(&[0xA4]);
    let def: &[u8] = br#"{"pe_instr": "pe_stream.data", "foo_instr": "foo.stream", "pe": "PE.json"}"#;
    write(
        dir,
        "renamed.neff",
        &[
            ("info.json", br#"{"tool_version": "2.27.0.0+test"}"#),
            ("kelf-0.json", KELF),
            ("sg00/def.json", def),
            ("sg00/pe_stream.data", &pe),
            ("sg00/foo.stream", &unknown_engine),
            ("sg00/exp_and_others_bkt.bin", &table),
        ],
    )
}

#[test]
fn streams_a_definition_names_are_validated_and_shown_under_their_engines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = renamed(dir.path());
    let path = p.to_str().unwrap_or_default();
    let o = tpb(&["validate", path]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("5 bundles, 5 valid, 0 invalid"), "{}", stdout(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let o = tpb(&["validate", "--json", path]);
    let members: Vec<String> =
        stdout(&o).lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?["member"].as_str().map(String::from)).collect();
    assert_eq!(members, ["sg00/pe_stream.data"; 3].into_iter().chain(["sg00/foo.stream"; 2]).collect::<Vec<_>>());
    let o = tpb(&["disasm", path]);
    assert!(stdout(&o).contains("# sg00/foo.stream [1] +0x40"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("exp_and_others_bkt"), "a table was disassembled: {}", stdout(&o));
    let o = tpb(&["neff", path]);
    assert!(stdout(&o).contains("    foo_instr: 2 bundles: ") && stdout(&o).contains("    PE: 3 bundles: "), "{}", stdout(&o));
    let o = tpb(&["evidence", "--json", path]);
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("evidence JSON");
    let noop = j["groups"].as_array().into_iter().flatten().find(|g| g["opcode"] == "0xa4").cloned().unwrap_or_default();
    assert_eq!(noop["engines"]["foo_instr"], 1, "{noop}");
    // Mutations land on the streams the definition names, and only there.
    let out = dir.path().join("m.neff");
    let o = tpb(&["neff", "mutate", path, "-o", out.to_str().unwrap_or_default(), "--seed", "3", "--count", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("m.neff.mutations.json")).expect("log")).expect("log JSON");
    let members: Vec<&str> = log["mutations"].as_array().into_iter().flatten().filter_map(|m| m["member"].as_str()).collect();
    assert_eq!(members.len(), 2, "{log}");
    assert!(members.iter().all(|m| ["sg00/pe_stream.data", "sg00/foo.stream"].contains(m)), "{members:?}");
    // The table's bundle is never a candidate, even when the streams run out.
    let o = tpb(&["neff", "mutate", path, "-o", out.to_str().unwrap_or_default(), "--seed", "3", "--count", "6"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only 2 of 6 mutations made: 2 bundles are valid on v3"), "{}", stderr(&o));
}

#[test]
fn a_container_from_which_no_bundle_is_read_fails_every_command_that_judges_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = bundles(&[0x8C]);
    // The definition names no stream, and nothing is named like one: only tables.
    let def: &[u8] = br#"{"pe": "PE.json", "pe_dbg": ["x.dbg"]}"#;
    let p = write(dir.path(), "unread.neff", &[("kelf-0.json", KELF), ("sg00/def.json", def), ("sg00/exp_and_others_bkt.bin", &table)]);
    let empty = write(
        dir.path(),
        "empty.neff",
        &[("kelf-0.json", KELF), ("sg00/def.json", br#"{"pe_instr": "PE.bin", "sp_instr": "SP.bin"}"#), ("sg00/PE.bin", &[]), ("sg00/SP.bin", &[])],
    );
    let (path, empty) = (p.to_str().unwrap_or_default(), empty.to_str().unwrap_or_default());
    let looked =
        "no bundle read: looked for graph `sg00`: `sg00/def.json` has no `*_instr` key, so members named sg00/{PE,Activation,DVE,Pool,SP}.bin";
    let found = "found no engine stream; the archive's .bin members: sg00/exp_and_others_bkt.bin";
    let reports = dir.path().join("reports");
    let conform_out = reports.to_str().unwrap_or_default();
    let runs: [(&[&str], i32); 6] = [
        (&["validate", path], 2),
        (&["validate", "--json", path], 2),
        (&["evidence", path], 2),
        (&["neff", path], 2),
        (&["disasm", path], 2),
        (&["conform", "--time", "0", "--quiet", "--out", conform_out, "--neff", path], 1),
    ];
    for (args, want) in runs {
        let o = tpb(args);
        assert_eq!(o.status.code(), Some(want), "{args:?}: {}{}", stdout(&o), stderr(&o));
        if args[0] == "conform" {
            // The case fails with the same words, in the report.
            let summary = std::fs::read_dir(&reports).expect("reports").filter_map(Result::ok).map(|d| d.path().join("summary.md")).next();
            let text = summary.and_then(|s| std::fs::read_to_string(s).ok()).unwrap_or_default();
            assert!(text.contains("no bundles to check") && text.contains("has no `*_instr` key"), "{text}");
            continue;
        }
        let err = stderr(&o);
        assert!(err.contains(&format!("tpb: error: {path}: payload: file offset 0x400: {looked}")), "{args:?}: {err}");
        assert!(err.contains(found), "{args:?}: {err}");
    }
    // `tpb neff` still shows what the archive holds before the error.
    assert!(stdout(&tpb(&["neff", path])).contains("sg00/exp_and_others_bkt.bin"));
    // Streams that are all empty read no bundle either; a readable file beside it is still judged.
    let good = renamed(dir.path());
    let o = tpb(&["validate", empty, good.to_str().unwrap_or_default()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("found 2 engine streams, all empty (sg00/PE.bin, sg00/SP.bin)"), "{}", stderr(&o));
    assert!(stdout(&o).contains("5 bundles, 5 valid, 0 invalid"), "{}", stdout(&o));
}
