//! Conformance over real bundles: every bundle of every engine stream goes
//! through the header invariant, the codec round trip, the text round trip,
//! typed-vs-opaque decode and the validator. The report keeps two things
//! apart: a spec that disagrees with what the compiler emitted (validator
//! findings, opcodes the spec does not name) is a finding about the spec; a
//! round-trip mismatch or a panic is a bug in this harness.
//!
//! Collection is here; the report's JSON and Markdown are in `render.rs`.

use crate::evidence::Support;
use crate::hist::{bump, Bounded};
use crate::neff::{EngineStream, Neff};
use serde::Serialize;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tpb_isa::bundle::{Raw, INST_WORD_LEN};
use tpb_isa::validate::{self, Finding};
use tpb_isa::{opcode, text, BodyKind, Bundle, Generation, Provenance, Severity};

pub use crate::hist::{MAX_TRACKED, TOP_VALUES};

/// Harness failures kept in detail (all are counted).
pub const MAX_DETAILS: usize = 200;

pub use crate::neff::GenerationFrom;
use crate::neff::{Choice, Fit};

mod fuzz;
mod render;
#[cfg(test)]
mod tests;

pub use fuzz::{fuzz_neff, FuzzDepth};

/// One container that went into the report.
#[derive(Clone, Debug, Serialize)]
pub struct Source {
    pub file: String,
    pub tool_version: Option<String>,
    pub target: Option<String>,
    pub generation: Generation,
    pub generation_from: GenerationFrom,
    /// How its bundles fit each generation, when the generation was guessed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation_fit: Option<Fit>,
    pub integrity: String,
    pub integrity_ok: bool,
    /// (member, bundles) per stream.
    pub streams: Vec<(String, usize)>,
    pub bundles: usize,
}

/// A bug in this harness, found on a real bundle.
#[derive(Clone, Debug, Serialize)]
pub struct HarnessFailure {
    pub file: String,
    pub member: String,
    pub index: usize,
    pub offset: usize,
    pub opcode: String,
    /// `codec-round-trip`, `text-round-trip`, `text-fields` or `panic`.
    pub kind: &'static str,
    pub detail: String,
}

/// The values one field of the body layout took, as its disassembly prints them.
#[derive(Clone, Debug)]
struct FieldDist {
    path: String,
    offset: usize,
    prov: Provenance,
    values: Bounded<String>,
}

impl FieldDist {
    fn add(&mut self, value: &str, n: usize) {
        self.values.add(value, n as u64);
    }

    /// The most frequent values (by count, then by text) and the count of everything else.
    fn top(&self) -> (Vec<(&str, usize)>, usize) {
        let (top, other) = self.values.top(TOP_VALUES);
        (top.into_iter().map(|(v, c)| (v.as_str(), count(c))).collect(), count(other))
    }
}

/// A histogram's count as the report's other counts are (bundles of this process: they fit).
fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Everything seen for one opcode byte.
#[derive(Clone, Debug)]
struct OpStats {
    kind: BodyKind,
    count: usize,
    /// Stream engine name → bundles.
    engines: BTreeMap<String, usize>,
    header_ok: usize,
    codec_ok: usize,
    text_ok: usize,
    /// Bundles with no finding at all.
    clean: usize,
    /// Bundles with no error-severity finding under the default (amended) profile.
    valid: usize,
    /// Bundles with no error-severity finding under the spec alone.
    valid_spec: usize,
    /// Finding code → findings.
    findings: BTreeMap<&'static str, usize>,
    fields: Vec<FieldDist>,
}

impl OpStats {
    fn new(op: u8) -> OpStats {
        let kind = opcode::body_kind(op);
        let fields = text::leaves(kind)
            .iter()
            .filter(|l| l.path != "opcode")
            .map(|l| FieldDist { path: l.path.clone(), offset: l.offset, prov: l.prov, values: Bounded::default() })
            .collect();
        OpStats {
            kind,
            count: 0,
            engines: BTreeMap::new(),
            header_ok: 0,
            codec_ok: 0,
            text_ok: 0,
            clean: 0,
            valid: 0,
            valid_spec: 0,
            findings: BTreeMap::new(),
            fields,
        }
    }

