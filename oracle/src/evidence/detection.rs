//! Whether the errata left the validator its teeth: single out-of-spec
//! mutations ([`smith::mutate`]) of clean real bundles, and how many the
//! default profile (the spec amended by the errata) still calls invalid. An
//! erratum drawn too wide would accept the mutations of the rule it amends.

use super::holdout::Labelled;
use arbitrary::Unstructured;
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::errata::Profile;
use tpb_isa::{smith, validate, Bundle, Generation, Raw, Severity, BUNDLE_BYTES};

/// Mutations tried and caught, and the misses by (check broken, erratum that accepted it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// Mutations tried.
    pub mutations: u64,
    /// Mutations on which the check they break still fires, above a note, under the default profile.
    pub caught: u64,
    /// The others, by (check the mutation broke, erratum that accepted it or `none`).
    pub missed: BTreeMap<(&'static str, &'static str), u64>,
}

impl Detection {
    /// Caught as a share of tried (1 when none were tried).
    pub fn rate(&self) -> f64 {
        if self.mutations == 0 {
            1.0
        } else {
            self.caught as f64 / self.mutations as f64
        }
    }
}

/// SplitMix64: the mutation draws come from a seed, so a run is repeatable.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Mutates up to `per_opcode` distinct clean bundles of each generation and
/// opcode, `tries` times each, and judges every mutant by the default profile.
pub fn detection(streams: &[Labelled<'_>], per_opcode: usize, tries: usize, seed: u64) -> Detection {
    // Distinct clean bundles, the first `per_opcode` of each (generation, opcode) in stream order.
    let mut seen: BTreeSet<(Generation, Raw)> = BTreeSet::new();
    let mut taken: BTreeMap<(Generation, u8), usize> = BTreeMap::new();
    let mut picked: Vec<(Generation, Raw)> = Vec::new();
    for s in streams {
        for c in s.bytes.chunks_exact(BUNDLE_BYTES) {
            let Ok(raw) = <Raw>::try_from(c) else { continue };
            let n = taken.entry((s.generation, raw[0])).or_default();
            if *n >= per_opcode || !seen.insert((s.generation, raw)) {
                continue;
            }
            if validate::is_valid(&validate::validate_as(&Bundle::decode(&raw), s.generation, Profile::Amended)) {
                *n += 1;
                picked.push((s.generation, raw));
            }
        }
    }
    let mut state = seed;
    let mut out = Detection::default();
    let mut draw = vec![0u8; 256];
    for (g, raw) in &picked {
        let valid = Bundle::decode(raw);
        for _ in 0..tries {
            draw.chunks_exact_mut(8).for_each(|c| c.copy_from_slice(&splitmix(&mut state).to_le_bytes()));
            let mut u = Unstructured::new(&draw);
            let Ok(Some(m)) = smith::mutate(&mut u, &valid, *g) else { continue };
            let found = validate::validate_as(&m.bundle, *g, Profile::Amended);
            out.mutations += 1;
            // Caught: the check the mutation breaks still speaks above a note.
            if found.iter().any(|f| f.code == m.expect.code && f.severity != Severity::Note) {
                out.caught += 1;
            } else {
                let by = found.iter().find(|f| f.code == m.expect.code).and_then(|f| f.erratum).unwrap_or("none");
                *out.missed.entry((m.expect.code, by)).or_default() += 1;
            }
        }
    }
    out
}
