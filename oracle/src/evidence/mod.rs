//! Evidence about the format, gathered from real compiled programs: per
//! generation × compiler build × opcode, how many bundles, on which engines,
//! the values of every field, and for every check how many bundles agree
//! with the spec and how many disagree, split into those an erratum accepts
//! and those nothing accepts (contradictions), and for every claimed field of
//! a recovered body how many bundles break its claim. Output is deterministic
//! (sorted, no timestamps, names as the caller gives them), so it can be
//! committed and a new compiler release diffed against the previous one.

pub mod detection;
pub mod diff;
pub mod draft;
mod fields;
pub mod harness;
mod hist;
pub mod holdout;
pub mod loc;
mod merge;
mod render;
#[cfg(test)]
mod tests;

use fields::Narrow;
pub use fields::{fields, finding_bytes, FieldSpec};
pub use harness::Harness;
pub use hist::{hex, Hist, MAX_TRACKED, TOP_VALUES};
pub use loc::Loc;
pub use merge::{MergeError, ReadError, ReadProblem, Shards};

use crate::neff::GenerationFrom;
use loc::At;
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::bundle::claims::{claims, Claim};
use tpb_isa::checks::Check;
use tpb_isa::errata::{Erratum, ERRATA};
use tpb_isa::validate::{self, Finding};
use tpb_isa::{smith, BodyKind, Bundle, Generation, Raw, BUNDLE_BYTES};

/// The build of a stream that names none (a raw bundle file).
pub const UNKNOWN_BUILD: &str = "unknown";

/// How one check fared on one group's bundles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckCount {
    /// Bundles the check applies to and did not fire on.
    pub agree: u64,
    /// Bundles the check fired on under the spec (once per bundle, whatever the fields).
    pub disagree: u64,
    /// Disagreeing bundles whose every finding of this check an erratum accepts, per erratum.
    /// A bundle whose findings two errata accept (two fields) counts under both.
    pub accepted: BTreeMap<&'static str, u64>,
    /// Disagreeing bundles with a finding of this check no erratum accepts.
    pub refused: u64,
    /// The first bundle it disagreed on ([`loc`]).
    pub first_disagree: Option<Loc>,
    /// The first bundle it refused.
    pub first_refused: Option<Loc>,
}

