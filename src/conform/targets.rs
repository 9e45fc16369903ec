//! The fuzz targets' bodies by name. `fuzz/fuzz_targets/<name>.rs` calls the
//! same library function; `tpb conform` and `cargo test` (tests/corpus.rs,
//! which includes this file) replay `corpus/<name>/` and
//! `corpus/regressions/<name>/` through it, so every target runs without
//! libFuzzer too. Self-contained on purpose: no `crate::` paths. The targets
//! themselves are `fuzz/Cargo.toml`'s `[[bin]]`s (`cargo fuzz list`):
//! `tests/corpus.rs` fails when this list and those differ.

use tpb_isa::props;

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

/// Every target whose body runs in-process (the `c_layout` target needs a
/// compiled C shim; `tpb conform`'s C-header section replays its corpus).
pub const TARGETS: &[Target] = &[
    Target {
        name: "roundtrip",
        run: |data| props::roundtrip(data).map_err(|e| e.to_string()),
        smoke_len: 256,
        about: "raw bytes -> decode -> encode -> decode",
    },
    Target {
        name: "structured",
        run: |data| props::structured(data).map_err(|e| e.to_string()),
        smoke_len: 1024,
        about: "generated bundles round-trip and validate clean",
    },
    Target { name: "validate", run: validate, smoke_len: 1024, about: "validator on any bytes; single mutations name their check" },
    Target {
        name: "text",
        run: |data| props::text_roundtrip(data).map_err(|e| e.to_string()),
        smoke_len: 256,
        about: "disassemble -> assemble is exact; a value name the assembler accepts reads back as a name",
    },
    Target { name: "elf", run: elf, smoke_len: 4096, about: "ELF oracle parser on arbitrary bytes" },
    Target { name: "neff", run: neff, smoke_len: 4096, about: "NEFF container parser on arbitrary bytes" },
    Target {
        name: "differential",
        run: tpb_differ::fuzz::differential,
        smoke_len: 256,
        about: "a worker (TPB_DIFFER_LIB / TPB_DIFFER_CMD; default the description itself) agrees with the description",
    },
];

/// The `c_layout` target's corpus directory (replayed by the C-header section).
pub const C_LAYOUT: &str = "c_layout";

/// `validate`: any bytes through the validator, then the same bytes as
/// generator + single-mutation input.
pub fn validate(data: &[u8]) -> Outcome {
    props::validate_any(data).and_then(|()| props::mutation(data)).map_err(|e| e.to_string())
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
