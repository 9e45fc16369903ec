//! The result of checking one library: one row per fact, plus the verdict.

use super::spec::{FactSpec, Kind};
use super::symbols::SymbolSource;
use serde::{Serialize, Serializer};
use tpb_isa::Confidence;

/// Whether a fact holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Found, and equal to what `isa` (or the profile) expects.
    Holds,
    /// Found, but different.
    Differs,
    /// Not found at all.
    Missing,
    /// Nothing to compare against (an unknown build's identity and placement).
    Info,
}

impl Status {
    /// Its word in reports; the failures in capitals so they stand out.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Differs => "DIFFERS",
            Status::Missing => "MISSING",
            Status::Info => "info",
        }
    }
    /// Whether it fails `tpb check` ([`Status::Differs`] or [`Status::Missing`]).
    pub const fn failed(self) -> bool {
        matches!(self, Status::Differs | Status::Missing)
    }
}

/// How the value was located.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Located {
    /// At the address the build's profile pins.
    Pinned,
    /// From the ELF headers or the whole file.
    Header,
    /// By searching `.rodata` for the expected bytes or text.
    Content,
    /// Through a symbol's name.
    Symbol,
    /// By searching `.text` for the expected machine code.
    Bytes,
    /// By the structural LUT heuristic (the expected bytes were not found).
    Structural,
    /// Not located.
    Nowhere,
}

/// A `.rodata` window that looks like the dtype LUT.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// Virtual address of the window's first byte.
    #[serde(serialize_with = "hex")]
    pub address: u64,
    /// The window's bytes, hex, space-separated.
    pub bytes: String,
    /// Bytes that differ from `isa`'s LUT.
    pub distance: usize,
    /// Distinct wire tags the window covers.
    pub tags_covered: usize,
}

/// One fact's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The fact's id (`lut.bir_to_wire`).
    pub id: String,
    /// The spec section it comes from.
    pub section: String,
    /// How sure the spec is of it.
    pub confidence: Confidence,
    /// Whether it is identity, placement or a constant.
    pub kind: Kind,
    /// The value expected, as text; `None` where nothing is expected (an unknown build's identity).
    pub expected: Option<String>,
    /// The value found, as text; `None` when not found.
    pub found: Option<String>,
    /// Where it was found (virtual address), if it has a place.
    #[serde(serialize_with = "hex_opt")]
    pub address: Option<u64>,
    /// How it was located.
    pub located: Located,
    /// Whether it holds.
    pub status: Status,
    /// What is worth a word (why it was not found, what was tried).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// For the dtype LUT not found where expected: the windows that look like it, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
}

impl Row {
    /// The row of `spec` before it is looked for: nothing expected or found, missing.
    pub fn new(spec: &FactSpec) -> Row {
        Row {
            id: spec.id.clone(),
            section: spec.prov.section.to_string(),
            confidence: spec.prov.confidence,
            kind: spec.kind,
            expected: None,
            found: None,
            address: None,
            located: Located::Nowhere,
            status: Status::Missing,
            notes: Vec::new(),
            candidates: Vec::new(),
        }
    }

    /// Sets `found` and derives the status from `expected`: holds when equal,
    /// differs when not, missing when nothing was found, info when there is
    /// no expectation.
    pub fn judge(&mut self, found: Option<String>) {
        self.status = match (&self.expected, &found) {
            (None, _) => Status::Info,
            (Some(_), None) => Status::Missing,
            (Some(e), Some(f)) if e == f => Status::Holds,
            _ => Status::Differs,
        };
        self.found = found;
    }

    /// Adds a note.
    pub fn note(&mut self, n: impl Into<String>) {
        self.notes.push(n.into());
    }
}

/// Counts by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rows that hold.
    pub holds: usize,
    /// Rows that differ.
    pub differs: usize,
    /// Rows not found.
    pub missing: usize,
    /// Rows with nothing to compare against.
    pub info: usize,
}

/// Which symbol table was read.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SymbolInfo {
    /// The table the symbols came from.
    pub source: SymbolSource,
    /// Symbols it holds, all of them (not only those of interest).
    pub total: usize,
}

/// Every fact of one library.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `path` or `path!member`.
    pub input: String,
    /// The file given (the library, or the wheel holding it).
    pub path: String,
    /// The wheel member read, for a wheel.
    pub member: Option<String>,
    /// The GNU build-id, lowercase hex; `None` when the library has no build-id note.
    pub build_id: Option<String>,
    /// The matching profile's label; `None` for an unknown build.
    pub profile: Option<String>,
    /// Whether a profile knows this build (its facts are then read at pinned addresses).
    pub known: bool,
    /// The symbol table read.
    pub symbols: SymbolInfo,
    /// One row per fact, in the spec's order.
    pub rows: Vec<Row>,
    /// The rows counted by status.
    pub summary: Summary,
    /// `tpb check`'s exit code for this report.
    pub exit: u8,
}

/// `tpb check` exit code: every fact holds.
pub const EXIT_HOLDS: u8 = 0;
/// `tpb check` exit code: the input could not be read or checked.
pub const EXIT_ERROR: u8 = 1;
/// `tpb check` exit code: bad arguments (set by the command line).
pub const EXIT_USAGE: u8 = 2;
/// `tpb check` exit code: a fact differs or is missing.
pub const EXIT_DIFFERS: u8 = 4;

impl Report {
    /// `rows` counted by status.
    pub fn summarize(rows: &[Row]) -> Summary {
        let mut s = Summary::default();
        for r in rows {
            match r.status {
                Status::Holds => s.holds += 1,
                Status::Differs => s.differs += 1,
                Status::Missing => s.missing += 1,
                Status::Info => s.info += 1,
            }
        }
        s
    }

    /// The rows that fail ([`Status::failed`]).
    pub fn failed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.status.failed())
    }

    /// The row of fact `id`.
    pub fn row(&self, id: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.id == id)
    }
}

/// An address as JSON writes it: a `0x…` string (JSON numbers lose precision past 2^53).
fn hex<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:#x}"))
}

fn hex_opt<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => hex(v, s),
        None => s.serialize_none(),
    }
}

/// Lower-case hex with a space between bytes.
pub fn hex_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 3);
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{x:02x}"));
    }
    s
}

/// Lower-case hex, no separators (build-ids, digests).
pub fn hex_compact(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
