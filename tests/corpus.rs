//! The corpus in `cargo test`: every seed and every regression input replayed
//! through its fuzz target's body, a seeded smoke run of every target (so CI
//! exercises each target without libFuzzer), the hand-checked bundles against
//! their annotations, and the checked-in seeds against `tpb corpus`.

#[path = "../src/conform/hand.rs"]
mod hand;
#[path = "../src/conform/targets.rs"]
mod targets;

use crate::support::{root, stderr, stdout, tpb};
use std::path::{Path, PathBuf};
use std::process::Command;
use targets::Target;
use tpb_isa::fuzz::{self, Input};
use tpb_isa::props::seeded_bytes;

fn corpus() -> PathBuf {
    root().join("corpus")
}

/// The names of the targets that have seeds: all but `empty`, which reads nothing.
fn seeded() -> impl Iterator<Item = &'static str> {
    fuzz::TARGETS.iter().filter(|t| t.input != Input::Unread).map(|t| t.name)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    v.retain(|p| p.extension().is_none_or(|e| e != "md") && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')));
    v.sort();
    v
}

fn replay(t: &Target, dir: &Path) -> usize {
    let inputs = files(dir);
    for f in &inputs {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if let Err(e) = t.run(&data) {
            panic!("{} through `{}`: {e}", f.display(), t.name);
        }
    }
    inputs.len()
}

/// The replayed targets are exactly the table's in-process ones, in its order
/// (an empty or shortened list would make every replay below pass vacuously).
#[test]
fn the_replayed_targets_are_the_tables_in_process_targets() {
    let replayed: Vec<&str> = targets::all().iter().map(|t| t.name).collect();
    let in_process: Vec<&str> = tpb_isa::fuzz::TARGETS
        .iter()
        .filter(|t| !matches!(t.body, tpb_isa::fuzz::Body::CShim | tpb_isa::fuzz::Body::Nothing))
        .map(|t| t.name)
        .collect();
    assert_eq!(replayed, in_process);
    assert!(replayed.len() >= 6, "{replayed:?}");
}

#[test]
fn every_seed_passes_its_target() {
    for t in &targets::all() {
        let n = replay(t, &corpus().join(t.name));
        assert!(n > 0, "corpus/{} ({}) has no seeds; run `tpb corpus`", t.name, t.about);
    }
}

/// Every target starts from at least 20 seeds of its own (`tpb corpus`), so
/// the fuzzer begins past the format's first checks in many places at once.
#[test]
fn every_target_has_at_least_twenty_seeds() {
    for t in seeded() {
        let n = files(&corpus().join(t)).len();
        assert!(n >= 20, "corpus/{t} has {n} seeds; `tpb corpus` should make at least 20");
    }
}

#[test]
fn every_regression_input_still_passes() {
    let mut total = 0;
    for t in &targets::all() {
        total += replay(t, &corpus().join("regressions").join(t.name));
    }
    // Every regression folder belongs to a target this test can run (c_layout's
    // inputs are bundles, replayed through the C shim by `tpb conform`).
    for dir in std::fs::read_dir(corpus().join("regressions")).expect("corpus/regressions exists").filter_map(Result::ok) {
        let name = dir.file_name().to_string_lossy().into_owned();
        if dir.path().is_dir() {
            assert!(seeded().any(|t| t == name), "corpus/regressions/{name} is no fuzz target");
        }
    }
    println!("{total} regression inputs replayed");
}

#[test]
fn every_target_survives_a_seeded_smoke_run() {
    for t in &targets::all() {
        for seed in 0..300u64 {
            let data = seeded_bytes(seed, t.smoke_len);
            if let Err(e) = t.run(&data) {
                panic!("{} failed on seed {seed}: {e}", t.name);
            }
        }
    }
}

#[test]
fn hand_bundles_validate_exactly_as_annotated() {
    let all = hand::all().unwrap_or_else(|e| panic!("{e}"));
    assert!(all.len() >= 40, "only {} hand bundles", all.len());
    for b in &all {
        if let Err(e) = hand::check(b) {
            panic!("{e}");
        }
    }
    let missing = hand::uncovered(&all);
    assert!(missing.is_empty(), "typed families without a clean hand bundle: {missing:?}");
    // The annotations are not all empty: the hand files pin findings too.
    assert!(all.iter().filter(|b| !b.expect.is_empty()).count() >= 10);
}

