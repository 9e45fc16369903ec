//! The C-header check: the generated `neuron_isa_tpb.h` (copied into the
//! report folder) must compile cleanly as strict C11 (and C++11 when a C++
//! compiler is there); the compiler's layout must equal the Rust layout; and
//! every bundle of the `c_layout` corpus, the hand files and a seeded sample
//! must read field for field the same through the C union as through the Rust
//! decoder. Skipped, with the reason, when no C compiler runs.

use super::report::{Case, Section};
use super::{hand, replay};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};
use tpb_isa::c_header::{self, shim};
use tpb_isa::props::seeded_bytes;

/// Strict flags the header must pass with no diagnostic at all.
const C_FLAGS: &[&str] = &["-Wall", "-Wextra", "-pedantic", "-std=c11", "-Werror"];
const CXX_FLAGS: &[&str] = &["-x", "c++", "-Wall", "-Wextra", "-pedantic", "-std=c++11", "-Werror"];
/// Seeded random bundles added to the field-dump comparison.
const SAMPLE: u64 = 2000;

/// A compiler command line from an environment variable or a default.
struct Compiler {
    program: String,
    args: Vec<String>,
    line: String,
}

fn compiler(var: &str, default: &str) -> Result<Compiler, String> {
    let line = std::env::var(var).ok().filter(|v| !v.trim().is_empty()).unwrap_or_else(|| default.to_string());
    let mut words = line.split_whitespace().map(str::to_string);
    let program = words.next().unwrap_or_default();
    let args: Vec<String> = words.collect();
    match Command::new(&program).args(&args).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(s) if s.success() => Ok(Compiler { program, args, line }),
        Ok(s) => Err(format!("`{line}` --version exited with {s} (set {var} to a working compiler)")),
        Err(e) => Err(format!("no compiler: `{line}` cannot be started ({e}); set {var} or install one (apt-get install gcc g++)")),
    }
}

/// Runs the compiler in `dir`; any diagnostic counts as a failure.
fn compile(c: &Compiler, dir: &Path, flags: &[&str], sources: &[&str], out: Option<&str>) -> Result<(), String> {
    let mut cmd = Command::new(&c.program);
    cmd.args(&c.args).args(flags).arg("-I").arg(dir).current_dir(dir);
    match out {
        Some(o) => cmd.arg("-o").arg(o),
        None => cmd.arg("-fsyntax-only"),
    };
    cmd.args(sources);
    let res = cmd.output().map_err(|e| format!("cannot run `{}`: {e}", c.line))?;
    let diag = String::from_utf8_lossy(&res.stderr);
    if !res.status.success() || !diag.trim().is_empty() {
        return Err(format!("`{} {} {}` ({}):\n{diag}", c.line, flags.join(" "), sources.join(" "), res.status));
    }
    Ok(())
}

fn run_exe(exe: &Path, stdin: Vec<u8>) -> Result<String, String> {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let mut input = child.stdin.take().ok_or("no stdin pipe")?;
    let feeder = std::thread::spawn(move || input.write_all(&stdin));
    let res = child.wait_with_output().map_err(|e| format!("{}: {e}", exe.display()))?;
    let fed = feeder.join().map_err(|_| "stdin feeder panicked".to_string())?;
    if !res.status.success() {
        return Err(format!("{} exited with {}: {}", exe.display(), res.status, String::from_utf8_lossy(&res.stderr)));
    }
    fed.map_err(|e| format!("writing stdin: {e}"))?;
    String::from_utf8(res.stdout).map_err(|e| format!("{} printed non-UTF-8: {e}", exe.display()))
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    std::fs::write(dir.join(name), text).map_err(|e| format!("{}: {e}", dir.join(name).display()))
}

/// A scratch folder removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Inside the run's own staging folder: removed when done, and swept with that
/// folder by the next run if this one is killed (no predictable name in /tmp).
fn scratch(report_dir: &Path) -> Result<Scratch, String> {
    let dir = report_dir.join(".c-scratch");
    std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    write(&dir, c_header::FILE_NAME, &c_header::generate())?;
    Ok(Scratch(dir))
}

fn timed(name: &str, ok: &str, f: impl FnOnce() -> Result<u64, Vec<String>>) -> Case {
    let start = Instant::now();
    let case = match f() {
        Ok(n) => Case::pass(name, ok).with_checked(n),
        Err(failures) => Case::fail(name, failures.join("\n")),
    };
    case.with_time(start.elapsed())
}

