//! The seed corpus, regenerated deterministically from the hand files and the
//! generator (`tpb corpus`): for each fuzz target, small inputs that reach
//! every typed family on every generation. `cargo test` checks that the
//! checked-in `corpus/` equals what this produces for the default seed.

use super::hand;
use super::{elf_seed, neff_seed, real_seed};
use crate::error::{Context as _, Error, Result};
use arbitrary::Unstructured;
use std::collections::BTreeMap;
use std::path::PathBuf;
use tpb_isa::bundle::BodyKind;
use tpb_isa::opcode::{OpcodeInfo, OPCODES};
use tpb_isa::props::{self, seeded_bytes};
use tpb_isa::{smith, Generation};

/// The seed the checked-in corpus was generated with.
pub const DEFAULT_SEED: u64 = 0x7462_7073_6565_6473;
/// Generated bundles per family × generation in the checked-in corpus.
pub const DEFAULT_COUNT: usize = 2;
/// Bytes behind one generator input.
const GEN_INPUT: usize = 512;
/// Upper bound on candidate inputs when searching for family coverage.
const SEARCH_LIMIT: u64 = 200_000;

/// One seed file: `corpus/<target>/<name>`.
pub struct SeedFile {
    pub target: &'static str,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// `matmul_mx` for `BodyKind::MatmulMx`.
pub fn family_name(k: BodyKind) -> String {
    let mut s = String::new();
    for (i, c) in format!("{k:?}").chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(c.to_ascii_lowercase());
    }
    s
}

fn ops(k: BodyKind, g: Generation) -> Vec<&'static OpcodeInfo> {
    OPCODES.iter().filter(|o| o.body == k && o.available(g)).collect()
}

/// The whole seed corpus for `seed`, `count` generated inputs per family ×
/// generation, plus one real bundle per generation × opcode of `neffs`.
pub fn generate(count: usize, seed: u64, neffs: &[PathBuf]) -> Result<Vec<SeedFile>> {
    let mut streams: Vec<(String, Vec<u8>)> = Vec::new();
    // Hand bundles, grouped by generation and family.
    let mut by_group: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for b in hand::all()? {
        by_group.entry(format!("hand-{}-{}.bin", b.generation, family_name(b.kind()))).or_default().extend_from_slice(&b.raw);
    }
    streams.extend(by_group);
    streams.extend(real_seed::seeds(neffs)?);
    // Generated bundles: every family with an opcode on the generation.
    let mut n = seed;
    for g in Generation::ALL {
        for &k in BodyKind::ALL {
            let ops = ops(k, g);
            if ops.is_empty() || count == 0 {
                continue;
            }
            let mut bytes = Vec::new();
            for _ in 0..count {
                n = n.wrapping_add(1);
                let data = seeded_bytes(n, GEN_INPUT);
                let mut u = Unstructured::new(&data);
                let b = u.choose(&ops).and_then(|op| smith::bundle_for(&mut u, g, op)).context_with(|| "generator")?;
                bytes.extend_from_slice(&b.encode());
            }
            streams.push((format!("gen-{g}-{}.bin", family_name(k)), bytes));
        }
    }
    let mut out = Vec::new();
    // Every target that reads a stream of bundles gets every bundle stream.
    for t in tpb_isa::fuzz::bundle_targets() {
        out.extend(streams.iter().map(|(name, bytes)| SeedFile { target: t.name, name: name.clone(), bytes: bytes.clone() }));
    }
    // Generator inputs reaching every family × generation as `props::structured` reads them.
    for (name, bytes) in generator_inputs(count, seed, structured_kinds)? {
        out.push(SeedFile { target: "validate", name: name.clone(), bytes: bytes.clone() });
        out.push(SeedFile { target: "structured", name, bytes });
    }
    // The same for `roundtrip`'s generated inputs: its marker byte, then choices as the chain reads them.
    for (name, bytes) in generator_inputs(count, seed, chain_kinds)? {
        let bytes = [&[props::GENERATED][..], &bytes].concat();
        out.push(SeedFile { target: "roundtrip", name: name.replace("gen-", "gen-chain-"), bytes });
    }
    out.extend(elf_seed::seeds()?.into_iter().map(|(name, bytes)| SeedFile { target: "elf", name, bytes }));
    out.extend(neff_seed::seeds()?.into_iter().map(|(name, bytes)| SeedFile { target: "neff", name: name.into(), bytes }));
    Ok(out)
}

/// The family and generation of each bundle `props::structured` generates from `data`.
fn structured_kinds(data: &[u8]) -> Vec<(BodyKind, Generation)> {
    let mut u = Unstructured::new(data);
    Generation::ALL.into_iter().map_while(|g| smith::bundle(&mut u, g).ok().map(|b| (b.kind(), g))).collect()
}

/// The family and generation of each valid bundle the `roundtrip` chain
/// generates from `data` (after its marker byte).
fn chain_kinds(data: &[u8]) -> Vec<(BodyKind, Generation)> {
    props::generated(data).into_iter().map(|(g, b, _)| (b.kind(), g)).collect()
}

/// Searches seeded inputs until each available family × generation is
/// among the bundles `read` says an input generates `count` times.
fn generator_inputs(count: usize, seed: u64, read: fn(&[u8]) -> Vec<(BodyKind, Generation)>) -> Result<Vec<(String, Vec<u8>)>> {
    let mut need: BTreeMap<(usize, Generation), usize> = BTreeMap::new();
    for g in Generation::ALL {
        for (i, &k) in BodyKind::ALL.iter().enumerate() {
            if !ops(k, g).is_empty() && count > 0 {
                need.insert((i, g), count);
            }
        }
    }
    let mut out = Vec::new();
    let mut t = 0u64;
    while !need.is_empty() {
        if t == SEARCH_LIMIT {
            return Err(Error::Message(format!("no generator input reaches {:?} within {SEARCH_LIMIT} tries", need.keys().collect::<Vec<_>>())));
        }
        let data = seeded_bytes(seed.wrapping_add(t).rotate_left(17), GEN_INPUT);
        let mut useful = false;
        for (kind, g) in read(&data) {
            let i = BodyKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
            if let Some(left) = need.get_mut(&(i, g)) {
                *left -= 1;
                useful = true;
                if *left == 0 {
                    need.remove(&(i, g));
                }
            }
        }
        if useful {
            out.push((format!("gen-{t:06}.bin"), data));
        }
        t += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_search_stops_once_each_family_is_reached_count_times() {
        assert_eq!(generator_inputs(0, 1, chain_kinds).ok(), Some(vec![]));
        let inputs = generator_inputs(1, 1, chain_kinds).expect("every family is reached");
        let reached: Vec<(BodyKind, Generation)> = inputs.iter().flat_map(|(_, data)| chain_kinds(data)).collect();
        let mut wanted = 0;
        for g in Generation::ALL {
            for &k in BodyKind::ALL {
                assert_eq!(reached.contains(&(k, g)), !ops(k, g).is_empty(), "{k:?} on {g}");
                wanted += usize::from(!ops(k, g).is_empty());
            }
        }
        // Each input kept was the first to reach some family still wanted.
        assert!(!inputs.is_empty() && inputs.len() <= wanted, "{} inputs for {wanted} families", inputs.len());
    }
}
