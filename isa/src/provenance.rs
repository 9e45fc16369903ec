//! Where a fact comes from and how sure the spec is of it.
//!
//! Every constant, layout and field of the description carries a [`Provenance`]:
//! the spec section that established it and the spec's confidence tag. Reports
//! print it; the validator derives a finding's severity from it.

use serde::Serialize;

/// The spec's three confidence tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Confidence {
    /// Encoder writes and decoder reads agree byte-exact, or read from the binary.
    Confirmed,
    /// Assigned from indirect evidence (descriptor widths, vtable reuse).
    Strong,
    /// A reading of the code that nothing checked.
    Inferred,
}

impl Confidence {
    /// The tag as the spec writes it: `CONFIRMED`, `STRONG` or `INFERRED`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Confidence::Confirmed => "CONFIRMED",
            Confidence::Strong => "STRONG",
            Confidence::Inferred => "INFERRED",
        }
    }

    /// A broken fact is as serious as the fact is certain.
    pub const fn severity(self) -> Severity {
        match self {
            Confidence::Confirmed => Severity::Error,
            Confidence::Strong => Severity::Warning,
            Confidence::Inferred => Severity::Info,
        }
    }
}

/// How bad a validator finding is; derived from the broken fact's confidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A confirmed fact is broken: the bundle is invalid.
    Error,
    /// A strongly supported fact is broken: suspicious, still valid.
    Warning,
    /// An inferred fact is broken: reported for information only.
    Info,
    /// What the spec refuses and an erratum accepts (real programs write it).
    Note,
}

impl Severity {
    /// The lowercase name reports print: `error`, `warning`, `info` or `note`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Note => "note",
        }
    }
}

/// Spec section plus confidence tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Provenance {
    /// The spec section, without `§` (`2.2`, `1.3 / D-J32`).
    pub section: &'static str,
    /// How sure the spec is.
    pub confidence: Confidence,
}

impl Provenance {
    /// The provenance of a fact from `section`, tagged `confidence`.
    pub const fn new(section: &'static str, confidence: Confidence) -> Self {
        Provenance { section, confidence }
    }
}

impl std::fmt::Display for Provenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "§{} {}", self.section, self.confidence.as_str())
    }
}

/// A named constant of the format with its provenance, for `tpb facts` and reports.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Fact {
    /// Its stable name (`psum_base`; a descriptor's size under its C name).
    pub id: &'static str,
    /// Its value.
    pub value: FactValue,
    /// Where the spec states it, and how sure it is.
    pub prov: Provenance,
    /// What it means, in a line.
    pub doc: &'static str,
}

/// The value of a [`Fact`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FactValue {
    /// A number (a size, mask, base or limit).
    Int(u64),
    /// A byte string (a fixed body, a lookup table).
    Bytes(&'static [u8]),
    /// A piece of text.
    Text(&'static str),
}
