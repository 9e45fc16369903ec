//! The library's symbols, demangled. The spec read its type names from the
//! dynamic symbol table (`nm -DC`), so that is read first, the way the loader
//! finds it (PT_DYNAMIC); a library whose dynamic segment yields nothing falls
//! back to the SHT_DYNSYM section, then to `.symtab`.

use super::image::Image;
use goblin::elf::section_header::SHT_DYNSYM;
use goblin::elf::sym::Symtab;
use goblin::strtab::Strtab;
use serde::Serialize;

/// Which table the symbols came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SymbolSource {
    /// DT_SYMTAB/DT_STRTAB through the PT_DYNAMIC segment.
    #[serde(rename = "PT_DYNAMIC")]
    Dynamic,
    /// The SHT_DYNSYM section header.
    #[serde(rename = ".dynsym")]
    DynsymSection,
    /// The static `.symtab`.
    #[serde(rename = ".symtab")]
    Symtab,
    /// No symbol table at all (a stripped library).
    #[serde(rename = "none")]
    None,
}

impl SymbolSource {
    /// Its name in reports, as in the JSON (`PT_DYNAMIC`, `.dynsym`, `.symtab`, `none`).
    pub const fn as_str(self) -> &'static str {
        match self {
            SymbolSource::Dynamic => "PT_DYNAMIC",
            SymbolSource::DynsymSection => ".dynsym",
            SymbolSource::Symtab => ".symtab",
            SymbolSource::None => "none",
        }
    }
}

/// A symbol whose name mentions something the oracle looks for.
#[derive(Clone, Debug)]
pub struct Named {
    /// The name as stored (mangled, for a C++ symbol).
    pub raw: String,
    /// `nm -C` spelling: demangled when the raw name is a valid Itanium name.
    pub demangled: String,
    /// `st_value`: its virtual address.
    pub value: u64,
    /// `st_size`: its size in bytes.
    pub size: u64,
}

/// The symbols of interest plus how many symbols the table held.
#[derive(Clone, Debug)]
pub struct Symbols {
    /// The table read.
    pub source: SymbolSource,
    /// Symbols it holds, all of them.
    pub total: usize,
    /// Those whose names mention something looked for, in table order.
    pub named: Vec<Named>,
}

/// Names longer than this are not demangled (no real type name needs it,
/// and it bounds the demangler's work on hostile input).
const MAX_DEMANGLE: usize = 8 << 10;

impl Symbols {
    /// Collects the symbols whose raw name contains any of `keys`.
    pub fn collect(img: &Image<'_>, keys: &[&str]) -> Symbols {
        let elf = &img.elf;
        if elf.dynsyms.len() > 1 && elf.dynstrtab.len() > 0 {
            return scan(SymbolSource::Dynamic, &elf.dynsyms, &elf.dynstrtab, keys);
        }
        if let Some((syms, strs)) = dynsym_section(img) {
            return scan(SymbolSource::DynsymSection, &syms, &strs, keys);
        }
        if elf.syms.len() > 1 {
            return scan(SymbolSource::Symtab, &elf.syms, &elf.strtab, keys);
        }
        Symbols { source: SymbolSource::None, total: 0, named: Vec::new() }
    }
}

fn scan(source: SymbolSource, syms: &Symtab<'_>, strtab: &Strtab<'_>, keys: &[&str]) -> Symbols {
    let finders: Vec<memchr::memmem::Finder<'_>> = keys.iter().map(|k| memchr::memmem::Finder::new(k.as_bytes())).collect();
    let mut named = Vec::new();
    for s in syms.iter() {
        let Some(raw) = strtab.get_at(s.st_name) else { continue };
        if raw.is_empty() || !finders.iter().any(|f| f.find(raw.as_bytes()).is_some()) {
            continue;
        }
        named.push(Named { raw: raw.to_string(), demangled: demangle(raw), value: s.st_value, size: s.st_size });
    }
    Symbols { source, total: syms.len(), named }
}

