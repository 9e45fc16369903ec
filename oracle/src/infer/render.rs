//! The inference as text (to read) and as JSON (to keep and diff). Both are
//! deterministic: opcodes by byte, fields by offset, values by count then
//! value, maps sorted. Strings from the inputs (file names, builds, ASCII
//! found in bundles) are escaped in text (`crate::text_safe::escape`).

use super::propose::{Field, Part, Summary};
use super::stats::{hex, Values};
use super::{Inference, OpData, Relation, BODY};
use crate::text_safe::escape;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use tpb_isa::opcode;

/// Every proposed field is INFERRED: it comes from values, not from the spec.
pub const CONFIDENCE: &str = "INFERRED";

fn summary_json(s: &Summary) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("values".into(), s.top.iter().map(|(v, c)| json!([v, c])).collect());
    m.insert("other".into(), json!(s.other));
    m.insert("distinct".into(), json!(s.distinct));
    m.insert("distinct_capped".into(), json!(s.capped));
    if !s.min.is_empty() {
        m.insert("min".into(), json!(s.min));
        m.insert("max".into(), json!(s.max));
    }
    m
}

fn part_json(p: &Part) -> Value {
    let mut m = summary_json(&p.values);
    m.insert("name".into(), json!(p.name));
    m.insert("offset".into(), json!(p.offset));
    m.insert("size".into(), json!(p.size));
    Value::Object(m)
}

fn field_json(op: &OpData, f: &Field) -> Value {
    let mut ev = summary_json(&f.values);
    ev.insert("bundles".into(), json!(f.bundles));
    ev.insert("builds".into(), json!(op.builds()));
    ev.insert("generations".into(), json!(op.generations().iter().map(|(g, n)| (g.as_str(), *n)).collect::<std::collections::BTreeMap<_, _>>()));
    if !f.names.is_empty() {
        ev.insert("names".into(), f.names.iter().map(|(v, n)| (v.clone(), json!(n))).collect::<Map<_, _>>().into());
    }
    if !f.parts.is_empty() {
        ev.insert("parts".into(), f.parts.iter().map(part_json).collect());
    }
    if let Some(r) = &f.regions {
        ev.insert(
            "addr4".into(),
            json!({"sbuf": r.sbuf, "psum": r.psum, "register": r.register, "static": r.modes[0], "indirect": r.modes[1], "active": r.modes[2], "sbuf_bit24": r.high_sbuf}),
        );
    }
    if let Some(s) = &f.steps {
        ev.insert("steps_plus_one".into(), json!({"steps": s.plus_one, "pairs": s.pairs}));
    }
    if !f.also.is_empty() {
        ev.insert("also".into(), json!(f.also));
    }
    if let Some(n) = &f.note {
        ev.insert("note".into(), json!(n));
    }
    json!({
        "name": f.name,
        "offset": f.offset,
        "size": f.size,
        "kind": f.kind.as_str(),
        "type": f.ty,
        "confidence": CONFIDENCE,
        "evidence": ev,
    })
}

fn relation_json(r: &Relation) -> Value {
    match *r {
        Relation::Equal { width, a, b } => json!({"relation": "equal", "width": width, "a": a, "b": b}),
        Relation::Function { from, to } => json!({"relation": "function", "width": 1, "from": from, "to": to}),
        Relation::OneToOne { a, b } => json!({"relation": "one_to_one", "width": 1, "a": a, "b": b}),
    }
}

fn stat_json(offset: usize, v: &Values, steps: super::Steps) -> Value {
    let mut m = Map::new();
    let (top, other) = v.top();
    m.insert("values".into(), top.iter().map(|&(x, c)| json!([hex(x, v.width), c])).collect());
    m.insert("other".into(), json!(other));
    m.insert("distinct".into(), json!(v.distinct()));
    m.insert("distinct_capped".into(), json!(v.capped()));
    m.insert("min".into(), json!(hex(v.min(), v.width)));
    m.insert("max".into(), json!(hex(v.max(), v.width)));
    m.insert("offset".into(), json!(offset));
    m.insert("constant".into(), json!(v.constant()));
    m.insert("always_zero".into(), json!(v.always_zero()));
    m.insert("steps_plus_one".into(), json!({"steps": steps.plus_one, "pairs": steps.pairs}));
    Value::Object(m)
}

