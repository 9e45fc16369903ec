//! Conformance over real bundles: every bundle of every engine stream goes
//! through the header invariant, the codec round trip, the text round trip,
//! typed-vs-opaque decode and the validator. The report keeps two things
//! apart: a spec that disagrees with what the compiler emitted (validator
//! findings, opcodes the spec does not name) is a finding about the spec; a
//! round-trip mismatch or a panic is a bug in this harness.
//!
//! What is counted of every bundle (per opcode: bundles, engines, field
//! values, checks, errata, verdicts) is the evidence's ([`Evidence`]): its
//! walk hands each bundle on to the round trips here, so a bundle is read
//! once, and the report's per-opcode tables are a view of the evidence
//! (`render.rs`). What is here is the harness's own: the round trips, their
//! failures, and the containers.

use crate::evidence::Evidence;
use crate::neff::{self, EngineStream, Neff};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tpb_isa::bundle::{Raw, BUNDLE_BYTES, INST_WORD_LEN};
use tpb_isa::validate::Finding;
use tpb_isa::{opcode, text, Bundle, Generation};

pub use crate::hist::TOP_VALUES;

/// Harness failures kept in detail (all are counted).
pub const MAX_DETAILS: usize = 200;

use crate::neff::Fit;
pub use crate::neff::GenerationFrom;

mod fuzz;
mod render;
#[cfg(test)]
mod tests;

pub use fuzz::{fuzz_neff, FuzzDepth};

/// One container that went into the report.
#[derive(Clone, Debug, Serialize)]
pub struct Source {
    /// The container's name, as given.
    pub file: String,
    /// The compiler build that wrote it (`info.json` `tool_version`), if named.
    pub tool_version: Option<String>,
    /// Its `kelf-0.json` target (`cayman`), if any.
    pub target: Option<String>,
    /// The generation its bundles were judged under.
    pub generation: Generation,
    /// How that generation was chosen.
    pub generation_from: GenerationFrom,
    /// How its bundles fit each generation, when the generation was guessed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation_fit: Option<Fit>,
    /// The payload digest check, in words ([`crate::neff::Integrity::describe`]).
    pub integrity: String,
    /// Whether the digest matched.
    pub integrity_ok: bool,
    /// (member, bundles) per stream.
    pub streams: Vec<(String, usize)>,
    /// Bundles in all its streams.
    pub bundles: usize,
}

/// A bug in this harness, found on a real bundle.
#[derive(Clone, Debug, Serialize)]
pub struct HarnessFailure {
    /// The container's name, as given.
    pub file: String,
    /// The engine stream's member (`sg00/PE.bin`).
    pub member: String,
    /// The bundle's index in the stream.
    pub index: usize,
    /// Its byte offset in the stream.
    pub offset: usize,
    /// Its opcode byte, as `0x46`.
    pub opcode: String,
    /// `codec-round-trip`, `text-round-trip`, `text-fields` or `panic`.
    pub kind: &'static str,
    /// What went wrong (the round trip's difference, the panic's message).
    pub detail: String,
}

/// How one opcode's bundles fared through the codec and the text format.
#[derive(Clone, Copy, Debug, Default)]
struct RoundTrips {
    /// Bundles whose header has the word length 0x10 and zero reserved bits.
    header_ok: usize,
    codec_ok: usize,
    text_ok: usize,
}

/// Harness failures: every one counted, the first [`MAX_DETAILS`] kept.
#[derive(Clone, Debug, Default)]
struct Failures {
    details: Vec<HarnessFailure>,
    count: usize,
}

impl Failures {
    fn push(&mut self, f: HarnessFailure) {
        self.count += 1;
        if self.details.len() < MAX_DETAILS {
            self.details.push(f);
        }
    }
}

/// The conformance of one or more containers' bundles.
#[derive(Clone, Debug, Default)]
pub struct NeffConformance {
    /// Everything counted of the bundles: the report's tables are views of it.
    evidence: Evidence,
    sources: Vec<Source>,
    /// Opcode → its round trips.
    trips: BTreeMap<u8, RoundTrips>,
    /// Bundles with validator findings (an opcode the spec does not name is
    /// one) or on an engine the opcode table does not name for their opcode.
    disagreeing: usize,
    harness: Failures,
}

/// What the round trips of one bundle showed.
struct Trips {
    header_ok: bool,
    codec_ok: bool,
    text: Result<(), TextTrip>,
    /// Where the disassembly and the table's layout disagree.
    fields: Option<String>,
}

fn round_trips(raw: &Raw, b: &Bundle) -> Trips {
    let h = b.header();
    let header_ok = h.inst_word_len == INST_WORD_LEN && h.reserved.get() == 0;
    let codec_ok = b.encode() == *raw;
    let line = text::disasm(b);
    let text = text_verdict(raw, text::asm_line(&line));
    let fields = text_fields(raw[0], b, &line);
    Trips { header_ok, codec_ok, text, fields }
}

