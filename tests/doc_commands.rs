//! Commands that work as written: every `tpb` and `cargo` command line in a
//! code block of the README and the docs parses (`tpb` by its own parser,
//! `cargo` by its subcommand, a `cargo run -- …` by `tpb`'s, a `cargo fuzz run`
//! names a target and the toolchain it needs), and the README's examples whose
//! output it shows print that output.

use crate::support::{root, stdout, tpb};
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use std::path::PathBuf;

/// The README, fuzz/ and python/ READMEs and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md"), root().join("fuzz/README.md"), root().join("python/README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

/// Each code block of a page: its info string (`console`, `sh`, empty for an indented one) and its lines.
fn blocks(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    CodeBlockKind::Fenced(i) => i.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                open = Some((info, String::new()));
            }
            Event::Text(t) => {
                if let Some((_, body)) = open.as_mut() {
                    body.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((info, body)) = open.take() {
                    out.push((info, body.lines().map(str::to_string).collect()));
                }
            }
            _ => {}
        }
    }
    out
}

/// A synopsis line without its optional parts: `[--json]`, `[--neff FILE|DIR]…` (nested brackets too) are left out.
fn without_optional(line: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut after_group = false;
    for c in line.chars() {
        match c {
            '[' if out.ends_with(' ') || depth > 0 => depth += 1,
            ']' if depth > 0 => {
                depth -= 1;
                after_group = depth == 0;
            }
            _ if depth > 0 => {}
            '…' if after_group => after_group = false,
            _ => {
                after_group = false;
                out.push(c);
            }
        }
    }
    out
}

/// A shell line cut to its first command: no prompt, no trailing comment, nothing after `;`, `|`, `&&`, `>`.
fn command(line: &str) -> Option<Vec<String>> {
    let line = line.trim().strip_prefix("$ ").unwrap_or(line.trim());
    let words = shlex::split(&without_optional(line))?;
    let mut out = Vec::new();
    for w in words {
        if w.starts_with('#') || [";", "|", "&&", "||", ">", "2>", "<"].contains(&w.as_str()) || w.ends_with(';') {
            if let Some(last) = w.strip_suffix(';').filter(|l| !l.is_empty()) {
                out.push(last.to_string());
            }
            break;
        }
        out.push(w);
    }
    let first = out.first()?.as_str();
    (first == "tpb" || first == "cargo").then_some(out)
}

