//! `tpb evidence --json` read back: the part of it a diff uses. Keys it does
//! not use are ignored (the format may grow); a key it uses that is missing
//! or of the wrong type, an opcode or generation it cannot read, or a group
//! given twice, means the JSON is not evidence, and says why. Locations are
//! optional (evidence written before they were kept has none), but one that
//! names no entry of `locations` is an error.

use super::summary::{add, Check, Summary};
use crate::evidence::{loc, Loc};
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
    #[serde(default)]
    locations: Option<serde_json::Value>,
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
    #[serde(default)]
    first: Option<usize>,
    engines: BTreeMap<String, u64>,
    #[serde(default)]
    engines_first: BTreeMap<String, usize>,
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
    #[serde(default)]
    counts: BTreeMap<String, u64>,
    #[serde(default)]
    first: Option<String>,
}

#[derive(Deserialize)]
struct CheckJson {
    code: String,
    agree: u64,
    disagree: u64,
    accepted: BTreeMap<String, u64>,
    refused: u64,
    #[serde(default)]
    first_disagree: Option<usize>,
    #[serde(default)]
    first_refused: Option<usize>,
}

#[derive(Deserialize)]
struct Claim {
    field: String,
    broken: u64,
    #[serde(default)]
    first_broken: Option<usize>,
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
    #[serde(default)]
    first: Option<usize>,
}

#[derive(Deserialize)]
struct Contradiction {
    generation: String,
    opcode: String,
    check: String,
    field: String,
    values: Vec<(String, u64)>,
    other: u64,
    #[serde(default)]
    counts: Option<BTreeMap<String, u64>>,
    #[serde(default)]
    first: Option<String>,
}

#[derive(Deserialize)]
struct Totals {
    bundles: u64,
}

fn generation(s: &str) -> Result<Generation, String> {
    s.parse::<Generation>().map_err(|e| e.to_string())
}

/// `0x46` (as the evidence writes an opcode) → 0x46.
fn opcode(s: &str) -> Result<u8, String> {
    s.strip_prefix("0x")
        .filter(|h| !h.is_empty() && h.len() <= 2)
        .and_then(|h| u8::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("opcode `{}` is not a byte written as 0x..", crate::text_safe::escape(s)))
}

/// The table's locations, and a reader of positions in it.
struct Locs(Vec<Loc>);

impl Locs {
    fn get(&self, n: Option<usize>) -> Result<Option<Loc>, String> {
        match n {
            None => Ok(None),
            Some(n) => self.0.get(n).cloned().map(Some).ok_or_else(|| format!("location {n} is not in `locations`")),
        }
    }

    /// Notes in `v` the first bundle of each of `listed` values, read from
    /// `line` (positions in the order of `counts`' values, `-` for none).
    fn note(&self, v: &mut super::Values, listed: &[(String, u64)], counts: &BTreeMap<String, u64>, line: Option<&str>) -> Result<(), String> {
        let Some(line) = line else { return Ok(()) };
        let at: Vec<&str> = line.split(' ').filter(|x| !x.is_empty()).collect();
        if at.len() != counts.len() {
            return Err(format!("{} first bundles for {} values counted", at.len(), counts.len()));
        }
        for (value, n) in counts.keys().zip(at) {
            if n == "-" || !listed.iter().any(|(x, _)| x == value) {
                continue;
            }
            let n = n.parse::<usize>().map_err(|_| format!("location `{}` is not a position", crate::text_safe::escape(n)))?;
            if let Some(l) = self.get(Some(n))? {
                v.note_first(value, l);
            }
        }
        Ok(())
    }
}

impl Summary {
    /// The summary of evidence JSON (what `tpb evidence --json` writes);
    /// `Err` says what makes it not evidence.
    pub fn from_json(bytes: &[u8]) -> Result<Summary, String> {
        let j: EvidenceJson = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let mut s = Summary { bundles: j.totals.bundles, ..Summary::default() };
        let locs = Locs(match &j.locations {
            Some(t) => crate::evidence::loc::Table::read(t)?,
            None => Vec::new(),
        });
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
            o.note_first(locs.get(g.first)?);
            for (e, n) in g.engines {
                add(o.engines.entry(e).or_insert(0), n);
            }
            for (e, n) in g.engines_first {
                if let Some(l) = locs.get(Some(n))? {
                    loc::merge_in(&mut o.engines_first, BTreeMap::from([(e, l)]));
                }
            }
            for f in g.fields {
                let v = o.fields.entry((f.offset, f.field)).or_default();
                // Only the listed values' locations: the others are compared by count alone.
                locs.note(v, &f.values, &f.counts, f.first.as_deref())?;
                v.add(f.values, f.other);
            }
            for c in g.checks {
                let add = Check {
                    agree: c.agree,
                    disagree: c.disagree,
                    accepted: c.accepted,
                    refused: c.refused,
                    first_disagree: locs.get(c.first_disagree)?,
                    first_refused: locs.get(c.first_refused)?,
                };
                o.checks.entry(c.code).or_default().add(&add);
            }
            for c in g.claims {
                if let Some(l) = locs.get(c.first_broken)? {
                    loc::merge_in(&mut o.claims_first, BTreeMap::from([(c.field.clone(), l)]));
                }
                add(o.claims.entry(c.field).or_insert(0), c.broken);
            }
        }
        for e in j.errata {
            let bundles = e.evidence.values().fold(0u64, |a, s| a.saturating_add(s.bundles));
            for support in e.evidence.values() {
                if let Some(l) = locs.get(support.first)? {
                    loc::merge_in(&mut s.errata_first, BTreeMap::from([(e.id.clone(), l)]));
                }
            }
            if s.errata.insert(e.id.clone(), bundles).is_some() {
                return Err(format!("erratum {} listed twice", crate::text_safe::escape(&e.id)));
            }
        }
        for c in j.contradictions {
            let key = (generation(&c.generation)?, opcode(&c.opcode)?, c.check, c.field);
            let v = s.contradictions.entry(key).or_default();
            locs.note(v, &c.values, &c.counts.unwrap_or_default(), c.first.as_deref())?;
            v.add(c.values, c.other);
        }
        Ok(s)
    }
}
