//! The HTML reports opened in a real browser (headless Chromium, from
//! `file://`): the DOM holds the sections and counts, a screenshot has
//! content, and a name from the input that carries a script shows as text
//! and never runs. Skips (saying so) only where no Chromium is installed;
//! with TPB_REQUIRE_BROWSER set (CI installs it) a missing browser fails.

use crate::support::{stderr, stdout, tpb};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tpb_isa::bundle::header_only_stream as bundles;
use tpb_oracle::neff;

/// Runs when the page runs scripts: the test looks for its mark in the DOM.
const EVIL: &str = "<script>document.body.setAttribute('data-pwned','1')</script>";
/// How the dumped DOM serializes that text node.
const EVIL_ESCAPED: &str = "&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;";

fn ok(o: &Output) {
    assert!(o.status.success() || o.status.code() == Some(4), "{:?}\n{}{}", o.status, stdout(o), stderr(o));
}

/// The browser, or `None` (said on stderr) when this machine has none and the run may skip.
fn chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].iter().map(PathBuf::from).find(|p| p.is_file());
    if found.is_none() {
        assert!(std::env::var_os("TPB_REQUIRE_BROWSER").is_none(), "TPB_REQUIRE_BROWSER is set but no chromium binary is installed");
        tpb_isa::test_skip::skipped("html: no chromium binary (/usr/bin/chromium): browser checks (apt-get install chromium)");
    }
    found
}

/// Headless Chromium on `page` with `extra` flags; its own profile in a temporary folder.
fn browse(chromium: &Path, page: &Path, extra: &[String]) -> Output {
    let profile = tempfile::tempdir().expect("profile dir");
    let url = format!("file://{}", page.canonicalize().expect("page exists").display());
    Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("runs chromium")
}

/// The DOM Chromium built from `page`; the page wrote nothing to the console
/// (with `--enable-logging=stderr` Chromium echoes each console message as an
/// `INFO:CONSOLE` line: a script error, a blocked load, a CSP violation).
fn dom(chromium: &Path, page: &Path) -> String {
    let (dom, console) = dom_and_console(chromium, page);
    assert!(console.is_empty(), "{} wrote to the console:\n{}", page.display(), console.join("\n"));
    dom
}

fn dom_and_console(chromium: &Path, page: &Path) -> (String, Vec<String>) {
    let o = browse(chromium, page, &["--dump-dom".to_string(), "--enable-logging=stderr".to_string(), "--v=0".to_string()]);
    let stderr = stderr(&o);
    assert!(o.status.success(), "chromium: {:?}\n{stderr}", o.status);
    let dom = stdout(&o);
    assert!(dom.contains("</html>"), "no DOM dumped: {dom}\n{stderr}");
    (dom, stderr.lines().filter(|l| l.contains(":CONSOLE")).map(str::to_string).collect())
}

/// The console check sees what a page writes there (so its silence on ours means something).
#[test]
fn the_console_check_sees_a_script_error() {
    let Some(chromium) = chromium() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let page = tmp.path().join("noisy.html");
    std::fs::write(&page, "<!DOCTYPE html><html><body><script>console.error('noisy'); undefinedFunction();</script></body></html>")
        .expect("write page");
    let (_, console) = dom_and_console(&chromium, &page);
    assert!(console.iter().any(|l| l.contains("noisy")), "console.error not seen: {console:?}");
    assert!(console.iter().any(|l| l.contains("Uncaught ReferenceError")), "script error not seen: {console:?}");
}

