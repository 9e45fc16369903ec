//! The conformance report as JSON and as Markdown: what [`super::NeffConformance`]
//! gathered, rendered; nothing is counted here.

use super::{FieldDist, GenerationFrom, NeffConformance, TOP_VALUES};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tpb_isa::errata::ERRATA;
use tpb_isa::{opcode, BodyKind};

impl FieldDist {
    /// Distinct values as the Markdown shows them: `>N` when more arrived than were tracked.
    pub(super) fn distinct(&self) -> String {
        if self.values.capped() {
            format!(">{}", self.values.distinct())
        } else {
            self.values.distinct().to_string()
        }
    }

    pub(super) fn to_json(&self) -> Value {
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

impl NeffConformance {
    fn engine_mismatches_json(&self) -> Vec<Value> {
        self.engine_mismatch
            .iter()
            .map(|(op, by)| json!({"opcode": format!("{op:#04x}"), "name": opcode::name(*op), "table": opcode::lookup(*op).map(|o| o.engine), "engines": by}))
            .collect()
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

fn engines_text(e: &BTreeMap<String, usize>) -> String {
    let v: Vec<String> = e.iter().map(|(k, c)| format!("{k} x{c}")).collect();
    v.join(", ")
}

/// Escapes a markdown table cell: control characters and `|` (file and
/// member names, compiler and target come from the input).
fn cell(s: &str) -> String {
    crate::text_safe::markdown_cell(s)
}
