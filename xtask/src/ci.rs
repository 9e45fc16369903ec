//! `cargo xtask ci`: everything `.ci/run` does once the system packages are
//! installed (docs/ci.md, "What `.ci/run` does"), in its order, with its
//! `== …` headings: the README's test command with TPB_SKIP_LOG, the
//! validator's tests under each kernel this CPU runs, the style gates, the
//! conformance run over `../shared/neff`, the ClusterFuzzLite build test,
//! mutation testing of the commit's Rust lines, the Python package, and the
//! release checks. Harness failures fail CI; spec disagreements never do.
//!
//! Env: CI=true makes a skipped test, a missing `../shared` or a missing
//! Chromium a failure; MUTANTS_BUDGET caps the mutation step (seconds, 1200).
//! Exit: 0 passed; 1 a CI check (skips, `../shared`, Chromium); 2 a missed
//! mutant; else the failing command's own status.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::step::{capture, cmd, code, fail, glob, mkdir, on_path, quiet_output, remove, run, succeeds, Step, TempDir};

/// The validator kernels the tests run once more as the process default
/// (tests/docs.rs checks this names every kernel of `tpb_isa`).
pub const KERNELS: [&str; 2] = ["portable", "avx512"];

fn under_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

fn heading(s: &str) {
    println!("== {s}");
}

/// Whether this CPU runs a kernel, from /proc/cpuinfo's first `flags` line.
pub fn runs_kernel(kernel: &str, cpuinfo: &str) -> bool {
    let flags = cpuinfo.lines().find(|l| l.starts_with("flags")).unwrap_or("");
    match kernel {
        "avx512" => flags.split_whitespace().any(|f| f == "avx512vbmi"),
        _ => true,
    }
}

/// What the mutation step's status means: Ok(a note for stderr, if any) or the status CI fails with.
pub fn mutants_verdict(status: u8, budget: &str, out: &str) -> Result<Option<String>, u8> {
    match status {
        0 => Ok(None),
        124 => Ok(Some(format!("mutants: the {budget}s cap cut the in-diff run short; untested mutants were skipped"))),
        3 => Ok(Some(format!("mutants: some mutants timed out ({out}/mutants.out/timeout.txt)"))),
        127 => Ok(Some("mutants: cargo-mutants or cargo-nextest could not be installed; in-diff step NOT run".into())),
        s => Err(s),
    }
}

/// The lines of the skip log, sorted and once each (`sort -u`).
pub fn skipped(log: &str) -> Vec<&str> {
    let mut v: Vec<&str> = log.lines().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Every `*.neff` under a folder, sorted by path (`find -print0 | sort -z`).
pub fn neffs(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(p);
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".neff")) {
                found.push(p);
            }
        }
    }
    found.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    found
}

pub fn run_ci() -> Step {
    let root = std::env::current_dir().map_err(|e| fail(1, e.to_string()))?;
    std::env::set_var("CARGO_TERM_COLOR", "never");
    // The browser tests skip without Chromium (.ci/run installs it); once it is there they must run.
    if Path::new("/usr/bin/chromium").is_file() {
        std::env::set_var("TPB_REQUIRE_BROWSER", "1");
    } else if under_ci() {
        return Err(fail(1, "CI: no /usr/bin/chromium: the HTML browser tests would skip; failing"));
    }
    // With ../shared present, the tests that compare against it must find it.
    if Path::new("../shared").is_dir() {
        std::env::set_var("TPB_REQUIRE_SHARED", "1");
    } else if under_ci() {
        return Err(fail(1, "CI: ../shared absent: the reference tests would skip; failing"));
    } else {
        eprintln!("../shared absent: reference tests skip");
    }
    // Every test that cannot run here says so in this file (tpb_isa::test_skip).
    let skip_log = root.join("target/skipped-tests.txt");
    std::env::set_var("TPB_SKIP_LOG", &skip_log);
    mkdir(&root.join("target"))?;
    remove(&skip_log)?;
    run(&mut cmd("cargo test --workspace --locked"))?;
    let log = std::fs::read_to_string(&skip_log).unwrap_or_default();
    if !log.is_empty() {
        eprintln!("== tests skipped on this machine:");
        for l in skipped(&log) {
            eprintln!("{l}");
        }
        if under_ci() {
            return Err(fail(1, "CI: tests were skipped (above); failing"));
        }
    }
    // The validator's stream tests once more with each other kernel this CPU runs as the process
    // default, and as a CPU without AVX-512 sees them (docs/kernels.md).
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    for k in KERNELS.iter().filter(|k| runs_kernel(k, &cpuinfo)) {
        heading(&format!("validator tests with TPB_ISA_KERNEL={k}"));
        run(cmd("cargo test -p tpb-isa --lib --locked --quiet validate").env("TPB_ISA_KERNEL", k))?;
    }
    heading("validator tests with TPB_ISA_HIDE_KERNELS=avx512");
    run(cmd("cargo test -p tpb-isa --lib --locked --quiet validate").env("TPB_ISA_HIDE_KERNELS", "avx512"))?;

    // Style gates (docs/ci.md, "Style"), when the toolchain has the components.
    if succeeds(&mut cmd("cargo fmt --version")) {
        run(&mut cmd("cargo fmt --all --check"))?;
        run(cmd("cargo fmt --check").current_dir("fuzz"))?;
    } else {
        eprintln!("rustfmt not installed: format check skipped");
    }
    if succeeds(&mut cmd("cargo clippy --version")) {
        run(&mut cmd("cargo clippy --workspace --all-targets --locked --quiet -- -D warnings"))?;
    } else {
        eprintln!("clippy not installed: lint check skipped");
    }

    // The conformance run: every real NEFF of ../shared/neff, else those in corpus/neff/real/.
    let mut conform = cmd("cargo run --quiet --release --locked -- conform --quiet --time 20");
    for f in neffs(Path::new("../shared/neff")) {
        conform.arg("--neff").arg(f);
    }
    run(&mut conform)?;

    // ClusterFuzzLite's build script outside Docker: every fuzzer, seed zip, dictionary and options file.
    if !on_path("cargo-fuzz") {
        run(&mut cmd("cargo install cargo-fuzz --locked"))?;
    }
    crate::cflite::test()?;

    mutants(&root)?;
    python(&root)?;
    release(&root)
}

