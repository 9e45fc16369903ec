//! The library oracle on synthetic libraries: the pinned-address path on a
//! fixture at the known build's real addresses, discovery on a fixture with
//! every fact moved, and one mutant per fact that must fail exactly that fact.

use std::collections::BTreeSet;
use tpb_isa::bundle::header::SETUP_HEADER_CODE;
use tpb_isa::dtype::BIR_TO_WIRE;
use tpb_isa::Generation;
use tpb_oracle::fixture::{Fixture, Placement, Tables};
use tpb_oracle::walrus::image::Image;
use tpb_oracle::walrus::profile::Profile;
use tpb_oracle::walrus::report::{Located, Report, Status, EXIT_DIFFERS, EXIT_HOLDS};
use tpb_oracle::walrus::spec::Kind;
use tpb_oracle::walrus::symbols::SymbolSource;
use tpb_oracle::walrus::{check_image, Profiles, WalrusError};

fn check(bytes: &[u8]) -> Result<Report, WalrusError> {
    let profiles = Profiles::embedded()?;
    let img = Image::parse("fixture", bytes)?;
    check_image(&img, &profiles)
}

fn report(f: &Fixture) -> Report {
    let bytes = f.build().expect("fixture builds");
    check(&bytes).expect("fixture checks")
}

fn failed(r: &Report) -> BTreeSet<String> {
    r.failed().map(|r| r.id.clone()).collect()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn row<'r>(r: &'r Report, id: &str) -> &'r tpb_oracle::walrus::Row {
    r.row(id).unwrap_or_else(|| panic!("no row {id}"))
}

#[test]
fn known_build_is_read_at_the_pinned_addresses() {
    let r = report(&Fixture::known().expect("profile"));
    assert!(r.known, "the fixture carries the spec build's build-id");
    assert_eq!(r.build_id.as_deref(), Some("92b4d331a42d7e80bb839e03218d2b9b0c23c346"));
    // The fixture is not the real file: MD5 and size are reported, not hidden.
    assert_eq!(failed(&r), set(&["identity.md5", "identity.size"]));
    assert_eq!(r.exit, EXIT_DIFFERS);
    let md5 = row(&r, "identity.md5");
    assert_eq!(md5.expected.as_deref(), Some("1d93972b81e619ce6d178a0e4b9003b3"));
    assert!(md5.notes.iter().any(|n| n.contains("build-id matches a known build")));
    assert_eq!(row(&r, "identity.sha256").status, Status::Info, "the spec records no SHA-256");
    // Only the digest the profile lacks says so; the one it records does not.
    let lacks = |id: &str| row(&r, id).notes.iter().any(|n| n.contains("the profile records no value"));
    assert_eq!((lacks("identity.sha256"), lacks("identity.md5")), (true, false));
    let lut = row(&r, "dtype.bir_to_wire");
    assert_eq!((lut.located, lut.address, lut.status), (Located::Pinned, Some(0x1dfbad0), Status::Holds));
    for (g, at) in [("v2", 0x1172120), ("v3", 0x1369280), ("v4", 0x143f440)] {
        let s = row(&r, &format!("setup_header.{g}"));
        assert_eq!((s.located, s.address, s.status), (Located::Pinned, Some(at), Status::Holds), "{g}");
        assert!(s.notes.iter().any(|n| n.contains("agrees")), "{g}: the symbol confirms the pin");
    }
    assert_eq!(row(&r, "section.text").found.as_deref(), Some("0x62d660"));
    assert_eq!(row(&r, "section.rodata").found.as_deref(), Some("0x1c72000"));
    assert_eq!(row(&r, "section.va_equals_offset").status, Status::Holds);
    assert_eq!(row(&r, "section.va_equals_offset").found.as_deref(), Some("yes"));
    assert!(r.rows.iter().filter(|x| x.kind == Kind::Constant).all(|x| x.status == Status::Holds));
}

#[test]
fn full_size_known_fixture_matches_size_but_not_md5() {
    let f = Fixture::known_full_size().expect("profile");
    let bytes = f.build().expect("builds");
    assert_eq!(bytes.len(), 64_973_024);
    let r = check(&bytes).expect("checks");
    assert_eq!(failed(&r), set(&["identity.md5"]));
}

#[test]
fn unknown_build_finds_every_fact_by_search_and_exits_0() {
    let r = report(&Fixture::moved());
    assert!(!r.known);
    assert_eq!(r.exit, EXIT_HOLDS, "{}", tpb_oracle::walrus::render::report_text(&r));
    assert_eq!(r.symbols.source, SymbolSource::Dynamic);
    for x in &r.rows {
        match x.kind {
            Kind::Constant => assert_eq!(x.status, Status::Holds, "{}", x.id),
            Kind::Identity | Kind::Placement => assert_eq!(x.status, Status::Info, "{}", x.id),
        }
    }
    // With no profile there is no profile to lack a value.
    assert!(r.rows.iter().all(|x| !x.notes.iter().any(|n| n.contains("the profile records no value"))), "{:#?}", r.rows);
    let lut = row(&r, "dtype.bir_to_wire");
    assert_eq!(lut.located, Located::Content);
    assert!(lut.address.is_some_and(|a| a != 0x1dfbad0));
    assert_eq!(row(&r, "assert.pattern_3d_size").located, Located::Content);
    assert_eq!(row(&r, "type.NEURON_ISA_TPB_TENSOR3D").located, Located::Symbol);
    for g in ["v2", "v3", "v4"] {
        let s = row(&r, &format!("setup_header.{g}"));
        assert_eq!(s.located, Located::Symbol, "{g}");
        // One symbol names the generation: nothing to say about several.
        assert!(!s.notes.iter().any(|n| n.contains("setupHeader symbols:")), "{g}: {:?}", s.notes);
        assert_eq!(s.notes.len(), 1, "{g}: {:?}", s.notes);
        assert!(s.notes[0].starts_with("symbol walrus::") && s.notes[0].contains("setupHeader"), "{g}: {:?}", s.notes);
    }
}

#[test]
fn two_symbols_of_one_generation_are_named_and_the_one_at_its_body_is_judged() {
    let r = report(&Fixture::moved().decoy_naming(Generation::V4));
    assert_eq!(r.exit, EXIT_HOLDS, "{}", tpb_oracle::walrus::render::report_text(&r));
    let s = row(&r, "setup_header.v4");
    assert_eq!((s.located, s.status), (Located::Symbol, Status::Holds));
    let several: Vec<&String> = s.notes.iter().filter(|n| n.starts_with("2 CoreV4 setupHeader symbols: ")).collect();
    assert_eq!(several.len(), 1, "{:?}", s.notes);
    // Both addresses are listed, the judged one among them.
    let judged = s.address.expect("an address");
    assert!(several[0].contains(&format!("{judged:#x}")), "{:?}", s.notes);
    assert_eq!(several[0].matches("0x").count(), 2, "{:?}", s.notes);
    assert!(s.notes.iter().any(|n| n == "symbol walrus::CoreV4::setupHeader(unsigned char*, unsigned char const*)"), "{:?}", s.notes);
    for g in ["v2", "v3"] {
        let s = row(&r, &format!("setup_header.{g}"));
        assert!(!s.notes.iter().any(|n| n.contains("setupHeader symbols:")), "{g}: {:?}", s.notes);
    }
}