/// The bundles compared field by field: the c_layout corpus and regressions,
/// the hand files, and a seeded sample.
fn dump_inputs(corpus: Option<&Path>, seed: u64) -> Result<Vec<Raw>, String> {
    let mut bytes = Vec::new();
    if let Some(root) = corpus {
        for dir in [root.join(super::targets::C_LAYOUT), root.join("regressions").join(super::targets::C_LAYOUT)] {
            if !dir.is_dir() {
                continue;
            }
            for f in replay::inputs(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
                let mut data = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
                // The target reads a zero-padded last bundle.
                data.resize(data.len().next_multiple_of(BUNDLE_BYTES), 0);
                bytes.extend(data);
            }
        }
    }
    for b in hand::all()? {
        bytes.extend_from_slice(&b.raw);
    }
    bytes.extend(seeded_bytes(seed, SAMPLE as usize * BUNDLE_BYTES));
    Ok(bytes.chunks_exact(BUNDLE_BYTES).filter_map(|c| <Raw>::try_from(c).ok()).collect())
}

fn field_dump(cc: &Compiler, dir: &Path, inputs: &[Raw]) -> Result<u64, Vec<String>> {
    write(dir, "tpb_dump.c", &shim::field_dump_source()).map_err(|e| vec![e])?;
    write(dir, "tpb_dump_main.c", &shim::field_dump_main_source()).map_err(|e| vec![e])?;
    compile(cc, dir, C_FLAGS, &["tpb_dump.c", "tpb_dump_main.c"], Some("tpb_dump")).map_err(|e| vec![e])?;
    let stdin: Vec<u8> = inputs.iter().flatten().copied().collect();
    let out = run_exe(&dir.join("tpb_dump"), stdin).map_err(|e| vec![e])?;
    let dumps: Vec<&str> = out.split("\n\n").filter(|d| !d.is_empty()).collect();
    if dumps.len() != inputs.len() {
        return Err(vec![format!("the C dump printed {} bundles for {} inputs", dumps.len(), inputs.len())]);
    }
    let failures: Vec<String> = inputs.iter().zip(dumps).filter_map(|(raw, d)| shim::compare_dump(raw, &format!("{d}\n"))).take(20).collect();
    if failures.is_empty() {
        Ok(inputs.len() as u64)
    } else {
        Err(failures)
    }
}

/// The C-header section; the header is also copied to `report_dir`.
pub fn section(report_dir: &Path, corpus: Option<&Path>, seed: u64) -> Section {
    let mut s = Section::new("c_header", "C header");
    let start = Instant::now();
    match c_header::write_report(report_dir) {
        // Named relative to the report folder: the run writes into a temporary one.
        Ok(p) => s.cases.push(
            Case::pass("header written", p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())).with_time(start.elapsed()),
        ),
        Err(e) => s.cases.push(Case::fail("header written", e)),
    }
    let cc = match compiler("CC", "cc") {
        Ok(c) => c,
        Err(e) => {
            for name in ["C11 syntax", "C layout = Rust layout", "C field reads = Rust decoder"] {
                s.cases.push(Case::skip(name, e.clone()));
            }
            return s;
        }
    };
    let dir = match scratch(report_dir) {
        Ok(d) => d,
        Err(e) => {
            s.cases.push(Case::fail("C11 syntax", format!("cannot prepare a scratch folder: {e}")));
            return s;
        }
    };
    let d = dir.0.as_path();
    let flags = C_FLAGS.iter().chain(["-x", "c"].iter()).copied().collect::<Vec<_>>();
    s.cases.push(timed("C11 syntax", &format!("`{} {} -fsyntax-only` is silent", cc.line, C_FLAGS.join(" ")), || {
        compile(&cc, d, &flags, &[c_header::FILE_NAME], None).map(|()| 1).map_err(|e| vec![e])
    }));
    match compiler("CXX", "c++") {
        Ok(cxx) => s.cases.push(timed("C++11 syntax", &format!("`{} {}` is silent", cxx.line, CXX_FLAGS.join(" ")), || {
            compile(&cxx, d, CXX_FLAGS, &[c_header::FILE_NAME], None).map(|()| 1).map_err(|e| vec![e])
        })),
        Err(e) => s.cases.push(Case::skip("C++11 syntax", e)),
    }
    s.cases.push(timed("C layout = Rust layout", "every struct size and member offset agrees", || {
        write(d, "probe.c", &shim::layout_probe_source()).map_err(|e| vec![e])?;
        compile(&cc, d, C_FLAGS, &["probe.c"], Some("probe")).map_err(|e| vec![e])?;
        let out = run_exe(&d.join("probe"), Vec::new()).map_err(|e| vec![e])?;
        let problems = shim::compare_layout(&out);
        if problems.is_empty() {
            Ok(out.lines().count() as u64)
        } else {
            Err(problems)
        }
    }));
    s.cases.push(timed("C field reads = Rust decoder", "corpus/c_layout, regressions, hand files and a seeded sample", || {
        let inputs = dump_inputs(corpus, seed).map_err(|e| vec![e])?;
        field_dump(&cc, d, &inputs)
    }));
    s
}
