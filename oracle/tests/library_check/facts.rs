//! Each fact of the library: read at the pinned addresses of the known build, found by search when moved, and failed alone by its mutant.

use super::*;

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
