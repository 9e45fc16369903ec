//! The package's integration tests as one test binary: one link per build
//! instead of one per file (a mutant of the library relinks every test
//! binary: docs/mutation-testing.md). Each file stays a module of its own.

mod common;

mod errata;
mod hostile;
mod kernels;
mod library_check;
mod library_diff;
mod library_fuzz;
mod library_inputs;
mod library_toolchain;
mod neff_container;
mod neff_real;
mod neff_streams;
mod recovered;
