//! The layout proposal: the body tiled left to right, no overlap, each field
//! the first shape that holds on every bundle at its offset, in this order:
//!
//! 1. at a multiple of 4: a TENSOR/MEM_PATTERN descriptor (the smallest N
//!    that holds, at least one count varying) whose address word looks like
//!    an address (some value reads as no small integer, or its low byte takes
//!    at least 16 values), a NUL-padded ASCII name, an ADDR4 word some value
//!    of which reads as no small integer
//!    ([`super::shapes::Addr4Acc::distinctive`]); descriptors and addresses
//!    no earlier than the spec's own layouts place one
//!    ([`super::shapes::first_spec_address`], 0x0C: the sync band before it);
//! 2. a run of bytes zero on every bundle (`zero_XX`);
//! 3. a number wider than a byte: a u32 at a multiple of 4 whose halves both
//!    vary and whose low half takes at least 16 values, else 2 to 4 such u16
//!    in a row that hold as a num array (`nums_XX`), else one u16 at an even
//!    offset whose bytes both vary and whose low byte takes at least 16 values
//!    (`word_XX`, `half_XX`, or `count_XX` when it counts up); or a u32 or u16
//!    whose every value is 0 or a power of two with the bits in more than one
//!    byte (`pow2_XX`);
//! 4. bytes: a run of bytes constant on every bundle (`const_XX`), a run of
//!    bytes each only ever 0x00 or 0xFF (`mask_XX`), else one varying byte read
//!    as a counter, a dtype tag, an enumeration of the spec (in the order of
//!    `tpb_isa::enums::ALL`), a nibble pair of dtype tags, or a plain `byte_XX`.
//!
//! A constant is never read as a tag or an enumeration entry (any constant
//! matches some table by chance), nor is a byte whose non-zero values are
//! fewer than two or a contiguous run (a count or an index reads so too):
//! such readings, and every other reading that also holds, are listed in
//! `also`, weak ones with the reason.

use super::shapes::{self, Addr4Acc};
use super::stats::{hex, Steps, Values, TOP_VALUES};
use super::{OpData, BODY};

/// Where a run that starts at `p` ends: the first offset after it, up to the
/// body's end, that `more` refuses.
fn run_end(p: usize, more: impl Fn(usize) -> bool) -> usize {
    (p..BODY.end).skip(1).find(|&q| !more(q)).unwrap_or(BODY.end)
}

/// A low byte (or half) taking at least this many values makes its word one number.
const NUMBER_SPREAD: usize = 16;

/// What a proposed field looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bytes zero on every bundle.
    Zero,
    /// Bytes with one value on every bundle (not zero).
    Const,
    /// A descriptor with this many dims.
    Pattern(usize),
    /// A NUL-padded ASCII name.
    Ascii,
    /// An ADDR4 address word.
    Addr4,
    /// 2 to 4 u16 that hold as a descriptor's num array.
    Nums,
    /// A u32 number.
    Word,
    /// A u16 number.
    Half,
    /// A number that counts up by one from bundle to bundle of a stream.
    Counter,
    /// A u16 or u32 whose every value is 0 or a power of two.
    Pow2,
    /// Bytes each only ever 0x00 or 0xFF.
    Mask,
    /// A dtype tag.
    Dtype,
    /// Two dtype tags, one per nibble.
    DtypePair,
    /// An enumeration of the spec, by its table's name.
    Enum(&'static str),
    /// A byte no other reading holds for.
    Byte,
}

impl Kind {
    /// Its name in the proposal (`zero`, `pattern`, `enum`, …), the same for every pattern and enumeration.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Zero => "zero",
            Kind::Const => "const",
            Kind::Pattern(_) => "pattern",
            Kind::Ascii => "ascii",
            Kind::Addr4 => "addr4",
            Kind::Nums => "nums",
            Kind::Word => "word",
            Kind::Half => "half",
            Kind::Counter => "counter",
            Kind::Pow2 => "pow2",
            Kind::Mask => "mask",
            Kind::Dtype => "dtype",
            Kind::DtypePair => "dtype_pair",
            Kind::Enum(_) => "enum",
            Kind::Byte => "byte",
        }
    }

    /// The stem of a field's name: `pattern3d`, `alu_op`, `count`.
    fn stem(self) -> String {
        match self {
            Kind::Pattern(n) => format!("pattern{n}d"),
            Kind::Counter => "count".to_string(),
            Kind::DtypePair => "dtypes".to_string(),
            Kind::Enum(t) => t.to_string(),
            k => k.as_str().to_string(),
        }
    }
}