#[test]
fn changed_lut_is_found_by_shape_with_its_address() {
    let good = report(&Fixture::moved());
    let at = row(&good, "dtype.bir_to_wire").address;
    for (i, v) in [(2usize, 0x11u8), (0, 0x07), (19, 0x0d)] {
        let r = report(&Fixture::moved().lut_byte(i, v));
        assert_eq!(failed(&r), set(&["dtype.bir_to_wire"]), "byte {i}");
        let lut = row(&r, "dtype.bir_to_wire");
        assert_eq!((lut.status, lut.located, lut.address), (Status::Differs, Located::Structural, at), "byte {i}");
        let best = lut.candidates.first().expect("a candidate");
        assert_eq!((Some(best.address), best.distance), (at, 1));
        assert_eq!(r.exit, EXIT_DIFFERS);
    }
    let mut gone = Fixture::moved();
    gone.lut = vec![0; BIR_TO_WIRE.len()];
    let r = report(&gone);
    let lut = row(&r, "dtype.bir_to_wire");
    assert_eq!((lut.status, lut.candidates.len()), (Status::Missing, 0));
}

#[test]
fn changed_lut_at_the_pinned_address_differs() {
    let r = report(&Fixture::known().expect("profile").lut_byte(6, 0x0b));
    assert_eq!(failed(&r), set(&["identity.md5", "identity.size", "dtype.bir_to_wire"]));
    let lut = row(&r, "dtype.bir_to_wire");
    assert_eq!((lut.located, lut.address), (Located::Pinned, Some(0x1dfbad0)));
    assert_eq!(lut.found.as_deref(), Some("03 02 10 0d 0e 0e 0b 0f 0e 0f 05 04 06 07 09 08 0a 0b 01 0c"));
    assert_eq!(lut.candidates.first().map(|c| c.address), Some(0x1dfbad0));
}

#[test]
fn changed_size_string_fails_its_fact() {
    let from = "ISA mem pattern 2D must have 12 bytes to encode";
    let r = report(&Fixture::moved().replace_string(from, "ISA mem pattern 2D must have 24 bytes to encode"));
    assert_eq!(failed(&r), set(&["assert.pattern_2d_size"]));
    let x = row(&r, "assert.pattern_2d_size");
    assert_eq!((x.status, x.found.as_deref(), x.expected.as_deref()), (Status::Differs, Some("24 bytes"), Some("12 bytes")));

    let r = report(&Fixture::moved().replace_string("ISA mem pattern 4D must have 20 bytes to encode", "ISA mem pattern 4D has 20 bytes"));
    assert_eq!(failed(&r), set(&["assert.pattern_4d_size"]));
    assert_eq!(row(&r, "assert.pattern_4d_size").status, Status::Missing);

    let r = report(&Fixture::moved().replace_string("MX Scale Tensor can only be in SB", "MX Scale Tensor can be anywhere"));
    assert_eq!(failed(&r), set(&["assert.mx_scale_in_sb"]));
}

#[test]
fn missing_type_name_fails_only_that_name() {
    let r = report(&Fixture::moved().without_type("NEURON_ISA_TPB_INDIRECT16B"));
    assert_eq!(failed(&r), set(&["type.NEURON_ISA_TPB_INDIRECT16B"]), "MXINDIRECT16B must not stand in for it");
    assert_eq!(row(&r, "type.NEURON_ISA_TPB_INDIRECT16B").status, Status::Missing);
    let r = report(&Fixture::moved().without_type("NEURON_ISA_TPB_DTYPE"));
    assert_eq!(failed(&r), set(&["type.NEURON_ISA_TPB_DTYPE"]));
}

#[test]
fn the_summary_counts_each_status() {
    // The known build (holds, differs, info) and a missing type name: every status.
    let mut rows = report(&Fixture::known().unwrap()).rows;
    rows.extend(report(&Fixture::moved().without_type("NEURON_ISA_TPB_DTYPE")).rows);
    let count = |st: Status| rows.iter().filter(|r| r.status == st).count();
    let s = Report::summarize(&rows);
    let counted = (s.holds, s.differs, s.missing, s.info);
    assert_eq!(counted, (count(Status::Holds), count(Status::Differs), count(Status::Missing), count(Status::Info)));
    assert!(counted.1 >= 2 && counted.2 == 1 && counted.3 > 0 && counted.0 > 10, "{counted:?}");
    assert_eq!(counted.0 + counted.1 + counted.2 + counted.3, rows.len());
}

#[test]
fn changed_setup_header_fails_its_generation() {
    let r = report(&Fixture::moved().setup_byte(Generation::V3, 6, 0x11));
    assert_eq!(failed(&r), set(&["setup_header.v3"]));
    let s = row(&r, "setup_header.v3");
    assert_eq!((s.status, s.located), (Status::Differs, Located::Symbol));
    assert!(s.notes.iter().any(|n| n.contains("occurs in .text at")), "{:?}", s.notes);

    let r = report(&Fixture::known().expect("profile").setup_byte(Generation::V2, 0, 0x90));
    assert_eq!(failed(&r), set(&["identity.md5", "identity.size", "setup_header.v2"]));
    assert_eq!(row(&r, "setup_header.v2").located, Located::Pinned);
}

#[test]
fn symbol_tables_fall_back_from_pt_dynamic_to_dynsym_to_symtab() {
    for (tables, source) in [(Tables::DynsymSection, SymbolSource::DynsymSection), (Tables::Symtab, SymbolSource::Symtab)] {
        let mut f = Fixture::moved();
        f.tables = tables;
        let r = report(&f);
        assert_eq!(r.symbols.source, source);
        assert_eq!(r.exit, EXIT_HOLDS, "{tables:?}: {:?}", failed(&r));
    }
}

#[test]
fn a_pt_dynamic_symbol_table_of_only_the_null_symbol_is_passed_over() {
    // .hash's nchain says how many symbols PT_DYNAMIC's table has: 1 leaves only the null
    // symbol, which names nothing, so the .dynsym section is read instead.
    let mut lib = Fixture::moved().build().unwrap();
    let hash = {
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let Some(h) = elf.section_headers.iter().find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".hash")) else { panic!("no .hash") };
        h.sh_offset as usize
    };
    lib[hash + 4..hash + 8].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(goblin::elf::Elf::parse(&lib).unwrap().dynsyms.len(), 1, "nchain 1: the null symbol alone");
    let r = check(&lib).unwrap();
    assert_eq!(r.symbols.source, SymbolSource::DynsymSection);
    assert_eq!(r.exit, EXIT_HOLDS, "{:?}", failed(&r));
}

