//! `tpb evidence --json` read back: the part of it a diff uses. Keys it does
//! not use are ignored (the format may grow); a key it uses that is missing
//! or of the wrong type, an opcode or generation it cannot read, or a group
//! given twice, means the JSON is not evidence, and says why.

use super::summary::{add, Check, Summary};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::Generation;

#[derive(Deserialize)]
struct EvidenceJson {
    inputs: Vec<Input>,
    groups: Vec<Group>,
    errata: Vec<Erratum>,
    contradictions: Vec<Contradiction>,
    totals: Totals,
}

#[derive(Deserialize)]
struct Input {
    file: String,
    build: String,
    generation: String,
    bundles: u64,
}

#[derive(Deserialize)]
struct Group {
    generation: String,
    build: String,
    opcode: String,
    bundles: u64,
    engines: BTreeMap<String, u64>,
    fields: Vec<Field>,
    checks: Vec<CheckJson>,
    claims: Vec<Claim>,
}

#[derive(Deserialize)]
struct Field {
    field: String,
    offset: u64,
    values: Vec<(String, u64)>,
    other: u64,
}

#[derive(Deserialize)]
struct CheckJson {
    code: String,
    agree: u64,
    disagree: u64,
    accepted: BTreeMap<String, u64>,
    refused: u64,
}

#[derive(Deserialize)]
struct Claim {
    field: String,
    broken: u64,
}

#[derive(Deserialize)]
struct Erratum {
    id: String,
    /// Build → support.
    evidence: BTreeMap<String, Support>,
}

#[derive(Deserialize)]
struct Support {
    bundles: u64,
}

#[derive(Deserialize)]
struct Contradiction {
    generation: String,
    opcode: String,
    check: String,
    field: String,
    values: Vec<(String, u64)>,
    other: u64,
}

#[derive(Deserialize)]
struct Totals {
    bundles: u64,
}

fn generation(s: &str) -> Result<Generation, String> {
    s.parse()
}

/// `0x46` (as the evidence writes an opcode) → 0x46.
fn opcode(s: &str) -> Result<u8, String> {
    s.strip_prefix("0x")
        .filter(|h| !h.is_empty() && h.len() <= 2)
        .and_then(|h| u8::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("opcode `{}` is not a byte written as 0x..", crate::text_safe::escape(s)))
}

impl Summary {
    /// The summary of evidence JSON (what `tpb evidence --json` writes);
    /// `Err` says what makes it not evidence.
    pub fn from_json(bytes: &[u8]) -> Result<Summary, String> {
        let j: EvidenceJson = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let mut s = Summary { bundles: j.totals.bundles, ..Summary::default() };
        for i in &j.inputs {
            s.input(&i.file, &i.build, generation(&i.generation)?, i.bundles);
        }
        let mut seen = BTreeSet::new();
        for g in j.groups {
            let key = (generation(&g.generation)?, opcode(&g.opcode)?);
            if !seen.insert((key, g.build.clone())) {
                return Err(format!("group {} {} {} given twice", key.0, crate::text_safe::escape(&g.build), g.opcode));
            }
            let o = s.ops.entry(key).or_default();
            add(&mut o.bundles, g.bundles);
            for (e, n) in g.engines {
                add(o.engines.entry(e).or_insert(0), n);
            }
            for f in g.fields {
                o.fields.entry((f.offset, f.field)).or_default().add(f.values, f.other);
            }
            for c in g.checks {
                let add = Check { agree: c.agree, disagree: c.disagree, accepted: c.accepted, refused: c.refused };
                o.checks.entry(c.code).or_default().add(&add);
            }
            for c in g.claims {
                add(o.claims.entry(c.field).or_insert(0), c.broken);
            }
        }
        for e in j.errata {
            let bundles = e.evidence.values().fold(0u64, |a, s| a.saturating_add(s.bundles));
            if s.errata.insert(e.id.clone(), bundles).is_some() {
                return Err(format!("erratum {} listed twice", crate::text_safe::escape(&e.id)));
            }
        }
        for c in j.contradictions {
            let key = (generation(&c.generation)?, opcode(&c.opcode)?, c.check, c.field);
            s.contradictions.entry(key).or_default().add(c.values, c.other);
        }
        Ok(s)
    }
}
