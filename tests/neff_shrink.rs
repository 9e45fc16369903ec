//! `tpb neff shrink`, run as a user runs it: a shell predicate built on
//! `tpb disasm`, real committed programs, and the setups it refuses. Every
//! predicate here also reads its candidate with `tpb neff` and writes down
//! any that does not read: none may.

use crate::support::{root, stderr, tpb_os};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

type R<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn real(name: &str) -> PathBuf {
    root().join("corpus/neff/real").join(name)
}

/// Two graphs, ten streams, 1971 bundles (372 MatMuls in sg00/PE.bin): 134144 bytes.
const ATTN: &str = "nki-2.23/moe-megakernel_attn_v6.neff";
/// Two graphs, ten streams; 0x46 TensorCopy in two of them.
const FUSION: &str = "nki-2.23/kernel-fusion_baseline_bf16_s512.neff";
/// One graph, five streams, 13 bundles.
const SMALL: &str = "xla-2.14/MODULE_11790936170214357810.neff";

/// A predicate script in `dir`: checks its file is named `*.neff` and reads
/// as a NEFF (writing down one that does not in `dir/unread`), counts its
/// runs in `dir/runs`, then runs `body` with the candidate as `$1` and `$TPB` set.
fn script(dir: &Path, name: &str, body: &str) -> R<PathBuf> {
    let tpb = env!("CARGO_BIN_EXE_tpb");
    let d = dir.display();
    let text = format!(
        "#!/bin/sh\nTPB='{tpb}'\necho run >> '{d}/runs'\ncase \"$1\" in *.neff) ;; *) echo \"$1\" >> '{d}/unread'; exit 42 ;; esac\n\
         \"$TPB\" neff \"$1\" > /dev/null 2>&1 || echo \"$1\" >> '{d}/unread'\n{body}\n"
    );
    let p = dir.join(name);
    std::fs::write(&p, text)?;
    Ok(p)
}

/// `sh SCRIPT`, as `--predicate` takes it (a command with an argument).
fn predicate(script: &Path) -> String {
    format!("sh '{}'", script.display())
}

/// Bundle lines of `tpb disasm`: (member, opcode text).
fn disasm(path: &Path) -> R<Vec<String>> {
    let o = tpb_os(&[&"disasm", &path]);
    assert_eq!(o.status.code(), Some(0), "disasm: {}", stderr(&o));
    Ok(String::from_utf8(o.stdout)?.lines().filter(|l| l.starts_with("0x")).map(|l| l.split(' ').next().unwrap_or("").to_string()).collect())
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |s| s.lines().count())
}

#[test]
fn a_real_program_shrinks_to_what_the_predicate_needs_keeping_its_status() -> R {
    let dir = tempfile::tempdir()?;
    let input = real(ATTN);
    let original = std::fs::read(&input)?;
    let s = script(dir.path(), "three_matmuls.sh", "[ \"$(\"$TPB\" disasm \"$1\" | grep -c '^0x02:')\" -ge 3 ]")?;
    let (out, again) = (dir.path().join("out.neff"), dir.path().join("again.neff"));
    let o = tpb_os(&[&"neff", &"shrink", &input, &"--predicate", &predicate(&s), &"-o", &out]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!dir.path().join("unread").exists(), "candidates that do not read: {:?}", std::fs::read_to_string(dir.path().join("unread")));
    // The log: the status kept, then each accepted step with its pass and sizes.
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("tpb: shrink: `sh '") && first.contains("` gives exit 0 on ") && first.ends_with(" (twice): reducing while it does"),
        "{err}"
    );
    for pass in [
        "subgraphs: dropped subgraph `sg01`",
        "streams: dropped engine stream ",
        "bundles: dropped ",
        "fields: sg00/PE.bin [0] 0x02 MatMul: body zeroed",
    ] {
        assert!(err.contains(&format!("tpb: shrink: {pass}")), "{pass}: {err}");
    }
    assert!(err.lines().filter(|l| l.contains(" -> ")).all(|l| l.contains(" bytes")), "{err}");
    let summary = String::from_utf8(o.stdout)?;
    assert!(summary.contains(" -> 3 bundles from ") && summary.contains("; exit 0 kept; "), "{summary}");
    // OUT reads back, is smaller, and the predicate says of it what it said of IN.
    assert_eq!(tpb_os(&[&"neff", &out]).status.code(), Some(0));
    assert_eq!(disasm(&out)?, ["0x02:MatMul"; 3]);
    let shrunk = std::fs::read(&out)?;
    assert!(shrunk.len() < original.len(), "{} of {} bytes", shrunk.len(), original.len());
    assert_eq!(Command::new("sh").arg(&s).arg(&out).status()?.code(), Some(0));
    // The runs: two on IN, then at most the budget.
    let runs = lines(&dir.path().join("runs"));
    assert!(runs > 2 && runs <= 2 + 2000 + 1, "{runs} runs");
    // Deterministic, and quiet with -q; IN is unchanged.
    let o = tpb_os(&[&"neff", &"shrink", &"-q", &input, &"--predicate", &predicate(&s), &"-o", &again]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "-q logs nothing");
    assert_eq!(std::fs::read(&again)?, shrunk, "the same IN and predicate give the same OUT");
    assert_eq!(std::fs::read(&input)?, original, "IN is never changed");
    Ok(())
}