#[test]
fn a_section_whose_address_is_not_its_offset_is_named() {
    // .text's address moved a page above its file offset (as a linker that starts a segment
    // on a new page would place it): the placement fact is "no", and the note says where.
    let mut lib = Fixture::moved().build().unwrap();
    let (at, addr, offset) = {
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let Some(i) = elf.section_headers.iter().position(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".text")) else { panic!("no .text") };
        let s = &elf.section_headers[i];
        assert_eq!(s.sh_addr, s.sh_offset);
        (elf.header.e_shoff as usize + 64 * i + 16, s.sh_addr, s.sh_offset)
    };
    lib[at..at + 8].copy_from_slice(&(addr + 0x1000).to_le_bytes());
    let r = check(&lib).unwrap();
    let s = row(&r, "section.va_equals_offset");
    assert_eq!(s.found.as_deref(), Some("no"));
    assert_eq!(s.notes, [format!(".text: VA {:#x} at file offset {offset:#x}", addr + 0x1000)]);
}

#[test]
fn the_fixture_s_symbol_tables_begin_with_the_null_symbol() {
    // ELF reserves entry 0 of every symbol table; a fixture that wrote a symbol there would
    // hide a reader that skips it.
    for tables in [Tables::Dynamic, Tables::DynsymSection, Tables::Symtab] {
        let mut f = Fixture::moved();
        f.tables = tables;
        let lib = f.build().unwrap();
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let want = if tables == Tables::Symtab { goblin::elf::section_header::SHT_SYMTAB } else { goblin::elf::section_header::SHT_DYNSYM };
        let Some(sh) = elf.section_headers.iter().find(|s| s.sh_type == want) else { panic!("{tables:?}: no symbol table") };
        let at = sh.sh_offset as usize;
        assert!(lib[at..at + 24].iter().all(|&b| b == 0), "{tables:?}: entry 0 is not the null symbol");
        let count = sh.sh_size as usize / 24;
        assert!(count > 1);
        assert!((1..count).all(|k| lib[at + 24 * k..at + 24 * k + 4] != [0; 4]), "{tables:?}: every other entry has a name");
    }
}

#[test]
fn the_fixture_s_segments_are_laid_out_as_a_linker_writes_them() {
    // As a linker writes a shared library's program headers: p_paddr = p_vaddr, and each
    // segment's alignment is a power of two that its offset and address agree modulo
    // (gABI), the loadable one's a page.
    let lib = Fixture::moved().build().unwrap();
    let elf = goblin::elf::Elf::parse(&lib).unwrap();
    assert!(!elf.program_headers.is_empty());
    for p in &elf.program_headers {
        assert_eq!(p.p_paddr, p.p_vaddr, "{p:?}");
        assert!(p.p_align.is_power_of_two(), "{p:?}");
        assert_eq!(p.p_offset % p.p_align, p.p_vaddr % p.p_align, "{p:?}");
    }
    let aligns: Vec<(u32, u64)> = elf.program_headers.iter().map(|p| (p.p_type, p.p_align)).collect();
    assert!(aligns.contains(&(goblin::elf::program_header::PT_LOAD, 0x1000)), "{aligns:?}");
    assert!(aligns.contains(&(goblin::elf::program_header::PT_NOTE, 4)), "{aligns:?}");
}

#[test]
fn the_fixture_s_hash_table_finds_every_dynamic_symbol_by_its_name() {
    // A SysV lookup through the built library's own .hash, .dynsym and .dynstr, with the
    // usual symbols and with the fewest (one: the decoy).
    let mut fewest = Fixture::moved();
    fewest.setup_symbols = false;
    fewest.type_names.clear();
    for f in [Fixture::moved(), fewest] {
        let lib = f.build().unwrap_or_else(|e| panic!("{e}"));
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let section = |t: u32| {
            elf.section_headers.iter().find(|s| s.sh_type == t).map(|s| s.sh_offset as usize).unwrap_or_else(|| panic!("no section of type {t}"))
        };
        let hash = section(goblin::elf::section_header::SHT_HASH);
        let word = |i: usize| u32::from_le_bytes(lib[hash + 4 * i..hash + 4 * i + 4].try_into().unwrap()) as usize;
        let (nbucket, nchain) = (word(0), word(1));
        assert!(nbucket >= 1 && nchain == elf.dynsyms.len(), "{nbucket} buckets, {nchain} chains");
        for (i, sym) in elf.dynsyms.iter().enumerate().skip(1) {
            let name = elf.dynstrtab.get_at(sym.st_name).unwrap_or_default();
            assert!(!name.is_empty(), "symbol {i} has no name");
            let mut k = word(2 + tpb_oracle::fixture::elf::elf_hash(name.as_bytes()) as usize % nbucket);
            let mut steps = 0;
            while k != 0 && k != i && steps <= nchain {
                k = word(2 + nbucket + k);
                steps += 1;
            }
            assert_eq!(k, i, "{name} is not found through the hash table");
        }
    }
}

/// The file offset of the first section header of type `sh_type` in `lib`.
fn section_header_of(lib: &[u8], sh_type: u32) -> usize {
    let elf = goblin::elf::Elf::parse(lib).unwrap();
    let Some(i) = elf.section_headers.iter().position(|s| s.sh_type == sh_type) else { panic!("no section of type {sh_type}") };
    elf.header.e_shoff as usize + 64 * i
}

#[test]
fn a_symtab_of_only_the_null_symbol_is_no_symbol_table() {
    // The static table cut to its null entry names nothing: no symbol source at all, and the
    // setup headers are found by their bytes.
    let mut f = Fixture::moved();
    f.tables = Tables::Symtab;
    let mut lib = f.build().unwrap();
    let size_at = section_header_of(&lib, goblin::elf::section_header::SHT_SYMTAB) + 32;
    lib[size_at..size_at + 8].copy_from_slice(&24u64.to_le_bytes());
    assert_eq!(goblin::elf::Elf::parse(&lib).unwrap().syms.len(), 1);
    let r = check(&lib).unwrap();
    assert_eq!((r.symbols.source, r.symbols.total), (SymbolSource::None, 0));
    assert_eq!(row(&r, "setup_header.v2").located, Located::Bytes);
}

#[test]
fn a_pt_dynamic_symbol_table_without_strings_is_passed_over() {
    // DT_STRSZ 0: PT_DYNAMIC's symbols have no names to read, so the .dynsym section is read instead.
    let mut lib = Fixture::moved().build().unwrap();
    let strsz = {
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let Some(d) = elf.section_headers.iter().find(|s| s.sh_type == goblin::elf::section_header::SHT_DYNAMIC) else { panic!("no .dynamic") };
        let at = d.sh_offset as usize;
        let Some(k) = (0..d.sh_size as usize / 16).find(|k| lib[at + 16 * k..at + 16 * k + 8] == 10u64.to_le_bytes()) else { panic!("no DT_STRSZ") };
        at + 16 * k + 8
    };
    lib[strsz..strsz + 8].fill(0);
    let elf = goblin::elf::Elf::parse(&lib).unwrap();
    assert!(elf.dynsyms.len() > 1 && elf.dynstrtab.len() == 0, "symbols without strings");
    let r = check(&lib).unwrap();
    assert_eq!(r.symbols.source, SymbolSource::DynsymSection);
    assert_eq!(r.exit, EXIT_HOLDS, "{:?}", failed(&r));
}

