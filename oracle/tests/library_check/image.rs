//! The ELF image: headers and tables read whole, to the end of the file and no further.

use super::*;

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
