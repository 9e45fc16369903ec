//! The C-header check: the generated `neuron_isa_tpb.h` (copied into the
//! report folder) must compile cleanly as strict C11 (and C++11 when a C++
//! compiler is there); the compiler's layout must equal the Rust layout; and
//! every bundle of the `c_layout` corpus, the hand files and a seeded sample
//! must read field for field the same through the C union as through the Rust
//! decoder. Skipped, with the reason, when no C compiler runs.

use super::report::{Case, Section};
use super::{hand, replay};
use crate::error::{Context as _, Error, Result};
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

fn compiler(var: &str, default: &str) -> Result<Compiler> {
    compiler_from(var, std::env::var(var).ok(), default)
}

/// [`compiler`] given the variable's value: an empty one is as good as none.
fn compiler_from(var: &str, value: Option<String>, default: &str) -> Result<Compiler> {
    let line = value.filter(|v| !v.trim().is_empty()).unwrap_or_else(|| default.to_string());
    let mut words = line.split_whitespace().map(str::to_string);
    let program = words.next().unwrap_or_default();
    let args: Vec<String> = words.collect();
    match Command::new(&program).args(&args).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(s) if s.success() => Ok(Compiler { program, args, line }),
        Ok(s) => Err(Error::Message(format!("`{line}` --version exited with {s} (set {var} to a working compiler)"))),
        Err(e) => Err(Error::Message(format!("no compiler: `{line}` cannot be started ({e}); set {var} or install one (apt-get install gcc g++)"))),
    }
}

/// Runs the compiler in `dir`; any diagnostic counts as a failure.
fn compile(c: &Compiler, dir: &Path, flags: &[&str], sources: &[&str], out: Option<&str>) -> Result<()> {
    let mut cmd = Command::new(&c.program);
    cmd.args(&c.args).args(flags).arg("-I").arg(dir).current_dir(dir);
    match out {
        Some(o) => cmd.arg("-o").arg(o),
        None => cmd.arg("-fsyntax-only"),
    };
    cmd.args(sources);
    let res = cmd.output().context_with(|| format!("cannot run `{}`", c.line))?;
    let diag = String::from_utf8_lossy(&res.stderr);
    if !res.status.success() || !diag.trim().is_empty() {
        return Err(Error::Message(format!("`{} {} {}` ({}):\n{diag}", c.line, flags.join(" "), sources.join(" "), res.status)));
    }
    Ok(())
}

fn run_exe(exe: &Path, stdin: Vec<u8>) -> Result<String> {
    let mut child = Command::new(exe).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().context_with(|| exe.display())?;
    let mut input = child.stdin.take().ok_or("no stdin pipe")?;
    let feeder = std::thread::spawn(move || input.write_all(&stdin));
    let res = child.wait_with_output().context_with(|| exe.display())?;
    let fed = feeder.join().map_err(|_| Error::from("stdin feeder panicked"))?;
    if !res.status.success() {
        return Err(Error::Message(format!("{} exited with {}: {}", exe.display(), res.status, String::from_utf8_lossy(&res.stderr))));
    }
    fed.context_with(|| "writing stdin")?;
    String::from_utf8(res.stdout).context_with(|| format!("{} printed non-UTF-8", exe.display()))
}

