//! Which symbol table is read: PT_DYNAMIC, then .dynsym, then .symtab, and the tables passed over.

use super::*;

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