/// The SHT_DYNSYM section and its linked string table, read by section header.
fn dynsym_section<'a>(img: &Image<'a>) -> Option<(Symtab<'a>, Strtab<'a>)> {
    let shdrs = &img.elf.section_headers;
    let sh = shdrs.iter().find(|s| s.sh_type == SHT_DYNSYM)?;
    let link = shdrs.get(usize::try_from(sh.sh_link).ok()?)?;
    let entsize = if sh.sh_entsize == 0 { 24 } else { sh.sh_entsize };
    let count = usize::try_from(sh.sh_size / entsize).ok()?;
    if count < 2 {
        return None;
    }
    let ctx = goblin::container::Ctx::new(goblin::container::Container::Big, goblin::container::Endian::Little);
    let syms = Symtab::parse(img.bytes, usize::try_from(sh.sh_offset).ok()?, count, ctx).ok()?;
    let strs = Strtab::parse(img.bytes, usize::try_from(link.sh_offset).ok()?, usize::try_from(link.sh_size).ok()?, 0).ok()?;
    Some((syms, strs))
}

/// The `nm -C` form of a name: demangled if it is a valid Itanium name,
/// otherwise the name itself (C symbols are their own spelling).
pub fn demangle(raw: &str) -> String {
    if raw.starts_with("_Z") && raw.len() <= MAX_DEMANGLE {
        if let Ok(sym) = cpp_demangle::Symbol::new(raw.as_bytes()) {
            if let Ok(s) = sym.demangle() {
                return s;
            }
        }
    }
    raw.to_string()
}

/// Whether `name` occurs in `text` as a whole identifier (so TENSOR1D does not
/// match inside a longer name such as TENSOR1D_V2).
pub fn has_identifier(text: &str, name: &str) -> bool {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let t = text.as_bytes();
    memchr::memmem::find_iter(t, name.as_bytes()).any(|at| {
        let before = at.checked_sub(1).and_then(|i| t.get(i)).is_none_or(|&c| !ident(c));
        let after = t.get(at + name.len()).is_none_or(|&c| !ident(c));
        before && after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_source_reads_as_in_json() -> Result<(), serde_json::Error> {
        for s in [SymbolSource::Dynamic, SymbolSource::DynsymSection, SymbolSource::Symtab, SymbolSource::None] {
            assert_eq!(serde_json::to_string(&s)?, format!("\"{}\"", s.as_str()));
        }
        Ok(())
    }

    #[test]
    fn identifiers_match_whole_names_only() {
        assert!(has_identifier("f(NEURON_ISA_TPB_TENSOR1D*)", "NEURON_ISA_TPB_TENSOR1D"));
        assert!(has_identifier("NEURON_ISA_TPB_TENSOR1D", "NEURON_ISA_TPB_TENSOR1D"));
        assert!(!has_identifier("f(NEURON_ISA_TPB_TENSOR1D_V2*)", "NEURON_ISA_TPB_TENSOR1D"));
        assert!(!has_identifier("f(XNEURON_ISA_TPB_TENSOR1D)", "NEURON_ISA_TPB_TENSOR1D"));
        assert!(has_identifier("a(NEURON_ISA_TPB_TENSOR1D_V2, NEURON_ISA_TPB_TENSOR1D)", "NEURON_ISA_TPB_TENSOR1D"));
    }

    #[test]
    fn demangles_itanium_and_keeps_c_names() {
        assert_eq!(demangle("_ZN6walrus6CoreV211setupHeaderEPhPKh"), "walrus::CoreV2::setupHeader(unsigned char*, unsigned char const*)");
        assert_eq!(demangle("plain_c_symbol"), "plain_c_symbol");
        assert_eq!(demangle("_Zgarbage"), "_Zgarbage");
    }

    #[test]
    fn a_name_longer_than_the_demangling_bound_is_kept_as_it_is() {
        // A function of one long identifier: `_Z<n><n letters>v`, demangled as `aaa…a()`.
        let name = |n: usize| format!("_Z{n}{}v", "a".repeat(n));
        let short = name(100);
        assert_eq!(demangle(&short), format!("{}()", "a".repeat(100)));
        let long = name(MAX_DEMANGLE);
        assert!(long.len() > MAX_DEMANGLE);
        assert_eq!(demangle(&long), long);
    }
}
