//! Reads vendor artefacts (libwalrus.so, wheels, NEFF containers) as bytes,
//! and holds what they contain against the description in [`tpb_isa`].
//!
//! Layers: [`programs`] (files as programs: the one way in, through one
//! capped reader), [`neff`] (the container: header, digest, payload, engine
//! streams, the generation a program is judged under), [`evidence`] (what
//! real programs say about every field and check), [`conform`] (every
//! real bundle through the codec and text round trips), [`infer`] (layouts
//! proposed from real bundles) and [`walrus`] (the compiler library's facts).
//! Nothing read is ever executed; bad input is an error naming the file,
//! offset and field, never a panic.
//!
//! # Read a NEFF's streams
//!
//! [`programs::load`] opens a file as a NEFF container or a raw bundle file
//! and hands back its engine streams; [`programs::Program::choose`] says
//! which generation its bundles are judged under (here the container's
//! target, `cayman`, gives v3). The container is built here with
//! [`neff::build`], as the tests build theirs:
//!
//! ```
//! use tpb_isa::bundle::header_only_stream;
//! use tpb_isa::Generation;
//! use tpb_oracle::{neff, programs};
//!
//! let kelf = br#"{"target": "cayman", "graphs": [{"name": "sg00"}]}"#;
//! let pe = header_only_stream(&[0xB1, 0x02]);
//! let sp = header_only_stream(&[0xA4]);
//! let bytes = neff::build::container(2, &[("kelf-0.json", kelf), ("sg00/PE.bin", &pe), ("sg00/SP.bin", &sp)])?;
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("kernel.neff");
//! std::fs::write(&path, bytes)?;
//!
//! let program = programs::load(&path, neff::MAX_FILE, &mut |warning| eprintln!("{warning}"))?;
//! assert!(program.is_container());
//! assert_eq!(program.choose(None).generation, Generation::V3);
//! let streams: Vec<(String, usize)> = program.streams().map(|s| (s.engine_name().to_string(), s.bytes.len() / 64)).collect();
//! assert_eq!(streams, [("PE".to_string(), 2), ("SP".to_string(), 1)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Validate a NEFF
//!
//! Each stream is judged by [`tpb_isa::validate`] under the generation the
//! program chose, by default the spec amended by the errata (as
//! `tpb validate` does):
//!
//! ```
//! # use tpb_isa::bundle::header_only_stream;
//! # use tpb_oracle::{neff, programs};
//! # let kelf = br#"{"target": "cayman", "graphs": [{"name": "sg00"}]}"#;
//! # let bytes = neff::build::container(2, &[("kelf-0.json", kelf), ("sg00/SP.bin", &header_only_stream(&[0xA4, 0xA4]))])?;
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("kernel.neff");
//! # std::fs::write(&path, bytes)?;
//! use tpb_isa::{validate, Profile};
//!
//! let program = programs::load(&path, neff::MAX_FILE, &mut |_| {})?;
//! let g = program.choose(None).generation;
//! let (mut bundles, mut invalid) = (0, 0);
//! for stream in program.streams() {
//!     bundles += validate::decode_stream_as(stream.bytes, g, Profile::Amended, |_, _, findings| {
//!         invalid += usize::from(!validate::is_valid(findings));
//!     });
//! }
//! assert_eq!((bundles, invalid), (2, 0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Gather evidence
//!
//! [`evidence::Evidence`] counts, per generation, compiler build and
//! opcode, every field's values and every check's agreement with them, and
//! which errata real bundles support; evidence of separate runs merges into
//! what one run would give (`tpb evidence`, `tpb evidence merge`):
//!
//! ```
//! use tpb_isa::{bundle::header_only_stream, Generation};
//! use tpb_oracle::evidence::Evidence;
//!
//! let mut evidence = Evidence::new();
//! evidence.add_stream("kernel.neff", Some("2.23.0"), Generation::V3, "SP", &header_only_stream(&[0xA4, 0xA4]));
//! let mut other = Evidence::new();
//! other.add_stream("other.neff", Some("2.23.0"), Generation::V3, "SP", &header_only_stream(&[0xA4]));
//! evidence.merge(other);
//! assert_eq!((evidence.bundles(), evidence.invalid_amended()), (3, 0));
//! let json = evidence.to_json(); // what `tpb evidence --json` writes
//! assert!(json.is_object());
//! ```
// `unsafe` in one place: mapping a raw file read-only (`programs/map.rs`).
#![deny(unsafe_code)]
// Every public item is documented, and CI's `-D warnings` keeps it so: a
// new undocumented item fails the build rather than adding to a debt.
#![warn(missing_docs)]
pub mod conform;
pub mod evidence;
pub mod fixture;
pub mod hist;
pub mod infer;
pub mod neff;
pub mod programs;
pub mod text_safe;
pub mod walrus;

/// The crate's README (its page on crates.io), whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
