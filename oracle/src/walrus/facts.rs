//! `tpb facts`: what the harness believes, with provenance — the format's
//! constants from `tpb_isa::catalog::facts()`, then the oracle's facts about
//! the vendor library with each known build's pinned addresses.

use super::check::expected;
use super::profile::Profiles;
use super::report::hex_bytes;
use super::spec::{fact_specs, Kind};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use tpb_isa::provenance::FactValue;
use tpb_isa::Confidence;

/// One `isa` constant.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct IsaFact {
    /// The fact's id in `tpb_isa::catalog`.
    pub id: &'static str,
    /// Its value as `tpb facts` prints it (an integer in decimal and hex, bytes in hex).
    pub value: String,
    /// The spec section it comes from.
    pub section: &'static str,
    /// How sure the spec is of it.
    pub confidence: Confidence,
    /// What it is, in one line.
    pub doc: &'static str,
}

/// One oracle fact.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct OracleFact {
    /// The fact's id (`lut.bir_to_wire`).
    pub id: String,
    /// Whether it is identity, placement or a constant.
    pub kind: Kind,
    /// The spec section it comes from.
    pub section: &'static str,
    /// How sure the spec is of it.
    pub confidence: Confidence,
    /// The value every build must show (constants); `None` where it is per build.
    pub expected: Option<String>,
    /// What it is, in one line.
    pub doc: String,
    /// Build-id → the profile's expected value, for per-build facts.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub per_build: BTreeMap<String, String>,
    /// Build-id → pinned address.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub pinned: BTreeMap<String, String>,
}

/// A known build.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct KnownBuild {
    /// Its GNU build-id, lowercase hex.
    pub build_id: String,
    /// Its profile's label: the compiler release and wheel member it came from.
    pub label: String,
}

/// Everything `tpb facts` lists.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct FactList {
    /// The format's constants, from `tpb_isa`.
    pub isa: Vec<IsaFact>,
    /// The facts about the library.
    pub oracle: Vec<OracleFact>,
    /// The builds a profile pins.
    pub profiles: Vec<KnownBuild>,
}

fn value_text(v: &FactValue) -> String {
    match v {
        FactValue::Int(i) => format!("{i} ({i:#x})"),
        FactValue::Bytes(b) => hex_bytes(b),
        FactValue::Text(t) => t.to_string(),
    }
}

/// Every expected fact with provenance.
pub(crate) fn fact_list(profiles: &Profiles) -> FactList {
    let isa = tpb_isa::catalog::facts()
        .into_iter()
        .map(|f| IsaFact { id: f.id, value: value_text(&f.value), section: f.prov.section, confidence: f.prov.confidence, doc: f.doc })
        .collect();
    let oracle = fact_specs()
        .into_iter()
        .map(|s| {
            let mut per_build = BTreeMap::new();
            let mut pinned = BTreeMap::new();
            let common = expected(s.target, None);
            for p in &profiles.list {
                if common.is_none() {
                    if let Some(v) = expected(s.target, Some(p)) {
                        per_build.insert(p.build_id.clone(), v);
                    }
                }
                if let Some(a) = p.address(&s.id) {
                    pinned.insert(p.build_id.clone(), format!("{a:#x}"));
                }
            }
            OracleFact {
                id: s.id,
                kind: s.kind,
                section: s.prov.section,
                confidence: s.prov.confidence,
                expected: common,
                doc: s.doc,
                per_build,
                pinned,
            }
        })
        .collect();
    let profiles = profiles.list.iter().map(|p| KnownBuild { build_id: p.build_id.clone(), label: p.label.clone() }).collect();
    FactList { isa, oracle, profiles }
}

/// The `tpb facts` text.
pub(crate) fn fact_list_text(f: &FactList) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# isa: constants of the format (tpb_isa::catalog::facts)");
    for x in &f.isa {
        let _ = writeln!(out, "{:<30} §{:<18} {:<9} {}  — {}", x.id, x.section, x.confidence.as_str(), x.value, x.doc);
    }
    let _ = writeln!(out, "\n# oracle: facts about the vendor library (tpb check)");
    for x in &f.oracle {
        let v = x.expected.clone().unwrap_or_else(|| "(per build)".into());
        let _ = writeln!(out, "{:<46} {:<9} §{:<28} {:<9} {v}", x.id, format!("{:?}", x.kind).to_lowercase(), x.section, x.confidence.as_str());
        for (b, v) in &x.per_build {
            let _ = writeln!(out, "{:48}{b}: {v}", "");
        }
        for (b, a) in &x.pinned {
            let _ = writeln!(out, "{:48}pinned in {b} at {a}", "");
        }
    }
    let _ = writeln!(out, "\n# known builds (oracle/profiles)");
    for p in &f.profiles {
        let _ = writeln!(out, "{}  {}", p.build_id, p.label);
    }
    out
}

#[cfg(test)]
mod tests {
    use tpb_isa::provenance::FactValue;

    #[test]
    fn a_fact_s_value_is_written_as_it_reads() {
        // Numbers in decimal and hex, bytes in hex, text as it is.
        assert_eq!(super::value_text(&FactValue::Int(64)), "64 (0x40)");
        assert_eq!(super::value_text(&FactValue::Bytes(&[0x0a, 0xff])), "0a ff");
        assert_eq!(super::value_text(&FactValue::Text("bf16")), "bf16");
        // Every fact of the crate is listed with its value.
        let list = super::fact_list(&super::Profiles::default());
        assert!(!list.isa.is_empty() && list.isa.iter().all(|f| !f.value.is_empty()));
    }
}
