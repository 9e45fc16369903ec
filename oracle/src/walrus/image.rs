//! The library as an ELF image: header sanity first (by hand, so a bad input
//! gets a message naming the field and offset), then `goblin` for the tables.
//! Nothing here executes or maps the library; it is a byte slice throughout.

use super::error::{Result, WalrusError};
use goblin::elf::{program_header::PT_LOAD, section_header::SHT_NOBITS, Elf};

/// `e_ident[EI_CLASS]` of a 64-bit ELF file, the only class the oracle reads.
pub(crate) const ELFCLASS64: u8 = 2;
/// `e_ident[EI_DATA]` of a little-endian ELF file, the only byte order it reads.
pub(crate) const ELFDATA2LSB: u8 = 1;
/// `e_machine` of x86-64, the machine the library is built for.
pub(crate) const EM_X86_64: u16 = 62;
const EHDR64: u64 = 64;
const PHDR64: u64 = 56;
const SHDR64: u64 = 64;
/// e_shstrndx value meaning "the index is in section 0's sh_link".
const SHN_XINDEX: u64 = 0xffff;

/// One section header, name resolved.
#[derive(Clone, Debug)]
pub struct Section {
    /// Its name from the section name table (`.rodata`; empty when out of range).
    pub name: String,
    /// Virtual address of its first byte (`sh_addr`).
    pub addr: u64,
    /// File offset of its first byte (`sh_offset`).
    pub offset: u64,
    /// Its size in bytes (`sh_size`).
    pub size: u64,
    /// `SHT_NOBITS` (`.bss`): it occupies no file bytes.
    pub nobits: bool,
}

/// A parsed library borrowing the one input buffer.
pub struct Image<'a> {
    /// The input's label for messages (`path` or `path!member`).
    pub label: String,
    /// The whole file.
    pub bytes: &'a [u8],
    /// goblin's parse of it.
    pub elf: Elf<'a>,
    /// `e_machine`.
    pub machine: u16,
    /// Every section header, in table order.
    pub sections: Vec<Section>,
}

fn rd(b: &[u8], off: u64, n: usize) -> Option<u64> {
    let start = usize::try_from(off).ok()?;
    let s = b.get(start..start.checked_add(n)?)?;
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(s);
    Some(u64::from_le_bytes(w))
}

impl<'a> Image<'a> {
    /// Parses `bytes` as a little-endian ELF64 library.
    pub fn parse(label: &str, bytes: &'a [u8]) -> Result<Image<'a>> {
        precheck(label, bytes)?;
        let elf = Elf::parse(bytes).map_err(|e| WalrusError::Elf { input: label.to_string(), detail: format!("malformed ELF: {e}") })?;
        let sections = elf
            .section_headers
            .iter()
            .map(|sh| Section {
                name: elf.shdr_strtab.get_at(sh.sh_name).unwrap_or("").to_string(),
                addr: sh.sh_addr,
                offset: sh.sh_offset,
                size: sh.sh_size,
                nobits: sh.sh_type == SHT_NOBITS,
            })
            .collect();
        let machine = elf.header.e_machine;
        Ok(Image { label: label.to_string(), bytes, elf, machine, sections })
    }

    /// The first section named `name`.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// A section's file bytes (`None` for NOBITS or out-of-file ranges).
    pub fn section_bytes(&self, s: &Section) -> Option<&'a [u8]> {
        if s.nobits {
            return None;
        }
        let start = usize::try_from(s.offset).ok()?;
        let end = start.checked_add(usize::try_from(s.size).ok()?)?;
        self.bytes.get(start..end)
    }

    /// The `.rodata` section and its bytes, which every constant search needs.
    pub fn rodata(&self) -> Result<(&Section, &'a [u8])> {
        let s = self.section(".rodata").ok_or_else(|| WalrusError::NoRodata { input: self.label.clone() })?;
        let b = self.section_bytes(s).ok_or_else(|| WalrusError::NoRodata { input: self.label.clone() })?;
        Ok((s, b))
    }