fn write(dir: &Path, name: &str, text: &str) -> Result<()> {
    let path = dir.join(name);
    std::fs::write(&path, text).context_with(|| path.display())
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
fn scratch(report_dir: &Path) -> Result<Scratch> {
    let dir = report_dir.join(".c-scratch");
    std::fs::create_dir(&dir).context_with(|| dir.display())?;
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
fn dump_inputs(corpus: Option<&Path>, seed: u64) -> Result<Vec<Raw>> {
    let mut bytes = Vec::new();
    if let Some(root) = corpus {
        for dir in [root.join(tpb_isa::fuzz::C_LAYOUT), root.join("regressions").join(tpb_isa::fuzz::C_LAYOUT)] {
            if !dir.is_dir() {
                continue;
            }
            for f in replay::inputs(&dir).context_with(|| dir.display())? {
                let mut data = std::fs::read(&f).context_with(|| f.display())?;
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
    write(dir, "tpb_dump.c", &shim::field_dump_source()).map_err(|e| vec![e.to_string()])?;
    write(dir, "tpb_dump_main.c", &shim::field_dump_main_source()).map_err(|e| vec![e.to_string()])?;
    compile(cc, dir, C_FLAGS, &["tpb_dump.c", "tpb_dump_main.c"], Some("tpb_dump")).map_err(|e| vec![e.to_string()])?;
    let stdin: Vec<u8> = inputs.iter().flatten().copied().collect();
    let out = run_exe(&dir.join("tpb_dump"), stdin).map_err(|e| vec![e.to_string()])?;
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
        Err(e) => s.cases.push(Case::fail("header written", e.to_string())),
    }
    let cc = match compiler("CC", "cc") {
        Ok(c) => c,
        Err(e) => {
            for name in ["C11 syntax", "C layout = Rust layout", "C field reads = Rust decoder"] {
                s.cases.push(Case::skip(name, e.to_string()));
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
        compile(&cc, d, &flags, &[c_header::FILE_NAME], None).map(|()| 1).map_err(|e| vec![e.to_string()])
    }));
    match compiler("CXX", "c++") {
        Ok(cxx) => s.cases.push(timed("C++11 syntax", &format!("`{} {}` is silent", cxx.line, CXX_FLAGS.join(" ")), || {
            compile(&cxx, d, CXX_FLAGS, &[c_header::FILE_NAME], None).map(|()| 1).map_err(|e| vec![e.to_string()])
        })),
        Err(e) => s.cases.push(Case::skip("C++11 syntax", e.to_string())),
    }
    s.cases.push(timed("C layout = Rust layout", "every struct size and member offset agrees", || {
        write(d, "probe.c", &shim::layout_probe_source()).map_err(|e| vec![e.to_string()])?;
        compile(&cc, d, C_FLAGS, &["probe.c"], Some("probe")).map_err(|e| vec![e.to_string()])?;
        let out = run_exe(&d.join("probe"), Vec::new()).map_err(|e| vec![e.to_string()])?;
        let problems = shim::compare_layout(&out);
        if problems.is_empty() {
            Ok(out.lines().count() as u64)
        } else {
            Err(problems)
        }
    }));
    s.cases.push(timed("C field reads = Rust decoder", "corpus/c_layout, regressions, hand files and a seeded sample", || {
        let inputs = dump_inputs(corpus, seed).map_err(|e| vec![e.to_string()])?;
        field_dump(&cc, d, &inputs)
    }));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in compiler: a shell script that prints `stderr` and exits with `code`.
    fn fake(dir: &Path, name: &str, stderr: &str, code: u8) -> Compiler {
        let script = dir.join(name);
        std::fs::write(&script, format!("printf '%s' '{stderr}' >&2\nexit {code}\n")).expect("writes the script");
        let line = format!("sh {}", script.display());
        Compiler { program: "sh".into(), args: vec![script.display().to_string()], line }
    }

    #[test]
    fn a_compiler_comes_from_its_variable_or_the_default_and_must_answer_version() {
        let c = compiler_from("CC", Some("true -x".into()), "cc").expect("true runs");
        assert_eq!((c.program.as_str(), c.args.as_slice(), c.line.as_str()), ("true", ["-x".to_string()].as_slice(), "true -x"));
        for unset in [None, Some(String::new()), Some(" \t".into())] {
            let c = compiler_from("CC", unset.clone(), "true").expect("true runs");
            assert_eq!(c.line, "true", "{unset:?}");
        }
        // GNU false exits 1 even for --version.
        let Err(e) = compiler_from("CC", Some("false".into()), "cc") else { panic!("false is no compiler") };
        let e = e.to_string();
        assert!(e.starts_with("`false` --version exited with ") && e.contains("set CC"), "{e}");
        let Err(e) = compiler_from("CXX", Some("/nonexistent/tpb-cc".into()), "c++") else { panic!("a missing program") };
        let e = e.to_string();
        assert!(e.starts_with("no compiler: `/nonexistent/tpb-cc` cannot be started") && e.contains("set CXX"), "{e}");
    }

    #[test]
    fn any_diagnostic_or_a_failing_status_fails_a_compile() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        assert!(compile(&fake(d, "silent.sh", "", 0), d, C_FLAGS, &["x.c"], None).is_ok());
        let e = compile(&fake(d, "warns.sh", "x.c:1: warning: unused", 0), d, C_FLAGS, &["x.c"], None).expect_err("a warning fails").to_string();
        assert!(e.contains("x.c:1: warning: unused") && e.contains("-Werror x.c"), "{e}");
        let e = compile(&fake(d, "fails.sh", "", 1), d, C_FLAGS, &["x.c"], Some("x")).expect_err("a status fails").to_string();
        assert!(e.contains("exit status: 1"), "{e}");
    }

    #[test]
    fn the_dumped_bundles_are_the_corpus_padded_to_whole_bundles_the_hand_files_and_the_sample() {
        let hand = hand::all().expect("hand files").len();
        let bare = dump_inputs(None, 7).expect("inputs");
        assert_eq!(bare.len(), hand + SAMPLE as usize);
        let root = tempfile::tempdir().expect("temp dir");
        let dir = root.path().join(tpb_isa::fuzz::C_LAYOUT);
        std::fs::create_dir_all(&dir).expect("corpus dir");
        // 100 bytes: one bundle and a zero-padded second.
        std::fs::write(dir.join("one"), [0xA5u8; 100]).expect("writes");
        let with = dump_inputs(Some(root.path()), 7).expect("inputs");
        assert_eq!(with.len(), bare.len() + 2);
        assert_eq!(with[0].as_ref(), [0xA5u8; BUNDLE_BYTES].as_slice());
        assert_eq!(&with[1].as_ref()[..100 - BUNDLE_BYTES], &[0xA5u8; 100 - BUNDLE_BYTES][..]);
        assert!(with[1].as_ref()[100 - BUNDLE_BYTES..].iter().all(|&b| b == 0));
        assert_eq!(&with[2..], &bare[..]);
    }

    #[test]
    fn the_c_field_dump_reads_every_bundle_as_the_rust_decoder_does() {
        let cc = compiler("CC", "cc").expect("a C compiler (the tests need one: apt-get install gcc)");
        let dir = tempfile::tempdir().expect("temp dir");
        write(dir.path(), c_header::FILE_NAME, &c_header::generate()).expect("header");
        let inputs = dump_inputs(None, 11).expect("inputs");
        assert_eq!(field_dump(&cc, dir.path(), &inputs), Ok(inputs.len() as u64));
        assert_eq!(field_dump(&cc, dir.path(), &inputs[..3]), Ok(3));
    }
}