#[test]
fn a_dynsym_section_without_an_entry_size_is_read_as_elf64_symbols() {
    // sh_entsize 0 ("no fixed size") on .dynsym: ELF64's 24-byte entries are meant.
    let mut f = Fixture::moved();
    f.tables = Tables::DynsymSection;
    let mut lib = f.build().unwrap();
    let entsize_at = section_header_of(&lib, goblin::elf::section_header::SHT_DYNSYM) + 56;
    assert_eq!(lib[entsize_at..entsize_at + 8], 24u64.to_le_bytes());
    lib[entsize_at..entsize_at + 8].fill(0);
    let r = check(&lib).unwrap();
    assert_eq!(r.symbols.source, SymbolSource::DynsymSection);
    assert!(r.symbols.total > 1, "{}", r.symbols.total);
    assert_eq!(r.exit, EXIT_HOLDS, "{:?}", failed(&r));
}

#[test]
fn a_dynsym_section_of_two_entries_is_a_table_and_of_one_is_none() {
    // Entry 0 is ELF's null symbol: one entry is no table, two hold one symbol.
    let mut f = Fixture::moved();
    f.tables = Tables::DynsymSection;
    let lib = f.build().unwrap();
    let size_at = section_header_of(&lib, goblin::elf::section_header::SHT_DYNSYM) + 32;
    for (entries, source, total) in [(2u64, SymbolSource::DynsymSection, 2), (1, SymbolSource::None, 0)] {
        let mut cut = lib.clone();
        cut[size_at..size_at + 8].copy_from_slice(&(24 * entries).to_le_bytes());
        let r = check(&cut).unwrap();
        assert_eq!((r.symbols.source, r.symbols.total), (source, total), "{entries} entries");
    }
}

#[test]
fn stripped_setup_header_is_found_by_bytes_only() {
    let mut f = Fixture::moved();
    f.setup_symbols = false;
    let r = report(&f);
    assert_eq!(r.exit, EXIT_HOLDS);
    for g in ["v2", "v3", "v4"] {
        let s = row(&r, &format!("setup_header.{g}"));
        assert_eq!((s.located, s.address), (Located::Bytes, None), "{g}");
        // The fixture's decoy (a setupHeader of class `Base`) is named as naming no generation.
        let named: Vec<&String> = s.notes.iter().filter(|n| n.starts_with("setupHeader symbols name no generation: ")).collect();
        assert!(named.len() == 1 && named[0].contains("walrus::Base::setupHeader"), "{g}: {:?}", s.notes);
    }
    let f = f.setup_byte(Generation::V4, 3, 0);
    let r = report(&f);
    assert_eq!(failed(&r), set(&["setup_header.v2", "setup_header.v3", "setup_header.v4"]), "two bodies cannot cover three generations");
}

#[test]
fn empty_build_id_is_an_unknown_build() {
    let mut f = Fixture::moved();
    f.build_id.clear();
    let r = report(&f);
    assert_eq!((r.build_id.clone(), r.known, r.exit), (None, false, EXIT_HOLDS));
    assert_eq!(row(&r, "identity.build_id").status, Status::Info);
}

#[test]
fn library_without_rodata_is_an_error() {
    let mut f = Fixture::moved();
    f.rodata_section = false;
    let err = check(&f.build().expect("builds")).err().map(|e| e.to_string());
    assert!(err.as_deref().is_some_and(|e| e.contains("no .rodata")), "{err:?}");
}

#[test]
fn report_json_names_every_column() {
    let r = report(&Fixture::moved().lut_byte(1, 0x12));
    let v: serde_json::Value = serde_json::to_value(&r).expect("json");
    let lut = v["rows"].as_array().and_then(|rows| rows.iter().find(|x| x["id"] == "dtype.bir_to_wire")).cloned().expect("row");
    for k in ["id", "section", "confidence", "expected", "found", "address", "status", "located", "candidates"] {
        assert!(lut.get(k).is_some(), "missing {k}");
    }
    assert_eq!(lut["status"], "differs");
    assert_eq!(lut["confidence"], "CONFIRMED");
    assert!(lut["address"].as_str().is_some_and(|a| a.starts_with("0x")));
    assert_eq!(v["exit"], 4);
}

