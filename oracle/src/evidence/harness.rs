//! What made a piece of evidence, written into its JSON: the `tpb` version,
//! a digest of the tables the evidence is keyed by, and the generation
//! forced on every stream (`--arch`), if any. Evidence merges only with
//! evidence of the same harness: counts keyed by other tables, or judged
//! under another generation, would sum into something no single run writes.

use super::fields;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use tpb_isa::bundle::claims::claims;
use tpb_isa::errata::ERRATA;
use tpb_isa::{checks, opcode, Generation};

/// Why the `harness` object of evidence JSON does not read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HarnessError {
    /// `tpb` or `tables` is missing or not a string.
    #[error("harness.{key}: missing or not a string")]
    Missing {
        /// The key.
        key: &'static str,
    },
    /// `arch` is neither null nor a generation's name.
    #[error("harness.arch: not a generation: {value}")]
    Arch {
        /// The value found, shown as JSON.
        value: Value,
    },
}

/// The harness of one evidence run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Harness {
    /// The `tpb_oracle` version that counted.
    pub version: String,
    /// [`tables_digest`] of the tables it counted with.
    pub tables: String,
    /// The generation `--arch` forced on every stream, if any.
    pub arch: Option<Generation>,
}

impl Harness {
    /// This build's harness, with the generation forced on every stream (if any).
    pub fn current(arch: Option<Generation>) -> Harness {
        Harness { version: env!("CARGO_PKG_VERSION").to_string(), tables: tables_digest(), arch }
    }

    /// The `harness` object evidence JSON holds: `tpb`, `tables`, `arch`.
    pub fn to_json(&self) -> Value {
        json!({"tpb": self.version, "tables": self.tables, "arch": self.arch})
    }

    /// The harness a `harness` object names.
    pub fn from_json(v: &Value) -> Result<Harness, HarnessError> {
        let text = |key: &'static str| v.get(key).and_then(Value::as_str).map(str::to_string).ok_or(HarnessError::Missing { key });
        let arch = match v.get("arch") {
            None | Some(Value::Null) => None,
            Some(a) => Some(a.as_str().and_then(|s| s.parse().ok()).ok_or_else(|| HarnessError::Arch { value: a.clone() })?),
        };
        Ok(Harness { version: text("tpb")?, tables: text("tables")?, arch })
    }

    /// Why evidence of `self` and of `other` cannot be merged, if they cannot.
    pub fn mismatch(&self, other: &Harness) -> Option<String> {
        let arch = |a: Option<Generation>| a.map_or_else(|| "none (each container's own)".to_string(), |g| g.to_string());
        if self.version != other.version {
            Some(format!("written by tpb {} and tpb {}", self.version, other.version))
        } else if self.tables != other.tables {
            Some(format!("counted with other tables (digest {} and {})", self.tables, other.tables))
        } else if self.arch != other.arch {
            Some(format!("judged under another --arch ({} and {})", arch(self.arch), arch(other.arch)))
        } else {
            None
        }
    }
}

/// SHA-256 (first 16 hex digits) of the tables evidence is keyed by: every
/// opcode row, the fields histogrammed for its body, its recovered claims,
/// every check and every erratum. Two builds that count alike give the same digest.
pub fn tables_digest() -> String {
    static DIGEST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DIGEST.get_or_init(digest_now).clone()
}

fn digest_now() -> String {
    let mut t = String::new();
    for op in 0..=255u8 {
        let row = opcode::lookup(op).map_or(Value::Null, |o| serde_json::to_value(o).unwrap_or(Value::Null));
        let _ = write!(t, "{op:02x} {row}");
        for f in fields(opcode::body_kind(op)) {
            let _ = write!(t, " {}+{}:{}", f.path, f.offset, f.size);
        }
        for (field, claim) in claims(op) {
            let _ = write!(t, " claim {field}: {}", claim.describe());
        }
        t.push('\n');
    }
    for c in checks::ALL {
        let _ = writeln!(t, "check {} {} {}", c.code, c.prov, c.summary);
    }
    for e in ERRATA {
        let _ = writeln!(t, "erratum {}", serde_json::to_value(e).unwrap_or(Value::Null));
    }
    let digest = Sha256::digest(t.as_bytes());
    digest.iter().take(8).fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_harness_that_does_not_read_names_its_key() {
        let e = Harness::from_json(&json!({"tpb": "0.1.0"})).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("harness.tables: missing or not a string"));
        let e = Harness::from_json(&json!({"tpb": "0.1.0", "tables": "ab", "arch": "v9"})).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("harness.arch: not a generation: \"v9\""));
    }
}
