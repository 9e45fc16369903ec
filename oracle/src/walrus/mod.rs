//! The oracle for `libwalrus.so`, the Neuron compiler library the format was
//! reverse-engineered from: read its constants as bytes (never load or run
//! it), check them against `tpb_isa`, and compare two builds.
//!
//! Pipeline: [`input`] (file or wheel member, read once; [`digests`] hashed as it is read) → [`image`] (ELF
//! sanity + goblin) → [`symbols`] (PT_DYNAMIC, then SHT_DYNSYM, then .symtab;
//! demangled) → [`check`] (one [`report::Row`] per [`spec`] fact, at a
//! [`profile`]'s pinned addresses or found by search) → [`diff`] / [`render`].

pub mod asserts;
pub mod check;
pub mod command;
pub mod diff;
pub mod digests;
pub mod error;
pub mod facts;
pub mod image;
pub mod input;
pub mod lut;
pub mod profile;
pub mod render;
pub mod report;
pub mod spec;
pub mod symbols;

pub use check::{check_image, check_input};
pub use error::WalrusError;
pub use input::{Input, DEFAULT_MAX_BYTES, ELF_MAGIC, WHEEL_MEMBER};
pub use profile::Profiles;
pub use report::{Report, Row, Status};

/// How far [`fuzz_elf`] took an input: a fuzzer whose inputs never get past
/// the parser tests only the parser, so the smoke tests count these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FuzzDepth {
    /// Not parsed as a library.
    Refused,
    /// Parsed, but the checks refused it (no `.rodata`, say).
    Parsed,
    /// Checked, rendered as text and JSON, and diffed against itself.
    Checked,
}

/// Runs arbitrary bytes through the whole pipeline as if they were the
/// library: parse, every fact, text and JSON rendering, a diff against
/// itself. Errors are expected; a panic is a bug (the `elf` fuzz target).
pub fn fuzz_elf(data: &[u8]) -> FuzzDepth {
    // Parsed once: the embedded profiles never change, and parsing them per input cost an eighth of the time.
    static PROFILES: std::sync::OnceLock<Option<Profiles>> = std::sync::OnceLock::new();
    let Ok(img) = image::Image::parse("fuzz", data) else { return FuzzDepth::Refused };
    let Some(profiles) = PROFILES.get_or_init(|| Profiles::embedded().ok()) else { return FuzzDepth::Parsed };
    let Ok(report) = check_image(&img, profiles) else { return FuzzDepth::Parsed };
    let _ = render::report_text(&report);
    let _ = serde_json::to_string(&report);
    let d = diff::diff(report.clone(), report);
    let _ = render::diff_text(&d);
    FuzzDepth::Checked
}
