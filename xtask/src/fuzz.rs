//! `cargo xtask fuzz [--jobs N] [SECONDS] [TARGET...]`: runs each cargo-fuzz
//! target (`cargo fuzz list`, but `empty`) for a fixed time (default 60 s) on
//! every core (libFuzzer's -fork), seeded from `corpus/<target>/` and
//! `corpus/regressions/<target>/`, with the target's options file
//! (`fuzz/options/<target>.options`: max_len, dict from fuzz/dict/), the same
//! files ClusterFuzzLite ships (.clusterfuzzlite/build.sh).
//!
//! With a nightly toolchain installed (`cargo +nightly`), the targets are
//! built with AddressSanitizer (cargo-fuzz's default); without one, on stable
//! with no sanitizer (`-s none`), and the command says so. FUZZ_SANITIZER=none
//! chooses the stable build even where nightly exists.
//!
//! New inputs are kept in `fuzz/grown/<target>/` (git-ignored), which the next
//! run starts from too; after each run `cargo fuzz cmin` minimises it. A
//! finding (`fuzz/artifacts/<target>/`) is minimised with `cargo fuzz tmin` and
//! copied to `corpus/regressions/<target>/`, which `cargo test` replays; the
//! command then exits 1 (after all targets ran). Exit: 0 clean, 1 findings, 2
//! build or usage error.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use clap::Args;

#[derive(Args, Debug)]
pub struct Fuzz {
    /// libFuzzer jobs per target (`-fork`; default: the cores).
    #[arg(long)]
    jobs: Option<u64>,
    /// Seconds per target.
    #[arg(default_value_t = 60)]
    secs: u64,
    /// The targets to run (default: every target but `empty`).
    targets: Vec<String>,
}

/// The build every cargo-fuzz command uses (also `cargo xtask cflite-build`'s).
pub struct Build {
    nightly: bool,
    /// "ASan" or "none".
    pub label: &'static str,
    /// One line saying which build and why.
    pub note: &'static str,
}

impl Build {
    pub fn choose() -> Build {
        let asked_none = std::env::var("FUZZ_SANITIZER").as_deref() == Ok("none");
        let nightly = !asked_none
            && Command::new("cargo").args(["+nightly", "--version"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
        let note = if nightly {
            "nightly Rust: building with AddressSanitizer (cargo +nightly fuzz)"
        } else if asked_none {
            "FUZZ_SANITIZER=none: building without a sanitizer (-s none)"
        } else {
            "no nightly Rust installed: building WITHOUT a sanitizer (-s none); rustup toolchain install nightly for AddressSanitizer"
        };
        Build { nightly, label: if nightly { "ASan" } else { "none" }, note }
    }

    /// `cargo [+nightly] fuzz SUB [-s none]`.
    pub fn cargo_fuzz(&self, sub: &str) -> Command {
        let mut c = Command::new("cargo");
        if self.nightly {
            c.arg("+nightly");
        }
        c.args(["fuzz", sub]);
        if !self.nightly {
            c.args(["-s", "none"]);
        }
        c
    }
}

/// A target's options file as libFuzzer flags (`[libfuzzer]` key = value;
/// `dict` names a file under fuzz/dict).
pub fn options(text: &str, root: &Path) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=').unwrap_or((l, ""));
            let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            let (k, v) = (strip(k), strip(v));
            if k.is_empty() || k.starts_with('#') || k.starts_with('[') {
                None
            } else if k == "dict" {
                Some(format!("-dict={}", root.join("fuzz/dict").join(v).display()))
            } else {
                Some(format!("-{k}={v}"))
            }
        })
        .collect()
}

/// Where `cargo fuzz tmin` writes a finding's minimised form:
/// `minimized-from-<hash>` for `<kind>-<hash>`.
fn minimized_name(finding: &str) -> String {
    let hash = finding.split_once('-').map_or(finding, |(_, h)| h);
    format!("minimized-from-{hash}")
}

/// The regular files under a folder, at any depth.
fn count_files(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => count_files(&e.path()),
            Ok(t) if t.is_file() => 1,
            _ => 0,
        })
        .sum()
}

/// The sorted file names in a folder (none when it is absent).
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> =
        fs::read_dir(dir).map(|es| es.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()).unwrap_or_default();
    n.retain(|n| !n.starts_with('.'));
    n.sort();
    n
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

