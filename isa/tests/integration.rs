//! The package's integration tests as one test binary: one link per build
//! instead of one per file (a mutant of the library relinks every test
//! binary: docs/mutation-testing.md). Each file stays a module of its own.

mod c_header;
mod errata;
mod layout;
mod properties;
mod recovered;
mod tables;
mod text;
mod validator;
