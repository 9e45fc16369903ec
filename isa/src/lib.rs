//! The AWS Neuron TPB instruction-bundle wire format, described once as data.
//!
//! Layers, as in wasm-tools: [`layout`] (the description language) and the
//! described structs ([`descriptor`], [`bundle`]); [`opcode`] (its engine
//! column typed by [`engine`]), [`dtype`], [`enums`] and [`checks`] tables;
//! the codec ([`bundle::Bundle::decode`] / `encode`); the [`validate`] layer;
//! the generator [`smith`]; the [`text`] format.
//! Every item carries the spec section and confidence tag it comes from.
//!
//! No `unsafe`, but for the call into a SIMD validator kernel after the
//! run-time CPU check (`validate/fast/kernel.rs`, `verdicts`) and a prefetch
//! hint, which reads nothing (`validate/fast/prefetch.rs`).
#![deny(unsafe_code)]

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

pub use addr4::Addr4;
pub use bundle::{BodyKind, Bundle, Raw, BUNDLE_BYTES};
pub use engine::{Engine, Engines};
pub use errata::Profile;
pub use generation::Generation;
pub use provenance::{Confidence, Provenance, Severity};