/// How a bundle's text round trip failed: a harness failure of kind
/// `text-round-trip`, whose detail is this error's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum TextTrip {
    /// The disassembly assembled to other bytes.
    #[error("assembled {first} differs from the original")]
    Differs {
        /// The first byte that differs.
        first: FirstDiff,
    },
    /// The disassembly assembled to no bundle (a blank or comment line).
    #[error("disassembly assembled to nothing")]
    Nothing,
    /// The assembler refused the disassembly.
    #[error("assembler rejected its own disassembly: {message}")]
    Rejected {
        /// The assembler's reason.
        message: String,
    },
}

/// What the text round trip of `raw` came to, given what the assembler made
/// of its disassembly (the codec's property tests say always `Ok`; this is
/// the report's word when one day it is not).
fn text_verdict<E: fmt::Display>(raw: &Raw, assembled: Result<Option<Raw>, E>) -> Result<(), TextTrip> {
    match assembled {
        Ok(Some(back)) if back == *raw => Ok(()),
        Ok(Some(back)) => Err(TextTrip::Differs { first: first_diff(raw, &back) }),
        Ok(None) => Err(TextTrip::Nothing),
        Err(e) => Err(TextTrip::Rejected { message: e.to_string() }),
    }
}

/// The first byte at which two bundles differ: its offset and the byte in
/// each (the original first), or `None` where they are equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FirstDiff(Option<(usize, u8, u8)>);

impl fmt::Display for FirstDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some((i, a, b)) => write!(f, "at byte {i:#04x} ({a:#04x} vs {b:#04x})"),
            None => f.write_str("nowhere"),
        }
    }
}

fn first_diff(a: &Raw, b: &Raw) -> FirstDiff {
    FirstDiff(a.iter().zip(b.iter()).position(|(x, y)| x != y).map(|i| (i, a[i], b[i])))
}

/// Where a disassembly line and the opcode table's layout disagree: the
/// line's `path=value` tokens name the layout's fields in order.
fn text_fields(op: u8, b: &Bundle, line: &str) -> Option<String> {
    let kind = opcode::body_kind(op);
    if b.kind() != kind {
        return Some(format!("decoded as {:?}, table says {:?}", b.kind(), kind));
    }
    let mut tokens = line.split_whitespace().skip(1);
    for leaf in text::leaves(kind).iter().filter(|l| l.path != "opcode") {
        let Some((path, _)) = tokens.next().and_then(|t| t.split_once('=')) else {
            return Some(format!("disassembly has no token for `{}`", leaf.path));
        };
        if path != leaf.path {
            return Some(format!("disassembly token `{path}` where the layout has `{}`", leaf.path));
        }
    }
    tokens.next().map(|t| format!("disassembly has extra token `{t}`"))
}

/// Runs every bundle of `neff`; `arch` overrides the generation the target implies.
pub fn conform(neff: &Neff, arch: Option<Generation>) -> NeffConformance {
    conform_all(std::slice::from_ref(neff), arch)
}

/// One report over several containers.
pub fn conform_all(neffs: &[Neff], arch: Option<Generation>) -> NeffConformance {
    let mut c = NeffConformance { evidence: Evidence::with_arch(arch), ..NeffConformance::default() };
    for n in neffs {
        c.add(n, arch);
    }
    c
}

/// A panic's message.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "panic".to_string())
}

impl NeffConformance {
    /// Adds every bundle of one container, under `arch`, else its target's
    /// generation, else the one its bundles fit best ([`Neff::choose`]).
    pub fn add(&mut self, neff: &Neff, arch: Option<Generation>) {
        self.add_as(neff, &neff.choose(arch));
    }