/// Everything seen for one opcode of one generation and build.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pub(crate) bundles: u64,
    /// The group's first bundle ([`loc`]).
    pub(crate) first: Option<Loc>,
    /// Engine stem → bundles (raw files have no engine and are not listed).
    pub(crate) engines: BTreeMap<String, u64>,
    /// Engine stem → its first bundle.
    pub(crate) engines_first: BTreeMap<String, Loc>,
    pub(crate) fields: Vec<(FieldSpec, Hist)>,
    /// How to read each of `fields`, when it is narrow (by position).
    reads: Vec<Option<Narrow>>,
    /// Check code → counts; a check appears once it applies to, or fires on, a bundle.
    pub(crate) checks: BTreeMap<&'static str, CheckCount>,
    /// (check, field) → values of the findings no erratum accepts.
    refused: BTreeMap<(&'static str, String), Hist>,
    /// Each claimed recovered field of the opcode, its claim, the bundles that break it and the first of them.
    claims: Vec<(&'static str, Claim, u64, Option<Loc>)>,
    /// Counts of the stream being added, not yet in the fields above ([`Group::flush`]).
    stream: Stream,
}

/// What one stream added to a group and [`Group::flush`] has not yet moved
/// into its maps: per bundle, a count in place beats a map lookup by name.
#[derive(Clone, Debug, Default)]
struct Stream {
    bundles: u64,
    /// Index of the stream's first bundle of this group.
    first: Option<u64>,
    /// Per check of [`tpb_isa::checks::ALL`], by position: bundles it applied to and did not fire on.
    agree: Vec<u64>,
}

impl Group {
    fn new(kind: BodyKind, opcode: u8) -> Group {
        let fields: Vec<(FieldSpec, Hist)> = fields(kind).into_iter().map(|f| (f, Hist::default())).collect();
        Group {
            bundles: 0,
            first: None,
            engines: BTreeMap::new(),
            engines_first: BTreeMap::new(),
            reads: fields.iter().map(|(f, _)| Narrow::of(f)).collect(),
            fields,
            checks: BTreeMap::new(),
            refused: BTreeMap::new(),
            claims: claims(opcode).map(|(f, c)| (f, c, 0, None)).collect(),
            stream: Stream { bundles: 0, first: None, agree: vec![0; tpb_isa::checks::ALL.len()] },
        }
    }

    /// Moves what the stream `at` on `engine` added into the group's maps and histograms.
    fn flush(&mut self, engine: &str, at: &At) {
        if let Some(first) = self.stream.first.take() {
            loc::keep(&mut self.first, at, first);
            if !engine.is_empty() {
                loc::keep_in(&mut self.engines_first, engine.to_string(), at, first);
            }
        }
        if self.stream.bundles > 0 && !engine.is_empty() {
            crate::hist::bump_n(&mut self.engines, engine, self.stream.bundles);
        }
        self.stream.bundles = 0;
        for (n, check) in self.stream.agree.iter_mut().zip(tpb_isa::checks::ALL) {
            if *n > 0 {
                self.checks.entry(check.code).or_default().agree += std::mem::take(n);
            }
        }
        for (_, h) in &mut self.fields {
            h.flush(Some(at));
        }
    }

    /// Counts one bundle: `findings` its findings under the spec, and the
    /// same after [`validate::amend`] (same order, then any it appended);
    /// `applicable` the checks [`smith::applicable`] gives it.
    /// Counts land in `self.stream` and the histograms' pending slots until [`Group::flush`].
    /// `at` and `index` say where the bundle is.
    #[allow(clippy::too_many_arguments)]
    fn add(&mut self, raw: &Raw, bundle: &Bundle, g: Generation, findings: (&[Finding], &[Finding]), applicable: &Applies, at: &At, index: u64) {
        let (spec, amended) = findings;
        self.bundles += 1;
        self.stream.bundles += 1;
        self.stream.first.get_or_insert(index);
        for ((f, h), read) in self.fields.iter_mut().zip(&self.reads) {
            match read {
                Some(r) => h.add_pending_narrow(r.read(raw), at, index),
                None => {
                    if let Some(b) = raw.get(f.offset..f.offset + f.size) {
                        h.add_pending(b, at, index);
                    }
                }
            }
        }
        let mut fired: Vec<&'static str> = Vec::new();
        for f in spec {
            if !fired.contains(&f.code) {
                fired.push(f.code);
            }
        }
        for &code in &fired {
            let c = self.checks.entry(code).or_default();
            c.disagree += 1;
            loc::keep(&mut c.first_disagree, at, index);
            // `amend` keeps the spec's findings in place, so the first `spec.len()` are theirs.
            let mine = || amended.iter().take(spec.len()).filter(|f| f.code == code);
            if mine().all(|f| f.erratum.is_some()) {
                let mut ids: Vec<&'static str> = mine().filter_map(|f| f.erratum).collect();
                ids.sort_unstable();
                ids.dedup();
                for id in ids {
                    *c.accepted.entry(id).or_insert(0) += 1;
                }
            } else {
                c.refused += 1;
                loc::keep(&mut c.first_refused, at, index);
            }
        }
        let mut bits = applicable.in_table;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let (Some(check), Some(n)) = (tpb_isa::checks::ALL.get(i), self.stream.agree.get_mut(i)) {
                if !fired.contains(&check.code) {
                    *n += 1;
                }
            }
        }
        for check in &applicable.others {
            if !fired.contains(&check.code) {
                self.checks.entry(check.code).or_default().agree += 1;
            }
        }
        if !self.claims.is_empty() {
            let mut broken = Vec::new();
            validate::recovered_claims(bundle, g, &mut broken);
            for f in &broken {
                if let Some(c) = self.claims.iter_mut().find(|c| c.0 == f.field) {
                    c.2 += 1;
                    loc::keep(&mut c.3, at, index);
                }
            }
        }
        // What the amended profile refuses: the spec's findings no erratum accepts, and what a corrected reading found.
        for f in amended.iter().filter(|f| f.erratum.is_none()) {
            let h = self.refused.entry((f.code, f.field.clone())).or_default();
            h.add_at(finding_bytes(raw, bundle.layout(), f), at, index);
        }
    }
}

/// The checks [`smith::applicable`] gives a bundle: those of
/// [`tpb_isa::checks::ALL`] as bits by position (as [`Stream`] counts them;
/// no heap, so a cache slot is replaced without a free), any other by name.
#[derive(Clone, Debug, Default)]
struct Applies {
    in_table: u64,
    others: Vec<&'static Check>,
}