#[test]
fn a_wrong_annotation_is_caught() {
    let file = hand::HandFile {
        generation: tpb_isa::Generation::V2,
        name: "test.tpb",
        text: "0xA9:Branch comp_op=always # expect: zero-num\n0xA9:Branch comp_op=always # expect: no-such-check\n",
    };
    assert!(hand::parse(&file).is_err_and(|e| e.contains("no-such-check")));
    let file = hand::HandFile { generation: tpb_isa::Generation::V2, name: "test.tpb", text: "0xA9:Branch comp_op=always # expect: zero-num\n" };
    let b = hand::parse(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(hand::check(&b[0]).is_err_and(|e| e.contains("test.tpb:1") && e.contains("zero-num")));
}

/// Relative path → bytes of every seed file under `root/<target>/`.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for dir in std::fs::read_dir(root).expect("corpus root").filter_map(Result::ok) {
        let name = dir.file_name().to_string_lossy().into_owned();
        if !dir.path().is_dir() || name == "hand" || name == "regressions" {
            continue;
        }
        for f in files(&dir.path()) {
            let file = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
            // libFuzzer's own finds (named by SHA-1, git-ignored) are local, not seeds.
            if file.len() == 40 && file.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let rel = format!("{name}/{file}");
            v.push((rel, std::fs::read(&f).expect("read seed")));
        }
    }
    v.sort();
    v
}

#[test]
fn checked_in_seeds_are_what_tpb_corpus_generates() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tpb(&["corpus", "--out", &tmp.path().display().to_string()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let want = tree(tmp.path());
    let have = tree(&corpus());
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&have), names(&want), "corpus/ differs from `tpb corpus`: regenerate it");
    for ((name, a), (_, b)) in have.iter().zip(&want) {
        assert!(a == b, "corpus/{name} differs from what `tpb corpus` generates: regenerate it");
    }
}

#[test]
fn tpb_corpus_is_deterministic_and_prunes_stale_seeds() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().display().to_string();
    let args = ["corpus", "--out", &root, "--count", "1", "--seed", "0x1234"];
    assert!(tpb(&args).status.success());
    let first = tree(tmp.path());
    assert!(first.iter().any(|(n, _)| n.starts_with("structured/gen-")));
    assert!(first.iter().any(|(n, _)| n == "roundtrip/hand-v4-matmul_mx.bin"));
    // Real bundles from corpus/neff/real/: one 64-byte seed per generation × opcode, for every bundle target.
    for t in fuzz::bundle_targets().map(|t| t.name) {
        let real: Vec<_> = first.iter().filter(|(n, _)| n.starts_with(&format!("{t}/real-"))).collect();
        assert!(real.len() >= 40, "{t}: only {} real-bundle seeds", real.len());
        assert!(
            real.iter().all(|(n, b)| b.len() == 64 && n.ends_with(&format!("-{:02x}.bin", b[0]))),
            "{t}: a real seed is not one bundle of its opcode"
        );
    }
    std::fs::write(tmp.path().join("roundtrip/stale.bin"), b"x").expect("write stale");
    std::fs::create_dir_all(tmp.path().join("regressions/roundtrip")).expect("mkdir");
    std::fs::write(tmp.path().join("regressions/roundtrip/kept.bin"), b"y").expect("write regression");
    let out = tpb(&args);
    let said = stdout(&out);
    // An unchanged seed is left alone: only the stale one moved.
    assert!(said.contains("(0 written,") && said.contains("1 stale removed"), "{said}");
    assert_eq!(tree(tmp.path()), first);
    // A seed changed by hand is written back, and only it.
    std::fs::write(tmp.path().join("roundtrip/hand-v4-matmul_mx.bin"), b"changed").expect("write changed");
    let said = stdout(&tpb(&args));
    assert!(said.contains("(1 written,"), "{said}");
    assert_eq!(tree(tmp.path()), first);
    assert!(tmp.path().join("regressions/roundtrip/kept.bin").exists(), "regressions are never touched");
    // Another seed gives other generated seeds.
    let other = tempfile::tempdir().expect("tempdir");
    assert!(tpb(&["corpus", "--out", &other.path().display().to_string(), "--count", "1", "--seed", "99"]).status.success());
    assert_ne!(tree(other.path()), first);
}