fn op_json(op: &OpData) -> Value {
    let name = opcode::name(op.opcode);
    if op.bundles == 0 {
        return json!({"opcode": format!("{:#04x}", op.opcode), "name": name, "status": "no bundles", "bundles": 0});
    }
    let groups: Vec<Value> = op.groups.iter().map(|((g, b), gr)| json!({"generation": g.as_str(), "build": b, "bundles": gr.bundles})).collect();
    let proposed = op.propose();
    let fields: Vec<Value> = proposed.iter().map(|f| field_json(op, f)).collect();
    let differences: Vec<Value> = op
        .differences()
        .iter()
        .map(|d| {
            let gs: Vec<Value> = d
                .groups
                .iter()
                .map(|g| json!({"generation": g.generation.as_str(), "build": g.build, "bundles": g.bundles, "values": g.values.iter().map(|&v| hex(u32::from(v), 1)).collect::<Vec<_>>()}))
                .collect();
            json!({"offset": d.offset, "kind": d.kind.as_str(), "groups": gs})
        })
        .collect();
    let per = |w: usize| -> Vec<Value> { BODY.step_by(w).filter_map(|o| op.values(o, w).map(|v| stat_json(o, v, op.steps(o, w)))).collect() };
    json!({
        "opcode": format!("{:#04x}", op.opcode),
        "name": name,
        "status": "ok",
        "bundles": op.bundles,
        "files": op.files.len(),
        "groups": groups,
        "fields": fields,
        "relations": op.relations(&proposed).iter().map(relation_json).collect::<Vec<_>>(),
        "differences": differences,
        "stats": {"bytes": per(1), "halves": per(2), "words": per(4)},
    })
}

/// `0x05 ×27000, 0x00 ×739, other ×3`.
fn values_text(s: &Summary) -> String {
    let mut v: Vec<String> = s.top.iter().map(|(x, c)| format!("{} ×{c}", escape(x))).collect();
    if s.other > 0 {
        v.push(format!("other ×{}", s.other));
    }
    v.join(", ")
}

/// `2 values 0x00..0x05: 0x05 ×27000, 0x00 ×739`.
fn summary_text(s: &Summary) -> String {
    let capped = if s.capped { "≥" } else { "" };
    let range = if s.min.is_empty() || s.min == s.max { String::new() } else { format!(" {}..{}", s.min, s.max) };
    let plural = if s.distinct == 1 { "value" } else { "values" };
    format!("{capped}{} {plural}{range}: {}", s.distinct, values_text(s))
}

fn field_text(out: &mut String, f: &Field) {
    let _ = writeln!(out, "    +{:#04x} {:>2}  {:<14} {:<10} {:<22} {}", f.offset, f.size, f.name, f.kind.as_str(), f.ty, summary_text(&f.values));
    for p in &f.parts {
        let _ = writeln!(out, "             {:<10} +{:#04x}: {}", p.name, p.offset, summary_text(&p.values));
    }
    if !f.names.is_empty() {
        let names: Vec<String> = f.names.iter().map(|(v, n)| format!("{v}={n}")).collect();
        let _ = writeln!(out, "             reads as: {}", names.join(", "));
    }
    if let Some(r) = &f.regions {
        let _ = writeln!(
            out,
            "             addr4: sbuf {} (bit 24 set {}), psum {}, register {}; modes static {}, indirect {}, active {}",
            r.sbuf, r.high_sbuf, r.psum, r.register, r.modes[0], r.modes[1], r.modes[2]
        );
    }
    if let Some(s) = &f.steps {
        let _ = writeln!(out, "             +1 from the previous bundle of the stream: {} of {}", s.plus_one, s.pairs);
    }
    for a in &f.also {
        let _ = writeln!(out, "             also: {a}");
    }
    if let Some(n) = &f.note {
        let _ = writeln!(out, "             note: {n}");
    }
}

fn relation_text(r: &Relation) -> String {
    let w = |n: usize| match n {
        1 => "byte",
        2 => "u16",
        _ => "u32",
    };
    match *r {
        Relation::Equal { width, a, b } => format!("{} +{a:#04x} == {} +{b:#04x}", w(width), w(width)),
        Relation::Function { from, to } => format!("byte +{to:#04x} is a function of byte +{from:#04x}"),
        Relation::OneToOne { a, b } => format!("byte +{a:#04x} and byte +{b:#04x} decide each other (one-to-one, not equal)"),
    }
}

fn byte_set_text(values: &[u8]) -> String {
    const SHOWN: usize = 8;
    let mut s: Vec<String> = values.iter().take(SHOWN).map(|&v| hex(u32::from(v), 1)).collect();
    if values.len() > SHOWN {
        s.push(format!("… ({} values)", values.len()));
    }
    s.join(" ")
}

fn stat_text(out: &mut String, label: &str, o: usize, v: &Values) {
    let what = if v.always_zero() {
        "always zero".to_string()
    } else if v.constant() {
        format!("constant {}", hex(v.min(), v.width))
    } else {
        let (top, other) = v.top();
        let s = Summary {
            top: top.iter().map(|&(x, c)| (hex(x, v.width), c)).collect(),
            other,
            distinct: v.distinct(),
            capped: v.capped(),
            min: hex(v.min(), v.width),
            max: hex(v.max(), v.width),
        };
        summary_text(&s)
    };
    let _ = writeln!(out, "    {label} +{o:#04x}: {what}");
}