impl Applies {
    fn of(checks: Vec<&'static Check>) -> Applies {
        let mut a = Applies::default();
        for check in checks {
            match tpb_isa::checks::ALL.iter().position(|c| std::ptr::eq(*c, check)).filter(|&i| i < 64) {
                Some(i) => a.in_table |= 1 << i,
                None => a.others.push(check),
            }
        }
        a
    }
}

/// [`smith::applicable`] remembered for the bundles seen last (a fixed
/// number of slots, by a hash of the bundle and generation), kept across
/// streams and files: programs repeat bundles, and working the checks out
/// walks every mutation of the bundle.
#[derive(Clone, Default)]
struct Applicable {
    /// Made on first use: evidence read back from JSON counts no bundle.
    slots: Vec<Option<(Raw, Generation, Applies)>>,
}

impl std::fmt::Debug for Applicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Applicable({} of {} slots used)", self.slots.iter().flatten().count(), Self::SLOTS)
    }
}

/// What a slot never left empty holds (so a lookup needs no unwrap).
static NONE: Applies = Applies { in_table: 0, others: Vec::new() };

impl Applicable {
    /// About 1 MB per evidence counting bundles: a bundle, its generation and its checks a slot.
    const SLOTS: usize = 8192;

    fn of(&mut self, raw: &Raw, g: Generation) -> &Applies {
        if self.slots.is_empty() {
            self.slots = vec![None; Self::SLOTS];
        }
        let h = raw.chunks_exact(8).fold(g as u64, |h, w| {
            let w = w.first_chunk::<8>().map_or(0, |w| u64::from_le_bytes(*w));
            (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
        });
        let slot = &mut self.slots[(h as usize) % Self::SLOTS];
        if slot.as_ref().is_none_or(|(r, sg, _)| r != raw || *sg != g) {
            *slot = Some((*raw, g, Applies::of(smith::applicable(raw, g))));
        }
        match slot {
            Some((_, _, a)) => a,
            None => &NONE,
        }
    }
}

/// Bundles an erratum accepted, for one build.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Support {
    /// The files that hold such a bundle.
    pub files: BTreeSet<String>,
    /// Bundles it accepted.
    pub bundles: u64,
    /// The first bundle it accepted ([`loc`]).
    pub first: Option<Loc>,
}

/// One erratum and the bundles that support it, per build.
#[derive(Clone, Debug)]
pub struct ErratumEvidence {
    /// The erratum, as `tpb_isa` states it.
    pub erratum: &'static Erratum,
    /// Compiler build → the bundles of that build it accepted.
    pub builds: BTreeMap<String, Support>,
}

impl ErratumEvidence {
    /// Bundles it accepted, over every build.
    pub fn bundles(&self) -> u64 {
        self.builds.values().map(|s| s.bundles).sum()
    }
}

/// A spec disagreement no erratum accepts, with the values its field held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contradiction {
    /// The generation the bundles were judged under.
    pub generation: Generation,
    /// The compiler build that wrote them.
    pub build: String,
    /// The opcode byte.
    pub opcode: u8,
    /// The check's code.
    pub check: &'static str,
    /// The field the findings are about.
    pub field: String,
    /// Findings (one per bundle and field).
    pub count: u64,
    /// The most frequent values, then the count of all others.
    pub values: Vec<(String, u64)>,
    /// Findings whose value is not among those listed.
    pub other: u64,
    /// Each listed value's first bundle ([`loc`]).
    pub firsts: BTreeMap<String, Loc>,
}

impl std::fmt::Display for Contradiction {
    /// `v2 2.14.227.0+2d4f85be 0x21 Activation invalid-dtype in_dtype: 0xaa ×79491, 0x7a ×23453` (build escaped).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {:#04x} {} {} {}: {}",
            self.generation,
            crate::text_safe::escape(&self.build),
            self.opcode,
            tpb_isa::opcode::name(self.opcode),
            self.check,
            self.field,
            render::values_text(&self.values, self.other)
        )
    }
}

/// The evidence of some streams of real bundles.
#[derive(Clone, Debug)]
pub struct Evidence {
    /// What counted (version, tables, `--arch`): evidence merges only with its own kind.
    harness: Harness,
    /// Which shards of a split run this holds, unless the whole run.
    shards: Option<Shards>,
    /// (file, build, generation) → bundles.
    inputs: BTreeMap<(String, String, Generation), u64>,
    /// File → its target and how its generation was chosen (see [`Evidence::set_source`]).
    sources: BTreeMap<String, (Option<String>, GenerationFrom)>,
    /// (generation, build) → opcode → group.
    groups: BTreeMap<(Generation, String), BTreeMap<u8, Group>>,
    /// Erratum id → build → support.
    support: BTreeMap<&'static str, BTreeMap<String, Support>>,
    bundles: u64,
    /// Bundles with an error under the spec alone.
    invalid_spec: u64,
    /// Bundles with an error under the spec amended by the errata.
    invalid_amended: u64,
    /// Not the evidence: what makes counting it cheaper.
    applicable: Applicable,
}

