//! The fuzz targets, listed once ([`TARGETS`]), and the dictionary of those
//! that read bundles, written from the opcode table ([`bundle_dictionary`]).
//! Each target is a `[[bin]]` of `fuzz/Cargo.toml`
//! (`fuzz/fuzz_targets/<name>.rs`, what `cargo fuzz list` prints and every
//! fuzz script reads), with its seeds in `corpus/<name>/`, its libFuzzer
//! options in `fuzz/options/<name>.options` and its dictionary under
//! `fuzz/dict/`. What reads Rust reads this table (`tpb conform`, `tpb
//! corpus`, the seeded smoke runs of `cargo test`); what cannot (the
//! manifest, the options, the links, `fuzz/README.md`) is checked against it
//! by `tests/corpus.rs`.
//!
//! The table lives here, the lowest crate, so that this crate's own tests
//! read it too. Bodies in crates above this one (the ELF and NEFF readers of
//! `tpb_oracle`, the worker of `tpb_differ`) are named by [`Body`] and bound
//! where those crates are in reach (`tpb conform`).

use crate::bundle::header::INST_WORD_LEN_SATURATE;
use crate::bundle::INST_WORD_LEN;
use crate::opcode::OPCODES;
use crate::props;
use std::fmt::Write as _;

/// What a target reads its input as: which seeds `tpb corpus` writes for it
/// and which dictionary it gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A stream of 64-byte bundles: every bundle seed (hand, generated, real),
    /// and the bundle dictionary.
    Bundles,
    /// Choices that drive the generator (`arbitrary` bytes): no dictionary,
    /// the bytes are no wire structure.
    Choices,
    /// A library (an ELF file).
    Elf,
    /// A NEFF container.
    Neff,
    /// Nothing: the input is not read (`empty`), so there are no seeds,
    /// options or dictionary.
    Unread,
}

impl Input {
    /// The dictionary file under `fuzz/dict/` for this input, if any
    /// (`fuzz/dict/<target>.dict` links to it).
    pub fn dictionary(self) -> Option<&'static str> {
        match self {
            Input::Bundles => Some("bundle.dict"),
            Input::Elf => Some("elf.dict"),
            Input::Neff => Some("neff.dict"),
            Input::Choices | Input::Unread => None,
        }
    }
}

/// A target's body without libFuzzer's harness: what `tpb conform` and
/// `cargo test` run on seeds, regressions and seeded smoke inputs.
#[derive(Clone, Copy, Debug)]
pub enum Body {
    /// Properties of this crate ([`props`]); `Err` is the violation.
    Props(fn(&[u8]) -> props::Outcome),
    /// `tpb_oracle::walrus::fuzz_elf`: the library oracle never panics.
    OracleElf,
    /// `tpb_oracle::conform::fuzz_neff`: the NEFF reader never panics.
    OracleNeff,
    /// `tpb_differ::fuzz::differential`: a worker agrees with the description.
    Differential,
    /// The generated C header's view of each bundle, which needs the C shim
    /// compiled (`fuzz/build.rs`; `tpb conform`'s C-header section replays
    /// this target's corpus through its own build).
    CShim,
    /// Nothing: libFuzzer's own exec/s floor (`fuzz/bench.sh`).
    Nothing,
}

/// One fuzz target.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Its name: the `[[bin]]`, `corpus/<name>/`, `fuzz/options/<name>.options`.
    pub name: &'static str,
    /// What it reads its input as.
    pub input: Input,
    /// Its body outside libFuzzer.
    pub body: Body,
    /// Bytes of one seeded smoke input, where the body runs in-process
    /// ([`Body::Props`], the oracle's and the differ's); 0 otherwise.
    pub smoke_len: usize,
    /// What it checks, in one line (the conformance report prints it).
    pub about: &'static str,
}

/// The `c_layout` target's name: `tpb conform`'s C-header section replays
/// its corpus.
pub const C_LAYOUT: &str = "c_layout";

