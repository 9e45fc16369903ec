//! Seed inputs for the `elf` target: small, well-formed ELF64 shared objects
//! built here byte by byte, so the fuzzer starts past the magic and the
//! section table. The code and data bytes in them are the format's own facts
//! from `tpb_isa` (the setupHeader body, the dtype LUT), which is what the
//! library oracle looks for in a real `libwalrus.so`. Structure constants are
//! the ELF gABI's (ELF64, little-endian), not the TPB spec's.

use tpb_isa::bundle::header::SETUP_HEADER_CODE;
use tpb_isa::dtype::BIR_TO_WIRE;

const EHDR: usize = 64;
const SHDR: usize = 64;
const SYM: usize = 24;
// gABI section types and symbol info.
const SHT_PROGBITS: u32 = 1;
const SHT_STRTAB: u32 = 3;
const SHT_DYNSYM: u32 = 11;
const SHF_ALLOC: u64 = 2;
const SHF_EXEC: u64 = 4;
const STT_FUNC_GLOBAL: u8 = 0x12;
const STT_OBJECT_GLOBAL: u8 = 0x11;

struct Section {
    name: &'static str,
    ty: u32,
    flags: u64,
    data: Vec<u8>,
    link: u32,
    entsize: u64,
}

/// The ELF seeds by file name.
pub fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    vec![("elf64-header-only.bin", build(&[])), ("elf64-dynsym.bin", build(&sections()))]
}

fn sections() -> Vec<Section> {
    let dynstr = b"\0tpb_setup_header\0tpb_dtype_lut\0".to_vec();
    // Symbols: the null symbol, a function in .text (section 1), an object in .rodata (section 2).
    let mut dynsym = vec![0u8; SYM];
    dynsym.extend(symbol(1, STT_FUNC_GLOBAL, 1, SETUP_HEADER_CODE.len() as u64));
    dynsym.extend(symbol(18, STT_OBJECT_GLOBAL, 2, BIR_TO_WIRE.len() as u64));
    vec![
        Section { name: ".text", ty: SHT_PROGBITS, flags: SHF_ALLOC | SHF_EXEC, data: SETUP_HEADER_CODE.to_vec(), link: 0, entsize: 0 },
        Section { name: ".rodata", ty: SHT_PROGBITS, flags: SHF_ALLOC, data: BIR_TO_WIRE.to_vec(), link: 0, entsize: 0 },
        Section { name: ".dynstr", ty: SHT_STRTAB, flags: SHF_ALLOC, data: dynstr, link: 0, entsize: 0 },
        // sh_link of .dynsym names its string table (section 3).
        Section { name: ".dynsym", ty: SHT_DYNSYM, flags: SHF_ALLOC, data: dynsym, link: 3, entsize: SYM as u64 },
    ]
}

/// A symbol whose value is patched to its section's address by `build`.
fn symbol(name: u32, info: u8, shndx: u16, size: u64) -> Vec<u8> {
    let mut s = Vec::with_capacity(SYM);
    s.extend(name.to_le_bytes());
    s.push(info);
    s.push(0);
    s.extend(shndx.to_le_bytes());
    s.extend(0u64.to_le_bytes());
    s.extend(size.to_le_bytes());
    s
}

/// Lays out header, section data, `.shstrtab` and the section table; every
/// allocated section's address equals its file offset.
fn build(secs: &[Section]) -> Vec<u8> {
    let mut shstrtab = b"\0".to_vec();
    let mut names = Vec::new();
    for s in secs.iter().map(|s| s.name).chain([".shstrtab"]) {
        names.push(shstrtab.len() as u32);
        shstrtab.extend(s.as_bytes());
        shstrtab.push(0);
    }
    let mut body = vec![0u8; EHDR];
    let mut offsets = Vec::new();
    for s in secs {
        body.resize(body.len().next_multiple_of(8), 0);
        offsets.push(body.len() as u64);
        body.extend(&s.data);
    }
    body.resize(body.len().next_multiple_of(8), 0);
    let shstr_off = body.len() as u64;
    body.extend(&shstrtab);
    body.resize(body.len().next_multiple_of(8), 0);
    let shoff = body.len() as u64;
    // Patch symbol values to the address of their section.
    if let Some(i) = secs.iter().position(|s| s.ty == SHT_DYNSYM) {
        let base = offsets[i] as usize;
        for k in 1..secs[i].data.len() / SYM {
            let at = base + k * SYM;
            let shndx = usize::from(u16::from_le_bytes([body[at + 6], body[at + 7]]));
            let value = offsets.get(shndx.wrapping_sub(1)).copied().unwrap_or(0);
            body[at + 8..at + 16].copy_from_slice(&value.to_le_bytes());
        }
    }
    let shnum = secs.len() + 2;
    // Section table: null, the sections, .shstrtab.
    body.extend([0u8; SHDR]);
    for (i, s) in secs.iter().enumerate() {
        body.extend(shdr(names[i], s.ty, s.flags, offsets[i], s.data.len() as u64, s.link, s.entsize));
    }
    body.extend(shdr(names[secs.len()], SHT_STRTAB, 0, shstr_off, shstrtab.len() as u64, 0, 0));
    let mut h = Vec::with_capacity(EHDR);
    h.extend(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0"); // ELF64, little-endian, version 1
    h.extend(3u16.to_le_bytes()); // ET_DYN
    h.extend(62u16.to_le_bytes()); // EM_X86_64
    h.extend(1u32.to_le_bytes());
    h.extend(0u64.to_le_bytes()); // entry
    h.extend(0u64.to_le_bytes()); // phoff
    h.extend(shoff.to_le_bytes());
    h.extend(0u32.to_le_bytes()); // flags
    h.extend((EHDR as u16).to_le_bytes());
    h.extend(56u16.to_le_bytes()); // phentsize
    h.extend(0u16.to_le_bytes()); // phnum
    h.extend((SHDR as u16).to_le_bytes());
    h.extend((shnum as u16).to_le_bytes());
    h.extend(((shnum - 1) as u16).to_le_bytes()); // shstrndx
    body[..EHDR].copy_from_slice(&h);
    body
}

fn shdr(name: u32, ty: u32, flags: u64, off: u64, size: u64, link: u32, entsize: u64) -> Vec<u8> {
    let mut s = Vec::with_capacity(SHDR);
    s.extend(name.to_le_bytes());
    s.extend(ty.to_le_bytes());
    s.extend(flags.to_le_bytes());
    s.extend((if flags & SHF_ALLOC != 0 { off } else { 0 }).to_le_bytes());
    s.extend(off.to_le_bytes());
    s.extend(size.to_le_bytes());
    s.extend(link.to_le_bytes());
    // info: index of the first global symbol, for a symbol table.
    s.extend(u32::from(ty == SHT_DYNSYM).to_le_bytes());
    s.extend(8u64.to_le_bytes()); // addralign
    s.extend(entsize.to_le_bytes());
    s
}
