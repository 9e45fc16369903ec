//! `tpb conform` end to end: the report folder from a plain run, exit codes
//! for a clean run, a harness failure and a usage error, and the real NEFF
//! programs from ../shared when they are there.

use crate::support::{command, root, run, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Output;

fn conform(out: &Path, extra: &[&str]) -> Output {
    // No --quiet: it would print the count line alone (progress bars are off anyway, stdout is no terminal).
    let mut args = vec!["conform", "--time", "1", "--seed", "7", "--out"];
    let out = out.display().to_string();
    args.push(&out);
    args.extend_from_slice(extra);
    run(command().args(&args))
}

/// The one dated folder under `root`.
fn folder(root: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(root).expect("reports root").filter_map(Result::ok).map(|e| e.path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let name = dirs[0].file_name().unwrap_or_default().to_string_lossy().into_owned();
    let b = name.as_bytes();
    assert!(b.len() == 10 && b[4] == b'-' && b[7] == b'-' && name.replace('-', "").bytes().all(|c| c.is_ascii_digit()), "folder {name}");
    dirs[0].clone()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_plain_run_writes_every_report_and_passes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = conform(tmp.path(), &[]);
    let stdout = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", stderr(&out));
    assert!(stdout.contains("property campaign"), "{stdout}");
    let dir = folder(tmp.path());
    let json: serde_json::Value = serde_json::from_str(&read(&dir.join("summary.json"))).expect("summary.json parses");
    // The headline says what passed in validate's counts: the harness, then the real programs by default and under --spec.
    let v = |k: &str| json["sections"][5]["data"]["verdicts"][k].as_u64().unwrap_or(u64::MAX);
    let headline = format!(
        "PASS: harness 0 failures (1 check skipped); real programs: {} files, {} bundles, 0 invalid ({} under --spec)",
        json["neffs"].as_array().map_or(0, Vec::len),
        v("bundles"),
        v("invalid_spec")
    );
    assert!(stdout.contains(&format!("{headline}; reports in ")), "{stdout}");
    assert!(!stdout.contains("disagreement(s)"), "{stdout}");
    // Under the table, what `disagree` counts and why it is not the --spec count.
    assert!(stdout.contains("\ndisagree: bundles with any finding of the spec alone"), "{stdout}");
    let ids: Vec<&str> = json["sections"].as_array().expect("sections").iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!(ids, ["description", "campaign", "replay", "c_header", "lib", "neff"]);
    assert_eq!(json["seed"], 7);
    // Every family × generation is a campaign check.
    assert_eq!(json["sections"][1]["cases"].as_array().map(Vec::len), Some(tpb_isa::BodyKind::ALL.len() * 3));
    // The library section is skipped with its reason when no --lib is given.
    let c = &json["sections"][4]["cases"][0];
    assert_eq!(c["status"], "skip");
    assert!(c["detail"].as_str().is_some_and(|d| d.contains("no --")), "{c}");
    // Without --neff, the real programs committed in corpus/neff/real/ are judged: none invalid by default.
    let neff = &json["sections"][5];
    let cases = neff["cases"].as_array().expect("neff cases");
    assert!(cases.len() >= 10 && cases.iter().all(|c| c["status"] == "pass"), "{neff}");
    assert_eq!(neff["data"]["verdicts"]["invalid_amended"], 0, "{}", neff["data"]["verdicts"]);
    assert!(neff["data"]["verdicts"]["invalid_spec"].as_u64().is_some_and(|n| n > 0));
    assert!(json["neffs"].as_array().is_some_and(|n| n.len() == cases.len()));
    let junit = read(&dir.join("junit.xml"));
    assert!(junit.starts_with("<?xml"));
    assert_eq!(junit.matches("<testsuite ").count(), 6);
    assert!(junit.contains("failures=\"0\"") && junit.contains("<skipped message="));
    assert!(!junit.contains("<failure"));
    let md = read(&dir.join("summary.md"));
    assert!(md.contains("— PASS") && md.contains("## property campaign") && md.contains("| v4 | "), "{md}");
    assert!(md.contains("## Errata") && md.contains("**0 invalid by default**") && md.contains("`semaphore-no-wait`"), "{md}");
    assert!(junit.contains("<skipped message=") && junit.matches("<testcase ").count() > 50);
    assert!(read(&dir.join("neuron_isa_tpb.h")).contains("NEURON_ISA_TPB_H"));
    // Nothing half-written is left behind.
    let leftovers: Vec<_> =
        std::fs::read_dir(&dir).expect("list").filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().contains(".tmp")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_rerun_replaces_the_previous_report_entirely() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = conform(tmp.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = folder(tmp.path());
    // Files only an earlier run left: details of failures, inputs no longer given, anything.
    for stale in ["failures/matmul/v2/stale.bin", "neff/00-old.md", "lib/00-old.txt", "stale.txt"] {
        let p = dir.join(stale);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, b"stale").expect("write");
    }
    std::fs::write(dir.join("summary.md"), b"old summary").expect("write");
    let out = conform(tmp.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // One folder: no temporary or backup folder beside it.
    let again = folder(tmp.path());
    assert_eq!(again, dir);
    for stale in ["failures", "neff/00-old.md", "lib", "stale.txt"] {
        assert!(!dir.join(stale).exists(), "{stale} survived the re-run");
    }
    assert!(read(&dir.join("summary.md")).contains("— PASS"));
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).expect("list").filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    // neff/ holds this run's per-program reports (the committed real programs).
    assert_eq!(names, ["junit.xml", "neff", "neuron_isa_tpb.h", "report.html", "summary.json", "summary.md"]);
}

#[test]
fn an_unreadable_neff_is_a_harness_failure() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bad = tmp.path().join("garbage.neff");
    std::fs::write(&bad, b"not a NEFF container at all").expect("write");
    let reports = tmp.path().join("reports");
    let out = conform(&reports, &["--neff", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let dir = folder(&reports);
    let junit = read(&dir.join("junit.xml"));
    assert!(junit.contains("<testsuite name=\"neff\" tests=\"1\" failures=\"1\""), "{junit}");
    assert!(junit.contains("<failure message="));
    assert!(read(&dir.join("summary.md")).contains("FAIL"));
}

#[test]
fn a_missing_input_is_a_usage_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = conform(tmp.path(), &["--lib", "/nonexistent/libwalrus.so"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/libwalrus.so"));
    let out = run(command().args(["conform", "--time", "soon"]));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_directory_or_missing_path_is_a_usage_error_with_the_real_reason() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let reports = tmp.path().join("reports");
    let dir = tmp.path().display().to_string();
    let missing = tmp.path().join("missing.neff").display().to_string();
    // A folder is walked for programs: one without any is refused, naming it.
    for (flag, path, why) in
        [("--neff", &dir, "no *.neff file in this folder"), ("--lib", &dir, "is a directory"), ("--neff", &missing, "No such file")]
    {
        let out = conform(&reports, &[flag, path]);
        let stderr = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag} {path}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(path.as_str()) && stderr.contains(why), "{flag} {path}: {stderr}");
        // Nothing was run, so no report was written.
        assert!(!reports.exists(), "{flag} {path}");
    }
}

#[test]
fn real_neff_programs_pass_with_spec_disagreements() {
    let shared = root().join("../shared/neff/matmul_small.neff");
    if !shared.is_file() {
        // `.ci/run` sets TPB_REQUIRE_SHARED when ../shared is there, so losing the file fails CI.
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "{} absent (TPB_REQUIRE_SHARED is set)", shared.display());
        tpb_isa::test_skip::skipped(&format!("conform: {} absent: the real-NEFF conformance run", shared.display()));
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = conform(tmp.path(), &["--neff", &shared.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let dir = folder(tmp.path());
    let json: serde_json::Value = serde_json::from_str(&read(&dir.join("summary.json"))).expect("parses");
    let case = &json["sections"][5]["cases"][0];
    assert_eq!(case["status"], "pass");
    assert!(case["checked"].as_u64().is_some_and(|n| n > 0));
    assert!(case["disagreements"].as_u64().is_some_and(|n| n > 0), "the real files disagree with the spec: {case}");
    let artifact = case["artifact"].as_str().expect("artifact");
    assert!(dir.join(artifact).is_file());
}

#[test]
fn a_library_conform_cannot_judge_fails_its_case_and_the_compiler_library_passes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Any ELF has a class and sections; a system program has none of the format's facts
    // (tpb itself would not do: it holds the expected strings and tables).
    let Some(not_walrus) = ["/bin/ls", "/usr/bin/ls", "/bin/sh"].into_iter().find(|p| Path::new(p).is_file()) else {
        tpb_isa::test_skip::skipped("conform: no system ELF program found");
        return;
    };
    let reports = tmp.path().join("a");
    let out = conform(&reports, &["--lib", not_walrus]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let json: serde_json::Value = serde_json::from_str(&read(&folder(&reports).join("summary.json"))).expect("parses");
    let case = &json["sections"][4]["cases"][0];
    assert_eq!(case["status"], "fail", "{case}");
    assert!(case["detail"].as_str().is_some_and(|d| d.contains("not judged: none of the format's")), "{case}");
    // A library that holds the format's facts is judged and passes.
    let lib = tmp.path().join("libwalrus.so");
    std::fs::write(&lib, tpb_oracle::fixture::Fixture::known().and_then(|f| f.build()).expect("fixture")).expect("write");
    let reports = tmp.path().join("b");
    let out = conform(&reports, &["--lib", &lib.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn conform_is_bounded_per_container_and_says_so() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let real = root().join("corpus/neff/real/xla-2.14/MODULE_1400720454487352361.neff");
    let out = conform(tmp.path(), &["--neff", &real.display().to_string(), "--max-bundles", "100"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let json: serde_json::Value = serde_json::from_str(&read(&folder(tmp.path()).join("summary.json"))).expect("parses");
    let case = &json["sections"][5]["cases"][0];
    assert_eq!(case["checked"], 100, "{case}");
    assert!(case["detail"].as_str().is_some_and(|d| d.starts_with("bounded: judged the first 100 of 742 bundles")), "{case}");
}

#[test]
fn a_folder_of_programs_gives_a_summary_that_leads_with_what_passed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let programs = tmp.path().join("programs");
    std::fs::create_dir_all(programs.join("sub")).expect("mkdir");
    let real = root().join("corpus/neff/real/xla-2.14");
    for (from, to) in [("MODULE_11790936170214357810.neff", "a.neff"), ("MODULE_4195419208161846083.neff", "sub/b.neff")] {
        std::fs::copy(real.join(from), programs.join(to)).expect("copy");
    }
    let reports = tmp.path().join("reports");
    let given = programs.display().to_string();
    let out = conform(&reports, &["--neff", &given]);
    let stdout = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", stderr(&out));
    let dir = folder(&reports);
    let json: serde_json::Value = serde_json::from_str(&read(&dir.join("summary.json"))).expect("summary.json parses");
    // The folder was walked in name order; the command line is kept as given.
    let a = programs.join("a.neff").display().to_string();
    let b = programs.join("sub/b.neff").display().to_string();
    assert_eq!(json["neffs"], serde_json::json!([a, b]));
    assert_eq!(json["neff_args"], serde_json::json!([given]));

    let md = read(&dir.join("summary.md"));
    let headline = stdout.lines().last().and_then(|l| l.split("; reports in ").next()).unwrap_or_default();
    assert!(headline.starts_with("PASS: harness 0 failures") && headline.contains("real programs: 2 files, "), "{stdout}");
    assert!(md.contains(&format!("\n**{headline}**\n")), "{md}");
    // Short to reproduce: the folder, not each file under it.
    assert!(md.contains(&format!("Reproduce with `tpb conform --seed 0x7 --time 1 --neff {given}`.")), "{md}");
    assert!(!md.contains(&format!("--neff {a}")), "{md}");
    // What a reader needs first comes first; the campaign is one row per generation.
    let at = |h: &str| md.find(h).unwrap_or_else(|| panic!("no {h:?} in:\n{md}"));
    let order = [
        "## Harness failures (0)",
        "## Errata",
        "## Spec disagreements (",
        "## Sections",
        "## property campaign",
        "## NEFF conformance",
        "## Spec disagreements in detail",
    ];
    assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{md}");
    assert!(!md.contains("matmul_mx/v4"), "{md}");
    let campaign = &md[at("## property campaign")..at("## corpus replay")];
    assert_eq!(campaign.lines().filter(|l| l.starts_with("| v")).count(), 3, "{campaign}");
}

/// `-q` prints the count line only, as `validate -q` and `evidence -q` do; the reports are written all the same.
#[test]
fn quiet_prints_the_count_line_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = conform(tmp.path(), &["-q"]);
    let stdout = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("PASS: harness 0 failures") && stdout.contains("; reports in "), "{stdout}");
    assert!(folder(tmp.path()).join("summary.md").is_file());
}