#[test]
fn the_fixture_names_its_sections_as_a_linker_does() {
    // Every section header names its section, as `readelf -S` would show them.
    // `known` pins the real library's addresses; `moved` is laid out by the fixture itself.
    let symtab_only = Fixture { tables: Tables::Symtab, ..Fixture::moved() };
    let libs = [(Fixture::known().unwrap(), false), (Fixture::moved(), true), (symtab_only, true)];
    for (lib, planned) in libs.map(|(f, planned)| (f.build().unwrap(), planned)) {
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        // SHT_NULL placeholders (a stripped symbol table's slots) are nameless, as in real files.
        let named = elf.section_headers.iter().skip(1).filter(|s| s.sh_type != goblin::elf::section_header::SHT_NULL);
        let names: Vec<&str> = named.map(|s| elf.shdr_strtab.get_at(s.sh_name).unwrap_or("?")).collect();
        // The dynamic tables, or (a library linked without them) a symbol table and its names.
        let tables: &[(&str, u64)] = if names.contains(&".symtab") {
            &[(".symtab", 8), (".strtab", 1)]
        } else {
            &[(".dynsym", 8), (".dynstr", 1), (".hash", 8), (".dynamic", 8)]
        };
        let always = [(".note.gnu.build-id", 4), (".text", 16), (".rodata", 32), (".shstrtab", 1)];
        for (want, _) in always.iter().chain(tables) {
            assert_eq!(names.iter().filter(|n| *n == want).count(), 1, "{want} in {names:?}");
        }
        assert_eq!(names.len(), always.len() + tables.len(), "{names:?}");
        assert!(names.iter().all(|n| n.starts_with('.')), "{names:?}");
        // Each section is aligned as its contents need (a table of 8-byte words on 8), and lies so.
        for &(want, align) in always.iter().chain(tables) {
            let Some(s) = elf.section_headers.iter().find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(want)) else { panic!("no {want}") };
            assert_eq!((s.sh_addralign, s.sh_offset % align), (align, 0), "{want}");
        }
        // A table says how long its entries are, as readelf reads them (ELF64).
        for (table, entsize) in [(".dynsym", 24), (".symtab", 24), (".hash", 4), (".dynamic", 16)] {
            if let Some(s) = elf.section_headers.iter().find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(table)) {
                assert_eq!(s.sh_entsize, entsize, "{table}'s sh_entsize");
            }
        }
        // A table's size is a whole number of its entries.
        for s in elf.section_headers.iter().filter(|s| s.sh_entsize > 0) {
            assert_eq!(s.sh_size % s.sh_entsize, 0, "{:?}: {s:?}", elf.shdr_strtab.get_at(s.sh_name));
        }
        // Every function symbol lies inside .text, as a linker places them.
        let Some(text) = elf.section_headers.iter().find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".text")) else { panic!("no .text") };
        let funcs: Vec<_> = elf.dynsyms.iter().chain(elf.syms.iter()).filter(|s| s.st_type() == goblin::elf::sym::STT_FUNC).collect();
        assert!(!funcs.is_empty());
        let text_index = elf.section_headers.iter().position(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".text"));
        for s in &funcs {
            assert!(s.st_value >= text.sh_addr && s.st_value + s.st_size <= text.sh_addr + text.sh_size, "{s:?} outside .text {text:?}");
            assert_eq!(Some(s.st_shndx), text_index, "{s:?}: defined in .text");
        }
        // None overlaps the next; a planned layout packs them as a linker packs one object's, no page-sized gap between.
        let mut spans: Vec<(u64, u64)> = funcs.iter().map(|s| (s.st_value, s.st_value + s.st_size)).collect();
        spans.sort();
        spans.dedup();
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0 && (!planned || w[1].0 - w[0].1 < 0x1000), "functions at {:#x?} then {:#x?}", w[0], w[1]);
        }
        // A planned layout packs the sections before .text back to back, as a linker packs one
        // segment's: each starts where the one before ends, rounded up to its alignment.
        if planned {
            let mut head: Vec<_> = elf.section_headers.iter().filter(|s| s.sh_size > 0 && s.sh_addr != 0 && s.sh_offset < text.sh_offset).collect();
            head.sort_by_key(|s| s.sh_offset);
            // The build-id note, then the dynamic tables when there are any.
            let dynamic_tables = if names.contains(&".symtab") { 0 } else { tables.len() };
            assert_eq!(head.len(), 1 + dynamic_tables, "{names:?}");
            for w in head.windows(2) {
                let end = w[0].sh_offset + w[0].sh_size;
                let name = |s: &goblin::elf::SectionHeader| elf.shdr_strtab.get_at(s.sh_name).unwrap_or("?");
                assert_eq!(w[1].sh_offset, end.next_multiple_of(w[1].sh_addralign.max(1)), "{} after {} ending at {end:#x}", name(w[1]), name(w[0]));
            }
        }
        // Each table links the section it names entries of, as a linker sets sh_link.
        let index = |name: &str| elf.section_headers.iter().position(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(name));
        for (table, linked) in [(".dynsym", ".dynstr"), (".hash", ".dynsym"), (".dynamic", ".dynstr"), (".symtab", ".strtab")] {
            let Some(t) = index(table) else { continue };
            assert_eq!(Some(elf.section_headers[t].sh_link as usize), index(linked), "{table}'s sh_link");
        }
        // A symbol table's sh_info is one past its last local symbol: only the null one is local.
        for table in [".dynsym", ".symtab"] {
            let Some(t) = index(table) else { continue };
            assert_eq!(elf.section_headers[t].sh_info, 1, "{table}'s sh_info");
        }
        let binds: Vec<u8> = elf.dynsyms.iter().chain(elf.syms.iter()).filter(|s| s.st_name != 0).map(|s| s.st_bind()).collect();
        assert!(!binds.is_empty() && binds.iter().all(|&b| b == goblin::elf::sym::STB_GLOBAL), "{binds:?}");
        // What the loader maps is marked SHF_ALLOC; the name and symbol tables are not.
        for s in elf.section_headers.iter().filter(|s| s.sh_type != goblin::elf::section_header::SHT_NULL) {
            let name = elf.shdr_strtab.get_at(s.sh_name).unwrap_or("?");
            let alloc = s.sh_flags & u64::from(goblin::elf::section_header::SHF_ALLOC) != 0;
            assert_eq!(alloc, ![".shstrtab", ".symtab", ".strtab"].contains(&name), "{name}: flags {:#x}", s.sh_flags);
        }
        // The loader maps what a PT_LOAD covers: every allocated section lies in one, in the
        // file and in memory at the same distance from the segment's start.
        let loads: Vec<_> = elf.program_headers.iter().filter(|p| p.p_type == goblin::elf::program_header::PT_LOAD).collect();
        assert!(!loads.is_empty(), "no PT_LOAD");
        // A shared library's segments load where they are linked: physical address = virtual.
        assert!(elf.program_headers.iter().all(|p| p.p_paddr == p.p_vaddr), "{:?}", elf.program_headers);
        for s in elf.section_headers.iter().filter(|s| s.sh_flags & u64::from(goblin::elf::section_header::SHF_ALLOC) != 0) {
            let name = elf.shdr_strtab.get_at(s.sh_name).unwrap_or("?");
            let covers = |p: &&goblin::elf::ProgramHeader| {
                let in_memory = s.sh_addr >= p.p_vaddr && s.sh_addr + s.sh_size <= p.p_vaddr + p.p_memsz;
                let in_file = s.sh_offset >= p.p_offset && s.sh_offset + s.sh_size <= p.p_offset + p.p_filesz;
                in_memory && in_file && s.sh_addr - p.p_vaddr == s.sh_offset - p.p_offset
            };
            assert!(loads.iter().any(covers), "{name} ({s:?}) outside every PT_LOAD: {loads:?}");
            // Code is mapped executable, and everything readable, as a linker sets p_flags.
            use goblin::elf::program_header::{PF_R, PF_X};
            let exec = s.sh_flags & u64::from(goblin::elf::section_header::SHF_EXECINSTR) != 0;
            let perms = if exec { PF_R | PF_X } else { PF_R };
            assert!(loads.iter().any(|p| covers(p) && p.p_flags & perms == perms), "{name}: no PT_LOAD with flags {perms:#x} covers it: {loads:?}");
        }
        // The build-id note is also named by a PT_NOTE segment, readable, where the section is.
        let Some(note) = elf.section_headers.iter().find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".note.gnu.build-id")) else {
            panic!("no note")
        };
        let notes: Vec<_> = elf.program_headers.iter().filter(|p| p.p_type == goblin::elf::program_header::PT_NOTE).collect();
        let named = |p: &&goblin::elf::ProgramHeader| {
            (p.p_offset, p.p_vaddr, p.p_filesz, p.p_flags) == (note.sh_offset, note.sh_addr, note.sh_size, goblin::elf::program_header::PF_R)
        };
        assert!(notes.iter().any(named), "{note:?} in {notes:?}");
    }
}

#[test]
fn a_moved_fixture_is_a_few_kib_and_each_function_symbol_names_its_code() {
    // Tests build thousands of moved fixtures: they stay small (their tables, a page of
    // functions, a page of .rodata), whichever symbol tables they carry.
    for f in [Fixture::moved(), Fixture { tables: Tables::Symtab, ..Fixture::moved() }] {
        let lib = f.build().unwrap();
        assert!(lib.len() <= 0x4000, "{} bytes", lib.len());
        let img = Image::parse("fixture", &lib).unwrap();
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let strtab = if f.tables == Tables::Symtab { &elf.strtab } else { &elf.dynstrtab };
        let funcs = elf.dynsyms.iter().chain(elf.syms.iter()).filter(|s| s.st_type() == goblin::elf::sym::STT_FUNC);
        let mut types = 0;
        for s in funcs {
            let name = strtab.get_at(s.st_name).unwrap_or("?");
            let code = img.read_va(s.st_value, s.st_size as usize).unwrap_or_default();
            if name.contains("setupHeader") {
                assert_eq!(code.first(), Some(&if name.contains("Base") { 0x0f } else { SETUP_HEADER_CODE[0] }), "{name}");
            } else {
                assert_eq!(code, [0xc3], "{name}: a type function is one `ret`");
                types += 1;
            }
        }
        assert_eq!(types, f.type_names.len());
    }
}

