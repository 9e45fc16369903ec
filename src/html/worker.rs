//! The `your worker` section of conform's page (`--worker-cmd`/`--worker-lib`):
//! each disagreement group of the user's implementation with its reduced
//! repro file, apart from the harness's own failures, which it is not.

use crate::conform::report::{Report, Status};
use maud::{html, Markup};

/// The section id conform gives the differential run.
pub const SECTION: &str = "differential";

/// Nothing when the run fuzzed no worker.
pub fn section(r: &Report) -> Markup {
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
        assert_eq!(section(&report(Vec::new())).into_string(), "");
        let mut s = Section::new(SECTION, "your worker");
        let mut c = Case::fail("decode v2 0x46 TensorCopy src.stride", "3 input(s); worker: [65535]; expected: [-1]").with_checked(3);
        c.artifact = Some("differential/001-decode-v2-46-src.stride.txt".into());
        s.cases.push(c);
        s.cases.push(Case::fail("decode v3 0x46 TensorCopy <b>", "x"));
        let html = section(&report(vec![s])).into_string();
        assert!(html.contains(r#"data-value="2""#), "{html}");
        assert!(html.contains(r#"href="differential/001-decode-v2-46-src.stride.txt""#), "{html}");
        assert!(html.contains("&lt;b&gt;") && !html.contains("<b>"), "escaped: {html}");
        let mut ok = Section::new(SECTION, "your worker");
        ok.cases.push(Case::pass("worker agrees", "fine"));
        assert!(section(&report(vec![ok])).into_string().contains("no disagreement"));
    }
}
