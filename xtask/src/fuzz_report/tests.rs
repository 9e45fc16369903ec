use super::*;

/// Runs as the fuzz report recorded them (rows from `cargo xtask fuzz-measure`, coverage from `cargo xtask fuzz-coverage`).
const META: &str = "secs=10\nlong=20\njobs=2\ncommit=abc1234\nbefore=def5678\n";
const ROWS: &str = "\
| `roundtrip` | 4096 | 12 / 3 KiB | ASan, before | 10 s | 1500 | 900 | 2000 | 310/40Kb | 1.50 | 3 |
| `roundtrip` | 4096 | 12 / 3 KiB | ASan | 20 s | 1800 | 950 | 2100 | 320/41Kb | 2.25 | 3 |
| `validate` | 64 | 200 / 13 KiB | none | 10 s | 90000 | 400 | 800 | 150/9Kb | 0.75 | – |
";

fn inputs() -> Inputs {
    let cov = [
        ("structured", "a::f\t3/10\tisa/src/a.rs\nb::g\t5/5\tisa/src/b.rs\ntpb_isa::props::structured\t2/2\tisa/src/props.rs\n"),
        ("text", "a::f\t7/10\tisa/src/a.rs\nc::h|x\t1/4\tisa/src/c.rs\n"),
        ("validate", "d::k\t2/2\toracle/src/d.rs\n"),
        ("roundtrip", "a::f\t4/10\tisa/src/a.rs\nb::g\t5/5\tisa/src/b.rs\ne::only\t1/1\tisa/src/e.rs\n"),
    ];
    Inputs {
        meta: META.into(),
        rows: ROWS.into(),
        date: "2026-12-07T06:49:59Z".into(),
        cpuinfo: "processor\t: 0\ncpu family\t: 6\nmodel\t\t: 167\nmodel name\t: Intel(R) Xeon(R)\n".into(),
        cores: 2,
        cov: cov.into_iter().map(|(t, c)| (tag("ASan", t), c.to_owned())).collect(),
        notes: Some("## Notes\n\nhand-written\n".into()),
    }
}

#[test]
fn the_header_names_the_command_the_runs_and_the_machine() {
    let r = render(&inputs());
    assert!(r.starts_with("# Fuzzing throughput and coverage\n\nWritten by `cargo xtask fuzz-report --secs 10 --long 20 --jobs 2`;"), "{r}");
    assert!(r.contains("(10 s; 20 s for `roundtrip`, `structured`, `text`, `validate` in the ASan build) with its\n"), "{r}");
    assert!(r.contains("`ASan, before` is `roundtrip` built from commit def5678, on the same seeds.\n"), "{r}");
    assert!(r.contains("\n- date: 2026-12-07T06:49Z\n- commit: abc1234\n- CPU: Intel(R) Xeon(R) (family 6, model 167), 2 cores\n"), "{r}");
    assert!(r.contains("- load average (1 min) at the end of each run: 0.75 to 2.25\n"), "{r}");
    assert!(r.contains(&format!("|---:|---:|---:|\n{ROWS}\n## Coverage")), "{r}");
    assert!(r.ends_with("\n\n## Notes\n\nhand-written\n"), "{r}");
}

#[test]
fn the_union_counts_each_function_once_with_its_best_part_and_leaves_out_the_entries() {
    let r = render(&inputs());
    for l in [
        "| union of the parts | 4 | 15 |",
        "| `roundtrip` | 3 | |",
        "| union ∩ `roundtrip` | 2 (50.0 %) | 9 (60.0 %) |",
        "| in the union, not in `roundtrip` | 2 | |",
        "| in both, fewer edges in `roundtrip` | 1 | |",
        "| in `roundtrip` only | 1 | |",
        "- `c::h\\|x` (`isa/src/c.rs`)\n- `d::k` (`oracle/src/d.rs`)\n",
        "- `a::f` (`isa/src/a.rs`): 4 / 7 of 10\n",
        "The parts' entry functions (`tpb_isa::props::structured`, `tpb_isa::props::text_roundtrip`, `tpb_isa::props::validate_any`, `tpb_isa::props::mutation`)\n",
    ] {
        assert!(r.contains(l), "missing {l:?} in\n{r}");
    }
}

#[test]
fn without_every_parts_coverage_there_is_no_union_and_without_rows_no_load() {
    let mut i = inputs();
    i.cov.remove(&tag("ASan", "text"));
    i.rows = String::new();
    i.notes = None;
    i.meta = "secs=5\nlong=5\ncommit=abc\n".into();
    let r = render(&i);
    assert!(!r.contains("## Coverage"), "{r}");
    assert!(!r.contains("before"), "{r}");
    assert!(r.contains("--jobs 1`"), "{r}");
    assert!(r.contains("at the end of each run: 0.00 to 0.00\n"), "{r}");
    assert!(r.ends_with("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"), "{r}");
}