/// A container whose stream member, engine key and compiler build all carry [`EVIL`].
fn evil_neff(dir: &Path) -> PathBuf {
    let def = format!(r#"{{"{EVIL}_instr": "{EVIL}.data"}}"#);
    let info = format!(r#"{{"tool_version": "2.27.0.0+{EVIL}"}}"#);
    let member = format!("sg00/{EVIL}.data");
    let stream = bundles(&[0xB1, 0xCC, 0xA4, 0xA4]);
    let kelf: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#;
    let members: Vec<(&str, &[u8])> =
        vec![("info.json", info.as_bytes()), ("kelf-0.json", kelf), ("sg00/def.json", def.as_bytes()), (member.as_str(), &stream)];
    let p = dir.join("evil.neff");
    std::fs::write(&p, neff::build::container(2, &members).expect("builds a NEFF")).expect("write neff");
    p
}

fn plain_neff(dir: &Path) -> PathBuf {
    let kelf: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#;
    let stream = bundles(&[0xB1, 0xB1]);
    let members: Vec<(&str, &[u8])> = vec![
        ("info.json", br#"{"tool_version": "2.26.0.0+old"}"#),
        ("kelf-0.json", kelf),
        ("sg00/def.json", br#"{"pe_instr": "pe.data"}"#),
        ("sg00/pe.data", &stream),
    ];
    let p = dir.join("plain.neff");
    std::fs::write(&p, neff::build::container(2, &members).expect("builds a NEFF")).expect("write neff");
    p
}

fn sections(dom: &str, ids: &[&str]) {
    for id in ids {
        assert!(dom.contains(&format!("id=\"{id}\"")), "section {id} missing:\n{dom}");
    }
}

/// Script text from the input is shown, escaped, and never ran.
fn inert(dom: &str) {
    // The text itself names the attribute; set, it would read `data-pwned="1"`.
    assert!(!dom.contains("data-pwned=\""), "a script from the input ran:\n{dom}");
    assert!(dom.contains(EVIL_ESCAPED), "the input's name is not shown as text:\n{dom}");
}

#[test]
fn evidence_page_in_a_browser_shows_sections_counts_and_never_runs_input() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let neff = evil_neff(tmp.path());
    let page = tmp.path().join("evidence.html");
    let o = tpb(&["evidence", "--html", page.to_str().expect("utf-8 path"), neff.to_str().expect("utf-8 path")]);
    ok(&o);
    let html = std::fs::read_to_string(&page).expect("page written");
    // Self-contained: nothing fetched, nothing run.
    for fetch in ["<script", "<link", "src=\"http", "@import"] {
        assert!(!html.contains(fetch), "{fetch} in the page:\n{html}");
    }
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, &page);
    sections(&dom, &["harness", "verdicts", "inputs", "groups", "errata", "contradictions", "other-reports"]);
    assert!(dom.contains(r#"data-count="harness-failures" data-value="0""#), "{dom}");
    assert!(dom.contains(r#"<td class="num">4</td>"#), "bundle count missing:\n{dom}");
    assert!(dom.contains(r#"data-opcode="0xa4""#) && dom.contains("2 bundles"), "NoOp group missing:\n{dom}");
    assert!(dom.contains("<svg") && dom.contains("<title>"), "no histogram:\n{dom}");
    inert(&dom);

    let shot = tmp.path().join("shot.png");
    let o = browse(&chromium, &page, &[format!("--screenshot={}", shot.display()), "--window-size=1200,2000".into(), "--hide-scrollbars".into()]);
    assert!(o.status.success(), "chromium screenshot: {}", stderr(&o));
    let bytes = std::fs::read(&shot).expect("screenshot written");
    assert!(bytes.len() > 5_000, "screenshot of {} bytes", bytes.len());
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let px = info.color_type.samples() * usize::from(info.bit_depth as u8).div_ceil(8);
    let colours: std::collections::BTreeSet<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    assert!((info.width, info.height) == (1200, 2000), "{}×{}", info.width, info.height);
    // Text, bars and table rules: a blank or single-colour page has one or two.
    assert!(colours.len() > 20, "{} colours in the screenshot", colours.len());
}

#[test]
fn diff_page_in_a_browser_highlights_what_appeared() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (old, new) = (plain_neff(tmp.path()), evil_neff(tmp.path()));
    let page = tmp.path().join("diff.html");
    let o = tpb(&["evidence", "diff", "--html", page.to_str().expect("utf-8"), old.to_str().expect("utf-8"), new.to_str().expect("utf-8")]);
    assert!(o.status.code().is_some_and(|c| c & 1 == 0), "{}", stderr(&o));
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, &page);
    sections(&dom, &["sides", "appeared", "vanished", "checks"]);
    assert!(dom.contains("class=\"appeared\""), "nothing highlighted as appeared:\n{dom}");
    // Each difference points at its first bundle, with that bundle's disassembly.
    assert!(dom.contains("first in NEW: ") && dom.contains("0xa4:NoOp"), "no first bundle shown:\n{dom}");
    inert(&dom);
}

#[test]
fn conform_writes_report_html_that_a_browser_renders() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let neff = evil_neff(tmp.path());
    let reports = tmp.path().join("reports");
    std::fs::create_dir_all(&reports).expect("mkdir");
    std::fs::write(reports.join("fuzz.md"), "# Fuzzing\n\nEvery target ran 60 s: no crash.\n").expect("fuzz.md");
    let o = tpb(&[
        "conform",
        "--time",
        "1",
        "--quiet",
        "--seed",
        "7",
        "--out",
        reports.to_str().expect("utf-8"),
        "--neff",
        neff.to_str().expect("utf-8"),
    ]);
    ok(&o);
    let dated: Vec<PathBuf> = std::fs::read_dir(&reports).expect("reports").filter_map(|e| Some(e.ok()?.path())).filter(|p| p.is_dir()).collect();
    assert_eq!(dated.len(), 1, "{dated:?}");
    let page = dated[0].join("report.html");
    assert!(page.is_file(), "no report.html beside summary.md");
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, &page);
    sections(&dom, &["summary", "contents", "harness", "verdicts", "sections", "groups", "errata", "other-reports"]);
    assert!(dom.contains(r#"data-count="harness-failures" data-value="0""#), "{dom}");
    // What a reader looks for first is first: the summary says what each count means, then the
    // contents, the harness failures and the errata; the opcodes are last, each folded.
    let at = |id: &str| dom.find(&format!("id=\"{id}\"")).unwrap_or(usize::MAX);
    assert!(at("summary") < at("contents") && at("contents") < at("harness") && at("harness") < at("errata") && at("errata") < at("groups"), "{dom}");
    assert!(dom.contains("<dt>spec disagreements: ") && dom.contains(r##"<a href="#errata">Errata</a>"##), "{dom}");
    assert!(dom.contains(r#"<details class="group""#) && !dom.contains("<details class=\"group\" open"), "{dom}");
    assert!(dom.contains("Every target ran 60 s: no crash.") && dom.contains("href=\"../fuzz.md\""), "fuzz headline missing:\n{dom}");
    inert(&dom);
}

#[test]
fn html_output_to_a_folder_is_refused_and_nothing_clobbered() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let neff = plain_neff(tmp.path());
    let o = tpb(&["evidence", "--html", tmp.path().to_str().expect("utf-8"), neff.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot write the HTML page"), "{}", stderr(&o));
    assert!(neff.is_file());
}
