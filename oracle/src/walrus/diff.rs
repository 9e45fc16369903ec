//! Two builds side by side: what moved, what changed, and whether the new one
//! still agrees with `isa`. Exit bits follow abidiff: 1 error, 2 usage,
//! 4 the facts differ between OLD and NEW, 8 NEW disagrees with `isa`.

use super::report::{Report, Row};
use super::spec::Kind;
use crate::text_safe::escape;
use serde::Serialize;

/// An input could not be read or checked.
pub const BIT_ERROR: u8 = 1;
/// Bad arguments (set by the command line, never by a diff).
pub const BIT_USAGE: u8 = 2;
/// A constant's value differs between OLD and NEW.
pub const BIT_CHANGED: u8 = 4;
/// NEW fails a fact (`tpb check NEW` would exit 4): the harness must be updated.
pub const BIT_NEW_FAILS: u8 = 8;

/// One fact in both builds.
#[derive(Clone, Debug, Serialize)]
pub struct Pair {
    /// The fact's id.
    pub id: String,
    /// Its row in OLD's report (`None` when OLD's report has no such fact).
    pub old: Option<Row>,
    /// Its row in NEW's report (`None` likewise).
    pub new: Option<Row>,
    /// The value differs (constants only; identity and placement always may).
    pub changed: bool,
    /// The address differs.
    pub moved: bool,
}

/// The comparison of two reports.
#[derive(Clone, Debug, Serialize)]
pub struct Diff {
    /// OLD's report.
    pub old: Report,
    /// NEW's report.
    pub new: Report,
    /// Every fact of either, in OLD's order then NEW's new ones.
    pub pairs: Vec<Pair>,
    /// Ids of constants whose value differs.
    pub changed: Vec<String>,
    /// Ids of facts NEW fails.
    pub new_fails: Vec<String>,
    /// A unified diff of every fact's value and address.
    pub unified: String,
    /// `tpb diff`'s exit code: the bits above.
    pub exit: u8,
}

/// One line per fact: `id = value @ address`, the text the unified diff
/// compares (values from the library with control characters escaped, so
/// one fact is one line).
pub fn constants_text(r: &Report) -> String {
    let mut s = String::new();
    for row in &r.rows {
        s.push_str(&row_line(row));
        s.push('\n');
    }
    s
}

fn row_line(row: &Row) -> String {
    let v = escape(row.found.as_deref().unwrap_or("<absent>"));
    match row.address {
        Some(a) => format!("{} = {v} @ {a:#x}", row.id),
        None => format!("{} = {v}", row.id),
    }
}

/// Compares OLD and NEW.
pub fn diff(old: Report, new: Report) -> Diff {
    let mut ids: Vec<String> = old.rows.iter().map(|r| r.id.clone()).collect();
    for r in &new.rows {
        if !ids.contains(&r.id) {
            ids.push(r.id.clone());
        }
    }
    let pairs: Vec<Pair> = ids
        .into_iter()
        .map(|id| {
            let o = old.row(&id).cloned();
            let n = new.row(&id).cloned();
            let constant = o.as_ref().or(n.as_ref()).is_some_and(|r| r.kind == Kind::Constant);
            let value = |r: &Option<Row>| r.as_ref().map(|r| (r.found.clone(), r.status));
            let changed = constant && value(&o) != value(&n);
            let moved = o.as_ref().map(|r| r.address) != n.as_ref().map(|r| r.address);
            Pair { id, old: o, new: n, changed, moved }
        })
        .collect();
    let changed: Vec<String> = pairs.iter().filter(|p| p.changed).map(|p| p.id.clone()).collect();
    let new_fails: Vec<String> = new.failed().map(|r| r.id.clone()).collect();
    let (ot, nt) = (constants_text(&old), constants_text(&new));
    let unified =
        similar::TextDiff::from_lines(&ot, &nt).unified_diff().context_radius(2).header(&escape(&old.input), &escape(&new.input)).to_string();
    let mut exit = 0;
    if !changed.is_empty() {
        exit |= BIT_CHANGED;
    }
    if !new_fails.is_empty() {
        exit |= BIT_NEW_FAILS;
    }
    Diff { old, new, pairs, changed, new_fails, unified, exit }
}
