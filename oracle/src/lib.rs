//! Reads vendor artefacts (libwalrus.so, wheels, NEFF containers) as bytes.
pub mod neff;
