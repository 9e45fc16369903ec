//! The oracle's fact list: every claim the spec makes about the vendor library,
//! with its provenance. Values come from `tpb_isa` (the LUT, descriptor sizes,
//! type names, setupHeader body); the few claims `isa` has no home for (the
//! assert texts, the ELF identity of the build) are declared here once.

use serde::Serialize;
use tpb_isa::descriptor::{Tensor1d, Tensor2d, Tensor3d, Tensor4d};
use tpb_isa::layout::Layout;
use tpb_isa::{Confidence, Generation, Provenance};

/// Which group a fact belongs to; `diff` compares only constants' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Which file this is: build-id, digests, size.
    Identity,
    /// Where the build keeps things: section bases.
    Placement,
    /// A constant of the format that the library encodes.
    Constant,
}

/// What a fact is about, and so how it is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The GNU build-id note.
    BuildId,
    /// The file's MD5.
    Md5,
    /// The file's SHA-256.
    Sha256,
    /// The file's length.
    FileSize,
    /// The ELF class (ELF64).
    ElfClass,
    /// The ELF machine (x86-64).
    ElfMachine,
    /// A section's virtual address (`.text`, `.rodata`).
    SectionBase(&'static str),
    /// Whether every section's virtual address equals its file offset.
    VaEqualsOffset,
    /// The BIR dtype → wire tag LUT in `.rodata`.
    BirToWire,
    /// "ISA mem pattern ND must have K bytes to encode".
    SizeAssert {
        /// N, the pattern's dimensions (1..=4).
        dims: usize,
    },
    /// Another assert message in `.rodata`.
    AssertText(&'static str),
    /// A recovered C type name in the demangled symbols.
    TypeName(&'static str),
    /// setupHeader's machine code for one generation.
    SetupHeader(Generation),
}

/// One checkable fact.
#[derive(Clone, Debug)]
pub struct FactSpec {
    /// Its id (`lut.bir_to_wire`): the key of reports and profiles.
    pub id: String,
    /// What it is about, and so how it is found.
    pub target: Target,
    /// Whether it is identity, placement or a constant.
    pub kind: Kind,
    /// The spec section it comes from, and how sure the spec is.
    pub prov: Provenance,
    /// What it is, in one line.
    pub doc: String,
}

impl FactSpec {
    /// Whether a profile may pin this fact's address.
    pub fn pinnable(&self) -> bool {
        matches!(self.target, Target::BirToWire | Target::SetupHeader(_))
    }
}

/// Build identity and ELF kind: the spec's preamble (build & version provenance).
pub const IDENTITY_PROV: Provenance = Provenance::new("Build & Version Provenance", Confidence::Confirmed);

/// The size asserts' wording, split around N and K (read from `.rodata`,
/// §2.3/2.4): the text before N.
pub(crate) const SIZE_ASSERT_HEAD: &str = "ISA mem pattern ";
/// The text between N and K.
pub(crate) const SIZE_ASSERT_DIMS: &str = "D must have ";
/// The text after K.
pub(crate) const SIZE_ASSERT_TAIL: &str = " bytes to encode";

/// The other assert messages the spec read from `.rodata`: (fact id, text, section).
pub const ASSERT_TEXTS: [(&str, &str, &str); 3] = [
    ("assert.mx_scale_in_sb", "MX Scale Tensor can only be in SB", "2.6"),
    ("assert.dst_union_missing_field", "ISA mem pattern is union but is missing field", "2.5"),
    ("assert.src_static_has_indirect", "static tensor pattern but has indirect field", "2.5"),
];

/// The static N-dim source pattern layouts, N = 1..=4: the size asserts' K.
pub fn pattern_layout(dims: usize) -> Option<&'static Layout> {
    const L: [&Layout; 4] = [&Tensor1d::LAYOUT, &Tensor2d::LAYOUT, &Tensor3d::LAYOUT, &Tensor4d::LAYOUT];
    L.get(dims.checked_sub(1)?).copied()
}

/// The full text of the N-dim size assert with byte count K.
pub fn size_assert_text(dims: usize, k: usize) -> String {
    format!("{SIZE_ASSERT_HEAD}{dims}{SIZE_ASSERT_DIMS}{k}{SIZE_ASSERT_TAIL}")
}

/// The provenance `isa` gives the setupHeader body.
pub fn setup_header_prov() -> Provenance {
    tpb_isa::bundle::header::SETUP_HEADER_PROV
}

/// Every fact the oracle checks, in report order.
pub fn fact_specs() -> Vec<FactSpec> {
    let f = |id: &str, target, kind, prov, doc: &str| FactSpec { id: id.to_string(), target, kind, prov, doc: doc.to_string() };
    let idp = IDENTITY_PROV;
    let mut v = vec![
        f("identity.build_id", Target::BuildId, Kind::Identity, idp, "GNU build-id (.note.gnu.build-id); selects the profile"),
        f("identity.md5", Target::Md5, Kind::Identity, idp, "MD5 of the whole file"),
        f("identity.sha256", Target::Sha256, Kind::Identity, idp, "SHA-256 of the whole file"),
        f("identity.size", Target::FileSize, Kind::Identity, idp, "file size in bytes"),
        f("elf.class", Target::ElfClass, Kind::Constant, idp, "ELF64, little-endian"),
        f("elf.machine", Target::ElfMachine, Kind::Constant, idp, "x86-64: setupHeader is x86-64 code"),
        f("section.text", Target::SectionBase(".text"), Kind::Placement, idp, ".text virtual address"),
        f("section.rodata", Target::SectionBase(".rodata"), Kind::Placement, idp, ".rodata virtual address"),
        f("section.va_equals_offset", Target::VaEqualsOffset, Kind::Placement, idp, ".text and .rodata: virtual address == file offset"),
        f(
            "dtype.bir_to_wire",
            Target::BirToWire,
            Kind::Constant,
            tpb_isa::dtype::BIR_TO_WIRE_PROV,
            "BIR dtype ordinal -> wire tag LUT (isa dtype::BIR_TO_WIRE)",
        ),
    ];
    for dims in 1..=4 {
        let prov = pattern_layout(dims).map(|l| l.prov).unwrap_or(Provenance::new("2.3", Confidence::Confirmed));
        v.push(f(
            &format!("assert.pattern_{dims}d_size"),
            Target::SizeAssert { dims },
            Kind::Constant,
            prov,
            &format!("\"{SIZE_ASSERT_HEAD}{dims}{SIZE_ASSERT_DIMS}K{SIZE_ASSERT_TAIL}\": K = TENSOR{dims}D size"),
        ));
    }
    for (id, text, section) in ASSERT_TEXTS {
        v.push(f(
            id,
            Target::AssertText(text),
            Kind::Constant,
            Provenance::new(section, Confidence::Confirmed),
            &format!("assert message \"{text}\""),
        ));
    }
    for (name, prov) in tpb_isa::roster::types() {
        v.push(f(
            &format!("type.{name}"),
            Target::TypeName(name),
            Kind::Constant,
            prov,
            "recovered type name in the demangled dynamic symbols (nm -DC)",
        ));
    }
    let sp = setup_header_prov();
    for g in Generation::ALL {
        v.push(f(
            &format!("setup_header.{}", g.as_str()),
            Target::SetupHeader(g),
            Kind::Constant,
            sp,
            &format!("setupHeader body of Core{}, = isa bundle::header::SETUP_HEADER_CODE", g.as_str().to_uppercase()),
        ));
    }
    v
}

/// The ids a profile may give an address for.
pub fn pinnable_ids() -> Vec<String> {
    fact_specs().into_iter().filter(FactSpec::pinnable).map(|s| s.id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_rule_agrees_with_layouts() {
        for dims in 1..=4 {
            let l = pattern_layout(dims).map(|l| l.size);
            assert_eq!(l, Some(tpb_isa::descriptor::pattern_size(dims)), "{dims}D");
        }
        assert!(pattern_layout(0).is_none() && pattern_layout(5).is_none());
        assert_eq!(size_assert_text(3, 16), "ISA mem pattern 3D must have 16 bytes to encode");
    }

    #[test]
    fn ids_are_unique_and_pinnable_ids_are_lut_and_setup() {
        let specs = fact_specs();
        let mut ids: Vec<&str> = specs.iter().map(|s| s.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), specs.len());
        assert_eq!(pinnable_ids(), ["dtype.bir_to_wire", "setup_header.v2", "setup_header.v3", "setup_header.v4"]);
    }
}