#[test]
fn a_library_for_another_machine_is_named_by_its_machine() {
    // A build for Graviton (AArch64) fails the x86-64 fact, and says what it is.
    let mut lib = Fixture::moved().build().unwrap();
    for (machine, name) in [(183u16, "AArch64 (e_machine 183)"), (243, "e_machine 243")] {
        lib[18..20].copy_from_slice(&machine.to_le_bytes());
        let r = check(&lib).unwrap();
        let m = row(&r, "elf.machine");
        assert_eq!((m.status, m.expected.as_deref(), m.found.as_deref()), (Status::Differs, Some("x86-64 (e_machine 62)"), Some(name)));
    }
}

#[test]
fn a_profile_whose_addresses_overlap_gets_no_fixture() {
    // A pinned profile with addresses that would lay two things over each other is refused
    // with both ends named; at the edge (the LUT 0x20 bytes past the strings) it is built.
    let known = Fixture::known().unwrap();
    let Placement::Pinned(p) = &known.placement else { panic!("known is pinned") };
    let build = |edit: &dyn Fn(&mut Profile)| {
        let mut f = known.clone();
        if let Placement::Pinned(p) = &mut f.placement {
            edit(p);
        }
        f.build().map(|b| b.len()).map_err(|e| e.to_string())
    };
    let rodata = p.section_base(".rodata").unwrap();
    let strings_end = rodata + 0x20 + known.strings.iter().map(|s| s.len() as u64 + 1).sum::<u64>();
    let lut_at = |lut: u64| move |p: &mut Profile| drop(p.addresses.insert("dtype.bir_to_wire".into(), format!("{lut:#x}")));
    let e = build(&lut_at(strings_end + 0x1f)).unwrap_err();
    assert!(e.contains(&format!("LUT at {:#x} overlaps the strings ending at {strings_end:#x}", strings_end + 0x1f)), "{e}");
    assert!(build(&lut_at(strings_end + 0x20)).is_ok());
    // .rodata below the last function, and .text below the tables before it.
    let e = build(&|p: &mut Profile| p.sections.rodata = Some(format!("{:#x}", p.section_base(".text").unwrap() + 0x10))).unwrap_err();
    assert!(e.contains("overlaps .text code ending at"), "{e}");
    let e = build(&|p: &mut Profile| p.sections.text = Some("0x100".into())).unwrap_err();
    assert!(e.contains(".text at 0x100 overlaps the headers ending at"), "{e}");
    // Each section may start right where what comes before it ends.
    let end = |e: &str| e.rsplit("ending at ").next().unwrap_or_default().trim().to_string();
    let headers_end = end(&e);
    assert!(build(&|p: &mut Profile| p.sections.text = Some(headers_end.clone())).is_ok(), ".text at {headers_end}");
    let e = build(&|p: &mut Profile| p.sections.rodata = Some(format!("{:#x}", p.section_base(".text").unwrap() + 0x10))).unwrap_err();
    let code_end = end(&e);
    assert!(build(&|p: &mut Profile| p.sections.rodata = Some(code_end.clone())).is_ok(), ".rodata at {code_end}");
    // And there .text still holds every setup header's 16 bytes.
    let mut f = known.clone();
    if let Placement::Pinned(p) = &mut f.placement {
        p.sections.rodata = Some(code_end.clone());
    }
    let lib = f.build().unwrap();
    let img = Image::parse("lib.so", &lib).unwrap();
    let Some(text) = img.section(".text") else { panic!("no .text") };
    for g in ["v2", "v3", "v4"] {
        let Some(at) = p.address(&format!("setup_header.{g}")) else { panic!("no {g}") };
        assert!(at >= text.addr && at + 0x10 <= text.addr + text.size, "setup_header.{g} at {at:#x} outside .text");
    }
}

#[test]
fn no_two_sections_of_the_fixture_overlap_wherever_the_tables_end() {
    // More symbols move the dynamic tables' end across page boundaries; `.text` (placed at the
    // next page) must start after all of them each time.
    let mut f = Fixture::moved();
    let mut crossings = 0;
    let mut last_page = 0;
    for k in 0..200 {
        f.type_names.push(format!("PaddingType{k:03}"));
        let lib = f.build().unwrap();
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let mut spans: Vec<(u64, u64, &str)> = elf
            .section_headers
            .iter()
            .filter(|s| s.sh_type != goblin::elf::section_header::SHT_NULL && s.sh_type != goblin::elf::section_header::SHT_NOBITS && s.sh_size > 0)
            .map(|s| (s.sh_offset, s.sh_offset + s.sh_size, elf.shdr_strtab.get_at(s.sh_name).unwrap_or("?")))
            .collect();
        spans.sort();
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0, "{k} extra names: {} ends at {:#x}, after {} starts at {:#x}", w[0].2, w[0].1, w[1].2, w[1].0);
        }
        let Some(&(_, dynamic_end, _)) = spans.iter().find(|s| s.2 == ".dynamic") else { panic!(".dynamic missing") };
        crossings += usize::from(dynamic_end / 0x1000 != last_page);
        last_page = dynamic_end / 0x1000;
    }
    assert!(crossings >= 2, "the tables crossed only {crossings} page boundaries");
}

#[test]
fn every_function_of_the_fixture_lies_inside_text_however_many_types_it_has() {
    // One 16-byte body per type function: with enough of them the code runs past the first
    // page, and `.rodata` must move on rather than sit on top of the last bodies.
    // 224 type functions end the code exactly on a page: `.rodata` may start right there.
    for extra in [0usize, 224 - Fixture::moved().type_names.len(), 300] {
        let mut f = Fixture::moved();
        f.type_names.extend((0..extra).map(|k| format!("PaddingType{k:03}")));
        let lib = f.build().unwrap();
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let section = |name: &str| {
            let Some(s) = elf.section_headers.iter().find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(name)) else { panic!("no {name}") };
            (s.sh_addr, s.sh_addr + s.sh_size)
        };
        let (text, text_end) = section(".text");
        assert!(text_end <= section(".rodata").0, "{extra} extra types: .text ends at {text_end:#x}, after .rodata starts");
        let funcs: Vec<_> = (elf.dynsyms.iter().map(|s| (s, &elf.dynstrtab)))
            .chain(elf.syms.iter().map(|s| (s, &elf.strtab)))
            .filter(|(s, _)| s.st_type() == goblin::elf::sym::STT_FUNC)
            .collect();
        assert!(funcs.len() > extra, "{extra} extra types, {} functions", funcs.len());
        for (s, names) in funcs {
            let name = names.get_at(s.st_name).unwrap_or("?");
            assert!(
                s.st_value >= text && s.st_value + s.st_size.max(1) <= text_end,
                "{extra} extra types: {name} at {:#x} outside .text {text:#x}..{text_end:#x}",
                s.st_value
            );
        }
    }
}

