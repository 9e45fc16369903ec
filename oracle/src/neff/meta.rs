//! The JSON members the reader interprets: `info.json` (which compiler wrote
//! the file) and `kelf-0.json` (the target and the subgraph list).

use super::error::{At, NeffError};
use serde::{Deserialize, Serialize};

/// Compiler metadata member.
pub const INFO: &str = "info.json";
/// Program description member: target and graphs.
pub const KELF: &str = "kelf-0.json";

/// `kelf-0.json`: what the program runs on and which subgraphs it has.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kelf {
    /// `sunda` (Trn1), `cayman` (Trn2), …
    #[serde(default)]
    pub target: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub graphs: Vec<Graph>,
}

/// One subgraph entry of `kelf-0.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    #[serde(default)]
    pub name: String,
    /// Member path of its `def.json`.
    #[serde(default)]
    pub definition: String,
}

/// Parses a JSON member; the error names the byte offset of the fault.
pub fn json(file: &str, member: &str, bytes: &[u8]) -> Result<serde_json::Value, NeffError> {
    serde_json::from_slice(bytes).map_err(|e| json_error(file, member, bytes, &e))
}

/// Parses `kelf-0.json`.
pub fn kelf(file: &str, member: &str, bytes: &[u8]) -> Result<Kelf, NeffError> {
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