/// Values of a field or part, as text: hex padded to the width (decimal for strides and nums).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The most frequent values and their counts.
    pub top: Vec<(String, u64)>,
    /// Occurrences of all other values.
    pub other: u64,
    /// Distinct values seen.
    pub distinct: usize,
    /// More values than were tracked: `distinct` is a lower bound.
    pub capped: bool,
    /// The smallest value (empty when none was seen).
    pub min: String,
    /// The largest value (empty when none was seen).
    pub max: String,
}

#[derive(Clone, Copy)]
enum Fmt {
    Hex,
    Dec,
    SignedDec,
}

fn fmt_value(v: u32, width: usize, f: Fmt) -> String {
    match f {
        Fmt::Hex => hex(v, width),
        Fmt::Dec => v.to_string(),
        Fmt::SignedDec => (v as u16 as i16).to_string(),
    }
}

impl Summary {
    fn of(v: &Values, f: Fmt) -> Summary {
        let (top, other) = v.top();
        let w = v.width;
        let (min, max) = match f {
            Fmt::SignedDec => {
                // Signed order; exact unless capped (the tracked values then bound it).
                let s: Vec<i16> = v.tracked().into_iter().map(|x| x as u16 as i16).collect();
                (s.iter().min().map_or(String::new(), i16::to_string), s.iter().max().map_or(String::new(), i16::to_string))
            }
            _ => (fmt_value(v.min(), w, f), fmt_value(v.max(), w, f)),
        };
        Summary { top: top.into_iter().map(|(x, c)| (fmt_value(x, w, f), c)).collect(), other, distinct: v.distinct(), capped: v.capped(), min, max }
    }

    /// A run of bytes with one value on every bundle.
    fn constant(le: &[u8], bundles: u64) -> Summary {
        let mut s = String::from("0x");
        for b in le.iter().rev() {
            s.push_str(&format!("{b:02x}"));
        }
        Summary { top: vec![(s.clone(), bundles)], other: 0, distinct: 1, capped: false, min: s.clone(), max: s }
    }
}

/// One component of a structured field (a descriptor's addr, strides, nums).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its name in the field (`addr`, `stride[0]`, `num[0]`).
    pub name: String,
    /// Its offset in the bundle.
    pub offset: usize,
    /// Its width in bytes.
    pub size: usize,
    /// Its values on every bundle.
    pub values: Summary,
}

/// One proposed field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its proposed name: the kind's stem and its offset in hex (`zero_0c`, `pattern3d_10`).
    pub name: String,
    /// Its offset in the bundle.
    pub offset: usize,
    /// Its width in bytes.
    pub size: usize,
    /// What it looks like.
    pub kind: Kind,
    /// The wire type: `u8`, `u16`, `u32`, `u8[3]`, `char[20]`, `addr4+i16[3]+u16[3]`.
    pub ty: String,
    /// Bundles the field's evidence holds on: every bundle of the opcode.
    pub bundles: u64,
    /// Its values on every bundle.
    pub values: Summary,
    /// What each value reads as (dtype names, enumeration names).
    pub names: Vec<(String, String)>,
    /// Its components, for a structured field (a descriptor's address, strides and nums).
    pub parts: Vec<Part>,
    /// ADDR4 forms of the address word (addr4 and pattern fields).
    pub regions: Option<Addr4Acc>,
    /// Steps by +1 between consecutive bundles of a stream (counters).
    pub steps: Option<Steps>,
    /// Other readings that hold too.
    pub also: Vec<String>,
    /// Why the reading is weak, when it is.
    pub note: Option<String>,
}

impl Field {
    fn new(op: &OpData, kind: Kind, offset: usize, size: usize, ty: String, values: Summary) -> Field {
        Field {
            name: format!("{}_{offset:02x}", kind.stem()),
            offset,
            size,
            kind,
            ty,
            bundles: op.bundles,
            values,
            names: Vec::new(),
            parts: Vec::new(),
            regions: None,
            steps: None,
            also: Vec::new(),
            note: None,
        }
    }
}

const WEAK_ADDR4: &str = "addr4 (weak: every value is an SBUF address below 0x01000000, as any small number is)";
const WEAK_INDEX: &str = "index (weak: any byte that varies reads as a semaphore or event index)";
const WEAK_RUN: &str = "weak: fewer than two non-zero values, or a contiguous run of them, as a count or an index takes";
const WEAK_PAIR: &str = "weak: 225 of the 255 non-zero bytes read as a nibble pair, and no value pairs a tag with itself";

