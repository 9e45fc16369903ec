//! The conformance report as JSON and as Markdown. Its per-opcode tables
//! are a view of the evidence ([`crate::evidence::Evidence`]): each
//! opcode's groups merged over generations and builds, beside the round
//! trips that are the harness's own; nothing is counted here.

use super::{GenerationFrom, NeffConformance, RoundTrips, TOP_VALUES};
use crate::evidence::{CheckCount, FieldSpec, Hist};
use crate::text_safe::md_cell;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tpb_isa::layout::Leaf;
use tpb_isa::{checks, opcode, text, BodyKind, Provenance};

/// The layout leaf a histogrammed field lies in (an array element's is its
/// array; an opaque body's word, its raw bytes).
fn leaf_of(kind: BodyKind, f: &FieldSpec) -> Option<&'static Leaf> {
    text::leaves(kind).iter().find(|l| l.offset <= f.offset && f.offset < l.offset + l.size())
}

fn field_prov(kind: BodyKind, f: &FieldSpec) -> Option<Provenance> {
    leaf_of(kind, f).map(|l| l.prov)
}

/// A field's most frequent values as the disassembly prints them, and the count of all others.
pub(super) fn top_values(kind: BodyKind, f: &FieldSpec, h: &Hist) -> (Vec<(String, u64)>, u64) {
    let (top, other) = h.top_bytes();
    let leaf = leaf_of(kind, f);
    let text = |le: &[u8]| leaf.map_or_else(|| crate::evidence::hex(le), |l| text::format_value(l, le));
    (top.iter().map(|(v, c)| (text(v), *c)).collect(), other)
}

/// Distinct values as the Markdown shows them: `>N` when more arrived than were tracked.
fn distinct(h: &Hist) -> String {
    if h.capped() {
        format!(">{}", h.distinct())
    } else {
        h.distinct().to_string()
    }
}

fn field_json(kind: BodyKind, f: &FieldSpec, h: &Hist) -> Value {
    let (top, other) = top_values(kind, f, h);
    let prov = field_prov(kind, f);
    json!({
        "path": f.path,
        "offset": f.offset,
        "size": f.size,
        "section": prov.map(|p| p.section),
        "confidence": prov.map(|p| p.confidence),
        "distinct": h.distinct(),
        "distinct_capped": h.capped(),
        "top": top.iter().map(|(v, c)| json!({"value": v, "count": c})).collect::<Vec<_>>(),
        "other": other,
    })
}

/// `invalid-dtype x12 (accepted x12)`: a check that fired, on how many bundles, and what became of them.
fn check_text(code: &str, c: &CheckCount) -> String {
    let accepted: u64 = c.accepted.values().sum();
    let mut parts = Vec::new();
    if accepted > 0 {
        parts.push(format!("accepted x{accepted}"));
    }
    if c.refused > 0 {
        parts.push(format!("refused x{}", c.refused));
    }
    format!("{code} x{} ({})", c.disagree, parts.join(", "))
}

/// One check over every opcode: the bundles it fired on, accepted and refused, by opcode.
#[derive(Default)]
struct CheckTotals {
    disagree: u64,
    accepted: BTreeMap<&'static str, u64>,
    refused: u64,
    opcodes: BTreeMap<u8, u64>,
}

impl NeffConformance {
    fn engine_mismatches_json(&self) -> Vec<Value> {
        self.engine_mismatches()
            .iter()
            .map(|(op, by)| json!({"opcode": opcode::hex(*op), "name": opcode::name(*op), "table": opcode::lookup(*op).map(|o| o.engine), "engines": by}))
            .collect()
    }

