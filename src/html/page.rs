//! The page builders. Inputs are JSON values so that a page can be drawn from
//! a saved report as well as from a run; a key that is missing renders as
//! empty, never as a panic (the data was written by this program, but a page
//! is not worth failing a run over).

use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::Value;
use std::path::Path;

use crate::conform::report::{Report, Status};

/// Inline style: the page must not fetch anything.
const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:72em;color:#1b1f24;background:#fff}\
h1{font-size:1.5em}h2{border-bottom:1px solid #ccd;padding-bottom:.2em;margin-top:1.6em}h3{font-size:1.05em;margin:1.2em 0 .3em}\
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top}\
th{background:#f3f5f7}.num{text-align:right;font-variant-numeric:tabular-nums}.ok{color:#1a7f37}.bad{color:#cf222e;font-weight:600}\
.appeared{background:#dafbe1}.vanished{background:#ffebe9}.grew{background:#fff8c5}.muted{color:#656d76}\
code{font-family:ui-monospace,monospace;font-size:.92em}svg{display:block}pre{white-space:pre-wrap;margin:0}\
details.group{margin:.3em 0}details.group>summary{cursor:pointer;font-weight:600}dl.legend dt{font-weight:600;margin-top:.4em}dl.legend dd{margin-left:1.5em}\
nav#contents ul{columns:2}.where{font-size:.85em;color:#444}";

/// A report of another tool (fuzzing, mutation testing) shown by its headline and linked.
#[derive(Clone, Debug)]
pub struct Extra {
    pub title: String,
    /// Where the page links to (relative to the page when it can be).
    pub href: String,
    pub headline: String,
}

impl Extra {
    /// The reports of `./reports/` (where the repository keeps them), linked by absolute `file://` URL
    /// since the page may be written anywhere.
    pub fn beside_cwd() -> Vec<Extra> {
        let root = Path::new("reports");
        match std::fs::canonicalize(root) {
            Ok(abs) => Extra::find(root, &format!("file://{}/", abs.display())),
            Err(_) => Vec::new(),
        }
    }

    /// `reports/fuzz.md` and `reports/mutants.md` under `root` when they exist,
    /// linked as `link_prefix` + file name.
    pub fn find(root: &Path, link_prefix: &str) -> Vec<Extra> {
        [("Fuzzing", "fuzz.md"), ("Mutation testing", "mutants.md")]
            .into_iter()
            .filter_map(|(title, file)| {
                let text = std::fs::read_to_string(root.join(file)).ok()?;
                Some(Extra { title: title.into(), href: format!("{link_prefix}{file}"), headline: headline(&text) })
            })
            .collect()
    }
}

/// The first heading and the first paragraph line after it: what the report says first.
fn headline(md: &str) -> String {
    let mut lines = md.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("<!--"));
    let first = lines.next().unwrap_or_default().trim_start_matches('#').trim();
    match lines.find(|l| !l.starts_with('#') && !l.starts_with('|') && !l.starts_with("```")) {
        Some(p) => format!("{first}: {p}"),
        None => first.to_string(),
    }
}

fn s(v: &Value, k: &str) -> String {
    text(v.get(k).unwrap_or(&Value::Null))
}

/// A JSON value as the words a person reads (strings without their quotes).
fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(x) => x.clone(),
        Value::Array(a) => a.iter().map(text).collect::<Vec<_>>().join(", "),
        Value::Object(m) => m.iter().map(|(k, v)| format!("{k} ×{}", text(v))).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn n(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `[[value, count], …]` plus an `other` count as (label, count) bars.
fn pairs(values: &[Value], other: u64) -> Vec<(String, u64)> {
    let mut bars: Vec<(String, u64)> =
        values.iter().map(|p| (p.get(0).map(text).unwrap_or_default(), p.get(1).and_then(Value::as_u64).unwrap_or(0))).collect();
    if other > 0 {
        bars.push(("other".into(), other));
    }
    bars
}

/// A horizontal bar chart: one bar per (label, count), the count in the
/// bar's `<title>` (shown on hover) and beside it (shown without a mouse).
fn bars(items: &[(String, u64)]) -> Markup {
    const ROW: usize = 16;
    const LABEL: usize = 150;
    const WIDTH: usize = 220;
    let max = items.iter().map(|(_, c)| *c).max().unwrap_or(0).max(1);
    let height = ROW * items.len().max(1);
    html! {
        svg class="hist" xmlns="http://www.w3.org/2000/svg" width=(LABEL + WIDTH + 80) height=(height) role="img" {
            @for (i, (label, count)) in items.iter().enumerate() {
                @let y = i * ROW;
                @let w = ((*count as f64 / max as f64) * WIDTH as f64).round().max(1.0);
                g class="bar" {
                    title { (label) " ×" (count) }
                    text x="0" y=(y + 12) font-size="11" font-family="monospace" { (clip(label, 22)) }
                    rect x=(LABEL) y=(y + 2) width=(w) height=(ROW - 4) fill="#4f7cc4" {}
                    text x=(LABEL as f64 + w + 4.0) y=(y + 12) font-size="11" { (count) }
                }
            }
        }
    }
}

/// A label cut to fit the chart; the whole of it is in the bar's title.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        s.chars().take(max - 1).chain(['…']).collect()
    }
}