#[test]
fn tpb_corpus_without_real_programs_says_where_it_looked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let empty = tmp.path().join("no-neffs");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let out = tpb(&["corpus", "--out", &tmp.path().join("out").display().to_string(), "--real", &empty.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-neffs"), "{}", stderr(&out));
}

/// `fuzz/dict/bundle.dict` (the dictionary of every bundle target) is what
/// `tpb_isa::fuzz::bundle_dictionary` writes from the opcode table; with
/// `TPB_BLESS=1` this test writes it.
#[test]
fn the_bundle_dictionary_is_written_from_the_opcode_table() {
    let path = root().join(fuzz::BUNDLE_DICTIONARY);
    let want = fuzz::bundle_dictionary();
    if std::env::var_os("TPB_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let have = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        have == want,
        "{} is not what tpb_isa::fuzz::bundle_dictionary() writes; rewrite it with\n  TPB_BLESS=1 cargo test --test integration the_bundle_dictionary\n--- committed\n{have}\n--- generated\n{want}",
        fuzz::BUNDLE_DICTIONARY
    );
}

/// `fuzz/options/` holds one options file per target of `tpb_isa::fuzz::TARGETS`
/// that reads its input, and no other; each sets `max_len`, and names
/// `<target>.dict` exactly when the table gives its input a dictionary, that
/// file leading to the table's (`dict/<target>.dict` is a link).
#[test]
fn the_fuzz_options_and_dictionaries_are_the_tables() {
    let fuzz = root().join("fuzz");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut files: Vec<String> = std::fs::read_dir(fuzz.join("options"))
        .expect("fuzz/options")
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".options").map(str::to_owned))
        .collect();
    files.sort();
    let mut want: Vec<String> = seeded().map(str::to_owned).collect();
    want.sort();
    assert_eq!(files, want, "fuzz/options/*.options (left) and the targets of tpb_isa::fuzz::TARGETS that read their input (right)");
    for t in fuzz::TARGETS.iter().filter(|t| t.input != Input::Unread) {
        let opts = read(&fuzz.join(format!("options/{}.options", t.name)));
        assert!(opts.lines().any(|l| l.starts_with("max_len = ")), "{}.options sets no max_len", t.name);
        let dict = opts.lines().find_map(|l| l.strip_prefix("dict = "));
        let own = format!("{}.dict", t.name);
        assert_eq!(dict, t.input.dictionary().map(|_| own.as_str()), "{}.options's dict (left), as the table gives it (right)", t.name);
        if let Some(d) = t.input.dictionary() {
            let (link, file) = (fuzz.join("dict").join(&own), fuzz.join("dict").join(d));
            assert_eq!(read(&link), read(&file), "fuzz/dict/{own} does not lead to fuzz/dict/{d}");
        }
    }
}

/// The `[[bin]]`s of `fuzz/Cargo.toml`, which `cargo fuzz list` prints and
/// every script and ClusterFuzzLite's build read, are the targets of
/// `tpb_isa::fuzz::TARGETS`, each built from `fuzz_targets/<name>.rs`; each
/// but `empty` (no property: libFuzzer's exec/s floor for `fuzz/bench.sh`)
/// has a `fuzz/corpus/` link to its seeds and a row in `fuzz/README.md`'s
/// table, and that table names no other; its row of `dict/bundle.dict` names
/// the targets that read bundles.
#[test]
fn the_fuzz_targets_are_the_bins_of_fuzz_cargo_toml() {
    let fuzz = root().join("fuzz");
    let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let (mut bins, mut paths) = (Vec::new(), Vec::new());
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some((key, value)) = line.split_once('=').filter(|_| in_bin) {
            match key.trim() {
                "name" => bins.push(value.trim().trim_matches('"').to_owned()),
                "path" => paths.push(value.trim().trim_matches('"').to_owned()),
                _ => {}
            }
        }
    }
    let built: Vec<String> = bins.iter().map(|b| format!("fuzz_targets/{b}.rs")).collect();
    assert_eq!(paths, built, "fuzz/Cargo.toml: each [[bin]] is built from fuzz_targets/<name>.rs");
    bins.sort();
    let mut here: Vec<String> = fuzz::TARGETS.iter().map(|t| t.name.to_owned()).collect();
    here.sort();
    assert_eq!(bins, here, "fuzz/Cargo.toml's [[bin]] names (left) and tpb_isa::fuzz::TARGETS (right)");

    let readme = std::fs::read_to_string(fuzz.join("README.md")).expect("fuzz/README.md");
    // The target table's rows: a first cell that is a bare name, not a file.
    let mut rows: Vec<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split_once("` |").map(|(name, _)| name.to_owned()))
        .filter(|name| !name.contains(['/', '.']))
        .collect();
    rows.sort();
    let mut described: Vec<&str> = seeded().collect();
    described.sort();
    assert_eq!(rows, described, "fuzz/README.md's target table (left) and the fuzz targets but empty (right)");
    for b in &described {
        assert!(fuzz.join("corpus").join(b).is_dir(), "fuzz/corpus/{b} does not lead to corpus/{b}");
    }
    let row = readme.lines().find(|l| l.starts_with("| `dict/bundle.dict` |")).expect("fuzz/README.md has a row for dict/bundle.dict");
    // The targets are the names quoted after what the dictionary holds.
    let list = row.split_once("); ").map_or("", |(_, list)| list);
    let mut named: Vec<&str> = list.split('`').skip(1).step_by(2).filter(|w| !w.contains('/')).collect();
    named.sort();
    let mut reading: Vec<&str> = fuzz::bundle_targets().map(|t| t.name).collect();
    reading.sort();
    assert_eq!(named, reading, "fuzz/README.md's row of dict/bundle.dict (left) and the targets that read bundles (right)");
}

