//! ClusterFuzzLite's build, and its test outside Docker.
//!
//! `cargo xtask cflite-build --out OUT --work WORK [--no-build]` (called by
//! `.clusterfuzzlite/build.sh`): builds every cargo-fuzz target (but `empty`)
//! as `cargo xtask fuzz` does (AddressSanitizer with nightly Rust, else
//! `-s none`; `--no-build` when the image's `cargo fuzz build -O` already
//! did), then puts into OUT, for each target: the fuzzer (from
//! `fuzz/target/<host>/release`, or an absolute CARGO_TARGET_DIR's `<host>/release`);
//! `<target>_seed_corpus.zip` of `corpus/<target>` + `corpus/regressions/<target>`
//! (not READMEs, not libFuzzer's hex-named local finds; for `neff` also
//! `corpus/neff/real/**/*.neff`); `<target>.options` and the dictionary it names.
//!
//! `cargo xtask cflite-test` (was `ci/cflite-build-test.sh`): runs
//! `.clusterfuzzlite/build.sh` with `$SRC`/`$OUT`/`$WORK` in a temporary
//! folder, checks it made all of the above for every target, then runs each
//! fuzzer from its unzipped seeds with its options: it loads and replays
//! every seed, then fuzzes for CFLITE_FUZZ_SECONDS (default 5; 0 only
//! replays). Exit 0 ok, 1 something missing or a crash, leak or memory error.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::Args;

use crate::step::{capture, cmd, fail, fuzz_targets, glob, mkdir, option, remove, run, Step};

#[derive(Args, Debug)]
pub struct Build {
    /// Where the fuzzers, seed zips, options and dictionaries go ($OUT).
    #[arg(long)]
    out: PathBuf,
    /// A scratch folder ($WORK).
    #[arg(long)]
    work: PathBuf,
    /// Only pack: the fuzzers in `fuzz/target/<host>/release` are built already.
    #[arg(long)]
    no_build: bool,
}

/// A libFuzzer find: 40 lowercase hex digits (as .gitignore matches it).
fn libfuzzer_find(name: &str) -> bool {
    name.len() == 40 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether a file under `corpus/<target>/` or `corpus/regressions/<target>/` is a seed to ship.
pub fn shipped(name: &str) -> bool {
    !name.ends_with(".md") && !libfuzzer_find(name)
}

/// A real NEFF's name in the flat seed folder: `real-<path with - for />`.
pub fn real_name(rel: &Path) -> String {
    format!("real-{}", rel.to_string_lossy().replace('/', "-"))
}

fn copy(from: &Path, to: &Path) -> Step {
    fs::copy(from, to).map(drop).map_err(|e| fail(1, format!("{} -> {}: {e}", from.display(), to.display())))
}

fn neffs(dir: &Path, found: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            neffs(&p, found);
        } else if p.extension().is_some_and(|x| x == "neff") {
            found.push(p);
        }
    }
}

