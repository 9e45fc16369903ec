//! The fixture library is laid out as a linker writes one, whatever its tables hold.

use super::*;

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