    fn merge(&mut self, o: OpStats) {
        self.count += o.count;
        for (e, c) in o.engines {
            *self.engines.entry(e).or_insert(0) += c;
        }
        self.header_ok += o.header_ok;
        self.codec_ok += o.codec_ok;
        self.text_ok += o.text_ok;
        self.clean += o.clean;
        self.valid += o.valid;
        self.valid_spec += o.valid_spec;
        for (k, c) in o.findings {
            *self.findings.entry(k).or_insert(0) += c;
        }
        for (mine, theirs) in self.fields.iter_mut().zip(o.fields) {
            mine.values.merge(theirs.values);
        }
    }
}

/// One validator check code over all bundles.
#[derive(Clone, Debug)]
struct CodeStats {
    severity: Severity,
    section: &'static str,
    count: usize,
    opcodes: BTreeMap<u8, usize>,
    fields: BTreeMap<String, usize>,
}

/// The conformance of one or more containers' bundles.
#[derive(Clone, Debug, Default)]
pub struct NeffConformance {
    sources: Vec<Source>,
    bundles: usize,
    /// Bundles with validator findings or an opcode the spec does not name.
    disagreeing: usize,
    /// Opcode → stream engine → bundles found on an engine the opcode table does not name for it.
    engine_mismatch: BTreeMap<u8, BTreeMap<String, usize>>,
    ops: BTreeMap<u8, OpStats>,
    codes: BTreeMap<&'static str, CodeStats>,
    harness: Vec<HarnessFailure>,
    harness_count: usize,
    /// Bundles invalid under the spec alone, and under the default (amended) profile.
    invalid_spec: usize,
    invalid_amended: usize,
    /// Erratum id → compiler build → bundles it accepted and the files they are in (as the evidence counts them).
    errata: BTreeMap<&'static str, BTreeMap<String, Support>>,
}

/// What one bundle showed.
struct Outcome {
    kind: BodyKind,
    header_ok: bool,
    codec_ok: bool,
    text: Result<(), String>,
    line: String,
    /// The spec's findings.
    findings: Vec<Finding>,
    /// The same read against the errata (the default profile).
    amended: Vec<Finding>,
}

fn analyse(raw: &Raw, g: Generation) -> Outcome {
    let b = Bundle::decode(raw);
    let h = b.header();
    let header_ok = h.inst_word_len == INST_WORD_LEN && h.reserved.get() == 0;
    let codec_ok = b.encode() == *raw;
    let line = text::disasm(&b);
    let text = text_verdict(raw, text::asm_line(&line));
    let findings = validate::validate(&b, g);
    let mut amended = findings.clone();
    validate::amend(&b, g, &mut amended);
    Outcome { kind: b.kind(), header_ok, codec_ok, text, line, findings, amended }
}

/// What the text round trip of `raw` came to, given what the assembler made
/// of its disassembly (the codec's property tests say always `Ok`; this is
/// the report's word when one day it is not).
fn text_verdict(raw: &Raw, assembled: Result<Option<Raw>, String>) -> Result<(), String> {
    match assembled {
        Ok(Some(back)) if back == *raw => Ok(()),
        Ok(Some(back)) => Err(format!("assembled {} differs from the original", first_diff(raw, &back))),
        Ok(None) => Err("disassembly assembled to nothing".to_string()),
        Err(e) => Err(format!("assembler rejected its own disassembly: {e}")),
    }
}

fn first_diff(a: &Raw, b: &Raw) -> String {
    match a.iter().zip(b.iter()).position(|(x, y)| x != y) {
        Some(i) => format!("at byte {i:#04x} ({:#04x} vs {:#04x})", a[i], b[i]),
        None => "nowhere".to_string(),
    }
}

/// Runs every bundle of `neff`; `arch` overrides the generation the target implies.
pub fn conform(neff: &Neff, arch: Option<Generation>) -> NeffConformance {
    let mut c = NeffConformance::default();
    c.add(neff, arch);
    c
}

/// One report over several containers.
pub fn conform_all(neffs: &[Neff], arch: Option<Generation>) -> NeffConformance {
    let mut c = NeffConformance::default();
    for n in neffs {
        c.add(n, arch);
    }
    c
}

impl NeffConformance {
    /// Adds every bundle of one container, under `arch`, else its target's
    /// generation, else the one its bundles fit best ([`Neff::choose`]).
    pub fn add(&mut self, neff: &Neff, arch: Option<Generation>) {
        self.add_as(neff, &neff.choose(arch));
    }

