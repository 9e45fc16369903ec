//! `report.html` of `tpb conform`: the run's report drawn with the page parts
//! every report shares (`crate::html`), which know nothing of conform.

use maud::{html, Markup};
use serde_json::Value;

use super::differential::SECTION;
use super::report::{Report, Status};
use crate::html::{arr, errata, extras, groups, harness, layout, n, verdicts, Extra};

/// `tpb conform`'s `report.html`: harness failures first, then verdicts,
/// sections, the opcodes of the real programs (`evidence`, when any were read) and errata.
pub fn conform_page(r: &Report, evidence: Option<&Value>, more: &[Extra]) -> String {
    let failures: Vec<(String, String)> = r
        .sections
        .iter()
        // A user's worker disagreeing is not the harness failing: it has its own section.
        .filter(|s| s.id != SECTION)
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
                @if r.sections.iter().any(|s| s.id == SECTION) { li { a href="#worker" { "Your worker" } } }
                li { a href="#errata" { "Errata" } " (" (errata_list.len()) ")" }
                li { a href="#verdicts" { "Verdicts" } }
                li { a href="#sections" { "Checks by section" } }
                @if evidence.is_some() { li { a href="#groups" { "Opcodes by generation" } " (" (group_count) ", folded)" } }
                li { a href="#other-reports" { "Fuzzing and mutation testing" } }
            }
        }
        (harness(&failures))
        (worker(r))
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
            p.bad[!r.passed()].ok[r.passed()] data-count="headline" { (super::summary::headline(r)) }
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

/// The `your worker` section (`--worker-cmd`/`--worker-lib`): each disagreement
/// group of the user's implementation with its reduced repro file, apart from the
/// harness's own failures, which it is not. Nothing when the run fuzzed no worker.
fn worker(r: &Report) -> Markup {
    let Some(s) = r.sections.iter().find(|s| s.id == SECTION) else { return html! {} };
    let failed: Vec<_> = s.cases.iter().filter(|c| c.status == Status::Fail).collect();
    let summary = s.data.as_ref().and_then(|d| d.get("summary")).and_then(|v| v.as_str()).unwrap_or("");
    html! {
        section id="worker" {
            h2 { "Your worker against the description" }
            p.muted { (summary) }
            @if failed.is_empty() {
                p.ok data-count="worker-groups" data-value="0" { "no disagreement" }
            } @else {
                p.bad data-count="worker-groups" data-value=(failed.len()) { (failed.len()) " disagreement group(s), each reduced to a repro (docs/differential.md)" }
                table {
                    tr { th { "kind · generation · opcode · field" } th { "inputs" } th { "what differs" } th { "repro" } }
                    @for c in &failed {
                        tr {
                            td.bad { code { (c.name) } }
                            td.num { (c.checked) }
                            td { (c.detail) }
                            td { @if let Some(a) = &c.artifact { a href=(a) { (a) } } }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::report::{Case, Section};
    use serde_json::json;

    /// The verdicts and errata come from the NEFF section's data, wherever it sits among the sections.
    #[test]
    fn the_conform_page_reads_verdicts_and_errata_from_the_neff_section() {
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

    fn report(sections: Vec<Section>) -> Report {
        Report {
            date: "2026-12-07".into(),
            started: "2026-12-07T00:00:00Z".into(),
            tpb_version: "0",
            seed: 1,
            time_budget_secs: 1,
            libs: Vec::new(),
            neffs: Vec::new(),
            neff_args: Vec::new(),
            sections,
            elapsed: std::time::Duration::ZERO,
        }
    }

    #[test]
    fn each_group_is_a_row_with_its_repro_and_no_worker_no_section() {
        assert_eq!(worker(&report(Vec::new())).into_string(), "");
        let mut s = Section::new(SECTION, "your worker");
        let mut c = Case::fail("decode v2 0x46 TensorCopy src.stride", "3 input(s); worker: [65535]; expected: [-1]").with_checked(3);
        c.artifact = Some("differential/001-decode-v2-46-src.stride.txt".into());
        s.cases.push(c);
        s.cases.push(Case::fail("decode v3 0x46 TensorCopy <b>", "x"));
        let html = worker(&report(vec![s])).into_string();
        assert!(html.contains(r#"data-value="2""#), "{html}");
        assert!(html.contains(r#"href="differential/001-decode-v2-46-src.stride.txt""#), "{html}");
        assert!(html.contains("&lt;b&gt;") && !html.contains("<b>"), "escaped: {html}");
        let mut ok = Section::new(SECTION, "your worker");
        ok.cases.push(Case::pass("worker agrees", "fine"));
        assert!(worker(&report(vec![ok])).into_string().contains("no disagreement"));
    }
}
