//! `cargo xtask bench` end to end on small inputs: it runs, writes a report
//! with every row, the machine and the date. No timing is asserted (speed is
//! measured by the benchmark itself, never judged in `cargo test`).
//!
//! The built `xtask` runs in this build's profile, timing the `tpb` built
//! beside it (`TPB_BENCH_TPB`): no release build from inside `cargo test`.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `tpb` of this build, beside `xtask` (`cargo test --workspace` builds it for its own tests).
fn tpb() -> PathBuf {
    let xtask = PathBuf::from(env!("CARGO_BIN_EXE_xtask"));
    let tpb = xtask.with_file_name(format!("tpb{}", std::env::consts::EXE_SUFFIX));
    assert!(tpb.is_file(), "{}: not built; the bench tests time it (cargo build -p tpb, or cargo test --workspace)", tpb.display());
    tpb
}

/// The built `xtask`, timing [`tpb`].
fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xtask"));
    c.env("TPB_BENCH_TPB", tpb());
    c
}

/// Runs `c` to its end; a program that cannot start fails the test.
fn run(c: &mut Command) -> Output {
    c.output().unwrap_or_else(|e| panic!("cannot run {:?}: {e}", c.get_program()))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn bench_writes_a_report_with_every_row() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A small container: one engine stream of two NoOp bundles (opcode, length 0x10, zeros).
    let mut stream = vec![0u8; 2 * tpb_isa::BUNDLE_BYTES];
    for b in stream.chunks_exact_mut(tpb_isa::BUNDLE_BYTES) {
        b[0] = 0xA4;
        b[1] = tpb_isa::bundle::INST_WORD_LEN;
    }
    let neff = tpb_oracle::neff::build::container(2, &[("sg00/SP.bin", &stream)]).expect("builds a NEFF");
    let neff_path = dir.path().join("small.neff");
    std::fs::write(&neff_path, neff).expect("write NEFF");
    // Any small ELF stands in for the library: the row measures, whatever the facts say.
    let elf = ["/bin/true", "/usr/bin/true", "/bin/sh"].into_iter().find(|p| std::path::Path::new(p).is_file());
    let out = dir.path().join("reports/bench.md");
    std::fs::create_dir(dir.path().join("reports")).expect("mkdir");
    let mut cmd = command();
    cmd.args(["bench", "--no-fuzz", "--mib", "1", "--rounds", "1", "--neff"]).arg(&neff_path).arg("--out").arg(&out);
    // The end-to-end file is 256 MiB unless told otherwise.
    cmd.env("TPB_BENCH_E2E_MIB", "2");
    if let Some(e) = elf {
        cmd.args(["--elf", e]);
    }
    let o = run(&mut cmd);
    let stderr = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "stderr: {stderr}");
    let md = std::fs::read_to_string(&out).expect("report written");
    // The console table's columns line up whatever the label lengths (counted in characters).
    let stdout = stdout(&o);
    let at: Vec<usize> = stdout.lines().filter_map(|l| l.find(" ratio ").map(|b| l[..b].chars().count())).collect();
    assert!(at.len() > 5 && at.iter().all(|&c| c == at[0]), "ratio columns at {at:?}:\n{stdout}");
    for want in [
        "# Benchmarks",
        "- date (UTC): ",
        "- machine: ",
        "| codec | decode | ",
        "| codec | encode | ",
        "| codec | decode+encode | ",
        "| codec | decode, move by value, encode | ",
        "| codec | decode+validate (decode_stream, portable kernel",
        "kernel, auto) | ",
        "- validator kernels this CPU runs: ",
        "| codec | decode+validate one at a time (validate_into) | ",
        "| codec | validate_stream (decodes only on findings) | ",
        "memcpy ",
        "| neff | NEFF ingest vs gzip -dc \\| tar t | ",
        "| fuzz | fuzz roundtrip vs empty target | — | — | — |  | ≥ 0.5× | skipped: --no-fuzz |",
        "tpb check vs nm -DC + strings",
        "targets met",
    ] {
        assert!(md.contains(want), "report lacks `{want}`:\n{md}");
    }
    // The round trip carries the codec target; the row with a move between decode and encode only informs.
    let line = |start: &str| md.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no `{start}` row:\n{md}"));
    assert!(line("| codec | decode+encode | ").contains("| ≥ 0.3× |"), "{md}");
    assert!(line("| codec | decode, move by value, encode | ").contains("| — |"), "{md}");
    // End to end on real v2 bundles (the committed corpus has some), of the size asked for.
    for (row, target) in [
        ("| validate | tpb validate -q, 2 MiB of real v2 bundles, vs cat | ", "| ≤ 3× |"),
        ("| validate | tpb validate (text to /dev/null), 2 MiB of real v2 bundles, vs cat | ", "| — |"),
    ] {
        assert!(line(row).contains(" M bundles/s) | cat ") && line(row).contains(target), "{md}");
    }
    assert!(md.contains("- validate end to end: 2 MiB (32768 bundles) of the v2 engine streams of "), "{md}");
    // The container's payload is gzip, so the baseline unzips it before listing it.
    assert!(line("| neff | NEFF ingest vs gzip -dc \\| tar t | ").contains(" ms | gzip -dc \\| tar t "), "{md}");
    // With two cores or more, the scaling rows are measured, the memory-read limit among them.
    if std::thread::available_parallelism().map_or(1, usize::from) >= 2 {
        assert!(md.contains("| codec | machine: memory read, ") && md.contains("| codec | parallel validate, "), "{md}");
    }
    // decode+validate has a row per kernel this CPU runs: the portable kernel's carries
    // ≥ 0.6× on every machine (what a CPU without AVX-512 gets), another kernel `auto` picks ≥ 0.5×.
    let kernels = tpb_isa::validate::Kernel::available_kernels();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| codec | decode+validate (decode_stream, ")).collect();
    assert_eq!(rows.len(), kernels.len(), "{md}");
    let portable: Vec<&&str> = rows.iter().filter(|l| l.contains("(decode_stream, portable kernel")).collect();
    assert!(portable.len() == 1 && portable[0].contains("| ≥ 0.6× |"), "{md}");
    // `auto` is timed in each process, so the bench's pick is one of this CPU's kernels, marked once.
    let marked: Vec<&&str> = rows.iter().filter(|l| l.contains(" kernel, auto)")).collect();
    assert_eq!(marked.len(), 1, "{md}");
    assert!(marked[0].contains(if marked[0].contains("portable kernel") { "| ≥ 0.6× |" } else { "| ≥ 0.5× |" }), "{md}");
    assert!(kernels.iter().any(|k| marked[0].contains(&format!(", {} kernel, auto)", k.label()))), "{md}");
    for r in rows.iter().filter(|l| !l.contains(" kernel, auto)") && !l.contains("portable kernel")) {
        assert!(r.contains("| — |"), "a kernel neither portable nor picked has no target: {r}");
    }
    // How `auto` chose: timed, unless the environment (inherited by the bench) named a kernel.
    let named = std::env::var(tpb_isa::validate::ENV_KERNEL).is_ok_and(|k| k != "auto");
    let how = if named { "(named by `TPB_ISA_KERNEL`)" } else { "(`auto`, the fastest on a sample: " };
    assert!(md.contains(how), "{md}");
    // The folder rows: measured against gzip, or skipped with a reason.
    for want in ["| neff | validate a folder of NEFFs, ", "vs gzip -dc of the payloads |", "| neff | validate a folder of NEFFs, "] {
        assert!(md.contains(want), "report lacks `{want}`:\n{md}");
    }
    // The NEFF row measured (sh, gzip and tar are on every machine this runs on) or says why not.
    let neff_row = md.lines().find(|l| l.starts_with("| neff |")).expect("neff row");
    assert!(neff_row.contains("PASS") || neff_row.contains("MISS") || neff_row.contains("skipped:"), "{neff_row}");
    // The stdout table carries the same rows.
    let table = &stdout;
    assert!(table.contains("decode+validate") && table.contains("NEFF ingest"), "{table}");
}

