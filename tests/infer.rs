//! `tpb infer` end to end on the committed real programs (corpus/neff/real):
//! every opcode asked for has bundles, each proposed layout tiles the body
//! 0x04..0x40 with no overlap, every field's evidence holds on every bundle
//! of its opcode, and the output is deterministic.

use crate::support::{command, root, run, stderr, stdout};
use serde_json::Value;
use std::process::Output;

const OPS: [&str; 6] = ["0xC1", "0x69", "0xD4", "0x23", "0xA8", "0xA4"];

fn corpus() -> std::path::PathBuf {
    root().join("corpus/neff/real")
}

/// `tpb infer ARGS… PATHS…`.
fn infer(args: &[&str], paths: &[std::path::PathBuf]) -> Output {
    run(command().arg("infer").args(args).args(paths))
}

fn json_run() -> (Output, Value) {
    let mut args = Vec::new();
    for op in OPS {
        args.extend(["--op", op]);
    }
    args.push("--json");
    let out = infer(&args, &[corpus()]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    (out, v)
}

fn u64_of(v: &Value, what: &str) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{what} is not a number: {v}"))
}

#[test]
fn every_opcode_gets_a_layout_tiling_the_body_that_holds_on_every_bundle() {
    let (first, v) = json_run();
    let ops = v["opcodes"].as_array().expect("opcodes");
    let mut seen: Vec<String> = ops.iter().map(|o| o["opcode"].as_str().expect("opcode").to_string()).collect();
    let mut want: Vec<String> = OPS.iter().map(|o| o.to_lowercase()).collect();
    want.sort();
    assert_eq!(seen, want, "one entry per opcode, in byte order");
    seen.dedup();
    for op in ops {
        let name = op["opcode"].as_str().unwrap_or("?");
        assert_eq!(op["status"], "ok", "{name}");
        let bundles = u64_of(&op["bundles"], "bundles");
        assert!(bundles > 0, "{name} has no bundles in the corpus");
        let fields = op["fields"].as_array().expect("fields");
        let mut at = 0x04u64;
        for f in fields {
            let (off, size) = (u64_of(&f["offset"], "offset"), u64_of(&f["size"], "size"));
            let fname = f["name"].as_str().expect("field name");
            assert_eq!(off, at, "{name}: {fname} leaves a gap or overlaps at {at:#04x}");
            assert!(size > 0, "{name}: {fname} is empty");
            assert!(fname.ends_with(&format!("_{off:02x}")), "{name}: {fname} is named by its offset");
            assert_eq!(f["confidence"], "INFERRED", "{name}: {fname}");
            assert_eq!(u64_of(&f["evidence"]["bundles"], "evidence.bundles"), bundles, "{name}: {fname} must hold on every bundle");
            let per_build: u64 = f["evidence"]["builds"].as_object().expect("builds").values().map(|n| u64_of(n, "build bundles")).sum();
            assert_eq!(per_build, bundles, "{name}: {fname}");
            at += size;
        }
        assert_eq!(at, 0x40, "{name}: the fields end at {at:#04x}, not at the end of the bundle");
    }
    // Both compiler builds of the corpus are seen.
    let builds: std::collections::BTreeSet<&str> =
        ops.iter().flat_map(|o| o["groups"].as_array().into_iter().flatten().filter_map(|g| g["build"].as_str())).collect();
    assert!(builds.len() >= 2, "{builds:?}");
    // Deterministic: a second run prints the same bytes.
    let (second, _) = json_run();
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn names_and_bytes_name_the_same_opcodes_and_text_is_deterministic() {
    let a = infer(&["--op", "DMATrigger", "--op", "streammask"], &[corpus()]);
    let b = infer(&["--op", "0x69", "--op", "0xc1"], &[corpus()]);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let text = stdout(&a);
    assert!(text.contains("0xc1 DMATrigger: ") && text.contains("proposed layout"), "{text}");
}

#[test]
fn an_opcode_with_no_bundle_is_a_warning_and_listed() {
    // 0xFF is in no table and in no real program.
    let out = infer(&["--op", "0xFF", "--op", "0xA4", "--json"], &[corpus()]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = stderr(&out);
    assert!(stderr.contains("warning") && stderr.contains("0xff"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["opcodes"][0]["opcode"], "0xa4");
    assert_eq!(v["opcodes"][0]["status"], "ok");
    assert_eq!(v["opcodes"][1]["status"], "no bundles");
}

#[test]
fn usage_and_io_errors_exit_2_with_one_line() {
    let bad_op = infer(&["--op", "NoSuchOp"], &[corpus()]);
    assert_eq!(bad_op.status.code(), Some(2));
    let e = stderr(&bad_op);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("NoSuchOp"), "{e}");
    let missing = std::path::PathBuf::from("/nonexistent/x.neff");
    let io = infer(&["--op", "0xC1"], &[missing]);
    assert_eq!(io.status.code(), Some(2));
    let e = stderr(&io);
    assert!(e.contains("/nonexistent/x.neff"), "{e}");
    let no_op = run(command().args(["infer"]).arg(corpus()));
    assert_eq!(no_op.status.code(), Some(2), "--op is required");
}
