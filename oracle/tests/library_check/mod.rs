//! The library oracle on synthetic libraries: the pinned-address path on a
//! fixture at the known build's real addresses, discovery on a fixture with
//! every fact moved, and one mutant per fact that must fail exactly that fact.

mod facts;
mod fixture;
mod image;
mod strings;
mod symbols;

pub(crate) use std::collections::BTreeSet;
pub(crate) use tpb_isa::bundle::header::SETUP_HEADER_CODE;
pub(crate) use tpb_isa::dtype::BIR_TO_WIRE;
pub(crate) use tpb_isa::Generation;
pub(crate) use tpb_oracle::fixture::{Fixture, Placement, Tables};
pub(crate) use tpb_oracle::walrus::image::Image;
pub(crate) use tpb_oracle::walrus::profile::Profile;
pub(crate) use tpb_oracle::walrus::report::{Located, Report, Status, EXIT_DIFFERS, EXIT_HOLDS};
pub(crate) use tpb_oracle::walrus::spec::Kind;
pub(crate) use tpb_oracle::walrus::symbols::SymbolSource;
pub(crate) use tpb_oracle::walrus::{check_image, Profiles, WalrusError};

pub(crate) fn check(bytes: &[u8]) -> Result<Report, WalrusError> {
    let profiles = Profiles::embedded()?;
    let img = Image::parse("fixture", bytes)?;
    check_image(&img, &profiles)
}

pub(crate) fn report(f: &Fixture) -> Report {
    let bytes = f.build().expect("fixture builds");
    check(&bytes).expect("fixture checks")
}

pub(crate) fn failed(r: &Report) -> BTreeSet<String> {
    r.failed().map(|r| r.id.clone()).collect()
}

pub(crate) fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

pub(crate) fn row<'r>(r: &'r Report, id: &str) -> &'r tpb_oracle::walrus::Row {
    r.row(id).unwrap_or_else(|| panic!("no row {id}"))
}

/// The file offset of the first section header of type `sh_type` in `lib`.
pub(crate) fn section_header_of(lib: &[u8], sh_type: u32) -> usize {
    let elf = goblin::elf::Elf::parse(lib).unwrap();
    let Some(i) = elf.section_headers.iter().position(|s| s.sh_type == sh_type) else { panic!("no section of type {sh_type}") };
    elf.header.e_shoff as usize + 64 * i
}
