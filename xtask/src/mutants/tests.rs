use super::*;

fn outcome(name: &str, package: &str, file: &str, summary: &str) -> Value {
    serde_json::json!({"scenario": {"Mutant": {"name": name, "package": package, "file": file}}, "summary": summary})
}

/// Two shards as cargo-mutants 27.1.0 writes them (trimmed to the fields the page reads).
fn runs() -> Vec<Value> {
    let kernel = "isa/src/validate/fast/lanes/avx512.rs";
    vec![
        serde_json::json!({
            "cargo_mutants_version": "27.1.0",
            "start_time": "2026-12-06T01:02:03.456Z",
            "end_time": "2026-12-06T03:04:05.678Z",
            "outcomes": [
                {"scenario": "Baseline", "summary": "Success"},
                outcome("isa/src/b.rs:1:1: replace f -> bool with true", "tpb-isa", "isa/src/b.rs", "CaughtMutant"),
                outcome("isa/src/a.rs:2:1: replace g -> bool with false", "tpb-isa", "isa/src/a.rs", "MissedMutant"),
                outcome("isa/src/a.rs:3:1: replace h with ()", "tpb-isa", "isa/src/a.rs", "Unviable"),
                outcome("avx:1: replace cpu_has_features -> bool with true", "tpb-isa", kernel, "MissedMutant"),
            ]
        }),
        serde_json::json!({
            "cargo_mutants_version": "27.1.0",
            "start_time": "2026-12-06T00:59:00Z",
            "end_time": null,
            "outcomes": [
                outcome("src/x.rs:9:9: replace < with <=", "tpb", "src/x.rs", "Timeout"),
                outcome("src/x.rs:1:1: replace y with ()", "tpb", "src/x.rs", "CaughtMutant"),
                outcome("src/x.rs:2:1: replace z with ()", "tpb", "src/x.rs", "CaughtMutant"),
            ]
        }),
    ]
}

#[test]
fn the_summary_counts_per_package_with_the_kernels_apart() {
    let (page, missed) = summary(&runs(), 2, "abc1234");
    let want = "\
# Mutation testing: summary

- commit abc1234, cargo-mutants 27.1.0; 2026-12-06T00:59 to 2026-12-06T03:04 UTC
- runs: 2, 1 finished of 2 shards: NOT the whole set
- mutants tested: 7

| | caught | missed | timeout | unviable | caught / viable |
|---|---:|---:|---:|---:|---:|
| `kernels (apart)` | 0 | 1 | 0 | 0 | 0% |
| `tpb` | 2 | 0 | 1 | 0 | 66.7% |
| `tpb-isa` | 1 | 1 | 0 | 1 | 50% |
| **all counted** | 3 | 1 | 1 | 1 | 60% |

## Missed (2)

- `avx:1: replace cpu_has_features -> bool with true` (kernel, apart)
- `isa/src/a.rs:2:1: replace g -> bool with false`

## Timeouts (1)

- `src/x.rs:9:9: replace < with <=`
";
    assert_eq!(page, want);
    assert_eq!(missed, 1, "the kernel's miss is not counted");
}

#[test]
fn a_whole_set_says_so_and_nothing_viable_has_no_score() {
    let mut r = runs();
    r[1]["end_time"] = "2026-12-06T04:00:00Z".into();
    r[1]["outcomes"] = serde_json::json!([]);
    let (page, _) = summary(&r, 2, "abc");
    assert!(page.contains("- runs: 2, 2 finished: the whole set\n"), "{page}");
    let (page, _) = summary(&r, 0, "abc");
    assert!(page.contains("- runs: 2, 2 finished\n"), "{page}");
    r[0]["outcomes"] = serde_json::json!([outcome("n", "tpb", "src/n.rs", "Unviable")]);
    let (page, missed) = summary(&r, 0, "abc");
    assert!(page.contains("| `tpb` | 0 | 0 | 0 | 1 | – |\n"), "{page}");
    assert!(page.ends_with("## Missed (0)\n\n\n## Timeouts (0)\n\n"), "{page:?}");
    assert_eq!(missed, 0);
}

#[test]
fn jobs_are_read_as_cargo_mutants_reads_them() {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(jobs(&v(&["--workspace"])), "1");
    assert_eq!(jobs(&v(&["-j", "2"])), "2");
    assert_eq!(jobs(&v(&["--jobs", "3", "-p", "tpb"])), "3");
    assert_eq!(jobs(&v(&["--jobs=4"])), "4");
    assert_eq!(jobs(&v(&["-j5"])), "5");
    assert_eq!(jobs(&v(&["-j"])), "1");
    assert_eq!(jobs(&v(&["--", "-j", "2"])), "1");
}

#[test]
fn one_job_builds_in_a_kept_folder_unless_in_place_and_jobs_need_their_own() {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(target_dir(&v(&["--workspace"]), false), Ok(true));
    assert_eq!(target_dir(&v(&["--workspace"]), true), Ok(true));
    assert_eq!(target_dir(&v(&["--in-place", "--shard", "0/4"]), false), Ok(false));
    assert_eq!(target_dir(&v(&["-j", "2"]), false), Ok(false));
    assert!(target_dir(&v(&["-j", "2"]), true).is_err());
}

#[test]
fn the_kernel_is_run_only_with_both_instruction_sets() {
    assert!(runs_avx512("processor : 0\nflags\t\t: fpu avx512bw sse avx512vbmi\nflags : none\n"));
    assert!(!runs_avx512("flags\t\t: fpu avx512bw sse\n"));
    assert!(!runs_avx512("flags\t\t: fpu avx512vbmi2 avx512bw\n"));
    assert!(!runs_avx512(""));
}