#[test]
fn a_fixture_pads_to_any_size_its_section_headers_can_end_at() {
    // Unpadded, the section headers follow the content at the next 8-byte boundary: that
    // size is the least `pad_to` takes, and gives the same file; larger sizes that keep the
    // headers 8-aligned pad with zeros; a size between, or unaligned, is refused by name.
    let natural = Fixture::moved().build().unwrap();
    let n = natural.len() as u64;
    let at = |size: u64| {
        let mut f = Fixture::moved();
        f.pad_to = Some(size);
        f.build()
    };
    assert_eq!(at(n).unwrap(), natural);
    let padded = at(n + 64).unwrap();
    assert_eq!(padded.len() as u64, n + 64);
    assert!(goblin::elf::Elf::parse(&padded).is_ok());
    for bad in [n - 8, n + 4] {
        let e = at(bad).unwrap_err().to_string();
        assert!(e.contains(&format!("pad_to {bad} leaves no room")), "{bad}: {e}");
    }
    assert!(at(10).unwrap_err().to_string().contains("pad_to 10 is too small"));
}

#[test]
fn the_build_id_note_is_as_long_as_a_linker_writes_it() {
    // A GNU build-id note: a 12-byte header, "GNU\0", then the id padded to 4 bytes; nothing after.
    for id_len in [0usize, 1, 3, 4, 20, 21] {
        let mut f = Fixture::moved();
        f.build_id = (1..=id_len as u8).collect();
        let lib = f.build().unwrap();
        let elf = goblin::elf::Elf::parse(&lib).unwrap();
        let Some(note) = elf.section_headers.iter().find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".note.gnu.build-id")) else {
            panic!("no build-id note section")
        };
        assert_eq!(note.sh_size as usize, 16 + id_len.div_ceil(4) * 4, "id of {id_len} bytes");
        let Some(pt_note) = elf.program_headers.iter().find(|p| p.p_type == goblin::elf::program_header::PT_NOTE) else { panic!("no PT_NOTE") };
        assert_eq!(pt_note.p_filesz, note.sh_size);
    }
}

#[test]
fn a_section_header_table_that_ends_at_the_end_of_the_file_is_read() {
    // Two (null) section headers, the file's last 128 bytes: in bounds to the byte.
    let mut lib = Fixture::moved().build().unwrap();
    let at = lib.len() as u64;
    lib.extend_from_slice(&[0u8; 128]);
    lib[0x28..0x30].copy_from_slice(&at.to_le_bytes());
    lib[0x3c..0x3e].copy_from_slice(&2u16.to_le_bytes());
    lib[0x3e..0x40].copy_from_slice(&0u16.to_le_bytes());
    if let Err(e) = Image::parse("fixture", &lib) {
        panic!("{e}");
    }
    // One byte short, it is truncated.
    lib.pop();
    let Err(e) = Image::parse("fixture", &lib) else { panic!("a cut section header table was read") };
    let want = format!("section header table (2 entries, e_shoff) at offset {at:#x} needs 0x80 bytes but the file has {:#x}", lib.len());
    assert!(e.to_string().contains(&want), "{e}");
}

#[test]
fn a_section_that_ends_at_the_end_of_the_file_is_read() {
    // .shstrtab's bytes copied to the file's end and its header pointed there.
    let mut lib = Fixture::moved().build().unwrap();
    let (shoff, shstrndx) =
        (u64::from_le_bytes(lib[0x28..0x30].try_into().unwrap()) as usize, usize::from(u16::from_le_bytes([lib[0x3e], lib[0x3f]])));
    let hdr = shoff + 64 * shstrndx;
    let (off, size) = (
        u64::from_le_bytes(lib[hdr + 0x18..hdr + 0x20].try_into().unwrap()) as usize,
        u64::from_le_bytes(lib[hdr + 0x20..hdr + 0x28].try_into().unwrap()) as usize,
    );
    let names = lib[off..off + size].to_vec();
    let at = lib.len() as u64;
    lib.extend_from_slice(&names);
    lib[hdr + 0x18..hdr + 0x20].copy_from_slice(&at.to_le_bytes());
    if let Err(e) = Image::parse("fixture", &lib) {
        panic!("{e}");
    }
    lib.pop();
    let Err(e) = Image::parse("fixture", &lib) else { panic!("a cut section was read") };
    assert!(e.to_string().contains(&format!("section {shstrndx} (header at {hdr:#x})")), "{e}");
}

#[test]
fn a_program_header_table_that_ends_at_the_end_of_the_file_is_read() {
    // The same program headers copied to the file's end (e_phoff moved there): in bounds to
    // the byte, and read as before.
    let mut lib = Fixture::moved().build().unwrap();
    let (phoff, phnum) = (u64::from_le_bytes(lib[0x20..0x28].try_into().unwrap()) as usize, usize::from(u16::from_le_bytes([lib[0x38], lib[0x39]])));
    assert!(phnum > 0);
    let table = lib[phoff..phoff + 56 * phnum].to_vec();
    let at = lib.len() as u64;
    lib.extend_from_slice(&table);
    lib[0x20..0x28].copy_from_slice(&at.to_le_bytes());
    if let Err(e) = Image::parse("fixture", &lib) {
        panic!("{e}");
    }
    // One byte short, it is truncated, and the message names the table and its offset.
    lib.pop();
    let Err(e) = Image::parse("fixture", &lib) else { panic!("a cut program header table was read") };
    assert!(
        e.to_string().contains(&format!(
            "program header table ({phnum} entries, e_phoff) at offset {at:#x} needs {:#x} bytes but the file has {:#x}",
            56 * phnum,
            lib.len()
        )),
        "{e}"
    );
}

#[test]
fn an_assert_text_found_twice_says_so_and_once_says_nothing() {
    let mut f = Fixture::moved();
    let r = report(&f);
    assert!(row(&r, "assert.mx_scale_in_sb").notes.is_empty(), "{:?}", row(&r, "assert.mx_scale_in_sb").notes);
    f.strings.push("MX Scale Tensor can only be in SB".to_string());
    let r = report(&f);
    let notes = &row(&r, "assert.mx_scale_in_sb").notes;
    assert!(notes.iter().any(|n| n.starts_with("2 copies: ")), "{notes:?}");
}

#[test]
fn a_size_assert_stated_twice_says_how_many_strings_state_it() {
    let mut f = Fixture::moved();
    let r = report(&f);
    assert!(!row(&r, "assert.pattern_2d_size").notes.iter().any(|n| n.contains("strings state")), "{:?}", row(&r, "assert.pattern_2d_size").notes);
    let Some(two) = f.strings.iter().find(|s| s.contains("pattern 2D")).cloned() else { panic!("no 2D size assert") };
    f.strings.push(two);
    let r = report(&f);
    let notes = &row(&r, "assert.pattern_2d_size").notes;
    assert!(notes.iter().any(|n| n == "2 strings state a 2D size"), "{notes:?}");
}

