//! Layouts proposed for opcodes the spec leaves opaque, inferred from real
//! bundles (`tpb infer`). For each opcode asked for, every bundle's 60-byte
//! body (offsets 0x04..0x3F) is read into per-offset statistics (bytes, and
//! aligned 16-bit and 32-bit words: value sets, constancy, steps), the
//! recognisers of the shapes the spec defines (ADDR4, TENSOR/MEM_PATTERN,
//! dtype tags and pairs, enumerations) and simple correlations; from them a
//! layout is proposed whose every field holds on every bundle, named by what
//! it looks like (`addr4_10`, `zero_2c`), never by a guessed meaning. What
//! differs between generations and compiler builds is listed as well.
//! Memory is bounded: distinct values are capped per offset.

mod corr;
mod diff;
mod propose;
mod render;
mod shapes;
mod stats;
#[cfg(test)]
mod tests;

pub use corr::{Relation, WINDOW};
pub use diff::{DiffKind, Difference, GroupValues};
pub use propose::{Field, Kind, Part, Summary};
pub use shapes::{addr4_form, dtype_pair, dtype_tag, enum_tables, nums_hold, AddrForm, NUM_SMALL};
pub use stats::{hex, Steps, Values, MAX_TRACKED, TOP_VALUES};

use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::{Generation, Raw, BUNDLE_BYTES};

/// The body: every byte after the header word.
pub const BODY: std::ops::Range<usize> = 4..BUNDLE_BYTES;
// Words are 4-byte aligned in the bundle, so in the body too.
const _: () = assert!(BODY.start.is_multiple_of(4));

/// The build of a stream that names none (a raw bundle file).
pub const UNKNOWN_BUILD: &str = "unknown";

/// The bundles of one generation and compiler build.
#[derive(Clone, Debug)]
pub struct Group {
    /// Bundles of the opcode in this generation and build.
    pub bundles: u64,
    /// Per offset, the set of byte values seen (a 256-bit set).
    bytes: Vec<[u64; 4]>,
}

impl Group {
    fn new() -> Group {
        Group { bundles: 0, bytes: vec![[0; 4]; BUNDLE_BYTES] }
    }

    /// The byte values seen at `offset`, in order.
    pub fn byte_values(&self, offset: usize) -> Vec<u8> {
        let Some(set) = self.bytes.get(offset) else { return Vec::new() };
        (0..=u8::MAX).filter(|&v| set[usize::from(v >> 6)] & (1u64 << (v & 63)) != 0).collect()
    }
}

/// Everything gathered about one opcode.
#[derive(Clone, Debug)]
pub struct OpData {
    /// The opcode byte.
    pub opcode: u8,
    /// Its bundles, in every stream.
    pub bundles: u64,
    /// The files that hold one, as named to [`Inference::add_stream`].
    pub files: BTreeSet<String>,
    /// (generation, build) → bundles and byte sets.
    pub groups: BTreeMap<(Generation, String), Group>,
    /// Per byte offset (indexed by offset, 0..64; the header's four unused).
    pub bytes: Vec<Values>,
    /// Per aligned 16-bit word, at `BODY.start + 2k`.
    pub halves: Vec<Values>,
    /// Per aligned 32-bit word, at `BODY.start + 4k`.
    pub words: Vec<Values>,
    /// Steps by +1 per width (1, 2, 4) and offset, indexed as the values.
    steps: [Vec<Steps>; 3],
    addr4: Vec<shapes::Addr4Acc>,
    ascii: Vec<shapes::AsciiAcc>,
    corr: corr::Corr,
}

impl OpData {
    fn new(opcode: u8) -> OpData {
        OpData {
            opcode,
            bundles: 0,
            files: BTreeSet::new(),
            groups: BTreeMap::new(),
            bytes: (0..BUNDLE_BYTES).map(|_| Values::new(1)).collect(),
            halves: BODY.step_by(2).map(|_| Values::new(2)).collect(),
            words: BODY.step_by(4).map(|_| Values::new(4)).collect(),
            steps: [vec![Steps::default(); BUNDLE_BYTES], vec![Steps::default(); BODY.len() / 2], vec![Steps::default(); BODY.len() / 4]],
            addr4: BODY.step_by(4).map(|_| shapes::Addr4Acc::default()).collect(),
            ascii: BODY.step_by(4).map(shapes::AsciiAcc::new).collect(),
            corr: corr::Corr::new(),
        }
    }

    fn add(&mut self, raw: &Raw, prev: Option<&Raw>, g: Generation, build: &str) {
        self.bundles += 1;
        let group = self.groups.entry((g, build.to_string())).or_insert_with(Group::new);
        group.bundles += 1;
        for o in BODY {
            let v = raw[o];
            self.bytes[o].add(u32::from(v));
            group.bytes[o][usize::from(v >> 6)] |= 1u64 << (v & 63);
            if let Some(p) = prev {
                self.steps[0][o].add(u32::from(p[o]), u32::from(v));
            }
        }
        for (k, o) in BODY.step_by(2).enumerate() {
            let v = stats::read_le(raw, o, 2);
            self.halves[k].add(v);
            if let Some(p) = prev {
                self.steps[1][k].add(stats::read_le(p, o, 2), v);
            }
        }
        for (k, o) in BODY.step_by(4).enumerate() {
            let v = stats::read_le(raw, o, 4);
            self.words[k].add(v);
            self.addr4[k].add(v);
            if let Some(p) = prev {
                self.steps[2][k].add(stats::read_le(p, o, 4), v);
            }
            self.ascii[k].add(raw);
        }
        self.corr.add(raw);
    }

