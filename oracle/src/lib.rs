//! Reads vendor artefacts (libwalrus.so, wheels, NEFF containers) as bytes.
#![forbid(unsafe_code)]
pub mod conformance;
pub mod evidence;
pub mod fixture;
pub mod hist;
pub mod infer;
pub mod neff;
pub mod programs;
pub mod text_safe;
pub mod walrus;
