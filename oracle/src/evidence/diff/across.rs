//! Sides compared per opcode across generations. A new target's programs
//! (a generation the sides do not share, or one guessed from the bundles'
//! fit) are still what a compiler engineer wants held against the last
//! release's: opcode by opcode, whatever generation each was judged under.

use super::summary::{add, Op, Summary, Values};
use crate::evidence::loc;
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::Generation;

/// How the sides' opcodes are keyed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compare {
    /// Per generation × opcode, unless the sides share no generation: then per opcode.
    #[default]
    Auto,
    /// Per generation × opcode always (the sides may then have nothing in common).
    PerGeneration,
    /// Per opcode always, each side's generations folded together.
    Across,
}

/// OLD's and NEW's generations.
pub type Generations = (BTreeSet<Generation>, BTreeSet<Generation>);

/// Each side's generations.
fn gens(s: &Summary) -> BTreeSet<Generation> {
    s.builds.values().flat_map(|b| b.generations.iter().copied()).collect()
}

/// When the sides are compared across generations: both sides' generations,
/// and the one every key is folded to (any will do: it is never shown).
pub(super) fn generations(old: &Summary, new: &Summary, how: Compare) -> Option<(Generations, Generation)> {
    let (o, n) = (gens(old), gens(new));
    let across = match how {
        Compare::Auto => o.is_disjoint(&n) && !o.is_empty() && !n.is_empty(),
        Compare::PerGeneration => false,
        Compare::Across => true,
    };
    let g = o.first().or(n.first()).copied().unwrap_or(Generation::V2);
    across.then_some(((o, n), g))
}

impl Values {
    fn join(&mut self, o: &Values) {
        for (v, l) in &o.first {
            self.note_first(v, l.clone());
        }
        self.add(o.listed.iter().map(|(v, n)| (v.clone(), *n)), o.other);
    }
}

impl Op {
    /// Adds another generation's counts of the same opcode.
    fn join(&mut self, o: &Op) {
        add(&mut self.bundles, o.bundles);
        self.note_first(o.first.clone());
        for (e, n) in &o.engines {
            add(self.engines.entry(e.clone()).or_insert(0), *n);
        }
        loc::merge_in(&mut self.engines_first, o.engines_first.clone());
        for (k, v) in &o.fields {
            self.fields.entry(k.clone()).or_default().join(v);
        }
        for (k, c) in &o.checks {
            self.checks.entry(k.clone()).or_default().add(c);
        }
        for (k, n) in &o.claims {
            add(self.claims.entry(k.clone()).or_insert(0), *n);
        }
        loc::merge_in(&mut self.claims_first, o.claims_first.clone());
    }
}

impl Summary {
    /// The same summary with every generation folded into `g`: opcodes keyed by opcode alone.
    pub fn across(&self, g: Generation) -> Summary {
        let mut ops: BTreeMap<(Generation, u8), Op> = BTreeMap::new();
        for ((_, op), o) in &self.ops {
            ops.entry((g, *op)).or_default().join(o);
        }
        let mut contradictions: BTreeMap<(Generation, u8, String, String), Values> = BTreeMap::new();
        for ((_, op, check, field), v) in &self.contradictions {
            contradictions.entry((g, *op, check.clone(), field.clone())).or_default().join(v);
        }
        Summary { ops, contradictions, ..self.clone() }
    }
}
