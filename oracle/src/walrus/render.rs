//! Plain-text forms of reports, diffs and the fact list (JSON comes from serde).
//! Strings read from the library or the wheel (found values, symbol names in
//! notes, the member name in the input label) have their control characters
//! escaped, so each row stays one line.

use super::diff::Diff;
use super::report::{Report, Row, Status};
use crate::text_safe::escape;
use std::fmt::Write;

fn addr(a: Option<u64>) -> String {
    a.map(|a| format!("{a:#x}")).unwrap_or_else(|| "-".into())
}

fn row_text(out: &mut String, r: &Row) {
    let _ = writeln!(
        out,
        "{:<8} {:<46} §{:<28} {:<9} {:>10}  {}",
        r.status.as_str(),
        r.id,
        r.section,
        r.confidence.as_str(),
        addr(r.address),
        escape(r.found.as_deref().unwrap_or("<absent>"))
    );
    if matches!(r.status, Status::Differs | Status::Missing) {
        if let Some(e) = &r.expected {
            let _ = writeln!(out, "{:9}expected: {}", "", escape(e));
        }
    }
    for n in &r.notes {
        let _ = writeln!(out, "{:9}· {}", "", escape(n));
    }
    for c in &r.candidates {
        let _ = writeln!(out, "{:9}candidate {:#x}: {}  ({} byte(s) differ, {} tags)", "", c.address, c.bytes, c.distance, c.tags_covered);
    }
}

/// The `tpb check` text report.
pub fn report_text(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "library   {}", escape(&r.input));
    let build = match (&r.build_id, &r.profile) {
        (Some(b), Some(p)) => format!("{b}  (known: {p})"),
        (Some(b), None) => format!("{b}  (unknown build: facts located by search)"),
        (None, _) => "none  (unknown build: facts located by search)".into(),
    };
    let _ = writeln!(out, "build-id  {build}");
    let _ = writeln!(out, "symbols   {} ({} entries)", r.symbols.source.as_str(), r.symbols.total);
    let _ = writeln!(out);
    for row in &r.rows {
        row_text(&mut out, row);
    }
    let s = r.summary;
    let _ =
        writeln!(out, "\n{} facts: {} hold, {} differ, {} missing, {} info -> exit {}", r.rows.len(), s.holds, s.differs, s.missing, s.info, r.exit);
    out
}

/// The `tpb diff` text: side by side, then the unified diff, then the verdict.
pub fn diff_text(d: &Diff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "OLD  {}  build-id {}", escape(&d.old.input), d.old.build_id.as_deref().unwrap_or("none"));
    let _ = writeln!(out, "NEW  {}  build-id {}", escape(&d.new.input), d.new.build_id.as_deref().unwrap_or("none"));
    let _ = writeln!(out);
    let _ = writeln!(out, "{:<46} {:<8} {:<8} {:>10} {:>10}  MARK", "FACT", "OLD", "NEW", "OLD ADDR", "NEW ADDR");
    for p in &d.pairs {
        let st = |r: &Option<Row>| r.as_ref().map(|r| r.status.as_str()).unwrap_or("-");
        let ad = |r: &Option<Row>| addr(r.as_ref().and_then(|r| r.address));
        let mark = match (p.changed, p.moved) {
            (true, true) => "changed, moved",
            (true, false) => "changed",
            (false, true) => "moved",
            (false, false) => "",
        };
        let _ = writeln!(out, "{:<46} {:<8} {:<8} {:>10} {:>10}  {mark}", p.id, st(&p.old), st(&p.new), ad(&p.old), ad(&p.new));
    }
    let _ = writeln!(out);
    if d.unified.is_empty() {
        let _ = writeln!(out, "(no difference in any value or address)");
    } else {
        out.push_str(&d.unified);
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{} constant(s) changed between OLD and NEW{}", d.changed.len(), list(&d.changed));
    let _ = writeln!(out, "{} fact(s) NEW fails against isa/profile{}", d.new_fails.len(), list(&d.new_fails));
    let _ = writeln!(out, "exit {}", d.exit);
    out
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() {
        String::new()
    } else {
        format!(": {}", ids.join(", "))
    }
}