pub fn build(a: Build) -> Step {
    let abs = |p: &Path| fs::canonicalize(p).map_err(|e| fail(1, format!("{}: {e}", p.display())));
    mkdir(&a.out)?;
    mkdir(&a.work)?;
    let (out, work) = (abs(&a.out)?, abs(&a.work)?);
    if !a.no_build {
        let b = crate::fuzz::Build::choose();
        eprintln!("cflite-build: {}", b.note);
        run(&mut b.cargo_fuzz("build"))?;
    }
    let host = capture(&mut cmd("rustc -vV"))?;
    let Some(triple) = host.lines().find_map(|l| l.strip_prefix("host: ")) else { return Err(fail(1, "rustc -vV names no host")) };
    let bin = fuzz_bin(std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from), triple);
    let targets = fuzz_targets()?;
    for t in &targets {
        copy(&bin.join(t), &out.join(t))?;
        // Seeds, flat: committed seeds, every regression, and for neff the real programs.
        let seeds = work.join("seeds").join(t);
        remove(&seeds)?;
        mkdir(&seeds)?;
        for d in [Path::new("corpus").join(t), Path::new("corpus/regressions").join(t)] {
            for f in glob(&d, shipped).into_iter().filter(|f| f.is_file()) {
                copy(&f, &seeds.join(f.file_name().unwrap_or_default()))?;
            }
        }
        if t == "neff" {
            let mut found = Vec::new();
            neffs(Path::new("corpus/neff/real"), &mut found);
            for f in found {
                copy(&f, &seeds.join(real_name(f.strip_prefix("corpus/neff/real").unwrap_or(&f))))?;
            }
        }
        let zip = out.join(format!("{t}_seed_corpus.zip"));
        remove(&zip)?;
        let names: Vec<String> = glob(&seeds, |_| true).iter().filter_map(|p| Some(format!("./{}", p.file_name()?.to_str()?))).collect();
        run(Command::new("zip").args(["-q", "-X"]).arg(&zip).args(&names).current_dir(&seeds))?;
        let opts = PathBuf::from(format!("fuzz/options/{t}.options"));
        if let Ok(text) = fs::read_to_string(&opts) {
            copy(&opts, &out.join(format!("{t}.options")))?;
            if let Some(dict) = option(&text, "dict").filter(|d| !d.is_empty()) {
                copy(&Path::new("fuzz/dict").join(dict), &out.join(dict))?;
            }
        }
    }
    println!("cflite-build: {} fuzzers in {}", targets.len(), out.display());
    Ok(())
}

/// Where `cargo fuzz build` puts the fuzzers: `fuzz/target/<host>/release`, or under
/// CARGO_TARGET_DIR when that names an absolute folder (cargo fuzz runs cargo from `fuzz/`).
pub fn fuzz_bin(target_dir: Option<PathBuf>, triple: &str) -> PathBuf {
    target_dir.filter(|d| d.is_absolute()).unwrap_or_else(|| PathBuf::from("fuzz/target")).join(triple).join("release")
}

/// libFuzzer's flags for the check run of a target.
pub fn check_flags(secs: u64, dict: Option<&Path>, max_len: Option<&str>) -> Vec<String> {
    let mut v: Vec<String> = ["-rss_limit_mb=2048", "-malloc_limit_mb=512", "-timeout=20", "-seed=1"].map(String::from).to_vec();
    v.push(if secs > 0 { format!("-max_total_time={secs}") } else { "-runs=0".into() });
    if let Some(d) = dict {
        v.push(format!("-dict={}", d.display()));
    }
    if let Some(m) = max_len.filter(|m| !m.is_empty()) {
        v.push(format!("-max_len={m}"));
    }
    v
}

/// `unzip -Z1`'s listing as names (`./` dropped).
pub fn listed(listing: &str) -> Vec<&str> {
    listing.lines().map(|l| l.strip_prefix("./").unwrap_or(l)).filter(|l| !l.is_empty()).collect()
}

