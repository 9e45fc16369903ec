//! Reads vendor artefacts (libwalrus.so, wheels, NEFF containers) as bytes.
pub mod fixture;
pub mod neff;
pub mod walrus;
