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
    pub body: Run,
    /// Bytes a seeded smoke input gets.
    pub smoke_len: usize,
    pub about: &'static str,
}

/// A body that runs in-process: a property of `tpb_isa` (typed violation)
/// or a body of a crate above it (its failure as text).
#[derive(Clone, Copy)]
pub enum Run {
    Props(fn(&[u8]) -> tpb_isa::props::Outcome),
    Text(fn(&[u8]) -> Outcome),
}

impl Target {
    /// The target's verdict on `data`, as its fuzz target reaches it.
    pub fn run(&self, data: &[u8]) -> Outcome {
        match self.body {
            Run::Props(f) => f(data).map_err(|e| e.to_string()),
            Run::Text(f) => f(data),
        }
    }
}

/// Every target whose body runs in-process, in the table's order (the
/// `c_layout` target needs a compiled C shim; `tpb conform`'s C-header
/// section replays its corpus).
pub fn all() -> Vec<Target> {
    fuzz::TARGETS.iter().filter_map(|t| Some(Target { name: t.name, body: run(t.body)?, smoke_len: t.smoke_len, about: t.about })).collect()
}

/// The in-process body of `body`, if it has one.
fn run(body: Body) -> Option<Run> {
    match body {
        Body::Props(f) => Some(Run::Props(f)),
        Body::OracleElf => Some(Run::Text(elf)),
        Body::OracleNeff => Some(Run::Text(neff)),
        Body::Differential => Some(Run::Text(tpb_differ::fuzz::differential)),
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
    tpb_oracle::conform::fuzz_neff(data);
    Ok(())
}
