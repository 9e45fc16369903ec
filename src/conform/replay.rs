//! Corpus replay: every file of `corpus/<target>/` (seeds) and
//! `corpus/regressions/<target>/` (minimized past findings) through its
//! target's body, with panics caught.

use super::panics;
use super::report::{Case, Section};
use super::targets::{self, Target};
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Files of a corpus directory, sorted; dotfiles and notes (`*.md`) are not inputs.
pub fn inputs(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| p.file_name().is_some_and(|n| !n.to_string_lossy().starts_with('.')))
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .collect();
    v.sort();
    Ok(v)
}

/// Runs every input of `dir` through `t`; `Err` lists the failures.
pub fn replay_dir(t: &Target, dir: &Path) -> Result<usize, Vec<String>> {
    let files = inputs(dir).map_err(|e| vec![format!("{}: cannot list: {e}", dir.display())])?;
    let mut failures = Vec::new();
    for f in &files {
        let outcome = match std::fs::read(f) {
            Ok(data) => panics::catching(|| t.run(&data)).and_then(|r| r),
            Err(e) => Err(format!("cannot read: {e}")),
        };
        if let Err(e) = outcome {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    if failures.is_empty() {
        Ok(files.len())
    } else {
        Err(failures)
    }
}

/// Seeded inputs each target gets in the smoke run.
pub const SMOKE_INPUTS: u64 = 256;

/// Runs `SMOKE_INPUTS` seeded inputs of `t.smoke_len` bytes through `t`.
pub fn smoke(t: &Target, seed: u64) -> Result<u64, Vec<String>> {
    let mut failures = Vec::new();
    for i in 0..SMOKE_INPUTS {
        let s = seed.wrapping_add(i);
        let data = tpb_isa::props::seeded_bytes(s, t.smoke_len);
        if let Err(e) = panics::catching(|| t.run(&data)).and_then(|r| r) {
            failures.push(format!("seeded input {s:#x} ({} bytes): {e}", t.smoke_len));
        }
    }
    if failures.is_empty() {
        Ok(SMOKE_INPUTS)
    } else {
        Err(failures)
    }
}

/// The replay section over `root` (the `corpus/` folder), plus a seeded smoke
/// run of every target.
pub fn section(root: Option<&Path>, seed: u64, bar: &ProgressBar) -> Section {
    let mut s = Section::new("replay", "corpus replay");
    let _quiet = panics::Quiet::install();
    let all = targets::all();
    for t in &all {
        let start = Instant::now();
        let case = match smoke(t, seed) {
            Ok(n) => Case::pass(format!("smoke/{}", t.name), crate::out::count(n, "seeded input")).with_checked(n),
            Err(f) => Case::fail(format!("smoke/{}", t.name), f.join("\n")),
        };
        s.cases.push(case.with_time(start.elapsed()));
    }
    let Some(root) = root else {
        s.cases.push(Case::skip("corpus", "no corpus/ folder here or in the source tree; give --corpus DIR"));
        return s;
    };
    for t in &all {
        for (name, dir) in [(t.name.to_string(), root.join(t.name)), (format!("regressions/{}", t.name), root.join("regressions").join(t.name))] {
            bar.set_message(name.clone());
            let start = Instant::now();
            let case = if !dir.is_dir() {
                if name.starts_with("regressions/") {
                    Case::pass(&name, "no regression inputs yet")
                } else {
                    Case::fail(&name, format!("{}: missing seed folder (regenerate with `tpb corpus`)", dir.display()))
                }
            } else {
                match replay_dir(t, &dir) {
                    Ok(n) => Case::pass(&name, format!("{}: {}", crate::out::count(n as u64, "input"), t.about)).with_checked(n as u64),
                    Err(f) => Case::fail(&name, f.join("\n")),
                }
            };
            s.cases.push(case.with_time(start.elapsed()));
        }
        bar.inc(1);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::targets::{Outcome, Run};
    use super::*;

    /// A target that refuses the input `!`, panics on `?`, and passes only 3 or 7 bytes.
    fn picky(data: &[u8]) -> Outcome {
        match data {
            b"!" => Err("refused".into()),
            b"?" => panic!("asked"),
            _ if data.len() == 7 || data.len() == 3 => Ok(()),
            _ => Err(format!("{} bytes", data.len())),
        }
    }
    const PICKY: Target = Target { name: "picky", body: Run::Text(picky), smoke_len: 7, about: "" };

    #[test]
    fn a_corpus_folder_replays_its_inputs_in_order_and_names_each_that_fails() {
        let _quiet = panics::Quiet::install();
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        for (name, bytes) in [("b", &b"abc"[..]), ("a", b"xyz"), (".hidden", b"!"), ("notes.md", b"!"), ("c.bin", b"1234567")] {
            std::fs::write(d.join(name), bytes).expect("writes");
        }
        std::fs::create_dir(d.join("sub")).expect("a folder is no input");
        assert_eq!(inputs(d).expect("lists"), [d.join("a"), d.join("b"), d.join("c.bin")]);
        assert_eq!(replay_dir(&PICKY, d), Ok(3));
        std::fs::write(d.join("d"), b"!").expect("writes");
        std::fs::write(d.join("e"), b"?").expect("writes");
        let failures = replay_dir(&PICKY, d).expect_err("two fail");
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert_eq!(failures[0], format!("{}: refused", d.join("d").display()));
        assert!(failures[1].starts_with(&format!("{}: panic: ", d.join("e").display())) && failures[1].contains("asked"), "{failures:?}");
        let e = replay_dir(&PICKY, &d.join("missing")).expect_err("no folder");
        assert!(e[0].contains("missing: cannot list: "), "{e:?}");
    }

    #[test]
    fn the_smoke_run_feeds_each_seeded_input_and_names_the_seeds_that_fail() {
        let _quiet = panics::Quiet::install();
        assert_eq!(smoke(&PICKY, 5), Ok(SMOKE_INPUTS));
        let failures = smoke(&Target { smoke_len: 4, ..PICKY }, 5).expect_err("4 bytes fail");
        assert_eq!(failures.len(), SMOKE_INPUTS as usize);
        assert!(failures[0].starts_with("seeded input 0x5 (4 bytes): "), "{}", failures[0]);
    }
}