    /// The file offset of virtual address `va`: through a PT_LOAD segment,
    /// else through an allocated section.
    pub fn va_to_offset(&self, va: u64) -> Option<u64> {
        for ph in self.elf.program_headers.iter().filter(|p| p.p_type == PT_LOAD) {
            if va >= ph.p_vaddr && va - ph.p_vaddr < ph.p_filesz {
                return ph.p_offset.checked_add(va - ph.p_vaddr);
            }
        }
        self.sections
            .iter()
            .find(|s| !s.nobits && s.addr != 0 && va >= s.addr && va - s.addr < s.size)
            .and_then(|s| s.offset.checked_add(va - s.addr))
    }

    /// `len` bytes at virtual address `va`, when they are all in the file.
    pub fn read_va(&self, va: u64, len: usize) -> Option<&'a [u8]> {
        let start = usize::try_from(self.va_to_offset(va)?).ok()?;
        self.bytes.get(start..start.checked_add(len)?)
    }

    /// The GNU build-id: the `.note.gnu.build-id` section, else any PT_NOTE.
    pub fn build_id(&self) -> Option<&'a [u8]> {
        if let Some(b) = self.section(".note.gnu.build-id").and_then(|s| self.section_bytes(s)) {
            if let Some(id) = gnu_build_id(b).filter(|id| !id.is_empty()) {
                return Some(id);
            }
        }
        self.elf
            .program_headers
            .iter()
            .filter(|p| p.p_type == goblin::elf::program_header::PT_NOTE)
            .filter_map(|p| {
                let start = usize::try_from(p.p_offset).ok()?;
                self.bytes.get(start..start.checked_add(usize::try_from(p.p_filesz).ok()?)?)
            })
            .find_map(|n| gnu_build_id(n).filter(|id| !id.is_empty()))
    }
}

/// NT_GNU_BUILD_ID descriptor from a run of ELF notes (4-byte aligned fields).
pub fn gnu_build_id(mut notes: &[u8]) -> Option<&[u8]> {
    const NT_GNU_BUILD_ID: u64 = 3;
    let pad = |n: usize| n.checked_add(3).map(|x| x & !3);
    while notes.len() >= 12 {
        let namesz = usize::try_from(rd(notes, 0, 4)?).ok()?;
        let descsz = usize::try_from(rd(notes, 4, 4)?).ok()?;
        let kind = rd(notes, 8, 4)?;
        let name_end = 12usize.checked_add(pad(namesz)?)?;
        let desc_end = name_end.checked_add(pad(descsz)?)?;
        let name = notes.get(12..12 + namesz)?;
        let desc = notes.get(name_end..name_end.checked_add(descsz)?)?;
        if kind == NT_GNU_BUILD_ID && name == b"GNU\0" {
            return Some(desc);
        }
        notes = notes.get(desc_end..)?;
    }
    None
}

