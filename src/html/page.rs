//! The page builders. Inputs are JSON values so that a page can be drawn from
//! a saved report as well as from a run; a key that is missing renders as
//! empty, never as a panic (the data was written by this program, but a page
//! is not worth failing a run over).

use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::Value;
use std::path::Path;

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

pub(crate) fn n(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

pub(crate) fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
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

pub(crate) fn layout(title: &str, body: Markup) -> String {
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

pub(crate) fn verdicts(bundles: u64, invalid_amended: u64, invalid_spec: u64) -> Markup {
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
pub(crate) fn groups(groups: &[Value]) -> Markup {
    html! {
        section id="groups" {
            h2 { "Opcodes by generation" }
            p.muted { (groups.len()) " generation × build × opcode groups, each folded: open one to see its fields' values" }
            @for g in groups {
                details.group id=(format!("op-{}-{}-{}", s(g, "generation"), s(g, "opcode"), anchor(&s(g, "build")))) data-opcode=(s(g, "opcode")) {
                    summary { (s(g, "generation")) " · " code { (s(g, "opcode")) } " " (s(g, "name")) " · build " code { (s(g, "build")) } " · " (crate::out::count(n(g, "bundles"), "bundle")) }
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
pub(crate) fn errata(list: &[Value], support: &str) -> Markup {
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

pub(crate) fn extras(list: &[Extra]) -> Markup {
    html! {
        section id="other-reports" {
            h2 { "Fuzzing and mutation testing" }
            @if list.is_empty() { p.muted { "no reports/fuzz.md or reports/mutants.md here" } }
            ul { @for x in list { li { a href=(x.href) { (x.title) } ": " (x.headline) } } }
        }
    }
}

pub(crate) fn harness(failures: &[(String, String)]) -> Markup {
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

    #[test]
    fn headline_is_the_heading_and_first_line() {
        assert_eq!(headline("# Fuzzing\n\n| a |\nRan 3 targets.\n"), "Fuzzing: Ran 3 targets.");
    }
}