pub fn test() -> Step {
    let secs: u64 = match std::env::var("CFLITE_FUZZ_SECONDS") {
        Ok(s) if !s.is_empty() => s.parse().map_err(|_| fail(1, format!("CFLITE_FUZZ_SECONDS={s} is no number of seconds")))?,
        _ => 5,
    };
    let tmp = crate::step::TempDir::new("cflite")?;
    let (src, out, work) = (tmp.path().join("src"), tmp.path().join("out"), tmp.path().join("work"));
    for d in [&src, &out, &work] {
        mkdir(d)?;
    }
    let built = Command::new(".clusterfuzzlite/build.sh").env("SRC", &src).env("OUT", &out).env("WORK", &work).status();
    if !built.is_ok_and(|s| s.success()) {
        return Err(fail(1, "build.sh failed"));
    }
    let mut bad = 0;
    let mut miss = |m: String| {
        eprintln!("cflite-test: {m}");
        bad += 1;
    };
    let targets = fuzz_targets()?;
    for t in &targets {
        let fuzzer = out.join(t);
        if !fuzzer.is_file() {
            miss(format!("no fuzzer {t}"));
        }
        let zip = out.join(format!("{t}_seed_corpus.zip"));
        if zip.is_file() {
            let listing = capture(Command::new("unzip").arg("-Z1").arg(&zip)).unwrap_or_default();
            let names = listed(&listing);
            // Every committed seed of the target is in the zip.
            let committed = glob(&Path::new("corpus").join(t), |n| n.ends_with(".bin"))
                .into_iter()
                .chain(glob(&Path::new("corpus/regressions").join(t), |n| !n.ends_with(".md")))
                .filter(|f| f.is_file());
            for f in committed {
                let n = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
                if !names.contains(&n.as_str()) {
                    miss(format!("{t} seed zip lacks {n}"));
                }
            }
            if names.is_empty() {
                miss(format!("{t} seed zip is empty"));
            }
        } else {
            miss(format!("no {t} seed zip"));
        }
        if !out.join(format!("{t}.options")).is_file() {
            miss(format!("no {t}.options"));
        }
        let opts = fs::read_to_string(format!("fuzz/options/{t}.options")).unwrap_or_default();
        let dict = option(&opts, "dict").filter(|d| !d.is_empty()).map(|d| out.join(d));
        if let Some(d) = &dict {
            if fs::metadata(d).map_or(true, |m| m.len() == 0) {
                miss(format!("no {} for {t}", d.file_name().unwrap_or_default().to_string_lossy()));
            }
        }
        // The fuzzer loads its seeds with its options (what ClusterFuzzLite does first).
        if fuzzer.is_file() && zip.is_file() {
            let (seeds, new) = (tmp.path().join("run").join(t), tmp.path().join("new").join(t));
            mkdir(&seeds)?;
            mkdir(&new)?;
            run(Command::new("unzip").arg("-q").arg(&zip).arg("-d").arg(&seeds))?;
            let o = Command::new(&fuzzer)
                .args(check_flags(secs, dict.as_deref(), option(&opts, "max_len")))
                .arg(&new)
                .arg(&seeds)
                .stdin(Stdio::null())
                .output();
            let (ok, log) = match o {
                Ok(o) => (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))),
                Err(e) => (false, e.to_string()),
            };
            if !ok {
                let lines: Vec<&str> = log.lines().collect();
                eprintln!("{}", lines[lines.len().saturating_sub(60)..].join("\n"));
                miss(format!("{t} failed (seeds or {secs}s of fuzzing)"));
            }
            if !log.contains("INITED") {
                miss(format!("{t} did not load its seeds"));
            }
        }
    }
    if bad > 0 {
        return Err(fail(1, format!("{bad} problem(s) (above)")));
    }
    let label = crate::fuzz::Build::choose().label;
    println!(
        "cflite-test: {} fuzzers ({label} build), seed zips, options and dictionaries present; each replayed its seeds and fuzzed {secs}s",
        targets.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_ship_without_notes_or_libfuzzer_finds() {
        assert!(shipped("valid-noop.bin"));
        assert!(shipped("crash-0123"));
        assert!(!shipped("README.md"));
        assert!(!shipped(&"ab".repeat(20)));
        // Forty characters that are not all lowercase hex stay: a name is a find by its digits, not its length.
        assert!(shipped(&"AB".repeat(20)));
        assert!(shipped(&"g".repeat(40)));
        assert_eq!(real_name(Path::new("vendor/a/b.neff")), "real-vendor-a-b.neff");
    }

    #[test]
    fn the_check_run_replays_or_fuzzes_with_the_options() {
        let f = check_flags(0, None, None);
        assert!(f.contains(&"-runs=0".to_owned()) && !f.iter().any(|x| x.starts_with("-max_total_time")));
        let f = check_flags(5, Some(Path::new("/o/x.dict")), Some("4096"));
        assert_eq!(f[4..], ["-max_total_time=5", "-dict=/o/x.dict", "-max_len=4096"]);
        assert_eq!(listed("./a.bin\nb.bin\n\n"), ["a.bin", "b.bin"]);
        assert_eq!(fuzz_bin(None, "x86_64-unknown-linux-gnu"), Path::new("fuzz/target/x86_64-unknown-linux-gnu/release"));
        assert_eq!(fuzz_bin(Some("/t".into()), "h"), Path::new("/t/h/release"));
        assert_eq!(fuzz_bin(Some("rel".into()), "h"), Path::new("fuzz/target/h/release"));
    }
}
