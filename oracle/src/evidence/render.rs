//! The evidence as JSON (to commit and diff) and as text (to read). Both are
//! deterministic: every map is sorted, names are as the caller gave them.

use super::loc::Table;
use super::{hex, Evidence, Group, Hist, Loc};
use crate::text_safe::escape;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use tpb_isa::opcode;

/// `0xaa ×79491, 0x7a ×23453, other ×3`.
pub(super) fn values_text(values: &[(String, u64)], other: u64) -> String {
    let mut v: Vec<String> = values.iter().map(|(x, c)| format!("{x} ×{c}")).collect();
    if other > 0 {
        v.push(format!("other ×{other}"));
    }
    v.join(", ")
}

fn hist_json(h: &Hist) -> (Value, u64) {
    let (top, other) = h.top();
    (top.into_iter().map(|(v, c)| json!([v, c])).collect(), other)
}

/// Every tracked value with its count, by value: what merging needs (the top alone does not merge).
fn counts_json(h: &Hist) -> Value {
    Value::Object(h.tracked().map(|(v, c)| (hex(&v), json!(c))).collect())
}

/// Each tracked value's first location, as positions in the table in the order of `counts` (sorted by value).
fn firsts_json(h: &Hist, t: &Table) -> Value {
    let mut v: Vec<(String, Option<&Loc>)> = h.tracked_at().map(|(v, _, l)| (hex(&v), l)).collect();
    // Usually sorted already (one width, by number): then the sort is one pass.
    v.sort_by(|a, b| a.0.cmp(&b.0));
    json!(t.line(v.into_iter().map(|(_, l)| l)))
}

/// A JSON object of `pairs`, each value moved in (`json!` would serialize,
/// so copy, every nested value once per level of nesting).
fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Inserts `key`: the location's position, when there is one.
fn put(m: &mut Value, key: &str, l: Option<&Loc>, t: &Table) {
    if let (Some(l), Some(m)) = (l, m.as_object_mut()) {
        m.insert(key.into(), json!(t.at(l)));
    }
}

fn group_json(g: tpb_isa::Generation, build: &str, op: u8, s: &Group, t: &Table) -> Value {
    let fields: Vec<Value> = s
        .fields
        .iter()
        .map(|(f, h)| {
            let (values, other) = hist_json(h);
            object([
                ("field", json!(f.path)),
                ("offset", json!(f.offset)),
                ("values", values),
                ("other", json!(other)),
                ("distinct", json!(h.distinct())),
                ("distinct_capped", json!(h.capped())),
                ("counts", counts_json(h)),
                ("first", firsts_json(h, t)),
            ])
        })
        .collect();
    let checks: Vec<Value> = s
        .checks
        .iter()
        .map(|(code, c)| {
            let mut v = json!({"code": code, "agree": c.agree, "disagree": c.disagree, "accepted": c.accepted, "refused": c.refused});
            put(&mut v, "first_disagree", c.first_disagree.as_ref(), t);
            put(&mut v, "first_refused", c.first_refused.as_ref(), t);
            v
        })
        .collect();
    let claims: Vec<Value> = s
        .claims
        .iter()
        .map(|(field, claim, broken, first)| {
            let mut v = json!({"field": field, "claim": claim.describe(), "broken": broken});
            put(&mut v, "first_broken", first.as_ref(), t);
            v
        })
        .collect();
    let engines_first: Map<String, Value> = s.engines_first.iter().map(|(e, l)| (e.clone(), json!(t.at(l)))).collect();
    let mut v = object([
        ("generation", json!(g)),
        ("build", json!(build)),
        ("opcode", json!(format!("{op:#04x}"))),
        ("name", json!(opcode::name(op))),
        ("bundles", json!(s.bundles)),
        ("engines", json!(s.engines)),
        ("engines_first", Value::Object(engines_first)),
        ("fields", Value::Array(fields)),
        ("checks", Value::Array(checks)),
        ("claims", Value::Array(claims)),
    ]);
    put(&mut v, "first", s.first.as_ref(), t);
    v
}