#[test]
fn nothing_missed_says_none() {
    let mut i = inputs();
    i.cov.insert(
        tag("ASan", "roundtrip"),
        "a::f\t7/10\tisa/src/a.rs\nb::g\t5/5\tisa/src/b.rs\nc::h|x\t1/4\tisa/src/c.rs\nd::k\t2/2\toracle/src/d.rs\n".into(),
    );
    let r = render(&i);
    assert!(r.contains("does not cover):\n\n- none\n\nFunctions both cover"), "{r}");
    assert!(r.contains("(its / the union's best):\n\n- none\n"), "{r}");
    assert!(r.contains("| union ∩ `roundtrip` | 4 (100.0 %) | 15 (100.0 %) |"), "{r}");
}

#[test]
fn a_measured_row_gets_its_seeds_and_max_len_after_the_target() {
    let measured = "| `text` | ASan | 10 s | 1234 | 56 | 78 | 90/1Kb | 1.00 |";
    assert_eq!(seeded_row(measured, "text", Some("512"), 7, 1536), "| `text` | 512 | 7 / 2 KiB | ASan | 10 s | 1234 | 56 | 78 | 90/1Kb | 1.00 |");
    assert_eq!(seeded_row(measured, "text", None, 0, 0), "| `text` | – | 0 / 0 KiB | ASan | 10 s | 1234 | 56 | 78 | 90/1Kb | 1.00 |");
    // Another target's row is left as it is.
    assert_eq!(seeded_row(measured, "tex", None, 0, 0), measured);
}

#[test]
fn kib_rounds_as_printf_does() {
    assert_eq!([0, 511, 512, 513, 1024, 1536, 2560, 2561].map(kib), [0, 0, 0, 1, 1, 2, 2, 3]);
}

#[test]
fn options_and_names_read_as_the_scripts_read_them() {
    assert_eq!(max_len("[libfuzzer]\nmax_len = 4096\ndict = x.dict\n").as_deref(), Some("4096"));
    assert_eq!(max_len("[libfuzzer]\nmax_len=64\n").as_deref(), Some("64"));
    assert_eq!(max_len("[libfuzzer]\ndict = x.dict\n"), None);
    assert_eq!(tag("ASan, before", "roundtrip"), "ASan--before-roundtrip");
    assert!(libfuzzer_find("0123456789abcdef0123456789abcdef01234567"));
    assert!(!libfuzzer_find("0123456789ABCDEF0123456789abcdef01234567"));
    assert!(!libfuzzer_find("seed-0123456789abcdef0123456789abcdef012"));
    assert_eq!([awk_num(" 1.50 "), awk_num(" – "), awk_num("2.5x"), awk_num("")], [1.5, 0.0, 2.5, 0.0]);
}

#[test]
fn seeds_are_counted_without_notes_or_libfuzzer_finds() {
    let dir = std::env::temp_dir().join(format!("xtask-seeds-{}", std::process::id()));
    let sub = dir.join("sub");
    fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{e}"));
    for (name, len) in [("seed-1", 1000), ("README.md", 5000), ("0123456789abcdef0123456789abcdef01234567", 7000)] {
        fs::write(dir.join(name), vec![0; len]).unwrap_or_else(|e| panic!("{e}"));
    }
    fs::write(sub.join("seed-2"), vec![0; 100]).unwrap_or_else(|e| panic!("{e}"));
    let counted = seed_files(&[dir.clone(), dir.join("absent")]);
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(counted, (2, 1100));
}

/// The parts are fuzz targets, and `ENTRIES` are exactly the `tpb_isa::props`
/// functions their `fuzz/fuzz_targets/<part>.rs` call (a renamed function or
/// target would silently skew the report).
#[test]
fn the_parts_and_their_entry_functions_are_the_fuzz_targets() {
    let root = crate::root();
    let manifest = fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap_or_else(|e| panic!("fuzz/Cargo.toml: {e}"));
    let mut called = Vec::new();
    for part in PARTS.iter().chain([&CHAIN]) {
        assert!(manifest.contains(&format!("name = \"{part}\"")), "`{part}` is no fuzz target of fuzz/Cargo.toml");
    }
    for part in PARTS {
        let body = fs::read_to_string(root.join("fuzz/fuzz_targets").join(format!("{part}.rs"))).unwrap_or_else(|e| panic!("{part}: {e}"));
        for (i, _) in body.match_indices("tpb_isa::props::") {
            called.push(body[i..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect::<String>());
        }
    }
    called.sort();
    called.dedup();
    let mut entries = ENTRIES.map(str::to_owned).to_vec();
    entries.sort();
    assert_eq!(entries, called, "ENTRIES (left) and the functions the parts' fuzz targets call (right)");
}