/// A reading of a byte: its kind, what each value reads as, why it is weak (if it is).
type Reading = (Kind, Vec<(String, String)>, Option<&'static str>);

/// Values that are one unbroken run (`3, 4, 5`).
fn contiguous(sorted: &[u8]) -> bool {
    match (sorted.first(), sorted.last()) {
        (Some(&a), Some(&b)) => usize::from(b - a) + 1 == sorted.len(),
        _ => true,
    }
}

/// The wire type of `n` bytes: `u8`, or `u8[n]`.
fn bytes_ty(n: usize) -> String {
    if n == 1 {
        "u8".to_string()
    } else {
        format!("u8[{n}]")
    }
}

impl OpData {
    /// The proposed layout: fields tiling the body 0x04..0x40 with no overlap,
    /// each holding on every bundle. Empty when there are no bundles.
    pub fn propose(&self) -> Vec<Field> {
        let mut fields = Vec::new();
        if self.bundles == 0 {
            return fields;
        }
        let mut p = BODY.start;
        while p < BODY.end {
            let f = self
                .structured(p)
                .or_else(|| self.zero_run(p))
                .or_else(|| self.number(p, 4))
                .or_else(|| self.nums(p))
                .or_else(|| self.number(p, 2))
                .unwrap_or_else(|| self.byte(p));
            p += f.size.max(1);
            fields.push(f);
        }
        fields
    }

    fn byte_always_zero(&self, o: usize) -> bool {
        self.values(o, 1).is_some_and(Values::always_zero)
    }

    fn varies(&self, o: usize, w: usize) -> bool {
        self.values(o, w).is_some_and(Values::varies)
    }

    /// A descriptor, an ASCII name or a distinctive ADDR4 word at `p` (a multiple of 4).
    fn structured(&self, p: usize) -> Option<Field> {
        if !p.is_multiple_of(4) {
            return None;
        }
        let addressable = p >= shapes::first_spec_address();
        let mut holding: Vec<Field> = if addressable { (1..=4).filter_map(|n| self.pattern(p, n)).collect() } else { Vec::new() };
        if !holding.is_empty() {
            let mut f = holding.remove(0);
            f.also = holding.iter().map(|g| format!("{} ({} bytes)", g.name, g.size)).collect();
            return Some(f);
        }
        if let Some(f) = self.ascii(p) {
            return Some(f);
        }
        let (acc, word) = (self.addr(p)?, self.values(p, 4)?);
        if addressable && acc.holds(word) && acc.distinctive() {
            let mut f = Field::new(self, Kind::Addr4, p, 4, "addr4".to_string(), Summary::of(word, Fmt::Hex));
            f.regions = Some(acc.clone());
            return Some(f);
        }
        None
    }

    /// An N-dim pattern at `p`: an ADDR4-like word, N i16 strides, N u16 nums holding as a num array.
    fn pattern(&self, p: usize, dims: usize) -> Option<Field> {
        let (a, s, n, size) = shapes::pattern_offsets(p, dims);
        if a + size > BODY.end {
            return None;
        }
        let (acc, word) = (self.addr(a)?, self.values(a, 4)?);
        let spread = self.values(a, 1).is_some_and(|lo| lo.distinct() >= NUMBER_SPREAD);
        if !acc.holds(word) || !(acc.distinctive() || spread) {
            return None;
        }
        let nums: Vec<&Values> = (0..dims).map(|i| self.values(n + 2 * i, 2)).collect::<Option<_>>()?;
        let strides: Vec<&Values> = (0..dims).map(|i| self.values(s + 2 * i, 2)).collect::<Option<_>>()?;
        // A descriptor whose every count is a constant is no more than constants.
        if !shapes::nums_hold(&nums) || !nums.iter().any(|v| v.varies()) {
            return None;
        }
        let ty = format!("addr4+i16[{dims}]+u16[{dims}]");
        let mut f = Field::new(self, Kind::Pattern(dims), p, size, ty, Summary::of(word, Fmt::Hex));
        f.parts.push(Part { name: "addr".to_string(), offset: a, size: 4, values: Summary::of(word, Fmt::Hex) });
        for (i, v) in strides.iter().enumerate() {
            f.parts.push(Part { name: format!("stride[{i}]"), offset: s + 2 * i, size: 2, values: Summary::of(v, Fmt::SignedDec) });
        }
        for (i, v) in nums.iter().enumerate() {
            f.parts.push(Part { name: format!("num[{i}]"), offset: n + 2 * i, size: 2, values: Summary::of(v, Fmt::Dec) });
        }
        f.regions = Some(acc.clone());
        if !acc.distinctive() {
            f.note = Some(
                "the address word alone is weak (SBUF below 0x01000000 only): the nums and the spread of its low byte carry the evidence".to_string(),
            );
        }
        Some(f)
    }

    fn ascii(&self, p: usize) -> Option<Field> {
        let acc = self.ascii_at(p)?;
        let size = acc.size().filter(|s| p + s <= BODY.end)?;
        let (top, other) = acc.top(TOP_VALUES);
        let values = Summary {
            top: top.into_iter().map(|(s, c)| (format!("{s:?}"), c)).collect(),
            other,
            distinct: acc.distinct(),
            capped: acc.capped(),
            min: String::new(),
            max: String::new(),
        };
        Some(Field::new(self, Kind::Ascii, p, size, format!("char[{size}]"), values))
    }

    /// Bytes zero on every bundle from `p`, up to a structured field.
    fn zero_run(&self, p: usize) -> Option<Field> {
        if !self.byte_always_zero(p) {
            return None;
        }
        let q = run_end(p, |q| self.byte_always_zero(q) && self.structured(q).is_none());
        let ty = bytes_ty(q - p);
        Some(Field::new(self, Kind::Zero, p, q - p, ty, Summary::constant(&vec![0; q - p], self.bundles)))
    }

    /// 2 to 4 u16 numbers in a row at `p` (even), each one as [`OpData::number`]
    /// reads it, that hold together as a num array (the longest that does).
    fn nums(&self, p: usize) -> Option<Field> {
        // Even offsets only (the body starts at a multiple of four, so these are
        // its aligned u16s).
        if !p.is_multiple_of(2) {
            return None;
        }
        let mut run: Vec<&Values> = Vec::new();
        let mut best = None;
        // Up to four u16s from `p`, inside the body (p and the body's end are even, so each fits).
        for o in (p..BODY.end).step_by(2).take(4) {
            // A structured field ends the run (never at `p` itself: propose() asks
            // for nums only where structured() found none).
            if self.structured(o).is_some() || self.number(o, 2).is_none() {
                break;
            }
            let Some(v) = self.values(o, 2) else { break };
            run.push(v);
            if run.len() >= 2 && shapes::nums_hold(&run) {
                best = Some(run.clone());
            }
        }
        let v = best?;
        let k = v.len();
        let mut f = Field::new(self, Kind::Nums, p, 2 * k, format!("u16[{k}]"), Summary::of(v[0], Fmt::Dec));
        for (i, x) in v.iter().enumerate() {
            f.parts.push(Part { name: format!("num[{i}]"), offset: p + 2 * i, size: 2, values: Summary::of(x, Fmt::Dec) });
        }
        Some(f)
    }

    /// A u32 (`width` 4) or u16 (2) number at `p`: both halves vary and the low one spreads.
    fn number(&self, p: usize, width: usize) -> Option<Field> {
        let half = width / 2;
        let (lo, whole) = (self.values(p, half)?, self.values(p, width)?);
        if let Some(f) = self.pow2(p, width, whole) {
            return Some(f);
        }
        if !lo.varies() || !self.varies(p + half, half) || lo.distinct() < NUMBER_SPREAD {
            return None;
        }
        let steps = self.steps(p, width);
        // A counter takes three values or more (two make a toggle): the spread test above gives it.
        const _: () = assert!(NUMBER_SPREAD >= 3);
        let counter = steps.counts_up();
        let kind = match (counter, width) {
            (true, _) => Kind::Counter,
            (false, 4) => Kind::Word,
            (false, _) => Kind::Half,
        };
        let mut f = Field::new(self, kind, p, width, format!("u{}", 8 * width), Summary::of(whole, Fmt::Hex));
        if counter {
            f.steps = Some(steps);
        }
        if width == 4 && self.addr(p).is_some_and(|a| a.holds(whole)) {
            f.also.push(WEAK_ADDR4.to_string());
        }
        Some(f)
    }

    /// A u32 or u16 whose every value is 0 or one bit, with bits in more than one
    /// byte (and, for a u32, in its high half): one number, not bytes.
    /// No guard for a constant or capped field: one value has its bit in one
    /// byte, and a capped field tracks more values than the 33 that are 0 or one bit.
    fn pow2(&self, p: usize, width: usize, whole: &Values) -> Option<Field> {
        const _: () = assert!(super::stats::MAX_TRACKED > 33);
        let values = whole.tracked();
        if !values.iter().all(|v| v.count_ones() <= 1) {
            return None;
        }
        let bytes = values.iter().filter(|&&v| v != 0).map(|v| v.trailing_zeros() / 8).collect::<std::collections::BTreeSet<u32>>();
        let high = values.iter().any(|&v| width == 2 || v >> 16 != 0);
        if bytes.len() < 2 || !high {
            return None;
        }
        let mut f = Field::new(self, Kind::Pow2, p, width, format!("u{}", 8 * width), Summary::of(whole, Fmt::Hex));
        f.note = Some("every value is 0 or a single bit".to_string());
        Some(f)
    }

    /// One byte that is neither zero nor part of a wider shape: a run of constant bytes, or a varying byte.
    fn byte(&self, p: usize) -> Field {
        let Some(v) = self.values(p, 1) else {
            return Field::new(self, Kind::Byte, p, 1, "u8".to_string(), Summary::default());
        };
        if v.constant() {
            let q = run_end(p, |q| !q.is_multiple_of(4) && self.values(q, 1).is_some_and(|x| x.constant() && !x.always_zero()));
            let le: Vec<u8> = (p..q).map(|o| self.values(o, 1).map_or(0, |x| x.min() as u8)).collect();
            let ty = bytes_ty(q - p);
            return Field::new(self, Kind::Const, p, q - p, ty, Summary::constant(&le, self.bundles));
        }
        if self.mask_byte(p) {
            let q = run_end(p, |q| self.mask_byte(q));
            let ty = bytes_ty(q - p);
            let mut f = Field::new(self, Kind::Mask, p, q - p, ty, Summary::of(v, Fmt::Hex));
            f.note = Some(format!("every byte of +{p:#04x}..+{q:#04x} is 0x00 or 0xff, and varies; the values shown are +{p:#04x}'s"));
            return f;
        }
        let values: Vec<u8> = v.tracked().into_iter().map(|x| x as u8).collect();
        let nonzero: Vec<u8> = values.iter().copied().filter(|&x| x != 0).collect();
        let spread = nonzero.len() >= 2 && !contiguous(&nonzero);
        let steps = self.steps(p, 1);
        let mut readings: Vec<Reading> = Vec::new();
        if steps.counts_up() && values.len() >= 3 {
            readings.push((Kind::Counter, Vec::new(), None));
        }
        let named = |name: &dyn Fn(u8) -> String| values.iter().map(|&x| (hex(u32::from(x), 1), name(x))).collect::<Vec<_>>();
        if self.byte_holds(p, shapes::dtype_tag) {
            readings.push((Kind::Dtype, named(&shapes::dtype_name), (!spread).then_some(WEAK_RUN)));
        }
        for t in shapes::enum_tables(&values) {
            readings.push((Kind::Enum(t.name), named(&|x| t.name_of(x).unwrap_or("?").to_string()), (!spread).then_some(WEAK_RUN)));
        }
        // Last: nearly every byte reads as a nibble pair.
        if self.byte_holds(p, shapes::dtype_pair) {
            let same = values.iter().any(|&x| x & 0x0F == x >> 4);
            readings.push((Kind::DtypePair, named(&shapes::dtype_pair_name), (!(spread && same)).then_some(WEAK_PAIR)));
        }
        let chosen = readings.iter().position(|r| r.2.is_none());
        let mut f = Field::new(self, Kind::Byte, p, 1, "u8".to_string(), Summary::of(v, Fmt::Hex));
        for (i, (kind, names, weak)) in readings.into_iter().enumerate() {
            if Some(i) == chosen {
                f = Field { names, ..Field::new(self, kind, p, 1, "u8".to_string(), f.values) };
                if kind == Kind::Counter {
                    f.steps = Some(steps);
                }
            } else {
                let mut a = reading_name(kind);
                if let Some(w) = weak {
                    a = format!("{a} ({w})");
                }
                f.also.push(a);
            }
        }
        if chosen.is_none() {
            f.also.push(WEAK_INDEX.to_string());
        }
        f
    }

    /// A byte that varies and is only ever 0x00 or 0xFF.
    fn mask_byte(&self, o: usize) -> bool {
        self.values(o, 1).is_some_and(|v| v.varies() && v.tracked().iter().all(|&x| x == 0 || x == 0xFF))
    }
}

/// How `also` names a reading: `dtype`, `enum alu_op`.
fn reading_name(k: Kind) -> String {
    match k {
        Kind::Enum(t) => format!("enum {t}"),
        k => k.as_str().to_string(),
    }
}
