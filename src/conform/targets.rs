//! The fuzz targets' bodies by name, read from the one table of targets
//! (`tpb_isa::fuzz::TARGETS`), with the bodies of the crates above `tpb_isa`
//! bound here. `tpb conform` and `cargo test` (tests/corpus.rs, which
//! includes this file) replay `corpus/<name>/` and
//! `corpus/regressions/<name>/` through them, so every target runs without
//! libFuzzer too. Self-contained on purpose: no `crate::` paths.

use tpb_isa::fuzz::{self, Body};

/// A target's verdict on one input: `Err` is the failure as the report prints it.
pub type Outcome = Result<(), String>;

/// One fuzz target: its directory name under `corpus/` and its body.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]) -> Outcome,
    /// Bytes a seeded smoke input gets.
    pub smoke_len: usize,
    pub about: &'static str,
}

/// Every target whose body runs in-process, in the table's order (the
/// `c_layout` target needs a compiled C shim; `tpb conform`'s C-header
/// section replays its corpus).
pub fn all() -> Vec<Target> {
    fuzz::TARGETS.iter().filter_map(|t| Some(Target { name: t.name, run: run(t.body)?, smoke_len: t.smoke_len, about: t.about })).collect()
}

/// The in-process body of `body`, if it has one.
fn run(body: Body) -> Option<fn(&[u8]) -> Outcome> {
    match body {
        Body::Props(f) => Some(f),
        Body::OracleElf => Some(elf),
        Body::OracleNeff => Some(neff),
        Body::Differential => Some(tpb_differ::fuzz::differential),
        Body::CShim | Body::Nothing => None,
    }
}

/// `elf`: the library oracle's ELF reader must not panic on any bytes.
pub fn elf(data: &[u8]) -> Outcome {
    tpb_oracle::walrus::fuzz_elf(data);
    Ok(())
}

/// `neff`: the container reader must not panic on any bytes.
pub fn neff(data: &[u8]) -> Outcome {
    tpb_oracle::conformance::fuzz_neff(data);
    Ok(())
}
