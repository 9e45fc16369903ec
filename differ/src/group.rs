//! Disagreements grouped as the report shows them: by kind, generation,
//! opcode and field path, each group with its count and its first input.

use crate::compare::{Disagreement, Kind};
use crate::inputs::Input;
use crate::minimise::Repro;
use crate::request::Ask;
pub use crate::signature::Signature;
use serde::Serialize;
use std::collections::BTreeMap;

/// One group: how often, and the first input that showed it.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub signature: Signature,
    /// The opcode's name in the table.
    pub name: &'static str,
    pub count: u64,
    /// The request kind that showed it.
    pub ask: Ask,
    #[serde(serialize_with = "input_json")]
    pub first: Input,
    pub disagreement: Disagreement,
    pub repro: Option<Repro>,
}

fn input_json<S: serde::Serializer>(i: &Input, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Input", 4)?;
    st.serialize_field("source", &i.source)?;
    st.serialize_field("generation", &i.generation)?;
    st.serialize_field("bundle", &crate::request::hex(&i.raw))?;
    st.serialize_field("origin", &i.origin)?;
    st.end()
}

/// The groups of one run, bounded: past `cap` groups, new ones are only counted.
#[derive(Debug, Default)]
pub struct Groups {
    pub by_signature: BTreeMap<Signature, Group>,
    /// Disagreements in groups that did not fit under the cap.
    pub overflow: u64,
    cap: usize,
}

impl Groups {
    pub fn new(cap: usize) -> Groups {
        Groups { by_signature: BTreeMap::new(), overflow: 0, cap }
    }

    pub fn add(&mut self, input: &Input, ask: Ask, d: Disagreement) {
        let signature = Signature { kind: d.kind, generation: input.generation, opcode: input.raw[0], field: d.field.clone() };
        if let Some(g) = self.by_signature.get_mut(&signature) {
            g.count += 1;
            return;
        }
        if self.by_signature.len() >= self.cap {
            self.overflow += 1;
            return;
        }
        let name = tpb_isa::opcode::name(input.raw[0]);
        self.by_signature.insert(signature.clone(), Group { signature, name, count: 1, ask, first: input.clone(), disagreement: d, repro: None });
    }

    /// Joins another shard's groups (the first input of the lower shard wins a tie).
    pub fn merge(&mut self, other: Groups) {
        self.overflow += other.overflow;
        for (sig, g) in other.by_signature {
            let room = self.by_signature.len() < self.cap;
            match self.by_signature.get_mut(&sig) {
                Some(mine) => mine.count += g.count,
                None if room => {
                    self.by_signature.insert(sig, g);
                }
                None => self.overflow += g.count,
            }
        }
    }

    /// How many disagreements of each kind, overflow included in none.
    pub fn count(&self, kind: Kind) -> u64 {
        self.by_signature.values().filter(|g| g.signature.kind == kind).map(|g| g.count).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::Source;
    use tpb_isa::Generation;

    fn input(op: u8) -> Input {
        Input { source: Source::Generated, generation: Generation::V2, raw: crate::reference::header_only(op), origin: "t".into() }
    }

    fn d(field: &str) -> Disagreement {
        Disagreement { kind: Kind::Decode, field: field.into(), expected: "1".into(), worker: "2".into() }
    }

    #[test]
    fn the_same_place_is_one_group_and_the_cap_holds() {
        let mut g = Groups::new(2);
        g.add(&input(0x46), Ask::Decode, d("a"));
        g.add(&input(0x46), Ask::Decode, d("a"));
        g.add(&input(0x47), Ask::Decode, d("a"));
        g.add(&input(0x46), Ask::Decode, d("b"));
        assert_eq!(g.by_signature.len(), 2);
        assert_eq!(g.overflow, 1);
        assert_eq!(g.count(Kind::Decode), 3);
        let mut other = Groups::new(2);
        other.add(&input(0x46), Ask::Decode, d("a"));
        other.add(&input(0x48), Ask::Decode, d("a"));
        g.merge(other);
        assert_eq!((g.count(Kind::Decode), g.overflow), (4, 2));
    }
}
