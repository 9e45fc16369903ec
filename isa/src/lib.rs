//! The AWS Neuron TPB instruction-bundle wire format, described once as data.
//!
//! Layers, as in wasm-tools: [`layout`] (the description language) and the
//! described structs ([`descriptor`], [`bundle`]); [`opcode`] (its engine
//! column typed by [`engine`]), [`dtype`], [`enums`] and [`checks`] tables;
//! the codec ([`Bundle::decode`] / [`Bundle::encode`]); the [`validate`] layer;
//! the generator [`smith`]; the [`text`] format.
//! Every item carries the spec section and confidence tag it comes from.
//!
//! No `unsafe`, but for the call into a SIMD validator kernel after the
//! run-time CPU check (`validate/fast/kernel.rs`, `verdicts`) and a prefetch
//! hint, which reads nothing (`validate/fast/prefetch.rs`).
//!
//! # Decode a bundle and print it
//!
//! Any 64 bytes decode (an unknown opcode as an opaque body) and encode back
//! to the same bytes; [`text::disasm`] prints one line that
//! [`text::assemble`] reads back:
//!
//! ```
//! use tpb_isa::{bundle::header_only, text, Bundle};
//!
//! let raw = header_only(0xA4); // a NoOp: the opcode, the word length, zeros
//! let bundle = Bundle::decode(&raw);
//! assert_eq!(bundle.opcode(), 0xA4);
//! assert_eq!(bundle.encode(), raw); // lossless
//!
//! let line = text::disasm(&bundle);
//! assert!(line.starts_with("0xa4:NoOp inst_word_len=0x10 "), "{line}");
//! assert_eq!(text::assemble(&line)?, raw.to_vec());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Validate a bundle, or a stream of them
//!
//! [`validate::validate_as`] judges one bundle for one [`Generation`] under a
//! [`Profile`] (the spec alone, or amended by the [`errata`]) and returns
//! findings, never an error; [`validate::validate_stream`] judges a whole
//! stream of wire bytes, a batch at a time. Here the generator ([`smith`])
//! writes a valid bundle and the mutator breaks one invariant of it:
//!
//! ```
//! use arbitrary::Unstructured;
//! use tpb_isa::{props::seeded_bytes, smith, validate, Generation, Profile};
//!
//! let g = Generation::V3;
//! let seed = seeded_bytes(7, 4096);
//! let mut u = Unstructured::new(&seed);
//! let valid = smith::bundle(&mut u, g)?;
//! assert!(validate::is_valid(&validate::validate_as(&valid, g, Profile::Spec)));
//!
//! // Break one invariant: the validator names the check the mutator aimed at.
//! let broken = loop {
//!     if let Some(m) = smith::mutate(&mut u, &valid, g)? {
//!         break m;
//!     }
//! };
//! let findings = validate::validate_as(&broken.bundle, g, Profile::Spec);
//! assert!(findings.iter().any(|f| f.code == broken.expect.code), "{findings:?}");
//!
//! // A stream: the valid bundle, then the broken one.
//! let mut stream = valid.encode().to_vec();
//! stream.extend_from_slice(&broken.bundle.encode());
//! let mut bad = Vec::new();
//! let read = validate::validate_stream(&stream, g, |index, finding| bad.push((index, finding.code)));
//! assert_eq!(read, 2);
//! assert!(bad.iter().all(|&(index, _)| index == 1) && !bad.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Look a field up in the description
//!
//! Every body's fields, with offsets, types, spec section and confidence, are
//! data ([`layout::Layout`]); the C header is written from the same data
//! ([`c_header`]):
//!
//! ```
//! use tpb_isa::{bundle::header_only, opcode, Bundle};
//!
//! let info = opcode::lookup(0xA4).ok_or("0xA4 is not described")?;
//! assert_eq!(info.name, "NoOp");
//! let layout = Bundle::decode(&header_only(0xA4)).layout();
//! assert_eq!(layout.size, 64);
//! let word_len = layout.leaves().into_iter().find(|leaf| leaf.path == "inst_word_len").ok_or("no inst_word_len")?;
//! assert_eq!(word_len.offset, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(unsafe_code)]
// Every public item is documented; clippy's -D warnings keeps it so.
#![warn(missing_docs)]

pub mod addr4;
pub mod bundle;
pub mod c_header;
pub mod catalog;
pub mod checks;
pub mod descriptor;
pub mod dtype;
pub mod engine;
pub mod enums;
pub mod errata;
pub mod fuzz;
pub mod generation;
pub mod layout;
pub mod opcode;
pub mod operands;
pub mod props;
pub mod provenance;
pub mod roster;
pub mod smith;
pub mod test_skip;
pub mod text;
pub mod validate;
// Benchmark support (`cargo xtask bench`, `benches/codec.rs`), not API.
#[cfg(feature = "bench")]
#[doc(hidden)]
pub mod workload;

pub use addr4::Addr4;
pub use bundle::{BodyKind, Bundle, Raw, BUNDLE_BYTES};
pub use engine::{Engine, Engines};
pub use errata::Profile;
pub use generation::Generation;
pub use provenance::{Confidence, Provenance, Severity};

/// The crate's README (its page on crates.io), whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