    /// Each check that fired, over every opcode (the evidence's per-group counts summed).
    fn check_totals(&self) -> BTreeMap<&'static str, CheckTotals> {
        let mut out: BTreeMap<&'static str, CheckTotals> = BTreeMap::new();
        for (op, g) in self.evidence.by_opcode() {
            for (code, c) in g.checks.iter().filter(|(_, c)| c.disagree > 0) {
                let t = out.entry(code).or_default();
                t.disagree += c.disagree;
                t.refused += c.refused;
                for (id, n) in &c.accepted {
                    *t.accepted.entry(id).or_insert(0) += n;
                }
                *t.opcodes.entry(op).or_insert(0) += c.disagree;
            }
        }
        out
    }

    /// The errata with their support here, as JSON (every erratum, in table order).
    pub fn errata_json(&self) -> Value {
        let list: Vec<Value> = self
            .evidence
            .errata()
            .iter()
            .map(|ev| {
                let e = ev.erratum;
                let builds: BTreeMap<&String, Value> =
                    ev.builds.iter().map(|(k, s)| (k, json!({"bundles": s.bundles, "files": s.files.len()}))).collect();
                json!({
                    "id": e.id, "check": e.amends.check.code,
                    "opcodes": e.amends.opcodes,
                    "fields": e.amends.fields, "generations": e.amends.generations,
                    "claim": e.claim, "observed": e.observed, "resolution": e.resolution, "confidence": e.confidence,
                    "bundles": builds,
                })
            })
            .collect();
        json!({"verdicts": {"bundles": self.bundles(), "invalid_spec": self.invalid_spec(), "invalid_amended": self.invalid_amended()}, "errata": list})
    }

    /// The "Errata" section: spec claim, observed fact, bundles per build, and the verdicts under both profiles.
    pub fn errata_markdown(&self) -> String {
        let mut m = String::new();
        let bundles = self.bundles();
        let pct = |n: usize| if bundles == 0 { 0.0 } else { 100.0 * n as f64 / bundles as f64 };
        let _ = writeln!(
            m,
            "Verdicts over {} real bundles: **{} invalid by default** (the spec amended by the errata, {:.1}%), \
             {} invalid under `--spec` (the spec alone, {:.1}%). A finding an erratum accepts is still reported, as a `note` naming it.
",
            bundles,
            self.invalid_amended(),
            pct(self.invalid_amended()),
            self.invalid_spec(),
            pct(self.invalid_spec())
        );
        let _ = writeln!(m, "| erratum | check | opcodes | generations | spec claim | observed | resolution | confidence | bundles per build |");
        let _ = writeln!(m, "|---|---|---|---|---|---|---|---|---|");
        for ev in self.evidence.errata() {
            let e = ev.erratum;
            let ops = e.amends.opcodes.opcodes_text();
            let gens: Vec<&str> = e.amends.generations.iter().map(|g| g.as_str()).collect();
            let builds: Vec<String> = ev.builds.iter().map(|(k, s)| format!("{} x{} ({} files)", md_cell(k), s.bundles, s.files.len())).collect();
            let _ = writeln!(
                m,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                e.id,
                e.amends.check.code,
                ops,
                gens.join(", "),
                md_cell(e.claim),
                md_cell(e.observed),
                md_cell(e.resolution),
                e.confidence.as_str(),
                if builds.is_empty() { "none here".to_string() } else { builds.join("; ") }
            );
        }
        m
    }

    /// The report as JSON: every count and kept failure (`tpb conform` writes it beside the Markdown).
    pub fn to_json(&self) -> Value {
        let by_opcode = self.evidence.by_opcode();
        let ops: Vec<Value> = by_opcode
            .iter()
            .map(|(op, g)| {
                let info = opcode::lookup(*op);
                let kind = opcode::body_kind(*op);
                let t = self.trips.get(op).copied().unwrap_or_default();
                json!({
                    "opcode": opcode::hex(*op),
                    "name": opcode::name(*op),
                    "known": info.is_some(),
                    "spec_engine": info.map(|i| i.engine),
                    "body": kind.layout().name,
                    "typed": kind != BodyKind::Opaque,
                    "count": g.bundles,
                    "engines": g.engines,
                    "header_invariant_ok": t.header_ok,
                    "codec_round_trip_ok": t.codec_ok,
                    "text_round_trip_ok": t.text_ok,
                    "checks": g.checks.iter().filter(|(_, c)| c.disagree > 0).map(|(code, c)| json!({"code": code, "disagree": c.disagree, "accepted": c.accepted, "refused": c.refused})).collect::<Vec<_>>(),
                    "fields": g.fields.iter().map(|(f, h)| field_json(kind, f, h)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let codes: Vec<Value> = self
            .check_totals()
            .iter()
            .map(|(code, t)| {
                json!({
                    "code": code, "section": checks::by_code(code).map(|c| c.prov.section),
                    "bundles": t.disagree, "accepted": t.accepted, "refused": t.refused,
                    "opcodes": t.opcodes.iter().map(|(op, c)| json!({"opcode": opcode::hex(*op), "bundles": c})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let unknown: Vec<Value> = by_opcode
            .iter()
            .filter(|(op, _)| opcode::lookup(**op).is_none())
            .map(|(op, g)| json!({"opcode": opcode::hex(*op), "count": g.bundles, "engines": g.engines}))
            .collect();
        json!({
            "bundles": self.bundles(),
            "harness_failures": {"count": self.harness.count, "details": self.harness.details},
            "spec_disagreements": {"bundles": self.disagreeing, "unknown_opcodes": unknown, "engine_mismatches": self.engine_mismatches_json(), "checks": codes},
            "sources": self.sources,
            "errata": self.errata_json(),
            "opcodes": ops,
        })
    }

    /// The report as Markdown, for people.
    pub fn to_markdown(&self) -> String {
        let mut m = String::new();
        let _ = writeln!(m, "# NEFF conformance\n");
        let _ = writeln!(m, "- containers: {}, bundles: {}", self.sources.len(), self.bundles());
        let _ = writeln!(m, "- **harness failures: {}** (round-trip mismatches and panics; each one is a bug in this harness)", self.harness.count);
        let _ = writeln!(
            m,
            "- **spec disagreements: {} bundles** (validator findings under the spec alone, opcodes the spec does not name, or an engine the opcode table does not name for the opcode; facts about the spec, not harness failures)\n",
            self.disagreeing
        );
        let _ = writeln!(m, "## Errata\n");
        m.push_str(&self.errata_markdown());
        self.containers_markdown(&mut m);
        self.harness_markdown(&mut m);
        let by_opcode = self.evidence.by_opcode();

        let _ = writeln!(m, "\n## Spec disagrees with compiler output\n");
        let _ = writeln!(m, "### Opcodes the spec does not name\n");
        let unknown: Vec<_> = by_opcode.iter().filter(|(op, _)| opcode::lookup(**op).is_none()).collect();
        if unknown.is_empty() {
            let _ = writeln!(m, "None.");
        } else {
            let _ = writeln!(m, "| opcode | bundles | engines |");
            let _ = writeln!(m, "|---|---|---|");
            for (op, g) in unknown {
                let _ = writeln!(m, "| {op:#04x} | {} | {} |", g.bundles, engines_text(&g.engines));
            }
        }
        let _ = writeln!(m, "\n### Engines the opcode table does not name\n");
        let _ = writeln!(m, "The table's engine is where an op usually runs, not a wire field: a bundle elsewhere is a fact about the table.\n");
        let mismatches = self.engine_mismatches();
        if mismatches.is_empty() {
            let _ = writeln!(m, "None.");
        } else {
            let _ = writeln!(m, "| opcode | name | table says | bundles seen on |");
            let _ = writeln!(m, "|---|---|---|---|");
            for (op, by) in &mismatches {
                let table = opcode::lookup(*op).map_or_else(|| "?".to_string(), |o| o.engine.to_string());
                let _ = writeln!(m, "| {op:#04x} | {} | {table} | {} |", opcode::name(*op), engines_text(by));
            }
        }
        let _ = writeln!(m, "\n### Validator findings\n");
        let totals = self.check_totals();
        if totals.is_empty() {
            let _ = writeln!(m, "None.");
        } else {
            let _ = writeln!(m, "Bundles each check fires on under the spec alone, and whether an erratum accepts each one's findings.\n");
            let _ = writeln!(m, "| check | spec § | bundles | accepted by an erratum | refused | opcodes |");
            let _ = writeln!(m, "|---|---|---|---|---|---|");
            for (code, t) in &totals {
                let ops: Vec<String> = t.opcodes.iter().map(|(op, c)| format!("{op:#04x} x{c}")).collect();
                let accepted: Vec<String> = t.accepted.iter().map(|(id, c)| format!("`{id}` x{c}")).collect();
                let section = checks::by_code(code).map_or("?", |c| c.prov.section);
                let _ =
                    writeln!(m, "| {code} | {} | {} | {} | {} | {} |", md_cell(section), t.disagree, accepted.join(", "), t.refused, ops.join(", "));
            }
        }

        let _ = writeln!(m, "\n## Per opcode\n");
        let _ = writeln!(
            m,
            "| opcode | name | body layout | decode | bundles | engines seen (spec says) | header invariant | codec round trip | text round trip | checks that fire (bundles; accepted by an erratum, refused) |"
        );
        let _ = writeln!(m, "|---|---|---|---|---|---|---|---|---|---|");
        for (op, g) in &by_opcode {
            let kind = opcode::body_kind(*op);
            let spec_engine = opcode::lookup(*op).map_or_else(|| "not in spec".to_string(), |i| i.engine.to_string());
            let t: RoundTrips = self.trips.get(op).copied().unwrap_or_default();
            let fired: Vec<String> = g.checks.iter().filter(|(_, c)| c.disagree > 0).map(|(code, c)| check_text(code, c)).collect();
            let _ = writeln!(
                m,
                "| {op:#04x} | {} | {} | {} | {} | {} ({spec_engine}) | {} | {} | {} | {} |",
                opcode::name(*op),
                kind.layout().name,
                if kind == BodyKind::Opaque { "opaque" } else { "typed" },
                g.bundles,
                engines_text(&g.engines),
                t.header_ok,
                t.codec_ok,
                t.text_ok,
                fired.join(", ")
            );
        }

        let _ = writeln!(m, "\n## Field values per opcode\n");
        let _ = writeln!(
            m,
            "Each field of the spec's body layout (an array's each element; an opaque body's each 4-byte word), with the values real bundles carry, as the disassembly prints them (top {TOP_VALUES}, then \"other\").\n"
        );
        for (op, g) in &by_opcode {
            let kind = opcode::body_kind(*op);
            let _ = writeln!(
                m,
                "### {op:#04x} {} ({}, {}), {} bundles\n",
                opcode::name(*op),
                kind.layout().name,
                if kind == BodyKind::Opaque { "opaque" } else { "typed" },
                g.bundles
            );
            let _ = writeln!(m, "| field | offset | spec | distinct | values (count) |");
            let _ = writeln!(m, "|---|---|---|---|---|");
            for (f, h) in &g.fields {
                let (top, other) = top_values(kind, f, h);
                let mut vals: Vec<String> = top.iter().map(|(v, c)| format!("`{}` x{c}", md_cell(v))).collect();
                if other > 0 {
                    vals.push(format!("other x{other}"));
                }
                let prov = field_prov(kind, f).map_or_else(String::new, |p| md_cell(&p.to_string()));
                let _ = writeln!(m, "| `{}` | {:#04x} | {} | {} | {} |", f.path, f.offset, prov, distinct(h), vals.join(", "));
            }
            let _ = writeln!(m);
        }
        m
    }

    fn containers_markdown(&self, m: &mut String) {
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
                md_cell(&s.file),
                md_cell(s.tool_version.as_deref().unwrap_or("unknown")),
                md_cell(s.target.as_deref().unwrap_or("unknown")),
                s.generation,
                md_cell(&s.integrity),
                s.streams.len(),
                s.bundles
            );
        }
    }

    fn harness_markdown(&self, m: &mut String) {
        let _ = writeln!(m, "\n## Harness failures\n");
        if self.harness.count == 0 {
            let _ = writeln!(m, "None: every bundle round-tripped byte-exact through the codec and the text format.");
            return;
        }
        let _ = writeln!(m, "| file | member | index | offset | opcode | kind | detail |");
        let _ = writeln!(m, "|---|---|---|---|---|---|---|");
        for h in &self.harness.details {
            let _ = writeln!(
                m,
                "| {} | {} | {} | {:#x} | {} | {} | {} |",
                md_cell(&h.file),
                md_cell(&h.member),
                h.index,
                h.offset,
                h.opcode,
                h.kind,
                md_cell(&h.detail)
            );
        }
        if self.harness.count > self.harness.details.len() {
            let _ = writeln!(m, "\n({} more not listed)", self.harness.count - self.harness.details.len());
        }
    }
}

fn engines_text<N: std::fmt::Display>(e: &BTreeMap<String, N>) -> String {
    let v: Vec<String> = e.iter().map(|(k, c)| format!("{} x{c}", md_cell(k))).collect();
    v.join(", ")
}

#[cfg(test)]
mod tests {
    use super::engines_text;
    use std::collections::BTreeMap;

    #[test]
    fn an_engine_name_stays_in_its_cell() {
        let by: BTreeMap<String, usize> = [("pe|x\n".to_string(), 2), ("act".to_string(), 1)].into();
        assert_eq!(engines_text(&by), "act x1, pe\\|x\\n x2");
    }
}