impl Evidence {
    /// Every location the evidence keeps (for its table).
    fn locations(&self) -> Vec<&Loc> {
        let mut out: Vec<&Loc> = Vec::new();
        for g in self.groups.values().flat_map(|ops| ops.values()) {
            out.extend(g.first.iter().chain(g.engines_first.values()));
            for (_, h) in &g.fields {
                out.extend(h.tracked_at().filter_map(|(_, _, l)| l));
            }
            for c in g.checks.values() {
                out.extend(c.first_disagree.iter().chain(c.first_refused.iter()));
            }
            out.extend(g.claims.iter().filter_map(|c| c.3.as_ref()));
            for h in g.refused.values() {
                out.extend(h.tracked_at().filter_map(|(_, _, l)| l));
            }
        }
        out.extend(self.support.values().flat_map(|b| b.values()).filter_map(|s| s.first.as_ref()));
        out
    }
}

impl Evidence {
    /// The evidence as one JSON object: `inputs`, `groups`, `errata`, `contradictions`, `totals`.
    pub fn to_json(&self) -> Value {
        let table = Table::of(self.locations());
        let t = &table;
        let inputs: Vec<Value> = self
            .inputs
            .iter()
            .map(|((file, build, g), n)| {
                let (target, from) = self.sources.get(file).map_or((None, None), |(t, f)| (t.as_deref(), Some(*f)));
                json!({"file": file, "build": build, "target": target, "generation": g, "generation_from": from, "bundles": n})
            })
            .collect();
        let groups: Vec<Value> =
            self.groups.iter().flat_map(|((g, build), ops)| ops.iter().map(move |(op, s)| group_json(*g, build, *op, s, t))).collect();
        let errata: Vec<Value> = self
            .errata()
            .iter()
            .map(|ev| {
                let e = ev.erratum;
                let evidence: serde_json::Map<String, Value> = ev
                    .builds
                    .iter()
                    .map(|(b, s)| {
                        let mut v = json!({"files": s.files, "bundles": s.bundles});
                        put(&mut v, "first", s.first.as_ref(), t);
                        (b.clone(), v)
                    })
                    .collect();
                object([
                    ("id", json!(e.id)),
                    ("check", json!(e.amends.check.code)),
                    ("opcodes", json!(e.amends.opcodes)),
                    ("fields", json!(e.amends.fields)),
                    ("generations", json!(e.amends.generations)),
                    ("claim", json!(e.claim)),
                    ("observed", json!(e.observed)),
                    ("resolution", json!(e.resolution)),
                    ("confidence", json!(e.confidence)),
                    ("evidence", Value::Object(evidence)),
                ])
            })
            .collect();
        let contradictions: Vec<Value> = self
            .contradictions()
            .iter()
            .map(|c| {
                let counts = self.refused_values(c).map_or(Value::Null, counts_json);
                let first = self.refused_values(c).map_or(Value::Null, |h| firsts_json(h, t));
                object([
                    ("generation", json!(c.generation)),
                    ("build", json!(c.build)),
                    ("opcode", json!(format!("{:#04x}", c.opcode))),
                    ("name", json!(opcode::name(c.opcode))),
                    ("check", json!(c.check)),
                    ("field", json!(c.field)),
                    ("count", json!(c.count)),
                    ("values", c.values.iter().map(|(v, n)| json!([v, n])).collect()),
                    ("other", json!(c.other)),
                    ("counts", counts),
                    ("first", first),
                ])
            })
            .collect();
        let mut doc = object([
            ("harness", self.harness.to_json()),
            ("inputs", Value::Array(inputs)),
            ("groups", Value::Array(groups)),
            ("errata", Value::Array(errata)),
            ("contradictions", Value::Array(contradictions)),
            ("totals", json!({"bundles": self.bundles, "invalid_spec": self.invalid_spec, "invalid_amended": self.invalid_amended})),
            ("locations", table.to_json()),
        ]);
        if let (Some(s), Some(m)) = (&self.shards, doc.as_object_mut()) {
            m.insert("shards".into(), json!({"count": s.count, "have": s.have}));
        }
        doc
    }