#[test]
fn bench_ingest_mode_reports_a_bad_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.neff");
    std::fs::write(&bad, b"not a neff").expect("write");
    let o = run(command().args(["bench", "--ingest"]).arg(&bad));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.neff"), "{}", stderr(&o));
}

#[test]
fn bench_refuses_unusable_explicit_paths_before_measuring() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().display().to_string();
    let file = dir.path().join("plain.txt");
    std::fs::write(&file, b"x").expect("write");
    let f = file.display().to_string();
    // Long enough to read a magic from, and not an ELF's.
    let text = dir.path().join("text.so");
    std::fs::write(&text, b"plain text, no ELF").expect("write");
    let t = text.display().to_string();
    let report = dir.path().join("bench.md").display().to_string();
    let below_file = format!("{f}/bench.md");
    let missing_dir = format!("{d}/missing");
    let missing_file = format!("{missing_dir}/bench.md");
    let not_neff = dir.path().join("not.neff");
    std::fs::write(&not_neff, b"not a neff").expect("write");
    let n = not_neff.display().to_string();
    for (args, path, why) in [
        (vec!["--elf", "/nonexistent.so", "--out", &report], "/nonexistent.so", "No such file"),
        (vec!["--neff", &d, "--out", &report], d.as_str(), "is a directory"),
        (vec!["--elf", &d, "--out", &report], d.as_str(), "is a directory"),
        (vec!["--elf", &f, "--out", &report], f.as_str(), "not an ELF file"),
        (vec!["--elf", &t, "--out", &report], t.as_str(), "not an ELF file"),
        (vec!["--out", &d], d.as_str(), "is a directory"),
        (vec!["--neff", &n, "--out", &report], n.as_str(), "shorter than the 1024-byte header"),
        (vec!["--out", &below_file], f.as_str(), "not a directory"),
        (vec!["--out", &missing_file], missing_dir.as_str(), "folder does not exist"),
    ] {
        let o = run(command().args(["bench", "--quick", "--no-fuzz"]).args(&args));
        let stderr = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "refused before measuring: {stderr}");
        assert!(stderr.contains(path) && stderr.contains(why), "{args:?}: {stderr}");
        assert!(o.stdout.is_empty(), "{args:?}: no table");
    }
    assert!(!dir.path().join("bench.md").exists() && !dir.path().join("missing").exists());
}

#[test]
fn bench_only_measures_the_sections_named() {
    let o = run(command().args(["bench", "--only", "differ", "--rounds", "1", "--no-write"]));
    let (stdout, stderr) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "stderr: {stderr}");
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("differ ")).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert!(rows.iter().all(|r| r.contains(" M comparisons/s ") && r.contains("vs decode + disasm ")), "{stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with("codec ") || l.starts_with("fuzz ")), "{stdout}");
    let bad = run(command().args(["bench", "--only", "nope"]));
    assert_eq!(bad.status.code(), Some(2));
}