/// Mutation testing of the change (docs/mutation-testing.md): the mutants in the Rust lines
/// HEAD changed, each against the whole workspace's tests. A missed mutant fails CI; the
/// budget (MUTANTS_BUDGET, 1200 s, then SIGINT) and timeouts (CPU noise) do not.
fn mutants(root: &Path) -> Step {
    if !succeeds(&mut cmd("git rev-parse -q --verify HEAD~1")) {
        println!("mutants: no HEAD~1; in-diff step skipped");
        return Ok(());
    }
    let out = "target/mutants-in-diff";
    remove(&root.join(out))?;
    mkdir(&root.join(out))?;
    let diff = capture(cmd("git diff HEAD~1 HEAD --").arg("*.rs"))?;
    std::fs::write(root.join(out).join("change.diff"), diff).map_err(|e| fail(1, format!("{out}/change.diff: {e}")))?;
    let budget = std::env::var("MUTANTS_BUDGET").ok().filter(|b| !b.is_empty()).unwrap_or_else(|| "1200".into());
    // `timeout` sends SIGINT to `cargo xtask mutants`, which becomes cargo-mutants (exec): it stops and writes its outcomes.
    let status = Command::new("timeout")
        .args(["--signal=INT", "--kill-after=60", &budget])
        .args(["cargo", "xtask", "mutants", "--workspace", "--in-diff"])
        .arg(format!("{out}/change.diff"))
        .args(["--shuffle", "--baseline=skip", "--timeout", "570", "--output", out])
        .status()
        .map_or(127, code);
    let missed = std::fs::read_to_string(root.join(out).join("mutants.out/missed.txt")).unwrap_or_default();
    if !missed.is_empty() {
        eprintln!("mutants: missed in the change (all outcomes in {out}/mutants.out/):");
        eprint!("{missed}");
        return Err(fail(2, ""));
    }
    match mutants_verdict(status, &budget, out) {
        Ok(note) => {
            if let Some(n) = note {
                eprintln!("{n}");
            }
            Ok(())
        }
        Err(s) => Err(fail(s, format!("mutants: the in-diff step failed (status {s})"))),
    }
}