    /// Adds every bundle of one container under the generation `choice` names.
    pub fn add_as(&mut self, neff: &Neff, choice: &neff::Choice) {
        let (generation, generation_from) = (choice.generation, choice.from);
        self.evidence.set_source(&neff.name, choice.target.as_deref(), generation_from);
        for s in &neff.streams {
            self.add_stream(&neff.name, neff.tool_version.as_deref(), s, generation);
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
        self.evidence.merge(other.evidence);
        self.sources.extend(other.sources);
        for (op, t) in other.trips {
            let mine = self.trips.entry(op).or_default();
            mine.header_ok += t.header_ok;
            mine.codec_ok += t.codec_ok;
            mine.text_ok += t.text_ok;
        }
        self.disagreeing += other.disagreeing;
        self.harness.count += other.harness.count - other.harness.details.len();
        for h in other.harness.details {
            self.harness.push(h);
        }
    }

    /// One stream through the evidence's walk, each bundle through the round trips on the way.
    fn add_stream(&mut self, file: &str, build: Option<&str>, s: &EngineStream, g: Generation) {
        let Self { evidence, trips, disagreeing, harness, .. } = self;
        let fail = |index: usize, op: u8, kind: &'static str, detail: String| HarnessFailure {
            file: file.to_string(),
            member: s.member.clone(),
            index,
            offset: index * BUNDLE_BYTES,
            opcode: opcode::hex(op),
            kind,
            detail,
        };
        // The next bundle the walk hands on: a panic in the walk is there or in the batch it starts.
        let mut next = 0;
        let walk = catch_unwind(AssertUnwindSafe(|| {
            evidence.add_stream_with(file, &s.member, build, g, s.engine.stem(), &s.bytes, |index, raw, bundle, spec: &[Finding]| {
                next = index + 1;
                let op = raw[0];
                let t = match catch_unwind(AssertUnwindSafe(|| round_trips(raw, bundle))) {
                    Ok(t) => t,
                    Err(p) => {
                        harness.push(fail(index, op, "panic", panic_text(p.as_ref())));
                        return;
                    }
                };
                if !t.codec_ok {
                    harness.push(fail(index, op, "codec-round-trip", "decode then encode changed the bytes".to_string()));
                }
                if let Err(e) = &t.text {
                    harness.push(fail(index, op, "text-round-trip", e.to_string()));
                }
                if let Some(m) = t.fields {
                    harness.push(fail(index, op, "text-fields", m));
                }
                let counts = trips.entry(op).or_default();
                counts.header_ok += usize::from(t.header_ok);
                counts.codec_ok += usize::from(t.codec_ok);
                counts.text_ok += usize::from(t.text.is_ok());
                // An opcode the table lacks has its unknown-opcode finding among `spec`.
                *disagreeing += usize::from(!spec.is_empty() || off_engine(op, &s.engine));
            });
        }));
        if let Err(p) = walk {
            let op = s.bytes.get(next * BUNDLE_BYTES).copied().unwrap_or(0);
            harness.push(fail(next, op, "panic", format!("while validating from this bundle on: {}", panic_text(p.as_ref()))));
        }
    }

    /// Round-trip mismatches, text-field mismatches and panics: bugs in the harness.
    pub fn harness_failures(&self) -> usize {
        self.harness.count
    }

    /// Bundles with validator findings or an opcode the spec does not name.
    pub fn spec_disagreements(&self) -> usize {
        self.disagreeing
    }

    /// Bundles run, in every container.
    pub fn bundles(&self) -> usize {
        count(self.evidence.bundles())
    }

    /// What was counted of the bundles.
    pub fn evidence(&self) -> &Evidence {
        &self.evidence
    }

    /// Opcode → engine stem → bundles on an engine the opcode table does not name.
    pub fn engine_mismatches(&self) -> BTreeMap<u8, BTreeMap<String, usize>> {
        let mut out: BTreeMap<u8, BTreeMap<String, usize>> = BTreeMap::new();
        for (op, group) in self.evidence.by_opcode() {
            for (stem, n) in group.engines {
                if neff::Engine::from_stem(&stem).is_some_and(|e| off_engine(op, &e)) {
                    out.entry(op).or_default().insert(stem, count(n));
                }
            }
        }
        out
    }

    /// Bundles invalid under the spec alone.
    pub fn invalid_spec(&self) -> usize {
        count(self.evidence.invalid_spec())
    }

    /// Bundles invalid under the default profile (the spec amended by the errata).
    pub fn invalid_amended(&self) -> usize {
        count(self.evidence.invalid_amended())
    }

    /// Bundles an erratum accepted, per compiler build.
    pub fn erratum_bundles(&self, id: &str) -> BTreeMap<String, usize> {
        let errata = self.evidence.errata();
        let builds = errata.into_iter().find(|e| e.erratum.id == id).map(|e| e.builds).unwrap_or_default();
        builds.into_iter().map(|(k, s)| (k, count(s.bundles))).collect()
    }

    /// The containers run, in the order added.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The opcodes the spec does not name, with bundle counts.
    pub fn unknown_opcodes(&self) -> Vec<(u8, usize)> {
        self.evidence.by_opcode().into_iter().filter(|(op, _)| opcode::lookup(*op).is_none()).map(|(op, g)| (op, count(g.bundles))).collect()
    }

    /// Bundle count of one opcode byte.
    pub fn opcode_count(&self, op: u8) -> usize {
        self.evidence.by_opcode().get(&op).map_or(0, |g| count(g.bundles))
    }

    /// The most frequent values of one field of one opcode's layout, as the disassembly prints them.
    pub fn field_values(&self, op: u8, path: &str) -> Vec<(String, usize)> {
        let ops = self.evidence.by_opcode();
        let Some((f, h)) = ops.get(&op).and_then(|g| g.fields.iter().find(|(f, _)| f.path == path)) else { return Vec::new() };
        render::top_values(opcode::body_kind(op), f, h).0.into_iter().map(|(v, c)| (v, count(c))).collect()
    }
}

/// Whether `op` ran on an engine the opcode table does not name for it. An
/// engine the table does not know (a new definition key) is no mismatch:
/// there is nothing to compare.
fn off_engine(op: u8, engine: &neff::Engine) -> bool {
    engine.isa().is_some_and(|e| opcode::lookup(op).is_some_and(|o| !o.engine.names(e)))
}

/// A count of the evidence's as the report's other counts are (bundles of this process: they fit).
fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
