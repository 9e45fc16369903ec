//! The bundles a campaign feeds the worker, each with where it came from:
//! the generator's valid bundles of every opcode of every generation, its
//! single-fault mutants (of generated and of real bundles), and the bundles
//! of real programs. Every input is a pure function of the seed and its
//! index, so a run can be repeated and a crash replayed.

use crate::reference;
use arbitrary::Unstructured;
use serde::Serialize;
use tpb_isa::{Bundle, Generation};

/// Where an input came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A valid bundle from the generator.
    Generated,
    /// A single-fault mutant of a generated or real bundle.
    Mutated,
    /// A bundle of a real program.
    Real,
    /// An input from libFuzzer or a repro file.
    Given,
}

impl Source {
    pub const fn as_str(self) -> &'static str {
        match self {
            Source::Generated => "generated",
            Source::Mutated => "mutated",
            Source::Real => "real",
            Source::Given => "given",
        }
    }
}

/// One input: a bundle and the generation it is judged under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub source: Source,
    pub generation: Generation,
    pub raw: tpb_isa::Raw,
    /// Where it is from, for the report: a program's file and member, or the seed and index.
    pub origin: String,
}

/// Every (generation, opcode) the generator makes: the order generated inputs cycle through.
pub fn opcode_cycle() -> Vec<(Generation, u8)> {
    Generation::ALL.iter().flat_map(|g| tpb_isa::smith::candidate_opcodes(*g).map(move |o| (*g, o.byte))).collect()
}

/// The `i`-th generated input of a run seeded with `seed`.
pub fn generated(cycle: &[(Generation, u8)], seed: u64, i: u64) -> Option<Input> {
    let &(g, op) = cycle.get((i % cycle.len().max(1) as u64) as usize)?;
    Some(Input {
        source: Source::Generated,
        generation: g,
        raw: reference::generated(g, op, seed.wrapping_add(i)),
        origin: format!("seed {seed} #{i}"),
    })
}

/// A single-fault mutant of `base`, drawn with the `i`-th mutation seed;
/// `None` when no mutation applies (an opaque body).
pub fn mutated(base: &Input, seed: u64, i: u64) -> Option<Input> {
    let bytes = tpb_isa::props::seeded_bytes(seed.rotate_left(17) ^ i, 256);
    let mut u = Unstructured::new(&bytes);
    let m = tpb_isa::smith::mutate(&mut u, &Bundle::decode(&base.raw), base.generation).ok()??;
    Some(Input {
        source: Source::Mutated,
        generation: base.generation,
        raw: m.bundle.encode(),
        origin: format!("{} with {} broken ({})", base.origin, m.expect.code, m.what),
    })
}

/// Real bundles, each distinct (generation, bytes) once, in first-seen order.
#[derive(Default)]
pub struct Real {
    pub inputs: Vec<Input>,
    seen: std::collections::HashSet<(Generation, tpb_isa::Raw)>,
    /// Every bundle offered, duplicates included.
    pub offered: u64,
}

impl Real {
    /// Adds the bundles of one stream (`bytes`, whole 64-byte bundles), named `origin`.
    pub fn add_stream(&mut self, g: Generation, bytes: &[u8], origin: &str) {
        for (i, chunk) in bytes.chunks_exact(64).enumerate() {
            self.offered += 1;
            let Ok(raw) = <tpb_isa::Raw>::try_from(chunk) else { continue };
            if self.seen.insert((g, raw)) {
                self.inputs.push(Input { source: Source::Real, generation: g, raw, origin: format!("{origin} [{i}]") });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_inputs_cycle_through_every_opcode_of_every_generation() {
        let cycle = opcode_cycle();
        assert!(cycle.len() > 100, "{}", cycle.len());
        for g in Generation::ALL {
            assert!(cycle.iter().any(|(h, _)| *h == g));
        }
        let a = generated(&cycle, 9, 5).unwrap();
        assert_eq!(a, generated(&cycle, 9, 5).unwrap());
        assert_eq!((a.generation, a.raw[0]), cycle[5]);
    }

    #[test]
    fn mutants_break_one_check_and_are_pinned_to_their_seed() {
        let cycle = opcode_cycle();
        let typed = (0..cycle.len() as u64)
            .filter_map(|i| generated(&cycle, 1, i))
            .find(|b| tpb_isa::opcode::body_kind(b.raw[0]) != tpb_isa::BodyKind::Opaque)
            .unwrap();
        let m = mutated(&typed, 3, 0).expect("a typed body has a mutation");
        assert_eq!(m, mutated(&typed, 3, 0).unwrap());
        assert!(!reference::errors(&Bundle::decode(&m.raw), m.generation, tpb_isa::Profile::Spec).is_empty(), "{}", m.origin);
    }

    #[test]
    fn real_bundles_are_taken_once_per_generation() {
        let mut r = Real::default();
        let b = reference::header_only(0x46);
        let stream: Vec<u8> = [b, b, reference::header_only(0x47)].concat();
        r.add_stream(Generation::V2, &stream, "p.neff:sg00/PE.bin");
        r.add_stream(Generation::V3, &stream[..64], "q.neff:sg00/PE.bin");
        assert_eq!((r.offered, r.inputs.len()), (4, 3));
        assert_eq!(r.inputs[1].origin, "p.neff:sg00/PE.bin [2]");
    }
}