    /// The text's first line: what was counted, and the verdicts under both profiles (`-q` prints it alone).
    pub fn count_line(&self) -> String {
        let files: BTreeSet<&str> = self.inputs.keys().map(|(f, _, _)| f.as_str()).collect();
        format!(
            "tpb evidence: {} bundles from {} files; invalid under the spec alone: {}, amended by the errata: {}",
            self.bundles,
            files.len(),
            self.invalid_spec,
            self.invalid_amended
        )
    }

    /// The evidence as text: inputs, one block per group, errata with their support, contradictions.
    pub fn to_text(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "{}", self.count_line());
        let _ = writeln!(t, "\ninputs:");
        for ((file, build, g), n) in &self.inputs {
            let _ = writeln!(t, "  {} {g} {}: {n} bundles", escape(file), escape(build));
        }
        for ((g, build), ops) in &self.groups {
            for (op, s) in ops {
                let engines: Vec<String> = s.engines.iter().map(|(e, n)| format!("{} ×{n}", escape(e))).collect();
                let on = if engines.is_empty() { String::new() } else { format!(" on {}", engines.join(", ")) };
                let _ = writeln!(t, "\n{g} {} {op:#04x} {}: {} bundles{on}", escape(build), opcode::name(*op), s.bundles);
                for (code, c) in &s.checks {
                    let acc: Vec<String> = c.accepted.iter().map(|(id, n)| format!("{id} ×{n}")).collect();
                    let acc = if acc.is_empty() { String::new() } else { format!(" (accepted: {})", acc.join(", ")) };
                    let _ = writeln!(t, "  check {code}: agree {}, disagree {}{acc}, refused {}", c.agree, c.disagree, c.refused);
                }
                for (field, claim, broken, _) in &s.claims {
                    let _ = writeln!(t, "  claim {field}: {}; broken by {broken}", claim.describe());
                }
                for (f, h) in &s.fields {
                    let (top, other) = h.top();
                    let more = if h.capped() { ">" } else { "" };
                    let _ = writeln!(t, "  field {} +{:#04x}: {} (distinct {more}{})", f.path, f.offset, values_text(&top, other), h.distinct());
                }
            }
        }
        let _ = writeln!(t, "\nerrata:");
        for ev in self.errata() {
            let e = ev.erratum;
            let ops = e.amends.opcodes.opcodes_text();
            let gens: Vec<&str> = e.amends.generations.iter().map(|g| g.as_str()).collect();
            let _ = writeln!(
                t,
                "  {}: {} on {} {} ({}, {})",
                e.id,
                e.amends.check.code,
                ops,
                e.amends.fields.fields_text(),
                gens.join(" "),
                e.confidence.as_str()
            );
            if ev.builds.is_empty() {
                let _ = writeln!(t, "    no supporting bundle in these inputs");
            }
            for (build, s) in &ev.builds {
                let _ = writeln!(t, "    {}: {} bundles in {} files", escape(build), s.bundles, s.files.len());
            }
        }
        let contradictions = self.contradictions();
        if contradictions.is_empty() {
            let _ = writeln!(t, "\ncontradictions: none");
        } else {
            let _ = writeln!(t, "\ncontradictions:");
            for c in contradictions {
                let _ = writeln!(t, "  {c}");
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::values_text;

    #[test]
    fn values_text_counts_the_values_past_the_top_as_other_only_when_there_are_some() {
        let top = [("0xaa".to_string(), 79491), ("0x7a".to_string(), 23453)];
        assert_eq!(values_text(&top, 3), "0xaa ×79491, 0x7a ×23453, other ×3");
        assert_eq!(values_text(&top, 0), "0xaa ×79491, 0x7a ×23453");
        assert_eq!(values_text(&[], 1), "other ×1");
        assert_eq!(values_text(&[], 0), "");
    }
}