// `cargo xtask fuzz-report`'s parts and their entry functions are checked against the fuzz
// targets in xtask/src/fuzz_report/tests.rs.

/// Which paths git keeps, by the checkout's `.gitignore` alone (checked in a
/// scratch repository, so this runs in a tarball too): the committed reports
/// and seeds are kept, while the dated conformance folders, build output,
/// libFuzzer's local finds and cargo-mutants' output stay local.
#[test]
fn gitignore_keeps_the_records_and_leaves_out_the_outputs() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let ignore = std::fs::read(root().join(".gitignore")).unwrap_or_else(|e| panic!(".gitignore: {e}"));
    std::fs::write(dir.path().join(".gitignore"), ignore).unwrap_or_else(|e| panic!("write .gitignore: {e}"));
    let git = |args: &[&str]| {
        Command::new("git")
            .args(["-c", "core.excludesFile=/dev/null"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("cannot run git: {e}"))
    };
    assert!(git(&["init", "-q"]).status.success(), "git init failed");
    let mut kept: Vec<String> =
        ["reports/mutants.md", "reports/README.md", "reports/bench.md", "corpus/roundtrip/seed-01", "fuzz/corpus/roundtrip"].map(String::from).into();
    // Every seed `tpb corpus` writes is kept, whatever its name looks like (a
    // 40-character seed name was once taken for a libFuzzer find and left out
    // of the clean clone CI tests).
    let root = corpus();
    let seeds = std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    for target in seeds.flatten().filter(|e| e.path().is_dir()) {
        for seed in files(&target.path()) {
            let name = seed.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let libfuzzer_find = name.len() == 40 && name.bytes().all(|b| b.is_ascii_hexdigit());
            if !libfuzzer_find {
                kept.push(seed.strip_prefix(crate::support::root()).unwrap_or(&seed).display().to_string());
            }
        }
    }
    assert!(kept.len() > 100, "only {} seeds found under {}", kept.len(), root.display());
    // The scripts that pack or count seeds skip libFuzzer's finds by the same
    // hex name, never by length alone.
    let any_forty = "?".repeat(40);
    for script in [".clusterfuzzlite/build.sh", "xtask/src/fuzz_report.rs", "xtask/src/cflite.rs", "xtask/src/fuzz.rs"] {
        let text = std::fs::read_to_string(crate::support::root().join(script)).unwrap_or_else(|e| panic!("{script}: {e}"));
        assert!(!text.contains(&any_forty), "{script} skips any 40-character name as a libFuzzer find: match [0-9a-f] only, as .gitignore does");
    }
    let ignored = [
        "reports/2026-12-04/summary.md",
        "reports/2026-12-04/neff/01-x.json",
        "target/release/tpb",
        "mutants.out/outcomes.json",
        "fuzz/artifacts/roundtrip/crash-1",
        "fuzz/grown/roundtrip/0123456789abcdef0123456789abcdef01234567",
        "corpus/roundtrip/0123456789abcdef0123456789abcdef01234567",
    ];
    // `check-ignore` exits 0 when the path is ignored, 1 when it is not.
    for (path, want) in kept.iter().map(|p| (p.as_str(), false)).chain(ignored.iter().map(|p| (*p, true))) {
        let out = git(&["check-ignore", "--no-index", "-q", path]);
        let is = match out.status.code() {
            Some(0) => true,
            Some(1) => false,
            _ => panic!("git check-ignore {path}: {}", stderr(&out)),
        };
        assert_eq!(is, want, "{path}: ignored = {is}, want {want}");
    }
}