/// Why a `cargo` line would not run as written, if it would not.
fn cargo_problem(words: &[String], fuzz_targets: &[String]) -> Option<String> {
    let mut w: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
    let nightly = w.first() == Some(&"+nightly");
    if nightly {
        w.remove(0);
    }
    let sub = *w.first()?;
    // `xtask`: the alias in .cargo/config.toml; its arguments are unit-tested in xtask/.
    const KNOWN: [&str; 14] =
        ["build", "test", "run", "install", "fuzz", "clippy", "fmt", "doc", "bench", "mutants", "nextest", "check", "tree", "xtask"];
    if !KNOWN.contains(&sub) {
        return Some(format!("`cargo {sub}` is not a cargo command this project uses"));
    }
    match sub {
        "install" if w.contains(&"--path") && !w.contains(&"--locked") => {
            Some("`cargo install --path` without --locked builds other versions than Cargo.lock".into())
        }
        "run" => {
            let at = w.iter().position(|x| *x == "--")?;
            let mut args = vec!["tpb".to_string()];
            args.extend(w[at + 1..].iter().map(|s| s.to_string()));
            tpb::parses(args).err()
        }
        "fuzz" if w.get(1) == Some(&"run") => {
            let rest: Vec<&str> = w[2..].iter().copied().take_while(|x| *x != "--").collect();
            let stable = rest.windows(2).any(|p| p == ["-s", "none"]) || rest.contains(&"--sanitizer=none");
            let target = rest.iter().copied().filter(|x| !x.starts_with('-')).find(|x| *x != "none");
            match target {
                Some(t) if !t.starts_with('<') && !fuzz_targets.iter().any(|f| f == t) => Some(format!("no fuzz target {t}")),
                _ if !stable && !nightly => {
                    Some("`cargo fuzz run` needs nightly Rust for its sanitizer: `cargo +nightly fuzz run …` (or `-s none` on stable)".into())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn fuzz_targets() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut out = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let (true, Some(v)) = (in_bin, line.strip_prefix("name = ")) {
            out.push(v.trim_matches('"').to_string());
        }
    }
    out
}

#[test]
fn a_synopsis_is_checked_without_its_optional_parts() {
    assert_eq!(without_optional("tpb conform [--time S] [--neff FILE|DIR]… [--a [--b]] x"), "tpb conform    x");
    assert_eq!(without_optional("tpb disasm a[0].bin"), "tpb disasm a[0].bin");
}

#[test]
fn every_tpb_and_cargo_command_line_in_the_docs_parses() {
    let targets = fuzz_targets();
    assert!(targets.contains(&"roundtrip".to_string()), "{targets:?}");
    let mut problems = Vec::new();
    let mut seen = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap_or_default();
        for (info, lines) in blocks(&text) {
            // Output in a console block is not a command: only `$ ` lines are.
            let console = info == "console";
            for line in &lines {
                if console && !line.starts_with("$ ") {
                    continue;
                }
                let Some(words) = command(line) else { continue };
                seen += 1;
                let problem = if words[0] == "tpb" {
                    // A placeholder word (`FILE`, `<target>`, `…`) is any path: what is checked is the shape.
                    tpb::parses(words.iter().map(|w| if w.contains('…') { "x".to_string() } else { w.clone() }))
                        .err()
                        .map(|e| e.lines().next().unwrap_or_default().to_string())
                } else {
                    cargo_problem(&words, &targets)
                };
                if let Some(p) = problem {
                    problems.push(format!("{}: `{}`: {p}", page.strip_prefix(root()).unwrap_or(&page).display(), line.trim()));
                }
            }
        }
    }
    assert!(seen > 40, "only {seen} command lines found: the extraction broke");
    assert!(problems.is_empty(), "command lines that would not run as written:\n{}", problems.join("\n"));
}

/// The README's examples that show their output print it (run here on the committed programs).
#[test]
fn the_readmes_examples_print_what_it_shows() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let mut ran = 0;
    for (info, lines) in blocks(&text) {
        if info != "console" {
            continue;
        }
        let Some(words) = lines.first().and_then(|l| l.starts_with("$ tpb ").then(|| command(l)).flatten()) else { continue };
        let shown: Vec<&String> = lines.iter().skip(1).filter(|l| !l.trim().is_empty()).collect();
        if shown.is_empty() {
            continue;
        }
        let o = tpb(&words[1..]);
        let out = stdout(&o);
        for line in shown {
            assert!(
                out.lines().any(|l| l.trim_end() == line.trim_end()),
                "`{}` no longer prints\n{line}\n(it printed {} lines)",
                lines[0],
                out.lines().count()
            );
        }
        ran += 1;
    }
    assert!(ran >= 4, "only {ran} README examples with output ran");
}

/// The check fails what the issue found: an install that ignores Cargo.lock, a fuzz run on stable with a sanitizer,
/// a target that does not exist, a `cargo run --` whose arguments `tpb` refuses.
#[test]
fn what_would_not_run_is_named() {
    let targets = fuzz_targets();
    let problem = |line: &str| command(line).and_then(|w| cargo_problem(&w, &targets));
    assert!(problem("cargo install --path .").is_some_and(|p| p.contains("--locked")));
    assert!(problem("cargo install --locked --path .").is_none());
    assert!(problem("cargo fuzz run roundtrip").is_some_and(|p| p.contains("+nightly")));
    assert!(problem("cargo +nightly fuzz run roundtrip").is_none() && problem("cargo fuzz run -s none roundtrip").is_none());
    assert!(problem("cargo +nightly fuzz run nosuch").is_some_and(|p| p.contains("no fuzz target nosuch")));
    assert!(problem("cargo run --release -- conform --nope").is_some());
    assert!(tpb::parses(["tpb", "evidence", "diff", "--across", "a", "b"]).is_ok());
}
