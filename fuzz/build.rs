//! Builds the C side of the `c_layout` fuzz target: generates
//! `neuron_isa_tpb.h` and the `tpb_dump` shim from `tpb_isa` (the same
//! description the Rust decoder uses) and compiles them into a static library
//! with the system C compiler, strict C11 with warnings as errors.

use std::path::{Path, PathBuf};
use tpb_isa::c_header::{self, shim};

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

fn main() -> Result<(), String> {
    println!("cargo:rerun-if-changed=build.rs");
    // The header and shim are generated from the isa crate's description.
    println!("cargo:rerun-if-changed=../isa/src");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set (run through cargo)")?);
    write(&out.join(c_header::FILE_NAME), &c_header::generate())?;
    let source = out.join("tpb_c_shim.c");
    write(&source, &shim::field_dump_source())?;
    cc::Build::new()
        .file(&source)
        .include(&out)
        .std("c11")
        .flag_if_supported("-pedantic")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .try_compile("tpb_c_shim")
        .map_err(|e| format!("compiling the generated C shim {}: {e} (set CC to a C11 compiler)", source.display()))
}
