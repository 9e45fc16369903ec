//! What a diff needs of one side's evidence, aggregated over its compiler
//! builds: OLD and NEW usually hold one build each, so they are compared by
//! generation × opcode, whatever the builds are called.
//!
//! A summary holds only what `tpb evidence --json` writes (each histogram's
//! listed values and its "other" count), so the summary of an [`Evidence`]
//! and the summary of its JSON are equal, and so are their diffs.

use super::super::{hex, loc, Evidence, Hist, Loc};
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::Generation;

/// One side (OLD or NEW) of a diff.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Build → what the side holds of it (for the header).
    pub builds: BTreeMap<String, BuildInputs>,
    /// Whole bundles over every input.
    pub bundles: u64,
    /// (generation, opcode) → what its bundles showed, over every build.
    pub ops: BTreeMap<(Generation, u8), Op>,
    /// Erratum id → bundles it accepted, over every build; every erratum of the
    /// side's table is listed, unsupported ones with 0.
    pub errata: BTreeMap<String, u64>,
    /// Erratum id → the first bundle it accepted.
    pub errata_first: BTreeMap<String, Loc>,
    /// (generation, opcode, check, field) → the values of the findings no erratum accepts.
    pub contradictions: BTreeMap<(Generation, u8, String, String), Values>,
}

/// The inputs of one build.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildInputs {
    /// The generations its streams were judged under.
    pub generations: BTreeSet<Generation>,
    /// Its files, as the evidence names them.
    pub files: BTreeSet<String>,
    /// Its bundles.
    pub bundles: u64,
}

/// Everything seen for one opcode of one generation, over every build.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Op {
    /// Its bundles, over every build.
    pub bundles: u64,
    /// Its first bundle.
    pub first: Option<Loc>,
    /// Engine stem → bundles.
    pub engines: BTreeMap<String, u64>,
    /// Engine stem → its first bundle there.
    pub engines_first: BTreeMap<String, Loc>,
    /// (offset, field) → its values; the offset first, so fields list in bundle order.
    pub fields: BTreeMap<(u64, String), Values>,
    /// Check code → counts.
    pub checks: BTreeMap<String, Check>,
    /// Claimed recovered field → bundles that break its claim.
    pub claims: BTreeMap<String, u64>,
    /// Claimed recovered field → the first bundle that breaks it.
    pub claims_first: BTreeMap<String, Loc>,
}

impl Op {
    pub(super) fn note_first(&mut self, l: Option<Loc>) {
        self.first = loc::min(self.first.take(), l);
    }
}

/// A bounded histogram as the evidence lists it, summed over builds: the
/// values some build listed, and the occurrences of every value no build
/// listed (`other`). Only when `other` is 0 is the list every value seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values {
    /// Value (hex, as the evidence writes it) → occurrences, summed over the builds that listed it.
    pub listed: BTreeMap<String, u64>,
    /// Occurrences of values no build listed.
    pub other: u64,
    /// Listed value → its first bundle (over every build that listed it).
    pub first: BTreeMap<String, Loc>,
}

impl Values {
    /// Adds one build's listed values and its "other" count.
    pub fn add(&mut self, listed: impl IntoIterator<Item = (String, u64)>, other: u64) {
        for (v, n) in listed {
            add(self.listed.entry(v).or_insert(0), n);
        }
        add(&mut self.other, other);
    }

    /// Keeps `l` as the first bundle of `value` if it comes before the one kept.
    pub fn note_first(&mut self, value: &str, l: Loc) {
        loc::merge_in(&mut self.first, BTreeMap::from([(value.to_string(), l)]));
    }

    fn add_hist(&mut self, h: &Hist) {
        let (top, other) = h.top_bytes();
        for (v, _) in &top {
            if let Some(l) = h.first(v) {
                self.note_first(&hex(v), l.clone());
            }
        }
        self.add(top.into_iter().map(|(v, n)| (hex(&v), n)), other);
    }

    /// Every occurrence, listed or not.
    pub fn total(&self) -> u64 {
        self.listed.values().fold(self.other, |a, &n| a.saturating_add(n))
    }