    /// The statistics of the `width`-byte field at `offset` (1 at any body offset,
    /// 2 at even, 4 at multiples of 4), if it is one the statistics keep.
    pub fn values(&self, offset: usize, width: usize) -> Option<&Values> {
        let k = offset.checked_sub(BODY.start)?;
        match width {
            1 => self.bytes.get(offset).filter(|_| BODY.contains(&offset)),
            2 if k.is_multiple_of(2) => self.halves.get(k / 2),
            4 if k.is_multiple_of(4) => self.words.get(k / 4),
            _ => None,
        }
    }

    /// How often the field stepped by +1 between consecutive bundles of a stream.
    pub fn steps(&self, offset: usize, width: usize) -> Steps {
        let Some(k) = offset.checked_sub(BODY.start) else { return Steps::default() };
        let s = match width {
            1 => self.steps[0].get(offset),
            2 if k.is_multiple_of(2) => self.steps[1].get(k / 2),
            4 if k.is_multiple_of(4) => self.steps[2].get(k / 4),
            _ => None,
        };
        s.copied().unwrap_or_default()
    }

    fn addr(&self, offset: usize) -> Option<&shapes::Addr4Acc> {
        let k = offset.checked_sub(BODY.start)?;
        if !k.is_multiple_of(4) {
            return None;
        }
        self.addr4.get(k / 4)
    }

    fn ascii_at(&self, offset: usize) -> Option<&shapes::AsciiAcc> {
        let k = offset.checked_sub(BODY.start)?;
        if !k.is_multiple_of(4) {
            return None;
        }
        self.ascii.get(k / 4)
    }

    /// Whether every byte value seen at `offset` satisfies `pred` for the generation of its bundle.
    pub fn byte_holds(&self, offset: usize, pred: impl Fn(u8, Generation) -> bool) -> bool {
        self.bundles > 0 && self.groups.iter().all(|((g, _), gr)| gr.byte_values(offset).into_iter().all(|v| pred(v, *g)))
    }

    /// The compiler builds, in order, with their bundles (over every generation).
    pub fn builds(&self) -> BTreeMap<&str, u64> {
        let mut m = BTreeMap::new();
        for ((_, b), gr) in &self.groups {
            *m.entry(b.as_str()).or_insert(0) += gr.bundles;
        }
        m
    }

    /// The generations, in order, with their bundles.
    pub fn generations(&self) -> BTreeMap<Generation, u64> {
        let mut m = BTreeMap::new();
        for ((g, _), gr) in &self.groups {
            *m.entry(*g).or_insert(0) += gr.bundles;
        }
        m
    }

    /// The relations between offsets that held on every bundle, but those
    /// between two bytes of one proposed ASCII field (characters of names
    /// decide each other, which says nothing).
    pub fn relations(&self, fields: &[Field]) -> Vec<Relation> {
        let all = self.corr.relations(
            self.bundles,
            |o, w| self.values(o, w).is_some_and(Values::varies),
            |o| self.bytes.get(o).map_or(0, Values::distinct),
        );
        let ascii: Vec<std::ops::Range<usize>> = fields.iter().filter(|f| f.kind == Kind::Ascii).map(|f| f.offset..f.offset + f.size).collect();
        let inside = |a: usize, b: usize| ascii.iter().any(|r| r.contains(&a) && r.contains(&b));
        all.into_iter()
            .filter(|r| match *r {
                Relation::Equal { width: 1, a, b } | Relation::OneToOne { a, b } | Relation::Function { from: a, to: b } => !inside(a, b),
                _ => true,
            })
            .collect()
    }
}

/// What `tpb infer` gathers: per opcode asked for, everything its bundles showed.
#[derive(Clone, Debug)]
pub struct Inference {
    ops: BTreeMap<u8, OpData>,
    /// Bundles read, of every opcode.
    pub bundles_read: u64,
    /// Every file read, as named to [`Inference::add_stream`] (whether or not it held an opcode asked for).
    pub files: BTreeSet<String>,
}

impl Inference {
    /// Gathers evidence about `opcodes` (duplicates are ignored).
    pub fn new(opcodes: &[u8]) -> Inference {
        Inference { ops: opcodes.iter().map(|&o| (o, OpData::new(o))).collect(), bundles_read: 0, files: BTreeSet::new() }
    }

    /// Adds one stream's whole bundles (a trailing partial bundle is not one):
    /// `file` as the output should name it, `build` the compiler build (`None`
    /// for a raw file: "unknown"), `g` the generation of the stream. The
    /// bundles of an opcode are consecutive for its step counts when they
    /// are consecutive among that opcode's bundles in the stream.
    pub fn add_stream(&mut self, file: &str, build: Option<&str>, g: Generation, bytes: &[u8]) {
        let build = build.unwrap_or(UNKNOWN_BUILD);
        self.files.insert(file.to_string());
        let mut prev: BTreeMap<u8, Raw> = BTreeMap::new();
        for chunk in bytes.chunks_exact(BUNDLE_BYTES) {
            self.bundles_read += 1;
            let Ok(raw) = <&Raw>::try_from(chunk) else { continue };
            let Some(op) = self.ops.get_mut(&raw[0]) else { continue };
            op.add(raw, prev.get(&raw[0]), g, build);
            if !op.files.contains(file) {
                op.files.insert(file.to_string());
            }
            prev.insert(raw[0], *raw);
        }
    }

    /// The opcodes asked for, in byte order.
    pub fn opcodes(&self) -> impl Iterator<Item = &OpData> {
        self.ops.values()
    }

    /// What the bundles of `op` showed; `None` when `op` was not asked for.
    pub fn opcode(&self, op: u8) -> Option<&OpData> {
        self.ops.get(&op)
    }
}