/// `python/`'s wheel with the one command of docs/python.md, installed in a fresh venv with
/// pytest, NumPy and mypy; the `tpb` command on PATH, the import from outside the checkout,
/// and python/tests against the installed wheel.
fn python(root: &Path) -> Step {
    heading("python: wheel, fresh venv, tpb --help, import tpb, pytest");
    crate::workflows::ensure_venv()?;
    let venv = root.join("target/python-ci-venv");
    let wheels = root.join("target/wheels");
    let tpb_wheels = |d: &Path| glob(d, |n| n.starts_with("tpb-") && n.ends_with(".whl"));
    remove(&venv)?;
    for w in tpb_wheels(&wheels) {
        remove(&w)?;
    }
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    let bin = venv.join("bin");
    // `pip wheel` builds in an isolated environment of its own: the venv stays fresh.
    run(Command::new(bin.join("pip")).args(["wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "python/", "-w"]).arg(&wheels))?;
    run(Command::new(bin.join("pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(tpb_wheels(&wheels))
        .args(["pytest", "numpy", "mypy"]))?;
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    run(Command::new(bin.join("tpb")).arg("--help").env("PATH", &path).current_dir("/tmp").stdout(Stdio::null()))?;
    run(Command::new(bin.join("python"))
        .args(["-c", "import tpb; print(\"import tpb:\", tpb.__version__, tpb.__file__)"])
        .env("PATH", &path)
        .current_dir("/tmp"))?;
    run(Command::new(bin.join("pytest")).args(["-q", "-p", "no:cacheprovider", "python/tests"]))
}

pub const DENY_VERSION: &str = "0.20.2";
pub const MATURIN_VERSION: &str = "1.16.0";
pub const TWINE_VERSION: &str = "7.0.0";

/// The release checks (docs/ci.md, "Release checks"): what a user meets first.
fn release(root: &Path) -> Step {
    heading("release: cargo doc, warnings as errors (broken intra-doc links fail)");
    run(cmd("cargo doc --workspace --no-deps --locked --quiet").env("RUSTDOCFLAGS", "-D warnings"))?;
    heading("release: the workflows (zizmor, actionlint, shellcheck, pins)");
    crate::workflows::run_lint()?;
    heading("release: cargo deny check licenses bans sources");
    let deny = quiet_output(&mut cmd("cargo deny --version"));
    if !crate::workflows::says_version(&deny, DENY_VERSION) {
        run(cmd("cargo install cargo-deny --locked --version").arg(DENY_VERSION))?;
    }
    run(&mut cmd("cargo deny --locked check licenses bans sources"))?;
    heading("release: the crates packaged, publish --dry-run, installed outside the workspace");
    crate::package::run_check()?;
    heading("release: the sdist, twine check, the sdist's own wheel outside the checkout");
    let relvenv = root.join("target/ci-tools/release-venv");
    let maturin = relvenv.join("bin/maturin");
    if !crate::workflows::says_version(&quiet_output(Command::new(&maturin).arg("--version")), MATURIN_VERSION) {
        remove(&relvenv)?;
        run(Command::new("python3").args(["-m", "venv"]).arg(&relvenv))?;
        run(Command::new(relvenv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(format!("maturin=={MATURIN_VERSION}"))
            .arg(format!("twine=={TWINE_VERSION}")))?;
    }
    let sdist = root.join("target/sdist");
    remove(&sdist)?;
    run(Command::new(&maturin).args(["sdist", "--out"]).arg(&sdist).current_dir("python"))?;
    let sdists = glob(&sdist, |n| n.starts_with("tpb-") && n.ends_with(".tar.gz"));
    let wheels = glob(&root.join("target/wheels"), |n| n.starts_with("tpb-") && n.ends_with(".whl"));
    run(Command::new(relvenv.join("bin/twine")).args(["check", "--strict"]).args(&wheels).args(&sdists))?;
    // Built from the sdist's own sources, unpacked by pip outside the checkout (no wheel cache).
    // The wheel's build above is shared through CARGO_TARGET_DIR: cargo reuses a unit only when
    // every source file its dep-info names is in the sdist unchanged, so a file the sdist lacks
    // still fails here; what it saves is the ~5 min release build of a fresh target folder.
    let dir = TempDir::new("sdist")?;
    let mut copies = Vec::new();
    for s in &sdists {
        let to = dir.path().join(s.file_name().unwrap_or_default());
        std::fs::copy(s, &to).map_err(|e| fail(1, format!("{}: {e}", s.display())))?;
        copies.push(to);
    }
    let v = dir.path().join("venv");
    run(Command::new("python3").args(["-m", "venv"]).arg(&v).current_dir(dir.path()))?;
    run(Command::new(v.join("bin/pip"))
        .args(["install", "--quiet", "--no-cache-dir", "--disable-pip-version-check"])
        .args(&copies)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .current_dir(dir.path()))?;
    run(Command::new(v.join("bin/tpb")).arg("--version").current_dir(dir.path()))?;
    run(Command::new(v.join("bin/python"))
        .args(["-c", "import tpb; assert tpb.decode(tpb.encode({\"opcode\": 0xA4})).name == \"NoOp\"; print(\"sdist: import tpb\", tpb.__version__)"])
        .current_dir(dir.path()))
}

#[cfg(test)]
mod tests;