    /// Adds every bundle of one container under the generation `choice` names.
    pub fn add_as(&mut self, neff: &Neff, choice: &Choice) {
        let (generation, generation_from) = (choice.generation, choice.from);
        let build = neff.tool_version.as_deref().unwrap_or("unknown");
        for s in &neff.streams {
            self.add_stream(&neff.name, build, s, generation);
        }
        self.sources.push(Source {
            file: neff.name.clone(),
            tool_version: neff.tool_version.clone(),
            target: neff.target().map(str::to_string),
            generation,
            generation_from,
            generation_fit: choice.fit.clone(),
            integrity: neff.integrity.describe(),
            integrity_ok: neff.integrity.ok(),
            streams: neff.streams.iter().map(|s| (s.member.clone(), s.len())).collect(),
            bundles: neff.bundles(),
        });
    }

    /// Folds another report into this one.
    pub fn merge(&mut self, other: NeffConformance) {
        self.sources.extend(other.sources);
        self.bundles += other.bundles;
        self.disagreeing += other.disagreeing;
        for (op, by) in other.engine_mismatch {
            let mine = self.engine_mismatch.entry(op).or_default();
            for (e, n) in by {
                *mine.entry(e).or_insert(0) += n;
            }
        }
        for (op, s) in other.ops {
            match self.ops.get_mut(&op) {
                Some(mine) => mine.merge(s),
                None => {
                    self.ops.insert(op, s);
                }
            }
        }
        for (code, s) in other.codes {
            let mine =
                self.codes.entry(code).or_insert_with(|| CodeStats { count: 0, opcodes: BTreeMap::new(), fields: BTreeMap::new(), ..s.clone() });
            mine.count += s.count;
            mine.severity = mine.severity.min(s.severity);
            for (op, c) in s.opcodes {
                *mine.opcodes.entry(op).or_insert(0) += c;
            }
            for (f, c) in s.fields {
                *mine.fields.entry(f).or_insert(0) += c;
            }
        }
        self.harness_count += other.harness_count;
        self.invalid_spec += other.invalid_spec;
        self.invalid_amended += other.invalid_amended;
        for (id, builds) in other.errata {
            let mine = self.errata.entry(id).or_default();
            for (build, support) in builds {
                let e = mine.entry(build).or_default();
                e.bundles += support.bundles;
                e.files.extend(support.files);
            }
        }
        for h in other.harness {
            if self.harness.len() < MAX_DETAILS {
                self.harness.push(h);
            }
        }
    }

