//! `tpb evidence --json` read back: the part of it a diff uses. Keys it does
//! not use are ignored (the format may grow); a key it uses that is missing
//! or of the wrong type, an opcode or generation it cannot read, or a group
//! given twice, means the JSON is not evidence, and says why. Locations are
//! optional (evidence written before they were kept has none), but one that
//! names no entry of `locations` is an error.

use super::summary::{add, Check, Summary};
use crate::evidence::loc::{self, LocationsError};
use crate::evidence::Loc;
use crate::text_safe::escape;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::generation::GenerationError;
use tpb_isa::Generation;

/// Why bytes are not evidence JSON a diff can read ([`Summary::from_json`]).
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// Not JSON, or a key the diff uses is missing or of the wrong type.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The `locations` object does not read.
    #[error(transparent)]
    Locations(#[from] LocationsError),
    /// A generation that names none.
    #[error(transparent)]
    Generation(#[from] GenerationError),
    /// An opcode not written as one byte, `0x..`.
    #[error("opcode `{}` is not a byte written as 0x..", escape(value))]
    Opcode {
        /// The opcode as written.
        value: String,
    },
    /// The same group (generation, build, opcode) given twice.
    #[error("group {generation} {} {opcode} given twice", escape(build))]
    GroupTwice {
        /// The group's generation.
        generation: Generation,
        /// The group's compiler build.
        build: String,
        /// The group's opcode as written (already read as `0x..`).
        opcode: String,
    },
    /// A location position past the end of `locations`.
    #[error("location {position} is not in `locations`")]
    NoLocation {
        /// The position.
        position: usize,
    },
    /// A histogram's `first` line lists another number of positions than it counts values.
    #[error("{firsts} first bundles for {values} values counted")]
    Firsts {
        /// Positions on the line.
        firsts: usize,
        /// Values in `counts`.
        values: usize,
    },
    /// A position on a `first` line that is neither a number nor `-`.
    #[error("location `{}` is not a position", escape(value))]
    NotAPosition {
        /// The word as written.
        value: String,
    },
    /// The same erratum listed twice.
    #[error("erratum {} listed twice", escape(id))]
    ErratumTwice {
        /// The erratum id.
        id: String,
    },
}

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

fn generation(s: &str) -> Result<Generation, SummaryError> {
    Ok(s.parse::<Generation>()?)
}

/// `0x46` (as the evidence writes an opcode) → 0x46.
fn opcode(s: &str) -> Result<u8, SummaryError> {
    s.strip_prefix("0x")
        .filter(|h| !h.is_empty() && h.len() <= 2)
        .and_then(|h| u8::from_str_radix(h, 16).ok())
        .ok_or_else(|| SummaryError::Opcode { value: s.to_string() })
}

/// The table's locations, and a reader of positions in it.
struct Locs(Vec<Loc>);

impl Locs {
    fn get(&self, n: Option<usize>) -> Result<Option<Loc>, SummaryError> {
        match n {
            None => Ok(None),
            Some(n) => self.0.get(n).cloned().map(Some).ok_or(SummaryError::NoLocation { position: n }),
        }
    }

    /// Notes in `v` the first bundle of each of `listed` values, read from
    /// `line` (positions in the order of `counts`' values, `-` for none).
    fn note(&self, v: &mut super::Values, listed: &[(String, u64)], counts: &BTreeMap<String, u64>, line: Option<&str>) -> Result<(), SummaryError> {
        let Some(line) = line else { return Ok(()) };
        let at: Vec<&str> = line.split(' ').filter(|x| !x.is_empty()).collect();
        if at.len() != counts.len() {
            return Err(SummaryError::Firsts { firsts: at.len(), values: counts.len() });
        }
        for (value, n) in counts.keys().zip(at) {
            if n == "-" || !listed.iter().any(|(x, _)| x == value) {
                continue;
            }
            let n = n.parse::<usize>().map_err(|_| SummaryError::NotAPosition { value: n.to_string() })?;
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
    pub fn from_json(bytes: &[u8]) -> Result<Summary, SummaryError> {
        let j: EvidenceJson = serde_json::from_slice(bytes)?;
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
                return Err(SummaryError::GroupTwice { generation: key.0, build: g.build, opcode: g.opcode });
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
                return Err(SummaryError::ErratumTwice { id: e.id });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_given_twice_is_named_with_its_build_escaped() {
        let e = SummaryError::GroupTwice { generation: Generation::V2, build: "1.0\n".into(), opcode: "0x46".into() };
        assert_eq!(e.to_string(), "group v2 1.0\\n 0x46 given twice");
    }
}