#[test]
fn symbols_are_collected_by_key_only() {
    let lib = Fixture::moved().build().unwrap();
    let img = Image::parse("fixture", &lib).unwrap();
    let all = tpb_oracle::walrus::symbols::Symbols::collect(&img, &["setupHeader", "encode"]);
    let setup = tpb_oracle::walrus::symbols::Symbols::collect(&img, &["setupHeader"]);
    assert!(all.named.len() > setup.named.len() && !setup.named.is_empty(), "{} vs {}", all.named.len(), setup.named.len());
    assert!(setup.named.iter().all(|n| n.raw.contains("setupHeader")), "{:?}", setup.named.iter().map(|n| &n.raw).collect::<Vec<_>>());
    assert_eq!(setup.total, all.total, "every symbol is looked at");
}

#[test]
fn the_lut_found_twice_by_its_bytes_says_so() {
    // The table's bytes are valid UTF-8 with no NUL: a string of .rodata can carry a copy.
    let mut f = Fixture::moved();
    assert!(row(&report(&f), "dtype.bir_to_wire").notes.iter().all(|n| !n.contains("copies")));
    f.strings.push(BIR_TO_WIRE.iter().map(|&b| char::from(b)).collect());
    let r = report(&f);
    let notes = &row(&r, "dtype.bir_to_wire").notes;
    assert!(notes.iter().any(|n| n.starts_with("2 copies: ")), "{notes:?}");
}

/// A size assert is quoted up to its NUL: the string alone, not the one the
/// fixture writes after it (each is NUL-terminated in .rodata).
#[test]
fn a_size_assert_is_quoted_to_its_nul() {
    let want = tpb_oracle::fixture::expected_strings();
    for f in [Fixture::known().expect("profile"), Fixture::moved()] {
        let r = report(&f);
        let mut quoted = 0;
        for dims in 1..=4 {
            let Some(x) = r.row(&format!("assert.pattern_{dims}d_size")) else { continue };
            let head = format!("ISA mem pattern {dims}D");
            let text = want.iter().find(|s| s.starts_with(&head)).expect("the fixture writes each size assert");
            assert_eq!(x.notes.first(), Some(&format!("\"{text}\"")), "{dims}D: {:?}", x.notes);
            quoted += 1;
        }
        assert!(quoted >= 3, "only {quoted} size asserts reported");
    }
}

#[test]
fn the_text_report_shows_each_row_s_address_or_a_dash() {
    // The address column is what a user copies into a disassembler: hex where the
    // fact was found, "-" where it has none.
    let r = report(&Fixture::moved());
    let text = tpb_oracle::walrus::render::report_text(&r);
    let (mut with, mut without) = (0, 0);
    for row in &r.rows {
        let line = text.lines().find(|l| l.split_whitespace().nth(1) == Some(row.id.as_str())).unwrap_or_else(|| panic!("no line for {}", row.id));
        let shown = match row.address {
            Some(a) => {
                with += 1;
                format!("{a:#x}")
            }
            None => {
                without += 1;
                "-".to_string()
            }
        };
        // The column right of the confidence, right-aligned in ten.
        let cell = format!(" {:<9} {shown:>10}  ", row.confidence.as_str());
        assert!(line.contains(&cell), "{line:?} lacks {cell:?}");
    }
    assert!(with > 0 && without > 0, "{with} rows with an address, {without} without");
}

#[test]
fn e_ident_and_the_elf64_header_are_each_needed_whole() {
    // Cut short inside e_ident (16 bytes) the file is refused for e_ident; from 16 bytes
    // on, for the 64-byte header; a header of exactly 64 bytes and nothing else is read.
    let lib = Fixture::moved().build().unwrap();
    for len in 4..=64 {
        let mut cut = lib[..len].to_vec();
        if len == 64 {
            cut[0x20..0x30].fill(0); // e_phoff, e_shoff
            cut[0x38..0x40].fill(0); // e_phnum, e_shentsize, e_shnum, e_shstrndx
        }
        let got = Image::parse("fixture", &cut).map(|_| ()).map_err(|e| e.to_string());
        let want = match len {
            ..16 => Err(format!("fixture: truncated: ELF identification (e_ident) at offset 0x0 needs 0x10 bytes but the file has {len:#x}")),
            16..64 => Err(format!("fixture: truncated: ELF64 header at offset 0x0 needs 0x40 bytes but the file has {len:#x}")),
            _ => Ok(()),
        };
        assert_eq!(got, want, "{len} bytes");
    }
}

#[test]
fn without_program_headers_e_phoff_may_point_anywhere() {
    // e_phnum 0: there is no table, so where e_phoff points says nothing.
    let lib = Fixture::moved().build().unwrap();
    let mut none = lib.clone();
    none[0x38..0x3a].fill(0);
    none[0x20..0x28].copy_from_slice(&(lib.len() as u64 + 0x1000).to_le_bytes());
    let img = Image::parse("fixture", &none).unwrap_or_else(|e| panic!("{e}"));
    assert!(img.elf.program_headers.is_empty());
    assert_eq!(img.build_id(), Some(&tpb_oracle::fixture::MOVED_BUILD_ID[..]), "read through its section");
    // One program header there is a truncated table.
    none[0x38..0x3a].copy_from_slice(&1u16.to_le_bytes());
    let Err(e) = Image::parse("fixture", &none) else { panic!("a program header past the end was read") };
    assert!(e.to_string().contains("program header table (1 entries, e_phoff)"), "{e}");
}

#[test]
fn a_build_id_is_the_gnu_note_of_type_3_only() {
    // ELF notes: namesz, descsz, type, then the name and the descriptor, each padded to 4.
    fn note(name: &[u8], kind: u32, desc: &[u8]) -> Vec<u8> {
        let mut n = Vec::new();
        for v in [name.len() as u32, desc.len() as u32, kind] {
            n.extend_from_slice(&v.to_le_bytes());
        }
        for part in [name, desc] {
            n.extend_from_slice(part);
            n.resize(n.len().next_multiple_of(4), 0);
        }
        n
    }
    use tpb_oracle::walrus::image::gnu_build_id;
    let id = [0xab; 20];
    let build_id = note(b"GNU\0", 3, &id);
    assert_eq!(gnu_build_id(&build_id), Some(&id[..]));
    // A GNU note of another type (1, the ABI tag), and another vendor's note of type 3, come
    // first: each is passed over.
    for other in [note(b"GNU\0", 1, &[0, 0, 0, 0, 2, 0, 0, 0]), note(b"Go\0\0", 3, b"go-build-id"), note(b"GNU", 3, b"no NUL")] {
        let notes = [other.clone(), build_id.clone()].concat();
        assert_eq!(gnu_build_id(&notes), Some(&id[..]), "after {other:?}");
        assert_eq!(gnu_build_id(&other), None, "{other:?} alone");
    }
}