/// Rejects what the oracle cannot read, with the field and offset at fault:
/// not ELF, not 64-bit, not little-endian, header tables or segments or
/// sections running past the end of the file (a truncated download).
fn precheck(label: &str, b: &[u8]) -> Result<()> {
    let len = b.len() as u64;
    let elf_err = |detail: String| WalrusError::Elf { input: label.to_string(), detail };
    let trunc = |what: String, offset: u64, need: u64| WalrusError::Truncated { input: label.to_string(), what, offset, need, len };
    if b.get(..4) != Some(&b"\x7fELF"[..]) {
        let magic: Vec<String> = b.iter().take(4).map(|x| format!("{x:02x}")).collect();
        return Err(elf_err(format!("not an ELF file (magic {})", if magic.is_empty() { "none".into() } else { magic.join(" ") })));
    }
    if b.len() < 16 {
        return Err(trunc("ELF identification (e_ident)".into(), 0, 16));
    }
    match b[4] {
        ELFCLASS64 => {}
        1 => return Err(elf_err("32-bit ELF (e_ident[EI_CLASS] = ELFCLASS32 at offset 0x4); libwalrus.so is ELF64".into())),
        c => return Err(elf_err(format!("invalid ELF class {c} (e_ident[EI_CLASS] at offset 0x4)"))),
    }
    match b[5] {
        ELFDATA2LSB => {}
        2 => return Err(elf_err("big-endian ELF (e_ident[EI_DATA] = ELFDATA2MSB at offset 0x5); libwalrus.so is little-endian x86-64".into())),
        d => return Err(elf_err(format!("invalid ELF data encoding {d} (e_ident[EI_DATA] at offset 0x5)"))),
    }
    if len < EHDR64 {
        return Err(trunc("ELF64 header".into(), 0, EHDR64));
    }
    let field = |off: u64, n: usize| rd(b, off, n).unwrap_or(0);
    let (phoff, phentsize, phnum) = (field(0x20, 8), field(0x36, 2), field(0x38, 2));
    let (shoff, shentsize, mut shnum) = (field(0x28, 8), field(0x3a, 2), field(0x3c, 2));
    if phnum > 0 && phentsize != PHDR64 {
        return Err(elf_err(format!("e_phentsize {phentsize} at offset 0x36, expected {PHDR64}")));
    }
    if shoff != 0 && shentsize != SHDR64 {
        return Err(elf_err(format!("e_shentsize {shentsize} at offset 0x3a, expected {SHDR64}")));
    }
    let table_end = |off: u64, n: u64, size: u64| n.checked_mul(size).and_then(|s| off.checked_add(s));
    let ph_end = table_end(phoff, phnum, PHDR64).ok_or_else(|| elf_err(format!("e_phoff {phoff:#x} overflows")))?;
    if phnum > 0 && ph_end > len {
        return Err(trunc(format!("program header table ({phnum} entries, e_phoff)"), phoff, ph_end - phoff));
    }
    if shoff == 0 {
        shnum = 0;
    } else {
        if shoff.checked_add(SHDR64).is_none_or(|e| e > len) {
            return Err(trunc("section header table (e_shoff)".into(), shoff, SHDR64));
        }
        if shnum == 0 {
            // More than SHN_LORESERVE sections: the count lives in section 0's sh_size.
            shnum = field(shoff + 0x20, 8);
        }
        let sh_end = table_end(shoff, shnum, SHDR64).ok_or_else(|| elf_err(format!("e_shoff {shoff:#x} overflows")))?;
        if sh_end > len {
            return Err(trunc(format!("section header table ({shnum} entries, e_shoff)"), shoff, sh_end - shoff));
        }
        // The section name string table; out of range, every section would be
        // nameless and the library would look stripped.
        let mut shstrndx = field(0x3e, 2);
        let mut from = "e_shstrndx at offset 0x3e".to_string();
        if shstrndx == SHN_XINDEX {
            shstrndx = field(shoff + 0x28, 4);
            from = format!("section 0's sh_link at offset {:#x} (e_shstrndx is SHN_XINDEX)", shoff + 0x28);
        }
        if shstrndx != 0 && shstrndx >= shnum {
            return Err(elf_err(format!(
                "section header string table index {shstrndx} ({from}) is out of range: the file has {shnum} section headers"
            )));
        }
    }
    for i in 0..phnum {
        let at = phoff + i * PHDR64;
        let (p_type, p_offset, p_filesz) = (field(at, 4), field(at + 8, 8), field(at + 0x20, 8));
        let end =
            p_offset.checked_add(p_filesz).ok_or_else(|| elf_err(format!("program header {i} (offset {at:#x}): p_offset + p_filesz overflows")))?;
        if p_filesz > 0 && end > len {
            return Err(trunc(format!("segment {i} (p_type {p_type:#x}, program header at {at:#x})"), p_offset, p_filesz));
        }
    }
    for i in 0..shnum {
        let at = shoff + i * SHDR64;
        let (sh_type, sh_offset, sh_size) = (field(at + 4, 4), field(at + 0x18, 8), field(at + 0x20, 8));
        if sh_type == u64::from(SHT_NOBITS) || sh_size == 0 {
            continue;
        }
        let end = sh_offset.checked_add(sh_size).ok_or_else(|| elf_err(format!("section {i} (header at {at:#x}): sh_offset + sh_size overflows")))?;
        if end > len {
            return Err(trunc(format!("section {i} (header at {at:#x})"), sh_offset, sh_size));
        }
    }
    Ok(())
}
