//! Seed inputs for the `elf` target: libraries from the oracle's own fixture
//! builder (`tpb_oracle::fixture`), the synthetic `libwalrus.so` its tests
//! check, so the fuzzer starts from every shape the oracle reads rather than
//! from one. Each symbol-table shape ([`Tables`]: PT_DYNAMIC with `.hash`,
//! `.dynsym` section headers only, a static `.symtab`), a library without a
//! `.rodata` section header, without setupHeader symbols, with a second
//! setupHeader naming a generation, big-endian, with a fact changed (the
//! LUT, a setupHeader body, a type without its symbol), and an ELF32
//! header; the three table shapes also cut where the reader crosses a
//! boundary (after the file header, after the program headers, halfway,
//! before the section headers, one byte short), which the reader must
//! refuse without panicking. The facts sit where no profile pins them
//! ([`Fixture::moved`]): the pinned placement is tens of MiB.

use crate::error::{Context as _, Error, Result};
use tpb_isa::Generation;
use tpb_oracle::fixture::elf::{elf32_header, EHDR, PHDR};
use tpb_oracle::fixture::{Fixture, Tables};

/// The whole libraries by file name (before `elf-` and `.bin`).
fn libraries() -> Vec<(&'static str, Fixture)> {
    let with = |f: fn(&mut Fixture)| {
        let mut x = Fixture::moved();
        f(&mut x);
        x
    };
    let first_type = Fixture::moved().type_names.first().cloned().unwrap_or_default();
    vec![
        ("dynamic", Fixture::moved()),
        ("dynsym-sections", with(|f| f.tables = Tables::DynsymSection)),
        ("symtab", with(|f| f.tables = Tables::Symtab)),
        ("no-rodata-section", with(|f| f.rodata_section = false)),
        ("no-setup-symbols", with(|f| f.setup_symbols = false)),
        ("big-endian", with(|f| f.big_endian = true)),
        ("decoy-names-v4", Fixture::moved().decoy_naming(Generation::V4)),
        ("lut-byte-changed", Fixture::moved().lut_byte(1, 0xEE)),
        ("setup-v3-byte-changed", Fixture::moved().setup_byte(Generation::V3, 0, 0xCC)),
        ("type-without-symbol", Fixture::moved().without_type(&first_type)),
    ]
}

/// The ELF seeds by file name.
pub fn seeds() -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = vec![("elf-elf32-header.bin".to_string(), elf32_header())];
    for (name, fixture) in libraries() {
        let bytes = fixture.build().context_with(|| format!("elf seed {name}"))?;
        if matches!(name, "dynamic" | "dynsym-sections" | "symtab") {
            for (cut, at) in cuts(&bytes)? {
                out.push((format!("elf-{name}-cut-{cut}.bin"), bytes[..at].to_vec()));
            }
        }
        out.push((format!("elf-{name}.bin"), bytes));
    }
    Ok(out)
}

/// Where a little-endian ELF64 file is cut: after the file header, after
/// the program headers, halfway, before the section headers, one byte short.
fn cuts(bytes: &[u8]) -> Result<Vec<(&'static str, usize)>> {
    let u16_at = |at: usize| bytes.get(at..at + 2).and_then(|b| b.try_into().ok()).map(u16::from_le_bytes);
    let u64_at = |at: usize| bytes.get(at..at + 8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes);
    // e_phnum at 56, e_shoff at 40 (the gABI's ELF64 header).
    let phnum = u16_at(56).ok_or(Error::from("elf seed: no e_phnum"))?;
    let shoff = u64_at(40).and_then(|o| usize::try_from(o).ok()).ok_or(Error::from("elf seed: no e_shoff"))?;
    let ehdr = EHDR as usize;
    let phdrs = ehdr + usize::from(phnum) * PHDR as usize;
    let cuts =
        vec![("header", ehdr), ("program-headers", phdrs), ("half", bytes.len() / 2), ("section-headers", shoff), ("last-byte", bytes.len() - 1)];
    match cuts.iter().find(|(_, at)| *at == 0 || *at >= bytes.len()) {
        Some((cut, at)) => Err(Error::Message(format!("elf seed: cut {cut} at {at} is outside the {}-byte file", bytes.len()))),
        None => Ok(cuts),
    }
}

#[cfg(test)]
mod tests {
    use super::{cuts, EHDR, PHDR};
    use tpb_oracle::walrus::{fuzz_elf, FuzzDepth};

    #[test]
    fn an_elf_is_cut_at_its_header_boundaries_halfway_and_one_byte_short_all_inside_it() {
        let file = |shoff: u64| {
            let mut b = vec![0u8; 400];
            b[56..58].copy_from_slice(&2u16.to_le_bytes());
            b[40..48].copy_from_slice(&shoff.to_le_bytes());
            b
        };
        let (e, p) = (EHDR as usize, PHDR as usize);
        assert_eq!(
            cuts(&file(300)).map_err(|e| e.to_string()),
            Ok(vec![("header", e), ("program-headers", e + 2 * p), ("half", 200), ("section-headers", 300), ("last-byte", 399)])
        );
        assert_eq!(cuts(&file(0)).map_err(|e| e.to_string()), Err("elf seed: cut section-headers at 0 is outside the 400-byte file".to_string()));
        assert_eq!(cuts(&file(400)).map_err(|e| e.to_string()), Err("elf seed: cut section-headers at 400 is outside the 400-byte file".to_string()));
        assert_eq!(cuts(&file(300)[..50]).map_err(|e| e.to_string()), Err("elf seed: no e_phnum".to_string()));
    }

    #[test]
    fn whole_libraries_are_checked_and_cut_ones_refused_or_parsed() {
        let seeds = super::seeds().unwrap_or_else(|e| panic!("{e}"));
        assert!(seeds.len() >= 20, "only {} elf seeds", seeds.len());
        let mut checked = 0;
        for (name, bytes) in &seeds {
            // The `elf` target's max_len (fuzz/options/elf.options): a longer seed would be cut.
            assert!(bytes.len() <= 16384, "{name}: {} bytes", bytes.len());
            let depth = fuzz_elf(bytes);
            if name.contains("-cut-") {
                assert!(depth < FuzzDepth::Checked, "{name}: a cut library was {depth:?}");
            } else if depth == FuzzDepth::Checked {
                checked += 1;
            }
        }
        // Each table shape, and the libraries with a fact changed, get through every check.
        assert!(checked >= 8, "only {checked} whole libraries were checked");
    }
}
