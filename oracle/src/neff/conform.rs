//! Conformance over real bundles: every bundle of every engine stream goes
//! through the header invariant, the codec round trip, the text round trip,
//! typed-vs-opaque decode and the validator. The report keeps two things
//! apart: a spec that disagrees with what the compiler emitted (validator
//! findings, opcodes the spec does not name) is a finding about the spec; a
//! round-trip mismatch or a panic is a bug in this harness.

use super::{EngineStream, Neff};
use crate::evidence::Support;
use crate::hist::{bump, Bounded};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tpb_isa::bundle::{Raw, INST_WORD_LEN};
use tpb_isa::errata::ERRATA;
use tpb_isa::validate::{self, Finding};
use tpb_isa::{opcode, text, BodyKind, Bundle, Generation, Provenance, Severity};

pub use crate::hist::{MAX_TRACKED, TOP_VALUES};
/// Harness failures kept in detail (all are counted).
pub const MAX_DETAILS: usize = 200;

pub use super::choice::GenerationFrom;
use super::choice::{Choice, Fit};

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

    fn distinct(&self) -> String {
        if self.values.capped() {
            format!(">{}", self.values.distinct())
        } else {
            self.values.distinct().to_string()
        }
    }

    fn to_json(&self) -> Value {
        let (top, other) = self.top();
        json!({
            "path": self.path,
            "offset": self.offset,
            "section": self.prov.section,
            "confidence": self.prov.confidence,
            "distinct": self.values.distinct(),
            "distinct_capped": self.values.capped(),
            "top": top.iter().map(|(v, c)| json!({"value": v, "count": c})).collect::<Vec<_>>(),
            "other": other,
        })
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

    fn engine_mismatches_json(&self) -> Vec<Value> {
        self.engine_mismatch
            .iter()
            .map(|(op, by)| json!({"opcode": format!("{op:#04x}"), "name": opcode::name(*op), "table": opcode::lookup(*op).map(|o| o.engine), "engines": by}))
            .collect()
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

    /// The errata with their support here, as JSON (every erratum, in table order).
    pub fn errata_json(&self) -> Value {
        let list: Vec<Value> = ERRATA
            .iter()
            .map(|e| {
                let builds: BTreeMap<&String, Value> = self
                    .errata
                    .get(e.id)
                    .map(|b| b.iter().map(|(k, s)| (k, json!({"bundles": s.bundles, "files": s.files.len()}))).collect())
                    .unwrap_or_default();
                json!({
                    "id": e.id, "check": e.amends.check.code,
                    "opcodes": e.amends.opcodes,
                    "fields": e.amends.fields, "generations": e.amends.generations,
                    "claim": e.claim, "observed": e.observed, "resolution": e.resolution, "confidence": e.confidence,
                    "bundles": builds,
                })
            })
            .collect();
        json!({"verdicts": {"bundles": self.bundles, "invalid_spec": self.invalid_spec, "invalid_amended": self.invalid_amended}, "errata": list})
    }

    /// The "Errata" section: spec claim, observed fact, bundles per build, and the verdicts under both profiles.
    pub fn errata_markdown(&self) -> String {
        let mut m = String::new();
        let pct = |n: usize| if self.bundles == 0 { 0.0 } else { 100.0 * n as f64 / self.bundles as f64 };
        let _ = writeln!(
            m,
            "Verdicts over {} real bundles: **{} invalid by default** (the spec amended by the errata, {:.1}%), \
             {} invalid under `--spec` (the spec alone, {:.1}%). A finding an erratum accepts is still reported, as a `note` naming it.
",
            self.bundles,
            self.invalid_amended,
            pct(self.invalid_amended),
            self.invalid_spec,
            pct(self.invalid_spec)
        );
        let _ = writeln!(m, "| erratum | check | opcodes | generations | spec claim | observed | resolution | confidence | bundles per build |");
        let _ = writeln!(m, "|---|---|---|---|---|---|---|---|---|");
        for e in ERRATA {
            let ops = e.amends.opcodes.opcodes_text();
            let gens: Vec<&str> = e.amends.generations.iter().map(|g| g.as_str()).collect();
            let builds: Vec<String> = self
                .errata
                .get(e.id)
                .map(|b| b.iter().map(|(k, s)| format!("{} x{} ({} files)", cell(k), s.bundles, s.files.len())).collect())
                .unwrap_or_default();
            let _ = writeln!(
                m,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                e.id,
                e.amends.check.code,
                ops,
                gens.join(", "),
                cell(e.claim),
                cell(e.observed),
                cell(e.resolution),
                e.confidence.as_str(),
                if builds.is_empty() { "none here".to_string() } else { builds.join("; ") }
            );
        }
        m
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

    pub fn to_json(&self) -> Value {
        let ops: Vec<Value> = self
            .ops
            .iter()
            .map(|(op, s)| {
                let info = opcode::lookup(*op);
                json!({
                    "opcode": format!("{op:#04x}"),
                    "name": opcode::name(*op),
                    "known": info.is_some(),
                    "spec_engine": info.map(|i| i.engine),
                    "body": s.kind.layout().name,
                    "typed": s.kind != BodyKind::Opaque,
                    "count": s.count,
                    "engines": s.engines,
                    "header_invariant_ok": s.header_ok,
                    "codec_round_trip_ok": s.codec_ok,
                    "text_round_trip_ok": s.text_ok,
                    "no_findings": s.clean,
                    "valid": s.valid,
                    "valid_spec": s.valid_spec,
                    "findings": s.findings,
                    "fields": s.fields.iter().map(FieldDist::to_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        let codes: Vec<Value> = self
            .codes
            .iter()
            .map(|(code, s)| {
                json!({
                    "code": code, "severity": s.severity, "section": s.section, "count": s.count,
                    "opcodes": s.opcodes.iter().map(|(op, c)| json!({"opcode": format!("{op:#04x}"), "count": c})).collect::<Vec<_>>(),
                    "fields": s.fields,
                })
            })
            .collect();
        let unknown: Vec<Value> = self
            .unknown_opcodes()
            .iter()
            .map(|(op, c)| json!({"opcode": format!("{op:#04x}"), "count": c, "engines": self.ops.get(op).map(|s| &s.engines)}))
            .collect();
        json!({
            "bundles": self.bundles,
            "harness_failures": {"count": self.harness_count, "details": self.harness},
            "spec_disagreements": {"bundles": self.disagreeing, "unknown_opcodes": unknown, "engine_mismatches": self.engine_mismatches_json(), "findings": codes},
            "sources": self.sources,
            "errata": self.errata_json(),
            "opcodes": ops,
        })
    }

    pub fn to_markdown(&self) -> String {
        let mut m = String::new();
        let _ = writeln!(m, "# NEFF conformance\n");
        let _ = writeln!(m, "- containers: {}, bundles: {}", self.sources.len(), self.bundles);
        let _ = writeln!(m, "- **harness failures: {}** (round-trip mismatches and panics; each one is a bug in this harness)", self.harness_count);
        let _ = writeln!(
            m,
            "- **spec disagreements: {} bundles** (validator findings under the spec alone, opcodes the spec does not name, or an engine the opcode table does not name for the opcode; facts about the spec, not harness failures)\n",
            self.disagreeing
        );
        let _ = writeln!(m, "## Errata\n");
        m.push_str(&self.errata_markdown());

        let _ = writeln!(m, "\n## Containers\n");
        let _ = writeln!(m, "| file | compiler | target | generation | integrity | streams | bundles |");
        let _ = writeln!(m, "|---|---|---|---|---|---|---|");
        for s in &self.sources {
            let from = match s.generation_from {
                GenerationFrom::Arch => "--arch",
                GenerationFrom::Target => "target",
                GenerationFrom::Guessed => "guessed: target unknown, fewest invalid bundles",
                GenerationFrom::Default => "default, target unknown",
            };
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} ({from}) | {} | {} | {} |",
                cell(&s.file),
                cell(s.tool_version.as_deref().unwrap_or("unknown")),
                cell(s.target.as_deref().unwrap_or("unknown")),
                s.generation,
                cell(&s.integrity),
                s.streams.len(),
                s.bundles
            );
        }

        let _ = writeln!(m, "\n## Harness failures\n");
        if self.harness_count == 0 {
            let _ = writeln!(m, "None: every bundle round-tripped byte-exact through the codec and the text format.");
        } else {
            let _ = writeln!(m, "| file | member | index | offset | opcode | kind | detail |");
            let _ = writeln!(m, "|---|---|---|---|---|---|---|");
            for h in &self.harness {
                let _ = writeln!(
                    m,
                    "| {} | {} | {} | {:#x} | {} | {} | {} |",
                    cell(&h.file),
                    cell(&h.member),
                    h.index,
                    h.offset,
                    h.opcode,
                    h.kind,
                    cell(&h.detail)
                );
            }
            if self.harness_count > self.harness.len() {
                let _ = writeln!(m, "\n({} more not listed)", self.harness_count - self.harness.len());
            }
        }

        let _ = writeln!(m, "\n## Spec disagrees with compiler output\n");
        let _ = writeln!(m, "### Opcodes the spec does not name\n");
        let unknown = self.unknown_opcodes();
        if unknown.is_empty() {
            let _ = writeln!(m, "None.");
        } else {
            let _ = writeln!(m, "| opcode | bundles | engines |");
            let _ = writeln!(m, "|---|---|---|");
            for (op, c) in unknown {
                let _ = writeln!(m, "| {op:#04x} | {c} | {} |", self.ops.get(&op).map(|s| engines_text(&s.engines)).unwrap_or_default());
            }
        }
        let _ = writeln!(m, "\n### Engines the opcode table does not name\n");
        let _ = writeln!(m, "The table's engine is where an op usually runs, not a wire field: a bundle elsewhere is a fact about the table.\n");
        if self.engine_mismatch.is_empty() {
            let _ = writeln!(m, "None.");
        } else {
            let _ = writeln!(m, "| opcode | name | table says | bundles seen on |");
            let _ = writeln!(m, "|---|---|---|---|");
            for (op, by) in &self.engine_mismatch {
                let table = opcode::lookup(*op).map_or_else(|| "?".to_string(), |o| o.engine.to_string());
                let _ = writeln!(m, "| {op:#04x} | {} | {table} | {} |", opcode::name(*op), engines_text(by));
            }
        }
        let _ = writeln!(m, "\n### Validator findings\n");
        if self.codes.is_empty() {
            let _ = writeln!(m, "None.");
        } else {
            let _ = writeln!(m, "| check | worst severity | spec § | findings | opcodes | fields |");
            let _ = writeln!(m, "|---|---|---|---|---|---|");
            for (code, s) in &self.codes {
                let ops: Vec<String> = s.opcodes.iter().map(|(op, c)| format!("{op:#04x} x{c}")).collect();
                let fields: Vec<String> = s.fields.iter().map(|(f, c)| format!("`{f}` x{c}")).collect();
                let _ = writeln!(
                    m,
                    "| {code} | {} | {} | {} | {} | {} |",
                    s.severity.as_str(),
                    cell(s.section),
                    s.count,
                    ops.join(", "),
                    cell(&fields.join(", "))
                );
            }
        }

        let _ = writeln!(m, "\n## Per opcode\n");
        let _ = writeln!(
            m,
            "| opcode | name | body layout | decode | bundles | engines seen (spec says) | header invariant | codec round trip | text round trip | no findings | valid | valid (spec alone) | findings (spec) |"
        );
        let _ = writeln!(m, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (op, s) in &self.ops {
            let spec_engine = opcode::lookup(*op).map_or_else(|| "not in spec".to_string(), |i| i.engine.to_string());
            let findings: Vec<String> = s.findings.iter().map(|(c, n)| format!("{c} x{n}")).collect();
            let _ = writeln!(
                m,
                "| {op:#04x} | {} | {} | {} | {} | {} ({spec_engine}) | {} | {} | {} | {} | {} | {} | {} |",
                opcode::name(*op),
                s.kind.layout().name,
                if s.kind == BodyKind::Opaque { "opaque" } else { "typed" },
                s.count,
                engines_text(&s.engines),
                s.header_ok,
                s.codec_ok,
                s.text_ok,
                s.clean,
                s.valid,
                s.valid_spec,
                findings.join(", ")
            );
        }

        let _ = writeln!(m, "\n## Field values per opcode\n");
        let _ = writeln!(m, "Each field of the spec's body layout, with the values real bundles carry (top {TOP_VALUES}, then \"other\").\n");
        for (op, s) in &self.ops {
            let _ = writeln!(
                m,
                "### {op:#04x} {} ({}, {}), {} bundles\n",
                opcode::name(*op),
                s.kind.layout().name,
                if s.kind == BodyKind::Opaque { "opaque" } else { "typed" },
                s.count
            );
            let _ = writeln!(m, "| field | offset | spec | distinct | values (count) |");
            let _ = writeln!(m, "|---|---|---|---|---|");
            for f in &s.fields {
                let (top, other) = f.top();
                let mut vals: Vec<String> = top.iter().map(|(v, c)| format!("`{}` x{c}", cell(v))).collect();
                if other > 0 {
                    vals.push(format!("other x{other}"));
                }
                let _ = writeln!(m, "| `{}` | {:#04x} | {} | {} | {} |", f.path, f.offset, cell(&f.prov.to_string()), f.distinct(), vals.join(", "));
            }
            let _ = writeln!(m);
        }
        m
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

fn engines_text(e: &BTreeMap<String, usize>) -> String {
    let v: Vec<String> = e.iter().map(|(k, c)| format!("{k} x{c}")).collect();
    v.join(", ")
}

/// Escapes a markdown table cell: control characters and `|` (file and
/// member names, compiler and target come from the input).
fn cell(s: &str) -> String {
    crate::text_safe::markdown_cell(s)
}

#[cfg(test)]
mod tests {
    use super::{first_diff, record_fields, text_verdict, FieldDist, HarnessFailure, NeffConformance, OpStats, MAX_DETAILS, MAX_TRACKED, TOP_VALUES};

    #[test]
    fn a_text_round_trip_is_clean_only_when_it_gives_back_the_same_bytes() {
        let a = [0x11u8; 64];
        let mut b = a;
        b[5] = 0;
        assert_eq!(text_verdict(&a, Ok(Some(a))), Ok(()));
        assert_eq!(text_verdict(&a, Ok(Some(b))), Err("assembled at byte 0x05 (0x11 vs 0x00) differs from the original".to_string()));
        assert_eq!(text_verdict(&a, Ok(None)), Err("disassembly assembled to nothing".to_string()));
        assert_eq!(text_verdict(&a, Err("bad field".into())), Err("assembler rejected its own disassembly: bad field".to_string()));
    }

    #[test]
    fn a_codec_mismatch_names_its_first_differing_byte() {
        let a = [0u8; 64];
        let mut b = a;
        b[0x21] = 0x7f;
        b[0x30] = 1;
        assert_eq!(first_diff(&a, &b), "at byte 0x21 (0x00 vs 0x7f)");
        assert_eq!(first_diff(&a, &a), "nowhere");
    }

    /// A harness failure: a panic at bundle `index`.
    fn panic_at(index: usize) -> HarnessFailure {
        HarnessFailure { file: "f.neff".into(), member: "m".into(), index, offset: 0, opcode: "0x00".into(), kind: "panic", detail: String::new() }
    }

    #[test]
    fn a_disassembly_line_that_disagrees_with_the_layout_is_named() {
        use tpb_isa::{opcode, text, BodyKind, Bundle};
        // A typed opcode's bundle: its line names each field of the layout in order.
        let Some(op) = (0..=u8::MAX).find(|&op| opcode::lookup(op).is_some() && opcode::body_kind(op) != BodyKind::Opaque) else {
            panic!("no typed opcode")
        };
        let mut raw = [0u8; tpb_isa::bundle::BUNDLE_BYTES];
        raw[0] = op;
        let b = Bundle::decode(&raw);
        let line = text::disasm(&b);
        let mut st = OpStats::new(op);
        assert!(st.fields.len() >= 2, "{line}");
        assert_eq!(record_fields(&mut st, b.kind(), &line), None, "{line}");
        assert!(st.fields.iter().all(|f| f.top().0.iter().map(|x| x.1).sum::<usize>() == 1), "each field counted once");
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let first = &st.fields[0].path;
        let other = BodyKind::ALL.iter().copied().find(|&k| k != b.kind()).unwrap_or(BodyKind::Opaque);
        let cases = [
            (other, line.clone(), format!("decoded as {other:?}, table says {:?}", b.kind())),
            (b.kind(), tokens[..tokens.len() - 1].join(" "), format!("disassembly has no token for `{}`", st.fields[st.fields.len() - 1].path)),
            (b.kind(), format!("{line} x=1"), "disassembly has extra token `x=1`".to_string()),
            (b.kind(), line.replacen(&format!(" {first}="), " renamed=", 1), format!("disassembly token `renamed` where the layout has `{first}`")),
        ];
        for (kind, line, want) in cases {
            assert_eq!(record_fields(&mut OpStats::new(op), kind, &line), Some(want), "{line}");
        }
    }

    #[test]
    fn merged_opcode_stats_add_the_values_they_no_longer_track() {
        let op = (0..=u8::MAX).find(|&op| !OpStats::new(op).fields.is_empty()).unwrap_or(0);
        // "0x1", then values to the cap, then `untracked` more past it.
        let with = |untracked: usize| {
            let mut st = OpStats::new(op);
            st.fields[0].add("0x1", 1);
            for v in 0..MAX_TRACKED - 1 + untracked {
                st.fields[0].add(&format!("v{v:05}"), 1);
            }
            st
        };
        let mut a = with(2);
        a.merge(with(5));
        let f = &a.fields[0];
        assert_eq!((f.values.untracked(), f.top().0[0]), (7, ("0x1", 2)));
        assert_eq!(f.values.total(), 2 * MAX_TRACKED as u64 + 7);
    }

    #[test]
    fn merged_reports_add_their_harness_failures() {
        let failing = |n: usize| {
            let mut c = NeffConformance::default();
            for index in 0..n {
                c.harness_failure(panic_at(index));
            }
            c
        };
        let mut a = failing(3);
        a.merge(failing(4));
        assert_eq!((a.harness_failures(), a.harness.len()), (7, 7));
        // Details stop at MAX_DETAILS, merged or not; the count goes on.
        let mut b = failing(MAX_DETAILS - 1);
        b.merge(failing(3));
        assert_eq!((b.harness_failures(), b.harness.len()), (MAX_DETAILS + 2, MAX_DETAILS));
        assert_eq!(failing(MAX_DETAILS + 1).harness.len(), MAX_DETAILS);
    }

    #[test]
    fn a_field_distribution_counts_each_value_and_caps_what_it_tracks() {
        let prov = tpb_isa::Provenance::new("2.1", tpb_isa::Confidence::Confirmed);
        let mut d = FieldDist { path: "src.addr".into(), offset: 0x0C, prov, values: Default::default() };
        d.add("0x10", 3);
        d.add("0x20", 1);
        d.add("0x10", 2);
        assert_eq!(d.top(), (vec![("0x10", 5), ("0x20", 1)], 0));
        assert_eq!(d.distinct(), "2");
        // Past MAX_TRACKED distinct values, new ones are only counted; known ones still are.
        for v in 0..MAX_TRACKED + 10 {
            d.add(&format!("v{v:05}"), 1);
        }
        d.add("0x10", 1);
        let (top, other) = d.top();
        assert_eq!((top.len(), top[0]), (TOP_VALUES, ("0x10", 6)));
        assert_eq!(top.iter().map(|x| x.1).sum::<usize>() + other, 6 + 1 + MAX_TRACKED + 10);
        assert_eq!(d.distinct(), format!(">{MAX_TRACKED}"));
        let j = d.to_json();
        assert_eq!((j["distinct_capped"].as_bool(), j["top"][0]["count"].as_u64()), (Some(true), Some(6)));
    }

    #[test]
    fn harness_failures_are_all_counted_and_the_first_max_details_kept() {
        let mut c = NeffConformance::default();
        let more = |c: &NeffConformance| c.to_markdown().lines().filter(|l| l.ends_with("more not listed)")).map(String::from).collect::<Vec<_>>();
        for index in 0..MAX_DETAILS + 5 {
            if index == MAX_DETAILS {
                // Every one listed: nothing more to say.
                assert!(more(&c).is_empty(), "{:?}", more(&c));
            }
            let f = panic_at(index);
            c.harness_failure(f);
        }
        assert_eq!(c.harness_failures(), MAX_DETAILS + 5);
        assert_eq!(c.harness.len(), MAX_DETAILS);
        assert_eq!(c.harness.last().map(|h| h.index), Some(MAX_DETAILS - 1));
        assert_eq!(more(&c), ["(5 more not listed)"]);
    }
}