pub fn run(args: Fuzz) -> ExitCode {
    let root = match std::env::current_dir() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cargo xtask fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64));
    let secs = args.secs;
    if !on_path("cargo-fuzz") {
        // A failed install shows in the build below.
        let _ = Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]).status();
    }
    let mut targets = args.targets;
    if targets.is_empty() {
        // `empty` is libFuzzer's exec/s floor for fuzz/bench.sh, not a property.
        let list = Command::new("cargo").args(["fuzz", "list"]).stderr(Stdio::inherit()).output();
        targets = list.map(|o| String::from_utf8_lossy(&o.stdout).lines().filter(|t| *t != "empty").map(str::to_owned).collect()).unwrap_or_default();
    }
    let build = Build::choose();
    println!("cargo xtask fuzz: {}", build.note);
    // One build, reused by run, tmin and cmin.
    if !build.cargo_fuzz("build").status().is_ok_and(|s| s.success()) {
        return ExitCode::from(2);
    }
    let mut failed: Vec<String> = Vec::new();
    for t in &targets {
        let grown = root.join("fuzz/grown").join(t);
        let artifacts = PathBuf::from("fuzz/artifacts").join(t);
        for d in [PathBuf::from("corpus").join(t), PathBuf::from("corpus/regressions").join(t), artifacts.clone(), grown.clone()] {
            if let Err(e) = fs::create_dir_all(&d) {
                eprintln!("cargo xtask fuzz: {}: {e}", d.display());
                return ExitCode::from(2);
            }
        }
        let opts = options(&fs::read_to_string(format!("fuzz/options/{t}.options")).unwrap_or_default(), &root);
        let before = names(&artifacts);
        println!("== fuzz {t} for {secs}s on {jobs} job(s): {}", opts.join(" "));
        let mut cmd = build.cargo_fuzz("run");
        cmd.arg(t).arg(&grown).arg(root.join("corpus").join(t)).arg(root.join("corpus/regressions").join(t)).arg("--").args(&opts);
        // More than one job: -fork runs that many child fuzzers sharing the corpus.
        if jobs > 1 {
            cmd.arg(format!("-fork={jobs}"));
        }
        // rss/malloc limits: a target that needs more than 2 GiB or one 512 MiB allocation is a finding.
        cmd.arg(format!("-max_total_time={secs}")).args(["-rss_limit_mb=2048", "-malloc_limit_mb=512", "-timeout=20", "-print_final_stats=1"]);
        if !cmd.status().is_ok_and(|s| s.success()) {
            failed.push(t.clone());
        }
        // Every new finding, minimised, becomes a regression input (kept forever).
        for name in names(&artifacts) {
            let a = artifacts.join(&name);
            if !a.is_file() || name.starts_with("minimized-from-") || before.contains(&name) {
                continue;
            }
            // tmin writes minimized-from-<hash of the finding> (nothing when it is already minimal).
            let _ = build.cargo_fuzz("tmin").arg(t).arg(&a).stdout(Stdio::null()).stderr(Stdio::null()).status();
            let small = Some(artifacts.join(minimized_name(&name))).filter(|s| s.is_file()).unwrap_or_else(|| a.clone());
            let kept = PathBuf::from("corpus/regressions").join(t).join(&name);
            if let Err(e) = fs::copy(&small, &kept) {
                eprintln!("cargo xtask fuzz: {}: {e}", kept.display());
                return ExitCode::from(2);
            }
            let size = |p: &Path| fs::metadata(p).map_or(0, |m| m.len());
            println!("fuzz {t}: {} -> {} ({} -> {} bytes)", a.display(), kept.display(), size(&a), size(&small));
        }
        // Only the grown inputs that add coverage stay (libFuzzer -merge=1).
        let cmin = build
            .cargo_fuzz("cmin")
            .arg(t)
            .arg(&grown)
            .arg("--")
            .args(&opts)
            .args(["-rss_limit_mb=2048", "-malloc_limit_mb=512", "-timeout=20"])
            .output();
        if !cmin.as_ref().is_ok_and(|o| o.status.success()) {
            if let Ok(o) = &cmin {
                eprint!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
            }
            failed.push(format!("{t} (cmin)"));
        }
        println!("fuzz {t}: fuzz/grown/{t} holds {} inputs after cargo fuzz cmin", count_files(&grown));
    }
    if !failed.is_empty() {
        println!("fuzz findings in: {} (see fuzz/artifacts/ and corpus/regressions/)", failed.join(" "));
        return ExitCode::from(1);
    }
    println!("fuzz: {} targets ran {secs}s each without a finding ({} build)", targets.len(), build.label);
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_become_libfuzzer_flags_with_the_dictionary_under_fuzz_dict() {
        let text = "[libfuzzer]\n# a note\nmax_len = 4096\n\n dict = bundle.dict \nonly_ascii=1\n";
        assert_eq!(options(text, Path::new("/r")), ["-max_len=4096", "-dict=/r/fuzz/dict/bundle.dict", "-only_ascii=1"]);
        assert!(options("", Path::new("/r")).is_empty());
    }

    #[test]
    fn a_findings_minimised_form_is_named_by_its_hash() {
        assert_eq!(minimized_name("crash-0123abcd"), "minimized-from-0123abcd");
        assert_eq!(minimized_name("slow-unit-99"), "minimized-from-unit-99");
        assert_eq!(minimized_name("oddname"), "minimized-from-oddname");
    }

    #[test]
    fn the_options_files_of_the_repository_read() {
        let root = crate::root();
        let text = fs::read_to_string(root.join("fuzz/options/validate.options")).unwrap_or_else(|e| panic!("{e}"));
        let flags = options(&text, &root);
        assert!(flags.iter().any(|f| f.starts_with("-max_len=")), "{flags:?}");
        for f in flags.iter().filter_map(|f| f.strip_prefix("-dict=")) {
            assert!(Path::new(f).exists(), "{f} is no dictionary");
        }
    }
}