impl Default for Evidence {
    fn default() -> Self {
        Self::new()
    }
}

impl Evidence {
    /// Evidence with each container's generation its own (no `--arch`).
    pub fn new() -> Self {
        Self::with_arch(None)
    }

    /// Evidence of streams all judged under `arch` when given (`--arch`), as its JSON says.
    pub fn with_arch(arch: Option<Generation>) -> Self {
        Evidence {
            harness: Harness::current(arch),
            shards: None,
            inputs: BTreeMap::new(),
            sources: BTreeMap::new(),
            groups: BTreeMap::new(),
            support: BTreeMap::new(),
            bundles: 0,
            invalid_spec: 0,
            invalid_amended: 0,
            applicable: Applicable::default(),
        }
    }

    /// What counted this evidence.
    pub fn harness(&self) -> &Harness {
        &self.harness
    }

    /// Adds one stream's whole bundles (a trailing partial bundle is not one):
    /// `file` as it should appear in the output, `build` the compiler build
    /// (`None` for a raw file: "unknown"), `engine` the stream's engine stem
    /// (`PE`), empty for a raw file. Its locations name the engine as the
    /// member: [`Evidence::add_member`] names the container's.
    pub fn add_stream(&mut self, file: &str, build: Option<&str>, g: Generation, engine: &str, bytes: &[u8]) {
        self.add_stream_with(file, engine, build, g, engine, bytes, |_, _, _, _| {});
    }

    /// [`Evidence::add_stream`] of a container's member (`sg00/PE.bin`; empty for a raw file).
    pub fn add_member(&mut self, file: &str, member: &str, build: Option<&str>, g: Generation, engine: &str, bytes: &[u8]) {
        self.add_stream_with(file, member, build, g, engine, bytes, |_, _, _, _| {});
    }