/// Every fuzz target, in the order `tpb conform` reports them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "roundtrip",
        input: Input::Bundles,
        body: Body::Props(props::roundtrip),
        smoke_len: 256,
        about: "raw bytes -> decode -> encode -> decode",
    },
    Target {
        name: "structured",
        input: Input::Choices,
        body: Body::Props(props::structured),
        smoke_len: 1024,
        about: "generated bundles round-trip and validate clean",
    },
    Target {
        name: "validate",
        input: Input::Bundles,
        // The same bytes twice: as bundles, then as generator + single-mutation input.
        body: Body::Props(|data| props::validate_any(data).and_then(|()| props::mutation(data))),
        smoke_len: 1024,
        about: "validator on any bytes; single mutations name their check",
    },
    Target {
        name: "text",
        input: Input::Bundles,
        body: Body::Props(props::text_roundtrip),
        smoke_len: 256,
        about: "disassemble -> assemble is exact; a value name the assembler accepts reads back as a name",
    },
    Target { name: "elf", input: Input::Elf, body: Body::OracleElf, smoke_len: 4096, about: "ELF oracle parser on arbitrary bytes" },
    Target { name: "neff", input: Input::Neff, body: Body::OracleNeff, smoke_len: 4096, about: "NEFF container parser on arbitrary bytes" },
    Target {
        name: "differential",
        input: Input::Bundles,
        body: Body::Differential,
        smoke_len: 256,
        about: "a worker (TPB_DIFFER_LIB / TPB_DIFFER_CMD; default the description itself) agrees with the description",
    },
    Target {
        name: C_LAYOUT,
        input: Input::Bundles,
        body: Body::CShim,
        smoke_len: 0,
        about: "every field read through the generated C header's union equals the Rust decoder's",
    },
    Target { name: "empty", input: Input::Unread, body: Body::Nothing, smoke_len: 0, about: "nothing: libFuzzer's own exec/s floor" },
];

/// The targets that read a stream of bundles, in table order.
pub fn bundle_targets() -> impl Iterator<Item = &'static Target> {
    TARGETS.iter().filter(|t| t.input == Input::Bundles)
}

/// Where [`bundle_dictionary`] is committed, relative to the repository.
pub const BUNDLE_DICTIONARY: &str = "fuzz/dict/bundle.dict";

/// The text of [`BUNDLE_DICTIONARY`], the libFuzzer dictionary of the
/// targets that read bundles: the two header bytes of every opcode of the
/// table ([`OPCODES`], then [`INST_WORD_LEN`]), which every real bundle
/// starts with, and the saturated word length. A test holds the committed
/// file to this text.
pub fn bundle_dictionary() -> String {
    let targets: Vec<&str> = bundle_targets().map(|t| t.name).collect();
    let about = format!(
        "libFuzzer dictionary for the targets that read 64-byte bundles ({}): each opcode of isa/src/opcode.rs \
         followed by the instruction word length ({INST_WORD_LEN:#04x}): the two header bytes every real bundle starts with; \
         {INST_WORD_LEN_SATURATE:#04x} is the saturated length. Written by tpb_isa::fuzz::bundle_dictionary; \
         TPB_BLESS=1 cargo test --test integration the_bundle_dictionary writes it again.",
        targets.join(", ")
    );
    let mut out = comment(&about);
    out.push('\n');
    for op in OPCODES {
        let _ = writeln!(out, "op_{:02x}_{}=\"\\x{:02X}\\x{INST_WORD_LEN:02X}\"", op.byte, op.name, op.byte);
    }
    let _ = writeln!(out, "word_len_saturate=\"\\x{INST_WORD_LEN_SATURATE:02X}\"");
    out
}

/// `text` as `#` comment lines of at most 80 characters.
fn comment(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_only_in_process_bodies_have_a_smoke_length() {
        for (i, t) in TARGETS.iter().enumerate() {
            assert!(TARGETS[..i].iter().all(|u| u.name != t.name), "{} twice", t.name);
            let in_process = !matches!(t.body, Body::CShim | Body::Nothing);
            assert_eq!(t.smoke_len > 0, in_process, "{}", t.name);
        }
        assert!(TARGETS.iter().any(|t| t.name == C_LAYOUT && matches!(t.body, Body::CShim)));
    }

    #[test]
    fn a_comment_line_fills_to_eighty_characters_and_no_further() {
        let word = "x".repeat(78);
        assert_eq!(comment(&word), format!("# {word}\n"));
        assert_eq!(comment(&format!("{word} y")), format!("# {word}\n# y\n"));
        assert_eq!(comment(""), "#\n");
    }

    #[test]
    fn the_bundle_dictionary_has_every_opcode_s_header_bytes() {
        let dict = bundle_dictionary();
        for op in OPCODES {
            let entry = format!("=\"\\x{:02X}\\x10\"", op.byte);
            assert!(dict.lines().any(|l| l.starts_with(&format!("op_{:02x}_", op.byte)) && l.ends_with(&entry)), "{entry}");
        }
        assert!(dict.lines().all(|l| l.len() <= 80), "{dict}");
        assert!(dict.ends_with("\nword_len_saturate=\"\\x11\"\n"), "{dict}");
    }
}