    /// Whether the list holds every value seen (no build's histogram overflowed its list).
    pub fn complete(&self) -> bool {
        self.other == 0
    }
}

/// How one check fared on one opcode's bundles, over every build.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// Bundles it applied to and did not fire on.
    pub agree: u64,
    /// Bundles it fired on under the spec.
    pub disagree: u64,
    /// Erratum id → disagreeing bundles it accepted.
    pub accepted: BTreeMap<String, u64>,
    /// Disagreeing bundles with a finding no erratum accepts.
    pub refused: u64,
    /// The first bundle it disagreed on.
    pub first_disagree: Option<Loc>,
    /// The first bundle it refused.
    pub first_refused: Option<Loc>,
}

impl Check {
    /// Adds another build's counts (the first bundles: the smaller of each).
    pub fn add(&mut self, other: &Check) {
        add(&mut self.agree, other.agree);
        add(&mut self.disagree, other.disagree);
        add(&mut self.refused, other.refused);
        self.first_disagree = loc::min(self.first_disagree.take(), other.first_disagree.clone());
        self.first_refused = loc::min(self.first_refused.take(), other.first_refused.clone());
        for (id, n) in &other.accepted {
            add(self.accepted.entry(id.clone()).or_insert(0), *n);
        }
    }
}

impl Summary {
    /// The summary of evidence gathered here (equal to that of its JSON).
    pub fn of(ev: &Evidence) -> Summary {
        let mut s = Summary { bundles: ev.bundles, ..Summary::default() };
        for ((file, build, g), n) in &ev.inputs {
            s.input(file, build, *g, *n);
        }
        for ((g, _), ops) in &ev.groups {
            for (op, group) in ops {
                let o = s.ops.entry((*g, *op)).or_default();
                o.bundles += group.bundles;
                o.note_first(group.first.clone());
                for (e, n) in &group.engines {
                    *o.engines.entry(e.clone()).or_insert(0) += n;
                }
                loc::merge_in(&mut o.engines_first, group.engines_first.clone());
                for (f, h) in &group.fields {
                    o.fields.entry((f.offset as u64, f.path.clone())).or_default().add_hist(h);
                }
                for (code, c) in &group.checks {
                    let accepted = c.accepted.iter().map(|(id, n)| (id.to_string(), *n)).collect();
                    let c = Check {
                        agree: c.agree,
                        disagree: c.disagree,
                        accepted,
                        refused: c.refused,
                        first_disagree: c.first_disagree.clone(),
                        first_refused: c.first_refused.clone(),
                    };
                    o.checks.entry(code.to_string()).or_default().add(&c);
                }
                for (field, _, broken, first) in &group.claims {
                    *o.claims.entry(field.to_string()).or_insert(0) += broken;
                    if let Some(l) = first {
                        loc::merge_in(&mut o.claims_first, BTreeMap::from([(field.to_string(), l.clone())]));
                    }
                }
            }
        }
        for e in ev.errata() {
            s.errata.insert(e.erratum.id.to_string(), e.bundles());
            if let Some(l) = e.builds.values().filter_map(|b| b.first.clone()).min() {
                s.errata_first.insert(e.erratum.id.to_string(), l);
            }
        }
        for c in ev.contradictions() {
            let v = s.contradictions.entry((c.generation, c.opcode, c.check.to_string(), c.field)).or_default();
            for (value, l) in c.firsts {
                v.note_first(&value, l);
            }
            v.add(c.values, c.other);
        }
        s
    }

    /// Counts one input of `bundles` bundles.
    pub(super) fn input(&mut self, file: &str, build: &str, g: Generation, bundles: u64) {
        let b = self.builds.entry(build.to_string()).or_default();
        b.generations.insert(g);
        b.files.insert(file.to_string());
        add(&mut b.bundles, bundles);
    }

    /// Files over every build (a file holds one build).
    pub fn files(&self) -> usize {
        self.builds.values().flat_map(|b| b.files.iter()).collect::<BTreeSet<_>>().len()
    }
}

/// `a += b`, saturating: counts read from a JSON file may be anything, and a
/// wrong total must not become a panic.
pub(super) fn add(a: &mut u64, b: u64) {
    *a = a.saturating_add(b);
}
