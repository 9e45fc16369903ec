//! The payload digest in the header's `hash` field. Real pkg_version 2 files
//! store the MD5 of the compressed payload with every 4-byte word
//! byte-reversed, so both byte orders are tried and the one that matched is
//! reported rather than hidden.

use super::header::{hex, NeffHeader};
use md5::Md5;
use serde::Serialize;
use sha2::{Digest, Sha256};
use tpb_isa::{Confidence, Provenance};

/// pkg_version whose payload digest is MD5 (measured on every real file seen).
pub const PKG_VERSION_MD5: u64 = 2;
/// pkg_version whose payload digest is SHA-256 (named by the loader, never seen in a file).
pub const PKG_VERSION_SHA256: u64 = 1;
/// Where the digest rule comes from.
pub const DIGEST_PROV: Provenance = Provenance::new("G1 (measured on real NEFFs)", Confidence::Strong);

/// Digest algorithm chosen by `pkg_version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// MD5 (16 bytes): pkg_version 2, every real file.
    Md5,
    /// SHA-256 (32 bytes): pkg_version 1 (named by the loader, never seen in a file).
    Sha256,
}

impl Algorithm {
    /// The algorithm `pkg_version` names; `None` for a version that names none.
    pub(crate) fn for_version(pkg_version: u64) -> Option<Algorithm> {
        match pkg_version {
            PKG_VERSION_MD5 => Some(Algorithm::Md5),
            PKG_VERSION_SHA256 => Some(Algorithm::Sha256),
            _ => None,
        }
    }

    /// Bytes of the digest at the start of the header's `hash` field.
    pub(crate) const fn digest_len(self) -> usize {
        match self {
            Algorithm::Md5 => 16,
            Algorithm::Sha256 => 32,
        }
    }

    /// Its name for people (`MD5`, `SHA-256`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Algorithm::Md5 => "MD5",
            Algorithm::Sha256 => "SHA-256",
        }
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Algorithm::Md5 => Md5::digest(data).to_vec(),
            Algorithm::Sha256 => Sha256::digest(data).to_vec(),
        }
    }
}

/// Which byte order of the stored digest equals the computed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// Stored exactly as computed.
    Plain,
    /// Each 4-byte word byte-reversed (what the real compiler writes).
    WordReversed,
}

impl Form {
    /// Its name for people (`plain`, `word-byte-reversed`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Form::Plain => "plain",
            Form::WordReversed => "word-byte-reversed",
        }
    }
}

/// The outcome of checking the payload digest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Integrity {
    /// `None` when `pkg_version` names no known algorithm.
    pub algorithm: Option<Algorithm>,
    /// Digest bytes as stored in the header (hex).
    pub stored: String,
    /// Digest computed over the payload (hex, in computation order).
    pub computed: String,
    /// `Some` when the stored digest matched in that form.
    pub matched: Option<Form>,
    /// Non-zero bytes in the hash field past the digest (zero in every file seen).
    pub tail_nonzero: bool,
}

impl Integrity {
    /// Whether the stored digest matched the payload (in either form).
    pub fn ok(&self) -> bool {
        self.matched.is_some()
    }

    /// One line for people: `MD5 ok (word-byte-reversed form)` or why not.
    pub fn describe(&self) -> String {
        match (self.algorithm, self.matched) {
            (None, _) => "unchecked: pkg_version names no known digest".to_string(),
            (Some(a), Some(f)) => format!("{} ok ({} form)", a.as_str(), f.as_str()),
            (Some(a), None) => format!("{} MISMATCH: stored {} computed {}", a.as_str(), self.stored, self.computed),
        }
    }
}

/// Checks the payload against the header's digest.
pub fn check(header: &NeffHeader, payload: &[u8]) -> Integrity {
    let Some(alg) = Algorithm::for_version(header.pkg_version.get()) else {
        return Integrity { algorithm: None, stored: hex(&header.hash), computed: String::new(), matched: None, tail_nonzero: false };
    };
    let stored = &header.hash[..alg.digest_len()];
    let computed = alg.digest(payload);
    let matched = if stored == computed.as_slice() {
        Some(Form::Plain)
    } else if stored == word_reversed(&computed).as_slice() {
        Some(Form::WordReversed)
    } else {
        None
    };
    Integrity {
        algorithm: Some(alg),
        stored: hex(stored),
        computed: hex(&computed),
        matched,
        tail_nonzero: header.hash[alg.digest_len()..].iter().any(|b| *b != 0),
    }
}

/// Reverses the bytes of each 4-byte word (a trailing partial word is kept as is).
pub fn word_reversed(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for w in out.chunks_exact_mut(4) {
        w.reverse();
    }
    out
}

/// The digest bytes a header stores for `payload`, in the given form (used by tests and fixtures).
pub fn stored_digest(alg: Algorithm, payload: &[u8], form: Form) -> Vec<u8> {
    let d = alg.digest(payload);
    match form {
        Form::Plain => d,
        Form::WordReversed => word_reversed(&d),
    }
}