fn layout(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { h1 { (title) } (body) }
        }
    }
    .into_string()
}

fn verdicts(bundles: u64, invalid_amended: u64, invalid_spec: u64) -> Markup {
    let pct = |x: u64| if bundles == 0 { 0.0 } else { 100.0 * x as f64 / bundles as f64 };
    html! {
        section id="verdicts" {
            h2 { "Verdicts" }
            table {
                tr { th { "profile" } th { "bundles" } th { "invalid" } th { "share" } }
                tr { td { "by default (the spec amended by the errata)" } td.num { (bundles) } td.num data-count="invalid-default" { (invalid_amended) } td.num { (format!("{:.1}%", pct(invalid_amended))) } }
                tr { td { "under the spec alone (--spec)" } td.num { (bundles) } td.num data-count="invalid-spec" { (invalid_spec) } td.num { (format!("{:.1}%", pct(invalid_spec))) } }
            }
        }
    }
}

/// Per generation × build × opcode: bundles, engines, and a histogram per
/// field, each group folded (`<details>`: opened by a click, no script) under
/// a one-line summary, so the page reads as a list of opcodes.
fn groups(groups: &[Value]) -> Markup {
    html! {
        section id="groups" {
            h2 { "Opcodes by generation" }
            p.muted { (groups.len()) " generation × build × opcode groups, each folded: open one to see its fields' values" }
            @for g in groups {
                details.group id=(format!("op-{}-{}-{}", s(g, "generation"), s(g, "opcode"), anchor(&s(g, "build")))) data-opcode=(s(g, "opcode")) {
                    summary { (s(g, "generation")) " · " code { (s(g, "opcode")) } " " (s(g, "name")) " · build " code { (s(g, "build")) } " · " (crate::conform::report::count(n(g, "bundles"), "bundle")) }
                    p { "engines: " (s(g, "engines")) }
                    table {
                        tr { th { "field" } th { "offset" } th { "values" } th { "distinct" } }
                        @for f in arr(g, "fields") {
                            tr {
                                td { code { (s(f, "field")) } }
                                td.num { (s(f, "offset")) }
                                td { (bars(&pairs(arr(f, "values"), n(f, "other")))) }
                                td.num { (n(f, "distinct")) @if f.get("distinct_capped").and_then(Value::as_bool) == Some(true) { "+" } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A fragment id made of `s`: letters, digits, `-` and `_` kept, anything else `_`.
fn anchor(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// The first bundle a diff names for a difference: where it is and its disassembly.
fn example(e: &Value) -> Markup {
    if e.is_null() {
        return html! { span.muted { "no location" } };
    }
    let path = e.get("path").and_then(Value::as_str).map_or_else(|| s(e, "file"), str::to_string);
    html! {
        div.where {
            "first in " (s(e, "side").to_uppercase()) ": " code { (path) } " " code { (s(e, "member")) } " [" (n(e, "index")) "] +" (format!("{:#x}", n(e, "offset")))
            @if let Some(line) = e.get("disasm").and_then(Value::as_str) { br; code { (line) } }
        }
    }
}

/// Errata: claim, observed, resolution, and the bundles each compiler build supports it with.
/// `support` names the key holding `{build: {bundles, files}}`.
fn errata(list: &[Value], support: &str) -> Markup {
    html! {
        section id="errata" {
            h2 { "Errata" }
            @if list.is_empty() { p { "none" } }
            @for e in list {
                div.erratum {
                    h3 { code { (s(e, "id")) } " — check " code { (s(e, "check")) } }
                    table {
                        tr { th { "claim" } td { (s(e, "claim")) } }
                        tr { th { "observed" } td { (s(e, "observed")) } }
                        tr { th { "resolution" } td { (s(e, "resolution")) } }
                        tr { th { "confidence" } td { (s(e, "confidence")) } }
                        tr { th { "support per build" } td {
                            @let by: Vec<(String, u64)> = e.get(support).and_then(Value::as_object).map(|m| m.iter().map(|(b, x)| (b.clone(), n(x, "bundles"))).collect()).unwrap_or_default();
                            @if by.is_empty() { "no supporting bundle" } @else { (bars(&by)) }
                        } }
                    }
                }
            }
        }
    }
}

fn extras(list: &[Extra]) -> Markup {
    html! {
        section id="other-reports" {
            h2 { "Fuzzing and mutation testing" }
            @if list.is_empty() { p.muted { "no reports/fuzz.md or reports/mutants.md here" } }
            ul { @for x in list { li { a href=(x.href) { (x.title) } ": " (x.headline) } } }
        }
    }
}

fn harness(failures: &[(String, String)]) -> Markup {
    html! {
        section id="harness" {
            h2 { "Harness failures" }
            @if failures.is_empty() {
                p.ok data-count="harness-failures" data-value="0" { "none" }
            } @else {
                p.bad data-count="harness-failures" data-value=(failures.len()) { (failures.len()) " harness failures" }
                table { @for (name, detail) in failures { tr { td.bad { (name) } td { pre { (detail) } } } } }
            }
        }
    }
}

/// `tpb evidence --html`: the page of one evidence object (`Evidence::to_json`).
pub fn evidence_page(ev: &Value, more: &[Extra]) -> String {
    let totals = ev.get("totals").unwrap_or(&Value::Null);
    let body = html! {
        // Evidence reads programs, it runs no harness check: the section is there so every page reads alike.
        (harness(&[]))
        (verdicts(n(totals, "bundles"), n(totals, "invalid_amended"), n(totals, "invalid_spec")))
        section id="inputs" {
            h2 { "Inputs" }
            table {
                tr { th { "file" } th { "build" } th { "target" } th { "generation" } th { "bundles" } }
                @for i in arr(ev, "inputs") {
                    tr { td { code { (s(i, "file")) } } td { (s(i, "build")) } td { (s(i, "target")) } td { (s(i, "generation")) " (" (s(i, "generation_from")) ")" } td.num { (n(i, "bundles")) } }
                }
            }
        }
        (groups(arr(ev, "groups")))
        (errata(arr(ev, "errata"), "evidence"))
        section id="contradictions" {
            h2 { "Contradictions no erratum accepts" }
            @if arr(ev, "contradictions").is_empty() { p.ok { "none" } }
            @for c in arr(ev, "contradictions") {
                div.vanished {
                    h3 { (s(c, "generation")) " · " code { (s(c, "opcode")) } " " (s(c, "name")) " · " (s(c, "build")) ": check " code { (s(c, "check")) } " on " code { (s(c, "field")) } " (" (n(c, "count")) " bundles)" }
                    (bars(&pairs(arr(c, "values"), n(c, "other"))))
                }
            }
        }
        (extras(more))
    };
    layout("tpb evidence", body)
}

/// A check's counts on one side of a diff.
fn check_counts(c: &Value) -> String {
    format!("agree {}, disagree {} (accepted: {}), refused {}", n(c, "agree"), n(c, "disagree"), s(c, "accepted"), n(c, "refused"))
}

fn op_label(v: &Value) -> Markup {
    html! { (s(v, "generation")) " " code { (s(v, "opcode")) } " " (s(v, "name")) }
}

/// `tpb evidence diff --html`: what appeared, vanished or grew between OLD and NEW (`Diff::to_json`).
pub fn diff_page(d: &Value, more: &[Extra]) -> String {
    let side = |k: &str| d.get(k).cloned().unwrap_or(Value::Null);
    let (old, new) = (side("old"), side("new"));
    let at = |a: &str, b: &str| d.get(a).map_or(&[][..], |x| arr(x, b));
    let presence = |list: &[Value], class: &'static str| {
        html! { @for p in list { tr class=(class) { td { (op_label(p)) } td.num { (n(p, "bundles")) } td { (s(p, "engines")) } td { (example(p.get("first").unwrap_or(&Value::Null))) } } } }
    };
    let body = html! {
        section id="sides" {
            h2 { "Sides" }
            table {
                tr { th { "" } th { "name" } th { "bundles" } th { "builds" } }
                tr { th { "OLD" } td { code { (s(&old, "name")) } } td.num { (n(&old, "bundles")) } td { @for b in old.get("builds").and_then(Value::as_object).into_iter().flatten() { code { (b.0) } " " } } }
                tr { th { "NEW" } td { code { (s(&new, "name")) } } td.num { (n(&new, "bundles")) } td { @for b in new.get("builds").and_then(Value::as_object).into_iter().flatten() { code { (b.0) } " " } } }
            }
            p { "exit bits: " (n(d, "exit")) }
        }
        section id="appeared" {
            h2 { "Appeared" }
            table {
                tr { th { "opcode" } th { "bundles" } th { "engines" } th { "first bundle" } }
                (presence(at("opcodes", "appeared"), "appeared"))
                @for e in arr(d, "engines") { @if s(e, "change") == "appeared" { tr.appeared { td { (op_label(e)) } td.num { (n(e, "bundles")) } td { "engine " code { (s(e, "engine")) } } td { (example(e.get("first").unwrap_or(&Value::Null))) } } } }
            }
            h3 { "Field values NEW shows that OLD never did" }
            table {
                @for v in arr(d, "values") { @if !arr(v, "new").is_empty() {
                    tr.grew {
                        td { (op_label(v)) " " code { (s(v, "field")) } }
                        td { (bars(&pairs(arr(v, "new"), 0))) }
                        td { @for p in arr(v, "new") {
                            @let value = p.get(0).map(text).unwrap_or_default();
                            p { code { (value) } @if let Some(name) = v.get("names").and_then(|m| m.get(&value)).and_then(Value::as_str) { " (" (name) ")" } }
                            (example(v.get("first").and_then(|f| f.get(&value)).unwrap_or(&Value::Null)))
                        } }
                    }
                } }
            }
            h3 { "New contradictions, errata newly needed, claims NEW breaks" }
            ul {
                @for c in at("contradictions", "new") { li.appeared { (op_label(c)) ": check " code { (s(c, "check")) } " on " code { (s(c, "field")) }
                    @for (_, e) in c.get("findings").and_then(|f| f.get("first")).and_then(Value::as_object).into_iter().flatten() { (example(e)) } } }
                @for e in at("errata", "needed") { li.appeared { "erratum " code { (s(e, "id")) } " (" (n(e, "bundles")) " bundles)" (example(e.get("first").unwrap_or(&Value::Null))) } }
                @for c in at("claims", "broken") { li.appeared { (op_label(c)) ": claim on " code { (s(c, "field")) } " broken" (example(c.get("first").unwrap_or(&Value::Null))) } }
            }
        }
        section id="vanished" {
            h2 { "Vanished" }
            table {
                tr { th { "opcode" } th { "bundles" } th { "engines" } th { "first bundle" } }
                (presence(at("opcodes", "vanished"), "vanished"))
                @for e in arr(d, "engines") { @if s(e, "change") == "vanished" { tr.vanished { td { (op_label(e)) } td.num { (n(e, "bundles")) } td { "engine " code { (s(e, "engine")) } } td { (example(e.get("first").unwrap_or(&Value::Null))) } } } }
            }
            ul {
                @for c in at("contradictions", "gone") { li.vanished { (op_label(c)) ": contradiction gone, check " code { (s(c, "check")) }
                    @for (_, e) in c.get("findings").and_then(|f| f.get("first")).and_then(Value::as_object).into_iter().flatten() { (example(e)) } } }
                @for e in at("errata", "unsupported") { li.vanished { "erratum " code { (s(e, "id")) } " no longer supported" (example(e.get("first").unwrap_or(&Value::Null))) } }
                @for c in at("claims", "mended") { li.vanished { (op_label(c)) ": claim on " code { (s(c, "field")) } " mended" (example(c.get("first").unwrap_or(&Value::Null))) } }
            }
        }
        section id="checks" {
            h2 { "Checks that moved" }
            table {
                tr { th { "opcode" } th { "check" } th { "change" } th { "OLD" } th { "NEW" } th { "first bundle" } }
                @for c in arr(d, "checks") { tr.grew { td { (op_label(c)) } td { code { (s(c, "check")) } } td { (s(c, "change")) } td { (check_counts(&c["old"])) } td { (check_counts(&c["new"])) } td { (example(c.get("first").unwrap_or(&Value::Null))) } } }
            }
        }
        (extras(more))
    };
    layout("tpb evidence diff", body)
}

/// `tpb conform`'s `report.html`: harness failures first, then verdicts,
/// sections, the opcodes of the real programs (`evidence`, when any were read) and errata.
pub fn conform_page(r: &Report, evidence: Option<&Value>, more: &[Extra]) -> String {
    let failures: Vec<(String, String)> = r
        .sections
        .iter()
        // A user's worker disagreeing is not the harness failing: it has its own section.
        .filter(|s| s.id != super::worker::SECTION)
        .flat_map(|s| s.cases.iter().filter(|c| c.status == Status::Fail).map(move |c| (format!("{}: {}", s.title, c.name), c.detail.clone())))
        .collect();
    let neff = r.sections.iter().find(|s| s.id == "neff").and_then(|s| s.data.as_ref());
    let v = neff.and_then(|d| d.get("verdicts")).unwrap_or(&Value::Null);
    let errata_list = neff.map_or(&[][..], |d| arr(d, "errata"));
    let group_count = evidence.map_or(0, |ev| arr(ev, "groups").len());
    let body = html! {
        p.muted { "tpb " (r.tpb_version) ", started " (r.started) ", seed " code { (format!("{:#x}", r.seed)) } ", " (format!("{:.1}", r.elapsed.as_secs_f64())) " s" }
        (conform_summary(r, v, failures.len(), errata_list.len()))
        nav id="contents" {
            h2 { "Contents" }
            ul {
                li { a href="#harness" { "Harness failures" } " (" (failures.len()) ")" }
                @if r.sections.iter().any(|s| s.id == super::worker::SECTION) { li { a href="#worker" { "Your worker" } } }
                li { a href="#errata" { "Errata" } " (" (errata_list.len()) ")" }
                li { a href="#verdicts" { "Verdicts" } }
                li { a href="#sections" { "Checks by section" } }
                @if evidence.is_some() { li { a href="#groups" { "Opcodes by generation" } " (" (group_count) ", folded)" } }
                li { a href="#other-reports" { "Fuzzing and mutation testing" } }
            }
        }
        (harness(&failures))
        (super::worker::section(r))
        (errata(errata_list, "bundles"))
        (verdicts(n(v, "bundles"), n(v, "invalid_amended"), n(v, "invalid_spec")))
        section id="sections" {
            h2 { "Checks" }
            table {
                tr { th { "section" } th { "pass" } th { "fail" } th { "skip" } th { "spec disagreements" } }
                @for s in &r.sections {
                    tr { td { (s.title) } td.num.ok { (s.count(Status::Pass)) } td.num.bad[s.count(Status::Fail) > 0] { (s.count(Status::Fail)) } td.num { (s.count(Status::Skip)) } td.num { (s.disagreements()) } }
                }
            }
            h3 { "Inputs" }
            ul { @for f in r.neffs.iter().chain(&r.libs) { li { code { (f) } } } }
        }
        @if let Some(ev) = evidence { (groups(arr(ev, "groups"))) }
        (extras(more))
    };
    layout(&format!("tpb conform {}", r.date), body)
}

/// The top of `report.html`: the verdict, and what each count on the page means.
fn conform_summary(r: &Report, v: &Value, failures: usize, errata: usize) -> Markup {
    let total = |st: Status| r.sections.iter().map(|s| s.count(st)).sum::<usize>();
    html! {
        section id="summary" {
            h2 { "Summary" }
            p.bad[!r.passed()].ok[r.passed()] data-count="headline" { (crate::conform::summary::headline(r)) }
            dl.legend {
                dt { "harness failures: " (failures) }
                dd { "property violations, round-trip mismatches, panics, unreadable vendor input: any fails the run (" a href="#harness" { "list" } ")." }
                dt { "errata: " (errata) }
                dd { "each a place where real compiler output contradicts the spec, and the encodings it accepts there; with the bundles that support it (" a href="#errata" { "list" } ")." }
                dt { "bundles: " (n(v, "bundles")) "; invalid by default: " (n(v, "invalid_amended")) "; invalid under --spec: " (n(v, "invalid_spec")) }
                dd { "real bundles judged as " code { "tpb validate" } " judges them: by default under the spec amended by the errata (real output is valid), and under the spec alone, where a bundle with an error counts once (" a href="#verdicts" { "verdicts" } ")." }
                dt { "spec disagreements: " (r.disagreements()) }
                dd { "bundles with any finding of the spec alone (an error, a warning or a note) or on an engine it does not list: reported, never failed; so it exceeds the count invalid under --spec, which counts only bundles with an error." }
                dt { "checks: " (total(Status::Pass)) " pass, " (total(Status::Fail)) " fail, " (total(Status::Skip)) " skipped" }
                dd { "the harness's own checks, by section; a skipped one says why (" a href="#sections" { "sections" } ")." }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_other_bar_only_when_values_were_left_out() {
        let values = [json!([7, 2]), json!(["f32", 5])];
        let kept = pairs(&values, 0);
        assert_eq!(kept, vec![("7".to_string(), 2), ("f32".to_string(), 5)]);
        let with_other = pairs(&values, 3);
        assert_eq!(with_other.last(), Some(&("other".to_string(), 3)));
        assert_eq!(with_other.len(), 3);
    }

    #[test]
    fn input_strings_are_escaped() {
        let ev =
            json!({"inputs": [{"file": "<script>x()</script>", "build": "<b>"}], "groups": [], "errata": [], "contradictions": [], "totals": {}});
        let page = evidence_page(&ev, &[]);
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("&lt;script&gt;x()&lt;/script&gt;"), "{page}");
    }

    #[test]
    fn bars_carry_their_counts_in_titles() {
        let svg = bars(&[("0xaa".into(), 3), ("other".into(), 1)]).into_string();
        assert!(svg.contains("<title>0xaa ×3</title>"), "{svg}");
        assert_eq!(svg.matches("<rect").count(), 2);
        // A 16-px row per bar (one when there is none); the longest bar is 220 px, the rest in proportion.
        assert!(svg.contains(r#"width="450" height="32""#), "{svg}");
        assert!(
            svg.contains(r#"<rect x="150" y="2" width="220" height="12""#) && svg.contains(r#"<rect x="150" y="18" width="73" height="12""#),
            "{svg}"
        );
        assert!(bars(&[]).into_string().contains(r#"height="16""#));
    }

    #[test]
    fn verdicts_give_each_profiles_share_of_the_bundles_and_an_opcode_is_labelled_by_generation_byte_and_name() {
        let v = verdicts(200, 3, 50).into_string();
        assert!(v.contains(r#"<td class="num" data-count="invalid-default">3</td><td class="num">1.5%</td>"#), "{v}");
        assert!(v.contains(r#"<td class="num" data-count="invalid-spec">50</td><td class="num">25.0%</td>"#), "{v}");
        assert_eq!(verdicts(0, 0, 0).into_string().matches(">0.0%<").count(), 2);
        let label = op_label(&json!({"generation": "v2", "opcode": "0x41", "name": "<Add>"})).into_string();
        assert_eq!(label, "v2 <code>0x41</code> &lt;Add&gt;");
    }

    #[test]
    fn a_long_label_is_clipped_to_fit_with_an_ellipsis() {
        assert_eq!(clip("dtype", 5), "dtype");
        assert_eq!(clip("dtypes", 5), "dtyp…");
        assert_eq!(clip("ééééé", 5), "ééééé");
        let svg = bars(&[("a_very_long_check_name_indeed".into(), 1)]).into_string();
        assert!(svg.contains(">a_very_long_check_nam…</text>") && svg.contains("<title>a_very_long_check_name_indeed ×1</title>"), "{svg}");
    }

    /// Tests run in the package's root, where the repository keeps `reports/`.
    #[test]
    fn the_repositorys_reports_are_found_beside_the_working_folder_by_absolute_link() {
        let extras = super::Extra::beside_cwd();
        let titles: Vec<&str> = extras.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(titles, ["Fuzzing", "Mutation testing"]);
        let abs = std::fs::canonicalize("reports").expect("reports/ is here");
        assert_eq!(extras[1].href, format!("file://{}/mutants.md", abs.display()));
        assert!(extras[1].headline.starts_with("Mutation testing: "), "{}", extras[1].headline);
    }

    /// The verdicts and errata come from the NEFF section's data, wherever it sits among the sections.
    #[test]
    fn the_conform_page_reads_verdicts_and_errata_from_the_neff_section() {
        use crate::conform::report::{Report, Section};
        let mut other = Section::new("campaign", "Campaign");
        other.data = Some(json!({"verdicts": {"bundles": 1, "invalid_amended": 1, "invalid_spec": 1}}));
        let mut neff = Section::new("neff", "Real programs");
        neff.data = Some(json!({"verdicts": {"bundles": 400, "invalid_amended": 2, "invalid_spec": 100},
            "errata": [{"id": "E-ONE", "claim": "x"}]}));
        let page = conform_page(&Report::of(vec![other, neff], "t", std::time::Duration::ZERO), None, &[]);
        assert!(page.contains(r#"data-count="invalid-default">2</td><td class="num">0.5%"#), "{page}");
        assert!(page.contains(r#"data-count="invalid-spec">100</td><td class="num">25.0%"#), "{page}");
        assert!(page.contains("E-ONE"), "{page}");
    }

    /// What a reader looks for first comes first: the summary with what each count means, the contents, the
    /// harness failures and the errata; the opcodes last, each folded.
    #[test]
    fn the_conform_page_leads_with_a_summary_contents_failures_and_errata_and_folds_the_opcodes() {
        use crate::conform::report::{Report, Section};
        let mut neff = Section::new("neff", "Real programs");
        neff.data = Some(json!({"verdicts": {"bundles": 400, "invalid_amended": 0, "invalid_spec": 100}, "errata": [{"id": "E-ONE", "claim": "x"}]}));
        let ev = json!({"groups": [{"generation": "v2", "opcode": "0x46", "name": "TensorCopy", "build": "2.14 <x>", "bundles": 3, "fields": []}]});
        let page = conform_page(&Report::of(vec![neff], "t", std::time::Duration::ZERO), Some(&ev), &[]);
        let at = |needle: &str| page.find(needle).unwrap_or_else(|| panic!("no {needle} in {page}"));
        let order =
            [r#"id="summary""#, r#"id="contents""#, r#"id="harness""#, r#"id="errata""#, r#"id="verdicts""#, r#"id="sections""#, r#"id="groups""#];
        assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{page}");
        for href in ["#harness", "#errata", "#verdicts", "#sections", "#groups", "#other-reports"] {
            assert!(page.contains(&format!(r##"href="{href}""##)), "{href}: {page}");
        }
        assert!(page.contains("<dt>spec disagreements: 0</dt>") && page.contains("never failed"), "{page}");
        assert!(page.contains(r#"<details class="group" id="op-v2-0x46-2_14__x_""#), "{page}");
        assert!(page.contains("<summary>v2 · <code>0x46</code> TensorCopy · build <code>2.14 &lt;x&gt;</code> · 3 bundles</summary>"), "{page}");
        assert!(!page.contains("<script"), "{page}");
    }

    #[test]
    fn headline_is_the_heading_and_first_line() {
        assert_eq!(headline("# Fuzzing\n\n| a |\nRan 3 targets.\n"), "Fuzzing: Ran 3 targets.");
    }
}
