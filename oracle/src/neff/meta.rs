//! The JSON members the reader interprets: `info.json` (which compiler wrote
//! the file) and `kelf-0.json` (the target and the subgraph list); graph
//! definitions are read the same way ([`super::definition`]).
//!
//! Both are read into typed structs holding only the fields used: serde skips
//! every other value without building it, so a member's memory is its bytes
//! (capped at [`MAX_METADATA`] before they are read) plus the few strings kept.

use super::error::{At, NeffError};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Compiler metadata member.
pub const INFO: &str = "info.json";
/// Program description member: target and graphs.
pub const KELF: &str = "kelf-0.json";

/// Largest `info.json`, `kelf-0.json` or graph definition (`def.json`) the
/// reader accepts: 4 MiB. Measured on the real files (`../shared/neff`,
/// `corpus/neff/real`, compilers 2.14 and 2.23) the largest `info.json` is 995
/// bytes, the largest `kelf-0.json` 253 bytes and the largest `def.json`
/// 260,551 bytes, so the cap leaves a margin of 16x on definitions (4000x on
/// the others), and still bounds what a hostile member costs to read and skip.
pub const MAX_METADATA: u64 = 4 << 20;

/// `info.json`: only what the reader uses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Info {
    /// The compiler build (`2.23.6484.0+3b612583`); `None` when absent or not a string.
    #[serde(default, deserialize_with = "string_or_none")]
    pub tool_version: Option<String>,
}

/// `kelf-0.json`: what the program runs on and which subgraphs it has.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kelf {
    /// `sunda` (Trn1), `cayman` (Trn2), …
    #[serde(default)]
    pub target: String,
    /// The kelf format version, as written (empty when absent).
    #[serde(default)]
    pub version: String,
    /// The subgraphs, in the order the file lists them.
    #[serde(default)]
    pub graphs: Vec<Graph>,
}

/// One subgraph entry of `kelf-0.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    /// The subgraph's name (`sg00`); empty when absent.
    #[serde(default)]
    pub name: String,
    /// Member path of its `def.json`.
    #[serde(default)]
    pub definition: String,
}

/// Parses `info.json`.
pub fn info(file: &str, member: &str, bytes: &[u8]) -> Result<Info, NeffError> {
    parse(file, member, bytes)
}

/// Parses `kelf-0.json`.
pub fn kelf(file: &str, member: &str, bytes: &[u8]) -> Result<Kelf, NeffError> {
    parse(file, member, bytes)
}

/// The typed parse of a JSON object (the payload reader refused a member over
/// the metadata cap before reading it). Any other top-level value is refused:
/// serde would read a struct out of an array by position.
pub(super) fn parse<'a, T: Deserialize<'a>>(file: &str, member: &str, bytes: &'a [u8]) -> Result<T, NeffError> {
    let start = bytes.iter().position(|b| !b" \t\r\n".contains(b));
    if let Some(at) = start.filter(|at| bytes[*at] != b'{') {
        return Err(NeffError::new(file, member, At::Member(at as u64), "invalid JSON: the member must be a JSON object".to_string()));
    }
    serde_json::from_slice(bytes).map_err(|e| json_error(file, member, bytes, &e))
}

fn json_error(file: &str, member: &str, bytes: &[u8], e: &serde_json::Error) -> NeffError {
    NeffError::new(file, member, At::Member(byte_offset(bytes, e.line(), e.column())), format!("invalid JSON: {e}"))
}

/// Byte offset of a 1-based line and column (serde_json's error position).
fn byte_offset(bytes: &[u8], line: usize, column: usize) -> u64 {
    let line_start =
        if line <= 1 { 0 } else { bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(line - 2).map_or(bytes.len(), |(i, _)| i + 1) };
    (line_start + column.saturating_sub(1)).min(bytes.len()) as u64
}

/// A JSON string as `Some`; any other value (null, a number, an array, an
/// object) as `None`, skipped without being built. (serde_json's
/// `deserialize_any` hands a string to `visit_borrowed_str` or `visit_str`,
/// null to `visit_unit`: the other string and option visits never come.)
fn string_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }
    d.deserialize_any(V)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_keeps_tool_version_only_and_skips_the_rest() -> Result<(), NeffError> {
        let i = info("f", INFO, br#"{"big": [[1, 2], {"a": [3]}], "tool_version": "2.23.1", "num_tpb": 1}"#)?;
        assert_eq!(i.tool_version.as_deref(), Some("2.23.1"));
        for other in [r#"{"tool_version": 7}"#, r#"{"tool_version": null}"#, r#"{"tool_version": [1, "x"]}"#, r#"{"tool_version": {"a": "b"}}"#, "{}"]
        {
            assert_eq!(info("f", INFO, other.as_bytes())?.tool_version, None, "{other}");
        }
        for not_object in [&b"[\"2.0\"]"[..], b" 7", b"\"2.0\"", b"{", b""] {
            let e = info("f", INFO, not_object).unwrap_err();
            assert!(e.message.contains("invalid JSON"), "{e}");
        }
        assert_eq!(info("f", INFO, b"\n [1]").unwrap_err().at, At::Member(2));
        Ok(())
    }
}
