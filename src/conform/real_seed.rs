//! Seeds from real compiled programs: for every generation × opcode seen in
//! the given NEFF files, the first bundle of that opcode (files in sorted
//! order, streams in file order), one 64-byte bundle per seed. Generated
//! bundles cover what the spec says; these cover what the compiler writes
//! (reserved bits set, undocumented opcodes, real field values).

use std::collections::BTreeMap;
use std::path::PathBuf;
use tpb_isa::bundle::Raw;

/// `real-<gen>-<opcode>.bin` → one bundle, for every generation × opcode in `neffs`.
/// A stream without a known generation is filed under `any`.
pub fn seeds(neffs: &[PathBuf]) -> crate::error::Result<Vec<(String, Vec<u8>)>> {
    let mut first: BTreeMap<String, Raw> = BTreeMap::new();
    for path in neffs {
        // The fuzz caps are for hostile inputs; these are the project's own committed files.
        let neff = tpb_oracle::neff::read_file(path)?;
        for s in &neff.streams {
            let g = s.generation.map_or_else(|| "any".to_string(), |g| g.to_string());
            for (_, _, raw) in s.bundles() {
                first.entry(format!("real-{g}-{:02x}.bin", raw[0])).or_insert(*raw);
            }
        }
    }
    Ok(first.into_iter().map(|(name, raw)| (name, raw.to_vec())).collect())
}
