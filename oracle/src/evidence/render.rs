//! The evidence as JSON (to commit and diff) and as text (to read). Both are
//! deterministic: every map is sorted, names are as the caller gave them.

use super::{hex, Evidence, Group, Hist};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use tpb_isa::opcode;

/// A string read from an input, made safe for a text line: control
/// characters (a newline could forge a line of output) are escaped.
pub fn escape(s: &str) -> String {
    s.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect()
}

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

fn group_json(g: tpb_isa::Generation, build: &str, op: u8, s: &Group) -> Value {
    let fields: Vec<Value> = s
        .fields
        .iter()
        .map(|(f, h)| {
            let (values, other) = hist_json(h);
            json!({"field": f.path, "offset": f.offset, "values": values, "other": other, "distinct": h.distinct(), "distinct_capped": h.capped(), "counts": counts_json(h)})
        })
        .collect();
    let checks: Vec<Value> = s
        .checks
        .iter()
        .map(|(code, c)| json!({"code": code, "agree": c.agree, "disagree": c.disagree, "accepted": c.accepted, "refused": c.refused}))
        .collect();
    let claims: Vec<Value> =
        s.claims.iter().map(|(field, claim, broken)| json!({"field": field, "claim": claim.describe(), "broken": broken})).collect();
    json!({
        "generation": g,
        "build": build,
        "opcode": format!("{op:#04x}"),
        "name": opcode::name(op),
        "bundles": s.bundles,
        "engines": s.engines,
        "fields": fields,
        "checks": checks,
        "claims": claims,
    })
}

impl Evidence {
    /// The evidence as one JSON object: `inputs`, `groups`, `errata`, `contradictions`, `totals`.
    pub fn to_json(&self) -> Value {
        let inputs: Vec<Value> = self
            .inputs
            .iter()
            .map(|((file, build, g), n)| {
                let (target, from) = self.sources.get(file).map_or((None, None), |(t, f)| (t.as_deref(), Some(*f)));
                json!({"file": file, "build": build, "target": target, "generation": g, "generation_from": from, "bundles": n})
            })
            .collect();
        let groups: Vec<Value> =
            self.groups.iter().flat_map(|((g, build), ops)| ops.iter().map(move |(op, s)| group_json(*g, build, *op, s))).collect();
        let errata: Vec<Value> = self
            .errata()
            .iter()
            .map(|ev| {
                let e = ev.erratum;
                let evidence: serde_json::Map<String, Value> =
                    ev.builds.iter().map(|(b, s)| (b.clone(), json!({"files": s.files, "bundles": s.bundles}))).collect();
                json!({
                    "id": e.id,
                    "check": e.amends.check.code,
                    "opcodes": e.amends.opcodes,
                    "fields": e.amends.fields,
                    "generations": e.amends.generations,
                    "claim": e.claim,
                    "observed": e.observed,
                    "resolution": e.resolution,
                    "confidence": e.confidence,
                    "evidence": evidence,
                })
            })
            .collect();
        let contradictions: Vec<Value> = self
            .contradictions()
            .iter()
            .map(|c| {
                let counts = self.refused_values(c).map_or(Value::Null, counts_json);
                json!({
                    "generation": c.generation,
                    "build": c.build,
                    "opcode": format!("{:#04x}", c.opcode),
                    "name": opcode::name(c.opcode),
                    "check": c.check,
                    "field": c.field,
                    "count": c.count,
                    "values": c.values.iter().map(|(v, n)| json!([v, n])).collect::<Vec<_>>(),
                    "other": c.other,
                    "counts": counts,
                })
            })
            .collect();
        let mut doc = json!({
            "harness": self.harness.to_json(),
            "inputs": inputs,
            "groups": groups,
            "errata": errata,
            "contradictions": contradictions,
            "totals": {"bundles": self.bundles, "invalid_spec": self.invalid_spec, "invalid_amended": self.invalid_amended},
        });
        if let (Some(s), Some(m)) = (&self.shards, doc.as_object_mut()) {
            m.insert("shards".into(), json!({"count": s.count, "have": s.have}));
        }
        doc
    }

    /// The evidence as text: inputs, one block per group, errata with their support, contradictions.
    pub fn to_text(&self) -> String {
        let mut t = String::new();
        let files: BTreeSet<&str> = self.inputs.keys().map(|(f, _, _)| f.as_str()).collect();
        let _ = writeln!(
            t,
            "tpb evidence: {} bundles from {} files; invalid under the spec alone: {}, amended by the errata: {}",
            self.bundles,
            files.len(),
            self.invalid_spec,
            self.invalid_amended
        );
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
                for (field, claim, broken) in &s.claims {
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
