//! The docs hold together: every relative link in the Markdown pages names a
//! file that exists and, with `#anchor`, a heading that exists in it (GitHub's
//! slugs); the README stays a front door (at most 150 lines) and gives the
//! test command CI runs.

use crate::support::root;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 150;

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS)
}

/// GitHub's heading anchor: lowercase, punctuation dropped except `-` and
/// `_`, each space a `-`.
fn slug(heading: &str) -> String {
    heading.to_lowercase().chars().filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_')).map(|c| if c == ' ' { '-' } else { c }).collect()
}

/// Every anchor a Markdown text's headings get; a repeated slug gets `-1`,
/// `-2`, … as on GitHub.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    let base = slug(&h);
                    let n = seen.entry(base.clone()).or_insert(0);
                    out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
                    *n += 1;
                }
            }
            _ => {}
        }
    }
    out
}

/// A link to another site (or a mail address) is not checked here.
fn is_external(dest: &str) -> bool {
    dest.contains("://") || dest.starts_with("mailto:")
}

/// Each broken relative link of one Markdown file, as `file:line: what`.
fn broken_links(file: &Path) -> Vec<String> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return vec![format!("{}: {e}", file.display())],
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut broken = Vec::new();
    for (event, range) in parser(&text).into_offset_iter() {
        let dest = match event {
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => dest_url,
            _ => continue,
        };
        if is_external(&dest) {
            continue;
        }
        let line = text[..range.start].matches('\n').count() + 1;
        let at = format!("{}:{line}: link `{dest}`", file.display());
        let (path, anchor) = match dest.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (&*dest, None),
        };
        let target: PathBuf = if path.is_empty() { file.to_path_buf() } else { dir.join(path) };
        if !target.exists() {
            broken.push(format!("{at}: {} does not exist", target.display()));
            continue;
        }
        let Some(anchor) = anchor else { continue };
        if target.extension().is_none_or(|e| e != "md") {
            broken.push(format!("{at}: an anchor into a file that is not Markdown"));
            continue;
        }
        let known = std::fs::read_to_string(&target).map(|t| anchors(&t)).unwrap_or_default();
        if !known.contains(anchor) {
            broken.push(format!("{at}: no heading with anchor `#{anchor}` in {}", target.display()));
        }
    }
    broken
}

fn markdown_under(dir: &Path, only_readme: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            markdown_under(&p, only_readme, out);
        } else if p.extension().is_some_and(|x| x == "md") && (!only_readme || p.file_name().is_some_and(|n| n == "README.md")) {
            out.push(p);
        }
    }
}

/// The pages whose links are checked.
fn pages() -> Vec<PathBuf> {
    let r = root();
    let mut v = vec![r.join("README.md"), r.join("fuzz/README.md"), r.join("python/README.md")];
    markdown_under(&r.join("docs"), false, &mut v);
    markdown_under(&r.join("corpus"), true, &mut v);
    let reports = std::fs::read_dir(r.join("reports")).expect("reports/");
    v.extend(reports.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "md")));
    v.sort();
    v
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let pages = pages();
    assert!(pages.len() > 15, "too few pages found: {pages:?}");
    assert!(pages.contains(&root().join("docs/ARCHITECTURE.md")), "{pages:?}");
    let broken: Vec<String> = pages.iter().flat_map(|p| broken_links(p)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_checker_finds_a_missing_file_and_a_missing_anchor() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("b.md"), "# Two words\n\n## Two words\n\n## `code`, and more!\n").expect("b.md");
    let a = dir.path().join("a.md");
    let text = "[ok](b.md) [ok](b.md#two-words) [ok](b.md#two-words-1) [ok](b.md#code-and-more) [ok](#here) [ext](https://example.com/x)\n\n\
                # Here\n\n[gone](missing.md)\n\n| t |\n|---|\n| [bad anchor](b.md#three) |\n\n`[not a link](nowhere.md)`\n";
    std::fs::write(&a, text).expect("a.md");
    let broken = broken_links(&a);
    assert_eq!(broken.len(), 2, "{broken:#?}");
    assert!(broken[0].contains(":5: link `missing.md`") && broken[0].contains("does not exist"), "{}", broken[0]);
    assert!(broken[1].contains("link `b.md#three`") && broken[1].contains("no heading with anchor `#three`"), "{}", broken[1]);
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("Python: `pip install`, API, pytest"), "python-pip-install-api-pytest");
    assert_eq!(slug("What moved: tpb evidence diff OLD NEW"), "what-moved-tpb-evidence-diff-old-new");
    assert_eq!(slug("Held out, build_by-build"), "held-out-build_by-build");
    let a = anchors("# A\n\n## A\n\nA\n=\n");
    assert_eq!(a.into_iter().collect::<Vec<_>>(), ["a", "a-1", "a-2"]);
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(lines <= README_MAX_LINES, "README.md has {lines} lines; at most {README_MAX_LINES}: move detail into docs/");
    // The README's first heading is the project, and its two commands are the ones CI runs.
    let first = parser(&readme).find_map(|e| match e {
        Event::Start(Tag::Heading { level: HeadingLevel::H1, .. }) => Some(()),
        _ => None,
    });
    assert!(first.is_some(), "README.md has no title");
    let ci = std::fs::read_to_string(root().join("xtask/src/ci.rs")).expect("xtask/src/ci.rs");
    assert!(readme.contains("cargo run --release -- conform"), "README.md lost the conformance command");
    assert!(readme.contains("cargo test --workspace"), "README.md lost the test command");
    assert!(ci.contains("cmd(\"cargo test --workspace --locked\")"), "`cargo xtask ci` no longer runs the README's test command");
    assert!(readme.contains("docs/README.md"), "README.md does not link the guide");
}

/// `cargo xtask ci` runs the validator's tests once more under each concrete
/// kernel (`KERNELS` in xtask/src/ci.rs): it names exactly the kernels `tpb_isa`
/// has, so a new kernel is not left out of CI (docs/ARCHITECTURE.md, "Add a kernel backend").
#[test]
fn the_ci_kernel_loop_names_every_kernel() {
    let ci = std::fs::read_to_string(root().join("xtask/src/ci.rs")).expect("xtask/src/ci.rs");
    let Some(listed) = ci.lines().map(str::trim).find_map(|l| l.strip_prefix("pub const KERNELS: [&str; ")?.split_once("= [")?.1.strip_suffix("];"))
    else {
        panic!("xtask/src/ci.rs has no `pub const KERNELS: [&str; N] = [...];`")
    };
    let listed: BTreeSet<&str> = listed.split(',').map(|k| k.trim().trim_matches('"')).filter(|k| !k.is_empty()).collect();
    let kernels: BTreeSet<&str> = tpb_isa::validate::Kernel::CONCRETE.iter().map(|k| k.label()).collect();
    assert_eq!(listed, kernels, "xtask/src/ci.rs's KERNELS (left) and tpb_isa's kernels (right)");
}
