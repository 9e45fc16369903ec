//! The `neff` fuzz target's body: arbitrary bytes through the container
//! reader, the summaries and the conformance report.

use super::NeffConformance;
use crate::neff::{parse_with, sniff, summary, Limits};

/// How far [`fuzz_neff`] took an input: the smoke tests check that valid
/// containers, and mutations of them, get past the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FuzzDepth {
    /// Not read as a container under the fuzz caps.
    Refused,
    /// Read, summarised as text and JSON, and conformance-checked (report rendered both ways).
    Conformed,
}

/// Arbitrary bytes through the container reader and everything downstream;
/// never panics, and the fuzz caps keep memory small.
pub fn fuzz_neff(data: &[u8]) -> FuzzDepth {
    let _ = sniff(data);
    let Ok(n) = parse_with(data, "fuzz", &Limits::FUZZ) else { return FuzzDepth::Refused };
    let _ = n.unread();
    // Chosen once: an unknown target's guess validates every bundle three times.
    let choice = n.choose(None);
    let _ = choice.warning();
    let _ = summary::text_with(&n, &choice);
    let _ = summary::json_with(&n, &choice);
    let mut c = NeffConformance::default();
    c.add_as(&n, &choice);
    let _ = c.to_markdown();
    let _ = c.to_json();
    FuzzDepth::Conformed
}