    fn add_stream(&mut self, file: &str, build: &str, s: &EngineStream, g: Generation) {
        for (index, offset, raw) in s.bundles() {
            self.bundles += 1;
            let op = raw[0];
            let fail = |kind: &'static str, detail: String| HarnessFailure {
                file: file.to_string(),
                member: s.member.clone(),
                index,
                offset,
                opcode: format!("{op:#04x}"),
                kind,
                detail,
            };
            let outcome = match catch_unwind(AssertUnwindSafe(|| analyse(raw, g))) {
                Ok(o) => o,
                Err(p) => {
                    let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
                    self.harness_failure(fail("panic", msg.unwrap_or_else(|| "panic".to_string())));
                    continue;
                }
            };
            if !outcome.codec_ok {
                self.harness_failure(fail("codec-round-trip", "decode then encode changed the bytes".to_string()));
            }
            if let Err(e) = &outcome.text {
                self.harness_failure(fail("text-round-trip", e.clone()));
            }
            let valid_spec = validate::is_valid(&outcome.findings);
            let valid = validate::is_valid(&outcome.amended);
            self.invalid_spec += usize::from(!valid_spec);
            self.invalid_amended += usize::from(!valid);
            let mut ids: Vec<&'static str> = outcome.amended.iter().filter_map(|f| f.erratum).collect();
            ids.dedup();
            for id in ids {
                let e = self.errata.entry(id).or_default().entry(build.to_string()).or_default();
                e.bundles += 1;
                if !e.files.contains(file) {
                    e.files.insert(file.to_string());
                }
            }
            // An engine the table does not know (a new definition key) is no mismatch: there is nothing to compare.
            let off_engine = s.engine.isa().is_some_and(|e| opcode::lookup(op).is_some_and(|o| !o.engine.names(e)));
            if off_engine {
                bump(self.engine_mismatch.entry(op).or_default(), s.engine.stem());
            }
            // An opcode the table lacks has its unknown-opcode finding among these.
            debug_assert!(opcode::lookup(op).is_some() || !outcome.findings.is_empty());
            if off_engine || !outcome.findings.is_empty() {
                self.disagreeing += 1;
            }
            for f in &outcome.findings {
                let cs = self.codes.entry(f.code).or_insert_with(|| CodeStats {
                    severity: f.severity,
                    section: f.section,
                    count: 0,
                    opcodes: BTreeMap::new(),
                    fields: BTreeMap::new(),
                });
                cs.count += 1;
                cs.severity = cs.severity.min(f.severity);
                *cs.opcodes.entry(op).or_insert(0) += 1;
                // Every field a finding names is a layout's (a fixed set), so the map stays small.
                *cs.fields.entry(f.field.clone()).or_insert(0) += 1;
            }
            let st = self.ops.entry(op).or_insert_with(|| OpStats::new(op));
            st.count += 1;
            bump(&mut st.engines, s.engine.stem());
            st.header_ok += usize::from(outcome.header_ok);
            st.codec_ok += usize::from(outcome.codec_ok);
            st.text_ok += usize::from(outcome.text.is_ok());
            st.clean += usize::from(outcome.findings.is_empty());
            st.valid += usize::from(valid);
            st.valid_spec += usize::from(valid_spec);
            for f in &outcome.findings {
                *st.findings.entry(f.code).or_insert(0) += 1;
            }
            let mismatch = record_fields(st, outcome.kind, &outcome.line);
            if let Some(m) = mismatch {
                self.harness_failure(fail("text-fields", m));
            }
        }
    }

    fn harness_failure(&mut self, f: HarnessFailure) {
        self.harness_count += 1;
        if self.harness.len() < MAX_DETAILS {
            self.harness.push(f);
        }
    }

    /// Round-trip mismatches, text-field mismatches and panics: bugs in the harness.
    pub fn harness_failures(&self) -> usize {
        self.harness_count
    }

    /// Bundles with validator findings or an opcode the spec does not name.
    pub fn spec_disagreements(&self) -> usize {
        self.disagreeing
    }

    pub fn bundles(&self) -> usize {
        self.bundles
    }

    /// Opcode → engine stem → bundles on an engine the opcode table does not name.
    pub fn engine_mismatches(&self) -> &BTreeMap<u8, BTreeMap<String, usize>> {
        &self.engine_mismatch
    }

    /// Bundles invalid under the spec alone.
    pub fn invalid_spec(&self) -> usize {
        self.invalid_spec
    }

    /// Bundles invalid under the default profile (the spec amended by the errata).
    pub fn invalid_amended(&self) -> usize {
        self.invalid_amended
    }

    /// Bundles an erratum accepted, per compiler build.
    pub fn erratum_bundles(&self, id: &str) -> BTreeMap<&str, usize> {
        self.errata.get(id).map(|b| b.iter().map(|(k, s)| (k.as_str(), count(s.bundles))).collect()).unwrap_or_default()
    }

    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The opcodes the spec does not name, with bundle counts.
    pub fn unknown_opcodes(&self) -> Vec<(u8, usize)> {
        self.ops.iter().filter(|(op, _)| opcode::lookup(**op).is_none()).map(|(op, s)| (*op, s.count)).collect()
    }

    /// Bundle count of one opcode byte.
    pub fn opcode_count(&self, op: u8) -> usize {
        self.ops.get(&op).map_or(0, |s| s.count)
    }

    /// The most frequent values of one field of one opcode's layout.
    pub fn field_values(&self, op: u8, path: &str) -> Vec<(String, usize)> {
        self.ops
            .get(&op)
            .and_then(|s| s.fields.iter().find(|f| f.path == path))
            .map(|f| f.top().0.into_iter().map(|(v, c)| (v.to_string(), c)).collect())
            .unwrap_or_default()
    }
}

/// Counts each `path=value` token of a disassembly line into the opcode's
/// field distributions; `Some` when the line and the layout disagree.
fn record_fields(st: &mut OpStats, kind: BodyKind, line: &str) -> Option<String> {
    if kind != st.kind {
        return Some(format!("decoded as {:?}, table says {:?}", kind, st.kind));
    }
    let mut tokens = line.split_whitespace().skip(1);
    for f in &mut st.fields {
        let Some((path, value)) = tokens.next().and_then(|t| t.split_once('=')) else {
            return Some(format!("disassembly has no token for `{}`", f.path));
        };
        if path != f.path {
            return Some(format!("disassembly token `{path}` where the layout has `{}`", f.path));
        }
        f.add(value, 1);
    }
    tokens.next().map(|t| format!("disassembly has extra token `{t}`"))
}
