//! The `tpb` command-line contract: exit codes, one-line errors, JSON shape,
//! text round trip. Runs the built binary on files the test writes.

use crate::support::{code, command, stderr, stdout, tpb};
use std::path::{Path, PathBuf};

/// Error lines on stderr (validate also says once how a raw file's generation was chosen).
fn errors(stderr: &str) -> usize {
    stderr.lines().filter(|l| l.starts_with("tpb: error: ")).count()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write fixture");
    p
}

fn assemble(line: &str) -> Vec<u8> {
    tpb_isa::text::assemble(line).expect("assembles")
}

const VALID_COPY: &str = "0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]";

#[test]
fn validate_exit_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write(dir.path(), "good.bin", &assemble(VALID_COPY));
    let o = tpb(&["validate", good.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("1 bundles, 1 valid, 0 invalid"));

    // 0xB1 opens every real engine stream: by default a note naming its erratum, under --spec an error.
    let mut two = assemble(VALID_COPY);
    two.extend(assemble("0xb1:unknown"));
    let real = write(dir.path(), "real.bin", &two);
    let o = tpb(&["validate", "--arch", "v3", real.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("note: unknown-opcode") && stdout(&o).contains("(erratum unnamed-opcodes)"), "{}", stdout(&o));
    assert!(stdout(&o).contains("2 bundles, 2 valid, 0 invalid"));
    let o = tpb(&["validate", "--spec", "--arch", "v3", real.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("error: unknown-opcode") && stdout(&o).contains("2 bundles, 1 valid, 1 invalid"), "{}", stdout(&o));
    // A byte in no table and no real program is an error under both profiles; 0xB1 is a note on v4 too (an opcode byte means the same there).
    let mut two = assemble(VALID_COPY);
    two.extend(assemble("0x00:unknown"));
    let bad = write(dir.path(), "bad.bin", &two);
    let o = tpb(&["validate", "--arch", "v3", bad.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("error: unknown-opcode"));
    let o = tpb(&["validate", "--arch", "v4", real.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = tpb(&["validate", "--arch", "v4", bad.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
}

#[test]
fn validate_reports_an_unreadable_file_and_still_validates_the_others() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write(dir.path(), "good.bin", &assemble(VALID_COPY));
    let missing = dir.path().join("missing.bin");
    let (g, m) = (good.to_str().unwrap_or_default(), missing.to_str().unwrap_or_default());
    for args in [["validate", m, g], ["validate", g, m]] {
        let o = tpb(&args);
        assert_eq!(code(&o), 2, "{args:?}: an unreadable input outranks the verdict");
        assert!(stdout(&o).contains("1 bundles, 1 valid, 0 invalid"), "{args:?}: {}", stdout(&o));
        // One error line (beside the note on the raw file's default generation).
        assert_eq!(errors(&stderr(&o)), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("missing.bin"), "{}", stderr(&o));
    }
}

#[test]
fn validate_json_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut two = assemble(VALID_COPY);
    two.extend(assemble("0x46:TensorCopy src.addr=0x100 src.num=[1,0,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]"));
    let f = write(dir.path(), "two.bin", &two);
    let o = tpb(&["validate", "--json", f.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 1);
    let lines: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["valid"], true);
    assert_eq!(lines[1]["offset"], 64);
    assert_eq!(lines[1]["opcode"], "0x46");
    assert_eq!(lines[1]["name"], "TensorCopy");
    let finding = &lines[1]["findings"][0];
    assert_eq!(finding["code"], "zero-num");
    assert_eq!(finding["field"], "src.num[1]");
    assert_eq!(finding["offset"], 0x0C + 0x0C + 2);
    assert_eq!(finding["severity"], "error");
    assert!(lines[1]["file"].as_str().is_some_and(|s| s.ends_with("two.bin")));
}

#[test]
fn bad_inputs_are_one_line_errors_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let odd = write(dir.path(), "odd.bin", &[0u8; 100]);
    let empty = write(dir.path(), "empty.bin", &[]);
    let missing = dir.path().join("missing.bin");
    for (p, needle) in [(&odd, "offset 0x40"), (&empty, "empty"), (&missing, "cannot read")] {
        for cmd in ["validate", "disasm"] {
            let o = tpb(&[cmd, p.to_str().unwrap_or_default()]);
            assert_eq!(code(&o), 2, "{cmd} {}", p.display());
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(needle) && err.contains(&*p.file_name().unwrap_or_default().to_string_lossy()), "{err}");
        }
    }
    let o = tpb(&["validate", "--arch", "v9", odd.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 2);
    assert_eq!(code(&tpb(&["validate"])), 2);
}

#[test]
fn disasm_numbers_the_bundles_of_a_raw_file_past_its_first_chunk() {
    // A raw file is read a chunk (1 MiB) at a time: the bundle after the first chunk is [16384] at +0x100000.
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = tpb_isa::props::seeded_bytes(11, (1 << 20) + 2 * 64);
    let raw = write(dir.path(), "big.bin", &bytes);
    let o = tpb(&["disasm", raw.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let tails: Vec<&str> = out.lines().rev().take(3).filter_map(|l| l.rsplit_once(" # ").map(|(_, t)| t)).collect();
    assert_eq!(tails, ["[16385] +0x100040", "[16384] +0x100000", "[16383] +0xfffc0"]);
}

#[test]
fn disasm_asm_round_trip_is_exact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = tpb_isa::props::seeded_bytes(7, 64 * 40);
    let raw = write(dir.path(), "r.bin", &bytes);
    let o = tpb(&["disasm", raw.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0);
    let txt = write(dir.path(), "r.txt", &o.stdout);
    let out = dir.path().join("back.bin");
    let o = tpb(&["asm", txt.to_str().unwrap_or_default(), "-o", out.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).expect("output"), bytes);

    let broken = write(dir.path(), "broken.txt", b"0x46:TensorCopy nosuch=1\n");
    let o = tpb(&["asm", broken.to_str().unwrap_or_default(), "-o", out.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("line 1") && stderr(&o).contains("nosuch"));
}

#[test]
fn asm_of_a_file_without_bundles_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.bin");
    for (name, text) in [("empty.tpb", ""), ("comments.tpb", "# sg00/PE.bin\n\n   # nothing here\n")] {
        let f = write(dir.path(), name, text.as_bytes());
        let o = tpb(&["asm", f.to_str().unwrap_or_default(), "-o", out.to_str().unwrap_or_default()]);
        assert_eq!(code(&o), 2, "{name}");
        let err = stderr(&o);
        assert!(err.contains(name) && err.contains("no bundles"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!out.exists(), "{name}: asm wrote {}", out.display());
    }
}

#[test]
fn the_size_cap_holds_for_devices_and_pipes() {
    // /dev/zero never ends and its metadata length is 0: the read must stop at the cap.
    for cmd in ["validate", "disasm", "neff"] {
        let start = std::time::Instant::now();
        let o = tpb(&[cmd, "--max-bytes", "65536", "/dev/zero"]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{cmd}: {err}");
        assert_eq!(errors(&err), 1, "{cmd}: {err}");
        assert!(err.contains("/dev/zero") && err.contains("0x10000") && err.contains("more than the cap of 65536 bytes"), "{cmd}: {err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "{cmd} took {:?}", start.elapsed());
    }
    // A regular file over the cap is refused before it is read.
    let dir = tempfile::tempdir().expect("tempdir");
    let big = write(dir.path(), "big.bin", &assemble(VALID_COPY).repeat(4));
    let o = tpb(&["validate", "--max-bytes", "128", big.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("big.bin") && stderr(&o).contains("256 bytes is over the cap of 128 bytes"), "{}", stderr(&o));
}

#[test]
fn layout_lists_every_field() {
    let o = tpb(&["layout", "--json"]);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let all = v.as_array().expect("array");
    let mm = all.iter().find(|l| l["c_name"] == "NEURON_ISA_TPB_BUNDLE_MATMUL").expect("matmul");
    let f = mm["fields"].as_array().expect("fields").iter().find(|f| f["name"] == "dst_dtype_dense").expect("field");
    assert_eq!((f["offset"].as_u64(), f["size"].as_u64()), (Some(0x23), Some(1)));
    assert_eq!(f["confidence"], "CONFIRMED");
    // The text form gives each layout's provenance: the spec's section and its confidence tag.
    let o = tpb(&["layout"]);
    assert_eq!(code(&o), 0);
    let text = stdout(&o);
    for l in tpb_isa::descriptor::layouts() {
        let Some(line) = text.lines().find(|t| t.starts_with(&format!("{} ({})", l.c_name, l.name))) else { panic!("no {}: {text}", l.c_name) };
        assert!(line.ends_with(&format!("  [§{} {}]", l.prov.section, l.prov.confidence.as_str())), "{line}");
    }
}

#[test]
fn bundle_text_is_refused_with_the_command_that_assembles_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write(dir.path(), "good.bin", &assemble(VALID_COPY));
    let o = tpb(&["disasm", good.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0);
    let listing = write(dir.path(), "listing.tpb", &o.stdout);
    let hand = write(dir.path(), "hand.txt", format!("\n  {VALID_COPY}\n").as_bytes());
    let (g, l, h) = (good.to_str().unwrap_or_default(), listing.to_str().unwrap_or_default(), hand.to_str().unwrap_or_default());
    for cmd in ["validate", "disasm"] {
        for (text, name) in [(l, "listing.tpb"), (h, "hand.txt")] {
            // The text is reported, the bundle file is still read.
            let o = tpb(&[cmd, text, g]);
            let err = stderr(&o);
            assert_eq!(code(&o), 2, "{cmd} {name}: {err}");
            assert_eq!(errors(&err), 1, "{cmd} {name}: {err}");
            assert!(err.contains(name) && err.contains("offset 0x0: looks like bundle text: assemble it first with tpb asm FILE -o OUT"), "{err}");
            let expected = if cmd == "validate" { "1 bundles, 1 valid, 0 invalid" } else { "# [0] +0x0" };
            assert!(stdout(&o).contains(expected), "{cmd} {name}: {}", stdout(&o));
        }
    }
    // Other text is not bundle text, and not a program: said so, not "assemble it first".
    let prose = write(dir.path(), "notes.txt", b"just some notes\n");
    let o = tpb(&["validate", prose.to_str().unwrap_or_default()]);
    assert!(code(&o) == 2 && stderr(&o).contains("offset 0x0: plain text, not a program"), "{}", stderr(&o));
}

#[test]
fn file_and_member_names_cannot_forge_output_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let forged = "x\n0x02:MatMul y.bin";
    let raw = write(dir.path(), forged, &assemble(VALID_COPY).repeat(2));
    let kelf = br#"{"target": "cayman", "graphs": [{"name": "sg00"}]}"#;
    let member = "sg\n0x02:MatMul/PE.bin";
    let neff = tpb_oracle::neff::build::container(2, &[("kelf-0.json", kelf), (member, &assemble(VALID_COPY))]).expect("builds a NEFF");
    let neff = write(dir.path(), "n\n0x02:MatMul.neff", &neff);
    let empty = write(dir.path(), "e\n0x02:MatMul.bin", &[]);
    let (r, n, e) = (raw.to_str().unwrap_or_default(), neff.to_str().unwrap_or_default(), empty.to_str().unwrap_or_default());
    for args in [vec!["disasm", r, n, e], vec!["validate", "-v", r, n, e], vec!["validate", "-v", "--spec", "--arch", "v4", r, n, e]] {
        let o = tpb(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.lines().any(|l| l.starts_with("0x02")), "{args:?}: a forged line:\n{out}");
        assert!(out.contains("x\\n0x02:MatMul y.bin"), "{args:?}: the name, escaped:\n{out}");
        if args[0] == "disasm" {
            assert_eq!(out.lines().filter(|l| l.starts_with("0x46:TensorCopy")).count(), 2 + usize::from(out.contains("sg\\n0x02")), "{out}");
        }
        // Errors and warnings are one line each.
        assert!(stderr(&o).lines().all(|l| l.starts_with("tpb: ")), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn the_process_kernel_is_chosen_by_name_and_an_unusable_one_is_refused() {
    use tpb_isa::validate::Kernel;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = assemble(VALID_COPY);
    bytes.extend(assemble("0x00:unknown"));
    let f = write(dir.path(), "two.bin", &bytes);
    let run = |kernel: &str, extra: &[&str]| {
        let mut c = command();
        c.env("TPB_ISA_KERNEL", kernel).arg("validate").args(extra).arg(&f);
        c.output().expect("runs tpb")
    };
    // Every kernel this CPU runs gives the same verdicts and output.
    let want = run("portable", &["-v"]);
    assert_eq!(code(&want), 1, "{}", stderr(&want));
    for k in Kernel::available_kernels().into_iter().map(Kernel::label).chain(["auto"]) {
        let o = run(k, &["-v"]);
        assert_eq!((code(&o), stdout(&o)), (1, stdout(&want)), "{k}: {}", stderr(&o));
    }
    // A kernel this CPU lacks, or no kernel at all: a usage error naming the kernels it runs, before any work.
    let lacking = Kernel::CONCRETE.into_iter().find(|k| !k.available()).map(Kernel::label);
    // `avx2` named a kernel once: removed (slower than portable on every CPU tried), it is no name now.
    for bad in lacking.into_iter().chain(["avx1024", "avx2", "x\ny"]) {
        let o = run(bad, &[]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{bad:?}: {err}");
        assert!(err.contains("TPB_ISA_KERNEL") && err.contains("portable") && err.lines().count() == 1, "{bad:?}: {err}");
        assert!(stdout(&o).is_empty(), "{bad:?}");
    }
    // The same on any CPU: kernels hidden as though it lacked them. Hidden, the portable
    // kernel alone runs, with the same output; a hidden kernel named, or a hide list naming
    // no hideable kernel, is refused like a missing one.
    let hiding = |hide: &str, kernel: &str| {
        let mut c = command();
        c.env("TPB_ISA_HIDE_KERNELS", hide).env("TPB_ISA_KERNEL", kernel).args(["validate", "-v"]).arg(&f);
        c.output().expect("runs tpb")
    };
    let o = hiding("avx512", "auto");
    assert_eq!((code(&o), stdout(&o)), (1, stdout(&want)), "{}", stderr(&o));
    for (hide, kernel, says) in [
        ("avx512", "avx512", "TPB_ISA_KERNEL=avx512: hidden by TPB_ISA_HIDE_KERNELS (this process runs: portable)"),
        ("sse", "auto", "TPB_ISA_HIDE_KERNELS: \"sse\" is not a kernel that can be hidden"),
    ] {
        let o = hiding(hide, kernel);
        assert_eq!((code(&o), stdout(&o).is_empty()), (2, true), "{hide} {kernel}: {}", stderr(&o));
        assert!(stderr(&o).contains(says) && stderr(&o).lines().count() == 1, "{hide} {kernel}: {}", stderr(&o));
    }
    // -q: only the count line.
    let o = run("auto", &["-q"]);
    assert_eq!((code(&o), stdout(&o)), (1, "2 bundles, 1 valid, 1 invalid\n".to_string()));
}

/// `--recovered` adds a recovered field that breaks its claim as one `info` line; the bundle stays valid, exit 0.
#[test]
fn validate_recovered_reports_a_broken_claim_as_info() {
    let dir = tempfile::tempdir().expect("tempdir");
    // NoOp (0xA4): the sync band, then zeros in every real bundle; one byte of zero_0c set.
    let mut noop = [0u8; 64];
    noop[0] = 0xA4;
    noop[1] = 0x10;
    let clean = write(dir.path(), "clean.bin", &noop);
    noop[0x20] = 0x01;
    let broken = write(dir.path(), "broken.bin", &noop);
    let o = tpb(&["validate", "--recovered", broken.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("valid") && !out.contains("INVALID"), "{out}");
    let info: Vec<&str> = out.lines().filter(|l| l.contains("info: recovered-claim")).collect();
    assert_eq!(info.len(), 1, "{out}");
    assert!(info[0].contains("[zero_0c @ 0x0c, §R]") && info[0].contains("zeros") && info[0].contains("0100"), "{out}");
    assert!(out.contains("1 bundles, 1 valid, 0 invalid"), "{out}");
    // Without the flag the spec's validator says nothing about a recovered field.
    let o = tpb(&["validate", broken.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0);
    assert!(!stdout(&o).contains("recovered-claim"), "{}", stdout(&o));
    // A bundle that holds every claim gets nothing from the layer.
    let o = tpb(&["validate", "--recovered", clean.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0);
    assert!(!stdout(&o).contains("recovered-claim"), "{}", stdout(&o));
    // JSON: the finding is in the bundle's findings, and the bundle is valid.
    let o = tpb(&["validate", "--recovered", "--json", broken.to_str().unwrap_or_default()]);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON line");
    assert_eq!(v["valid"], true);
    let f = &v["findings"][0];
    assert_eq!(
        (f["code"].as_str(), f["severity"].as_str(), f["field"].as_str(), f["offset"].as_u64()),
        (Some("recovered-claim"), Some("info"), Some("zero_0c"), Some(12))
    );
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(1));
}

#[test]
fn check_of_a_library_exits_by_its_facts_and_passes_every_option_on() {
    use tpb_oracle::fixture::Fixture;
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write(dir.path(), "libwalrus.so", &Fixture::moved().build().expect("fixture"));
    let bad = write(dir.path(), "bad.so", &Fixture::moved().lut_byte(4, 0x0a).build().expect("fixture"));
    let not_elf = write(dir.path(), "notes.txt", b"not a library\n");
    let (g, b, n) = (good.display().to_string(), bad.display().to_string(), not_elf.display().to_string());
    let o = tpb(&["check", &g]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains(&g), "the report names the library: {}", stdout(&o));
    // A fact that differs: exit 4, in text and in JSON (which says its exit).
    let o = tpb(&["check", &b]);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    let o = tpb(&["check", "--json", &b]);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("--json is JSON");
    assert_eq!(v["exit"], 4);
    // Errors: exit 1, one line naming the file; the cap is the one given.
    let o = tpb(&["check", &n]);
    assert_eq!((code(&o), stdout(&o).is_empty()), (1, true), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("tpb: error: ") && stderr(&o).contains(&n), "{}", stderr(&o));
    let o = tpb(&["check", "--max-bytes", "1000", &g]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("over the 1000-byte cap"), "{}", stderr(&o));
    // The expected facts, as text and as JSON.
    let o = tpb(&["facts"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stdout(&o).is_empty());
    let o = tpb(&["facts", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    serde_json::from_str::<serde_json::Value>(&stdout(&o)).expect("facts --json is JSON");
}

#[test]
fn diff_of_two_builds_exits_with_abidiff_bits() {
    use tpb_oracle::fixture::Fixture;
    let dir = tempfile::tempdir().expect("tempdir");
    let good = write(dir.path(), "good.so", &Fixture::moved().build().expect("fixture"));
    let bad = write(dir.path(), "bad.so", &Fixture::moved().lut_byte(4, 0x0a).build().expect("fixture"));
    let (g, b) = (good.display().to_string(), bad.display().to_string());
    let same = tpb(&["diff", &g, &g]);
    assert_eq!(code(&same), 0, "{}", stderr(&same));
    // Constants moved (4) and NEW disagrees with isa (8), OR-ed.
    let o = tpb(&["diff", &g, &b]);
    assert_eq!(code(&o), 4 | 8, "{}", stderr(&o));
    assert!(stdout(&o).contains("+dtype.bir_to_wire = 03 02 10 0d 0a"), "{}", stdout(&o));
}