fn op_text(out: &mut String, op: &OpData) {
    let name = opcode::name(op.opcode);
    if op.bundles == 0 {
        let _ = writeln!(out, "{:#04x} {name}: no bundles\n", op.opcode);
        return;
    }
    let _ = writeln!(out, "{:#04x} {name}: {} bundles in {} files", op.opcode, op.bundles, op.files.len());
    for ((g, b), gr) in &op.groups {
        let _ = writeln!(out, "  {g} {}: {} bundles", escape(b), gr.bundles);
    }
    let _ = writeln!(out, "  proposed layout ({CONFIDENCE}; every field holds on all {} bundles):", op.bundles);
    let proposed = op.propose();
    for f in &proposed {
        field_text(out, f);
    }
    let relations = op.relations(&proposed);
    if !relations.is_empty() {
        let _ = writeln!(out, "  relations (hold on every bundle; constants left out):");
        for r in &relations {
            let _ = writeln!(out, "    {}", relation_text(r));
        }
    }
    let diffs = op.differences();
    if !diffs.is_empty() {
        let _ = writeln!(out, "  differences between generations and builds (disjoint: values never meet; zero_in_some: always zero in some):");
        for d in &diffs {
            let gs: Vec<String> = d.groups.iter().map(|g| format!("{} {}: {}", g.generation, escape(&g.build), byte_set_text(&g.values))).collect();
            let _ = writeln!(out, "    +{:#04x} {}: {}", d.offset, d.kind.as_str(), gs.join("; "));
        }
    }
    let _ = writeln!(out, "  statistics:");
    for (w, label) in [(1, "byte"), (2, "u16 "), (4, "u32 ")] {
        for o in BODY.step_by(w) {
            if let Some(v) = op.values(o, w) {
                stat_text(out, label, o, v);
            }
        }
    }
    out.push('\n');
}

impl Inference {
    /// The inference as one JSON object: `files`, `bundles_read`, `opcodes`.
    pub fn to_json(&self) -> Value {
        json!({
            "files": self.files.len(),
            "bundles_read": self.bundles_read,
            "opcodes": self.opcodes().map(op_json).collect::<Vec<_>>(),
        })
    }

    /// The inference as text: per opcode, the proposed layout, relations, differences and statistics.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "tpb infer: {} bundles read from {} files\n", self.bundles_read, self.files.len());
        for op in self.opcodes() {
            op_text(&mut out, op);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{byte_set_text, relation_text, summary_text, values_text, Relation, Summary};

    #[test]
    fn each_relation_reads_as_a_sentence() {
        assert_eq!(relation_text(&Relation::Equal { width: 1, a: 0x11, b: 0x14 }), "byte +0x11 == byte +0x14");
        assert_eq!(relation_text(&Relation::Equal { width: 2, a: 0x10, b: 0x20 }), "u16 +0x10 == u16 +0x20");
        assert_eq!(relation_text(&Relation::Equal { width: 4, a: 0x10, b: 0x30 }), "u32 +0x10 == u32 +0x30");
        assert_eq!(relation_text(&Relation::Function { from: 0x08, to: 0x0c }), "byte +0x0c is a function of byte +0x08");
        assert_eq!(relation_text(&Relation::OneToOne { a: 0x08, b: 0x09 }), "byte +0x08 and byte +0x09 decide each other (one-to-one, not equal)");
    }

    #[test]
    fn a_byte_set_shows_its_first_eight_values_then_how_many() {
        assert_eq!(byte_set_text(&[0x01, 0xA0]), "0x01 0xa0");
        let ten: Vec<u8> = (0..10).collect();
        assert_eq!(byte_set_text(&ten), "0x00 0x01 0x02 0x03 0x04 0x05 0x06 0x07 … (10 values)");
        assert_eq!(byte_set_text(&ten[..8]), "0x00 0x01 0x02 0x03 0x04 0x05 0x06 0x07");
    }

    #[test]
    fn values_past_the_top_are_said_as_other_only_when_there_are_some() {
        let mut s = Summary {
            top: vec![("0x05".into(), 27000), ("0x00".into(), 739)],
            other: 3,
            distinct: 5,
            capped: false,
            min: "0x00".into(),
            max: "0x09".into(),
        };
        assert_eq!(values_text(&s), "0x05 ×27000, 0x00 ×739, other ×3");
        (s.other, s.distinct, s.max) = (0, 2, "0x05".into());
        assert_eq!(summary_text(&s), "2 values 0x00..0x05: 0x05 ×27000, 0x00 ×739");
    }
}