#[test]
fn a_failing_status_is_kept_as_the_status_to_reproduce() -> R {
    let dir = tempfile::tempdir()?;
    // Exit 3 while a TensorCopy is left: the "crash" to keep.
    let s = script(dir.path(), "copy.sh", "\"$TPB\" disasm \"$1\" | grep -q '^0x46:' && exit 3\nexit 0")?;
    let out = dir.path().join("out.neff");
    let o = tpb_os(&[&"neff", &"shrink", &real(FUSION), &"--predicate", &predicate(&s), &"-o", &out, &"-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8(o.stdout)?.contains("; exit 3 kept; "));
    assert_eq!(disasm(&out)?, ["0x46:TensorCopy"]);
    assert!(!dir.path().join("unread").exists());
    Ok(())
}

#[test]
fn a_candidate_that_times_out_is_not_kept_and_the_budget_is_said() -> R {
    let dir = tempfile::tempdir()?;
    let input = real(SMALL);
    // Every candidate with fewer bundles than IN hangs: none is kept.
    let n = disasm(&input)?.len();
    let s = script(dir.path(), "hang.sh", &format!("[ \"$(\"$TPB\" disasm \"$1\" | grep -c '^0x')\" -lt {n} ] && sleep 30\nexit 0"))?;
    let out = dir.path().join("out.neff");
    let started = Instant::now();
    let o = tpb_os(&[&"neff", &"shrink", &input, &"--predicate", &predicate(&s), &"-o", &out, &"--timeout", &"0.5", &"--max-tests", &"3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(20), "the hanging runs were killed at the timeout");
    assert!(stderr(&o).contains("tpb: warning: stopped after 3 predicate runs (--max-tests): "), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out)?, std::fs::read(&input)?, "nothing kept: OUT is IN, byte for byte");
    assert_eq!(lines(&dir.path().join("runs")), 2 + 3);
    Ok(())
}

#[test]
fn a_setup_that_cannot_reduce_is_refused_and_nothing_is_written() -> R {
    let dir = tempfile::tempdir()?;
    let input = real(SMALL);
    let original = std::fs::read(&input)?;
    let out = dir.path().join("out.neff");
    let flip = predicate(&script(
        dir.path(),
        "flip.sh",
        &format!("c='{}/count'; n=$(cat \"$c\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$c\"; exit $((n % 2))", dir.path().display()),
    )?);
    let hang = predicate(&script(dir.path(), "hang.sh", "sleep 30")?);
    let not_neff = dir.path().join("notes.neff");
    std::fs::write(&not_neff, b"hello, this is not a program\n")?;
    let cut = dir.path().join("cut.neff");
    std::fs::write(&cut, &original[..3000])?;
    let fine = predicate(&script(dir.path(), "fine.sh", "exit 0")?);
    let cases: Vec<(Vec<&dyn AsRef<std::ffi::OsStr>>, String)> = vec![
        (vec![&input, &"--predicate", &flip], "not reproducible: exit 0, then exit 1 on the same bytes".into()),
        (vec![&input, &"--predicate", &"no-such-command-tpb"], "exit 127: sh could not run it (command not found)".into()),
        (vec![&input, &"--predicate", &hang, &"--timeout", &"0.3"], "timed out after 0.3 s (--timeout)".into()),
        (vec![&input, &"--predicate", &" "], "--predicate is empty".into()),
        (vec![&not_neff, &"--predicate", &fine], "not a NEFF container: file is 29 bytes, shorter than the 1024-byte header".into()),
        (vec![&cut, &"--predicate", &fine], format!("tpb: error: {}: ", cut.display())),
    ];
    for (args, says) in cases {
        let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"neff", &"shrink", &"-o", &out];
        all.extend(args);
        let started = Instant::now();
        let o = tpb_os(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{says}: {err}");
        assert!(err.contains(&says), "want `{says}`: {err}");
        assert_eq!(err.lines().filter(|l| l.starts_with("tpb: error: ")).count(), 1, "{err}");
        assert!(!out.exists(), "{says}: OUT was written");
        assert!(started.elapsed() < Duration::from_secs(20), "{says}: took {:?}", started.elapsed());
    }
    // Bad input is said before the predicate ever runs: flip ran twice, hang once, fine never.
    assert_eq!(lines(&dir.path().join("runs")), 2 + 1);
    // A timeout that is no length of time is a usage error.
    let o = tpb_os(&[&"neff", &"shrink", &input, &"--predicate", &fine, &"-o", &out, &"--timeout", &"0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("0 seconds is not within (0, 86400]"), "{}", stderr(&o));
    // IN as OUT is refused; IN stays as it was.
    let o = tpb_os(&[&"neff", &"shrink", &input, &"--predicate", &fine, &"-o", &input]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is IN and OUT: IN is never changed"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&input)?, original);
    Ok(())
}