    /// [`Evidence::add_stream`], handing each bundle on as it is counted, to
    /// `each(index, raw, bundle, findings under the spec)`: a caller with
    /// checks of its own (conformance's round trips) makes no second walk.
    #[allow(clippy::too_many_arguments)]
    pub fn add_stream_with(
        &mut self,
        file: &str,
        member: &str,
        build: Option<&str>,
        g: Generation,
        engine: &str,
        bytes: &[u8],
        mut each: impl FnMut(usize, &Raw, &Bundle, &[Finding]),
    ) {
        let build = build.unwrap_or(UNKNOWN_BUILD);
        let at = At::new(file, member);
        let ops = self.groups.entry((g, build.to_string())).or_default();
        // Erratum → bundles it accepted here, and the first of them.
        let mut accepted: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
        let (mut invalid_spec, mut invalid_amended) = (0u64, 0u64);
        let mut amended: Vec<Finding> = Vec::new();
        let applicable = &mut self.applicable;
        let n = validate::decode_stream(bytes, g, |i, bundle, spec| {
            let Some(raw) = bytes.get(i * BUNDLE_BYTES..(i + 1) * BUNDLE_BYTES).and_then(|c| <&Raw>::try_from(c).ok()) else { return };
            amended.clear();
            amended.extend_from_slice(spec);
            if !spec.is_empty() {
                validate::amend(bundle, g, &mut amended);
            }
            invalid_spec += u64::from(!validate::is_valid(spec));
            invalid_amended += u64::from(!validate::is_valid(&amended));
            let index = i as u64;
            let group = ops.entry(raw[0]).or_insert_with(|| Group::new(bundle.kind(), raw[0]));
            group.add(raw, bundle, g, (spec, &amended), applicable.of(raw, g), &at, index);
            let mut ids: Vec<&'static str> = amended.iter().filter_map(|f| f.erratum).collect();
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                accepted.entry(id).or_insert((0, index)).0 += 1;
            }
            each(i, raw, bundle, spec);
        });
        for group in ops.values_mut() {
            group.flush(engine, &at);
        }
        let n = n as u64;
        self.bundles += n;
        self.invalid_spec += invalid_spec;
        self.invalid_amended += invalid_amended;
        *self.inputs.entry((file.to_string(), build.to_string(), g)).or_insert(0) += n;
        for (id, (c, first)) in accepted {
            let s = self.support.entry(id).or_default().entry(build.to_string()).or_default();
            s.files.insert(file.to_string());
            s.bundles += c;
            loc::keep(&mut s.first, &at, first);
        }
    }

    /// Records, for the output, a file's target (a container's, as it names
    /// it) and how the generation its streams are added under was chosen.
    /// Two files the output names alike (one name under two folders given)
    /// keep the smaller source, so the result depends on no order.
    pub fn set_source(&mut self, file: &str, target: Option<&str>, from: GenerationFrom) {
        self.note_source(file.to_string(), (target.map(str::to_string), from));
    }

    fn note_source(&mut self, file: String, source: (Option<String>, GenerationFrom)) {
        match self.sources.get_mut(&file) {
            Some(s) if source < *s => *s = source,
            Some(_) => {}
            None => {
                self.sources.insert(file, source);
            }
        }
    }

    /// Whole bundles added.
    pub fn bundles(&self) -> u64 {
        self.bundles
    }

    /// Bundles with an error under the spec alone.
    pub fn invalid_spec(&self) -> u64 {
        self.invalid_spec
    }

    /// Bundles with an error under the spec amended by the errata.
    pub fn invalid_amended(&self) -> u64 {
        self.invalid_amended
    }

    /// The counts of one check on one group, if it applied or fired there.
    pub fn check(&self, g: Generation, build: &str, opcode: u8, code: &str) -> Option<&CheckCount> {
        self.group(g, build, opcode)?.checks.get(code)
    }

    /// The most frequent values of one field of one group, and the count of all others.
    pub fn field_values(&self, g: Generation, build: &str, opcode: u8, field: &str) -> Option<(Vec<(String, u64)>, u64)> {
        self.group(g, build, opcode)?.fields.iter().find(|(f, _)| f.path == field).map(|(_, h)| h.top())
    }

    /// Every claimed recovered field of every group: generation, build, opcode,
    /// field, and how many bundles break its claim (0 on real programs).
    pub fn claims_broken(&self) -> Vec<(Generation, &str, u8, &'static str, u64)> {
        let mut out = Vec::new();
        for ((g, build), ops) in &self.groups {
            for (op, s) in ops {
                out.extend(s.claims.iter().map(|&(f, _, n, _)| (*g, build.as_str(), *op, f, n)));
            }
        }
        out
    }

    /// Each opcode's groups merged over every generation and build: the
    /// per-opcode view of the conformance report.
    pub(crate) fn by_opcode(&self) -> BTreeMap<u8, Group> {
        let mut out: BTreeMap<u8, Group> = BTreeMap::new();
        for (op, group) in self.groups.values().flatten() {
            match out.get_mut(op) {
                Some(mine) => mine.merge(group.clone()),
                None => {
                    out.insert(*op, group.clone());
                }
            }
        }
        out
    }

    fn group(&self, g: Generation, build: &str, opcode: u8) -> Option<&Group> {
        self.groups.get(&(g, build.to_string()))?.get(&opcode)
    }

    /// The values behind one contradiction.
    fn refused_values(&self, c: &Contradiction) -> Option<&Hist> {
        self.group(c.generation, &c.build, c.opcode)?.refused.get(&(c.check, c.field.clone()))
    }

    /// Spec disagreements no erratum accepts, sorted by generation, build, opcode, check and field.
    pub fn contradictions(&self) -> Vec<Contradiction> {
        let mut out = Vec::new();
        for ((g, build), ops) in &self.groups {
            for (op, group) in ops {
                for ((check, field), h) in &group.refused {
                    let (top, other) = h.top_bytes();
                    let firsts = top.iter().filter_map(|(v, _)| Some((hex(v), h.first(v)?.clone()))).collect();
                    let values = top.into_iter().map(|(v, c)| (hex(&v), c)).collect();
                    out.push(Contradiction {
                        generation: *g,
                        build: build.clone(),
                        opcode: *op,
                        check,
                        field: field.clone(),
                        count: h.total(),
                        values,
                        other,
                        firsts,
                    });
                }
            }
        }
        out
    }

    /// Every erratum, in table order, with the bundles it accepted here per build (none: no builds).
    pub fn errata(&self) -> Vec<ErratumEvidence> {
        ERRATA.iter().map(|e| ErratumEvidence { erratum: e, builds: self.support.get(e.id).cloned().unwrap_or_default() }).collect()
    }
}
