//! [`super::verdicts`] in AVX-512 lanes (x86-64 with VBMI, e.g. Zen 4,
//! Ice Lake and later): each bundle judged whole in one pass, all its
//! pattern slots and band tests at once, with no work lists. One byte
//! permute per bundle, planned per opcode, lays the slots' address words,
//! gathered words and nums out in lanes, another its dtype and band bytes;
//! the classes of [`super::classes`] and the band sets become 128-entry
//! byte tables looked up with two-source byte permutes.
//!
//! Nothing here restates a rule: every table is filled by calling the
//! scalar path's functions ([`mode_class`], [`dtype_class`], [`need`]) and
//! is then checked against them over every input it stands for, and every
//! plan is built from the scalar [`Plan`]'s slots. If a check fails (a
//! future layout the lanes cannot express) the tables are not built and
//! the scalar kernel runs. The tests compare both kernels on batches of
//! generated, corrupted and random bundles.
//!
//! The intrinsics used are safe to call inside a `#[target_feature]`
//! function; the one `unsafe` is the call into that function, right after
//! the run-time check that the CPU has the features.

use super::classes::*;
use super::tied::TiedBand;
use super::{Batch, Plan, Planned, Raw, SlotPlan, Tables, Verdict, BAND_CLEAN, BATCH, MAX_BAND, SLOT_ENTRIES};
use crate::addr4::{Addr4, Region};
use crate::bundle::BUNDLE_BYTES;
use crate::generation::Generation;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// The CPU features the kernel needs, as `is_x86_feature_detected!` names them.
macro_rules! features {
    ($m:ident) => {
        $m!("avx512f") && $m!("avx512bw") && $m!("avx512vl") && $m!("avx512dq") && $m!("avx512vbmi")
    };
}

/// Lanes of vector `a` (a bundle after its opcode's permute): the slots'
/// address words in u32 lanes 0..4, the words after them (a gather's data
/// word) in u32 lanes 4..8, and the 8 bytes that end with each slot's nums
/// in u64 lanes 4..8.
const WORDS_AT: usize = 0;
const GATHERED_AT: usize = 16;
const NUMS_AT: usize = 32;
/// Of vector `b`: each slot's dtype byte at the low byte of u32 lane 0..4,
/// and each band test's byte above it. Only the low 16 bytes of `b`'s
/// permute are read, so the rest of its index carries the per-lane
/// constants: the shift and mask that read a slot's tag, and the lane's
/// bases word: dtype row, mode row and (in its top byte) the band test's
/// set, as a bit.
const DTYPE_AT: usize = 0;
const BAND_BYTE_AT: usize = 1;
const SHIFT_AT: usize = 16;
const TAG_MASK_AT: usize = 32;
const BASES_AT: usize = 48;
const BAND_SET_AT: usize = 3;
const _: () = assert!(MAX_BAND <= SLOT_ENTRIES);
/// Band sets the kernel holds: one bit each in a byte.
const BAND_SET_BITS: usize = u8::BITS as usize;

/// Tags at or above this read as this one, which no dtype has (so is never
/// valid): the dtype table holds 32 tags per slot kind.
const TAG_LIMIT: u8 = 31;
const TAG_ROWS: usize = 32;
const _: () = assert!(TAG_LIMIT as usize == TAG_ROWS - 1 && SLOT_ENTRIES == 4);
/// The no-field section of the dtype table comes after the three PSUM kinds.
const NO_FIELD_ROW: usize = PSUM_KINDS.len() * TAG_ROWS;
const _: () = assert!(NO_FIELD_ROW + TAG_ROWS == 128);

/// The mode table: per mode section (the four a used slot has), per
/// register-and-mode bits (the word's top three), per region.
const MODE_SECTIONS: [ModeSection; 4] = [ModeSection::Operand, ModeSection::NarrowOperand, ModeSection::MatmulDst, ModeSection::NarrowMatmulDst];
const REGIONS: [Region; 3] = [Region::Sbuf, Region::Psum, Region::Outside];
/// Address bits of the mode key (the bits above them are register and mode).
const ADDR_KEY_BITS: u32 = 7;
const _: () = assert!(32 - MODE_KEY_SHIFT == ADDR_KEY_BITS + 3);

/// The need byte: bit 0 fails the slot, bit 1 checks its nums, the
/// [`GATHERED_WIDE`] bit checks its gathered word, the top nibble indexes
/// the word-clear table.
const NEED_FAIL: u8 = 1;
const NEED_NUMS: u8 = 2;
const WORD_CLEAR_SHIFT: u32 = 4;
const _: () = assert!(GATHERED_WIDE == 8 && GATHERED_MUST_BE_CLEAR.len() == 16 && ModeClass::ALL.len() <= 8);

/// One opcode's slots on one generation as the kernel reads them: two
/// cache lines. Each index byte of a permute picks a byte of the bundle
/// (0..64) or of [`Kernel::fill`] ([`ZERO`], or [`ONES`] below a slot's
/// nums and in an unused slot's, so only a real zero num reads as one).
/// An unused lane reads as a slot that passes (checked when the tables are
/// built), so no lane needs masking.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct SlotVectors {
    /// Permute index of `a`.
    a: [u8; BUNDLE_BYTES],
    /// Permute index of `b` (its low 16 bytes) and the per-lane constants.
    b: [u8; BUNDLE_BYTES],
}
/// Index bytes that read [`Kernel::fill`]: its first half is zero, its second all ones.
const ZERO: u8 = 0x40;
const ONES: u8 = 0x60;
const _: () = assert!(BUNDLE_BYTES == ZERO as usize);

impl Default for SlotVectors {
    fn default() -> Self {
        let mut b = [0; BUNDLE_BYTES];
        b[..SHIFT_AT].fill(ZERO);
        // An unused lane reads as a slot with no dtype field in an operand section.
        for lane in 0..SLOT_ENTRIES {
            put_u32(&mut b, BASES_AT + 4 * lane, NO_FIELD_ROW as u32);
        }
        let mut a = [ZERO; BUNDLE_BYTES];
        a[NUMS_AT..].fill(ONES);
        SlotVectors { a, b }
    }
}

/// A 128-entry byte table, as the two sources of a byte permute.
type Table128 = [__m512i; 2];

pub(super) struct Kernel {
    plans: [Box<[SlotVectors; 0x100]>; 3],
    dtypes: [Table128; 3],
    regions: Table128,
    modes: Table128,
    needs: Table128,
    word_clear: __m256i,
    /// By byte value, the band sets (bit per set) that allow it: four quarters of 64.
    band_sets: [__m512i; 4],
    gathered: __m512i,
    /// What index bytes [`ZERO`] and [`ONES`] read.
    fill: __m512i,
}

fn table128(t: &[u8; 128]) -> Table128 {
    let (lo, hi) = t.split_at(64);
    let half = |h: &[u8]| -> __m512i {
        let mut v = [0u8; 64];
        v.copy_from_slice(h);
        zerocopy::transmute!(v)
    };
    [half(lo), half(hi)]
}

fn words16(t: &[u32; 16]) -> __m512i {
    zerocopy::transmute!(*t)
}

fn put_u32(v: &mut [u8; BUNDLE_BYTES], at: usize, x: u32) {
    v[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

/// The kernel for this CPU, or `None` (not x86-64 with AVX-512 VBMI, or
/// the layouts have something the lanes cannot express).
pub(super) fn kernel(t: &Tables) -> Option<&'static Kernel> {
    static K: OnceLock<Option<Kernel>> = OnceLock::new();
    K.get_or_init(|| Kernel::build(t)).as_ref()
}

/// Whether this CPU has every feature the kernel uses.
pub(super) fn cpu_has_features() -> bool {
    features!(is_x86_feature_detected)
}

impl Kernel {
    /// The only constructor: `None` on a CPU without the features (so a
    /// `Kernel` is proof that [`judge`] may run), or when a check fails.
    fn build(tables: &Tables) -> Option<Kernel> {
        if !cpu_has_features() {
            return None;
        }
        let plans = &tables.plans;
        // Regions by the address bits of the mode key.
        let region_of = |a: u32| Addr4::new(a << MODE_KEY_SHIFT).region();
        let mut regions = [0u8; 128];
        for (a, r) in regions.iter_mut().enumerate().take(1 << ADDR_KEY_BITS) {
            *r = u8::try_from(REGIONS.iter().position(|&x| x == region_of(a as u32))?).ok()?;
        }
        // Mode classes by section, register-and-mode bits and region, from one key of each region.
        let mut modes = [0u8; 128];
        for (s, &section) in MODE_SECTIONS.iter().enumerate() {
            for top in 0..8u32 {
                for (r, _) in REGIONS.iter().enumerate() {
                    let Some(a) = regions.iter().position(|&x| usize::from(x) == r) else { continue };
                    let key = top << ADDR_KEY_BITS | a as u32;
                    modes[s * 32 + (top as usize) * 4 + r] = mode_class(key, section) as u8;
                }
            }
            // Every key must read as its class.
            for key in 0..MODE_KEYS as u32 {
                let r = usize::from(regions[(key & ((1 << ADDR_KEY_BITS) - 1)) as usize]);
                if modes[s * 32 + (key >> ADDR_KEY_BITS) as usize * 4 + r] != mode_class(key, section) as u8 {
                    return None;
                }
            }
        }
        if ModeClass::ALL.iter().enumerate().any(|(i, &c)| c as usize != i) {
            return None;
        }
        // A slot of the unused section is left out of the lanes: it must need nothing.
        let nothing = |n: Need| n.fail == 0 && n.nums_off == u64::MAX && n.gathered_sel == 0 && n.word_clear == 0;
        let unused = (0..MODE_KEYS as u32).map(|key| mode_class(key, ModeSection::Unused));
        if !unused.flat_map(|c| (0..1u8 << DTYPE_CLASS_BITS).map(move |d| need(c, d))).all(nothing) {
            return None;
        }
        // Needs by mode class and dtype class, packed in a byte.
        let mut clears: Vec<u32> = Vec::new();
        let mut needs = [0u8; 128];
        for (c, &class) in ModeClass::ALL.iter().enumerate() {
            for d in 0..1u8 << DTYPE_CLASS_BITS {
                let n = need(class, d);
                let code = match clears.iter().position(|&w| w == n.word_clear) {
                    Some(i) => i,
                    None => {
                        clears.push(n.word_clear);
                        clears.len() - 1
                    }
                };
                let nums = match n.nums_off {
                    0 => NEED_NUMS,
                    u64::MAX => 0,
                    _ => return None,
                };
                if !matches!(n.gathered_sel, 0 | GATHERED_WIDE) || n.fail > 1 {
                    return None;
                }
                needs[c << DTYPE_CLASS_BITS | usize::from(d)] = (n.fail * NEED_FAIL) | nums | n.gathered_sel | (code as u8) << WORD_CLEAR_SHIFT;
            }
        }
        // The word-clear table is one 256-bit permute: eight words.
        if clears.len() > 8 {
            return None;
        }
        let mut word_clear = [0u32; 8];
        word_clear.iter_mut().zip(&clears).for_each(|(w, &c)| *w = c);
        // Dtype classes by slot kind and tag, per generation.
        let mut dtypes = Vec::new();
        for g in Generation::ALL {
            let mut t = [0u8; 128];
            for (k, &kind) in PSUM_KINDS.iter().enumerate() {
                for tag in 0..TAG_ROWS {
                    t[k * TAG_ROWS + tag] = dtype_class(Some(tag as u8), kind, g);
                }
            }
            t[NO_FIELD_ROW..].fill(dtype_class(None, PsumWrite::Reads, g));
            // Every byte, read as each slot kind reads it, must find its tag's class.
            for (k, &kind) in PSUM_KINDS.iter().enumerate() {
                for read in TAG_READS {
                    let (shift, mask) = read.shift_mask();
                    for byte in 0..=u8::MAX {
                        let tag = ((u32::from(byte) >> shift) & mask).min(u32::from(TAG_LIMIT)) as usize;
                        if t[k * TAG_ROWS + tag] != dtype_class(Some(read.tag(byte)), kind, g) {
                            return None;
                        }
                    }
                }
            }
            dtypes.push(table128(&t));
        }
        // By value, a bit per band set that allows it (a set a plan uses must have a bit).
        let mut band_sets = [0u8; 256];
        for (v, bits) in band_sets.iter_mut().enumerate() {
            for set in 0..BAND_SET_BITS {
                *bits |= tables.allowed[set << 8 | v] << set;
            }
        }
        let mut quarters = band_sets.chunks_exact(64).map(|q| {
            let mut v = [0u8; 64];
            v.copy_from_slice(q);
            zerocopy::transmute!(v)
        });
        let band_sets = [quarters.next()?, quarters.next()?, quarters.next()?, quarters.next()?];
        let mut fill = [0u8; BUNDLE_BYTES];
        fill[usize::from(ONES - ZERO)..].fill(0xFF);
        // An unused lane (word 0 in an operand section, no dtype field) must pass.
        let unused_lane = |g| need(mode_class(0, MODE_SECTIONS[0]), dtype_class(None, PsumWrite::Reads, g));
        if Generation::ALL.iter().any(|&g| unused_lane(g).fail != 0) {
            return None;
        }
        let mut vectors = Vec::new();
        for per_gen in plans {
            let mut per_op = Box::new([SlotVectors::default(); 0x100]);
            for (v, p) in per_op.iter_mut().zip(per_gen.iter()) {
                *v = SlotVectors::of(p)?;
            }
            vectors.push(per_op);
        }
        let [v2, v3, v4]: [Box<[SlotVectors; 0x100]>; 3] = vectors.try_into().ok()?;
        let [d2, d3, d4]: [Table128; 3] = dtypes.try_into().ok()?;
        Some(Kernel {
            plans: [v2, v3, v4],
            dtypes: [d2, d3, d4],
            regions: table128(&regions),
            modes: table128(&modes),
            needs: table128(&needs),
            word_clear: zerocopy::transmute!(word_clear),
            band_sets,
            gathered: words16(&GATHERED_MUST_BE_CLEAR),
            fill: zerocopy::transmute!(fill),
        })
    }
}

impl SlotVectors {
    /// The lanes of `plan`'s used slots; `None` if a slot's dtype or mode
    /// section is not one the tables hold.
    fn of(plan: &Plan) -> Option<SlotVectors> {
        let mut v = SlotVectors::default();
        for (lane, s) in plan.slots.iter().enumerate().take(usize::from(plan.used)) {
            // A slot whose place another pass checks (an MX operand) needs nothing here.
            if s.mode_base == ModeSection::Unused.base() {
                continue;
            }
            v.lane(lane, s)?;
        }
        for (lane, t) in plan.band.iter().enumerate().take(usize::from(plan.band_used)) {
            if lane >= SLOT_ENTRIES || usize::from(t.set) >= BAND_SET_BITS || usize::from(t.at) >= BUNDLE_BYTES {
                return None;
            }
            v.b[DTYPE_AT + 4 * lane + BAND_BYTE_AT] = t.at;
            v.b[BASES_AT + 4 * lane + BAND_SET_AT] = 1 << t.set;
        }
        Some(v)
    }

    fn lane(&mut self, lane: usize, s: &SlotPlan) -> Option<()> {
        let take = |v: &mut [u8; BUNDLE_BYTES], at: usize, from: usize, n: usize| {
            for k in 0..n {
                v[at + k] = u8::try_from(from + k).unwrap_or(0) & (BUNDLE_BYTES as u8 - 1);
            }
        };
        let slot_at = usize::from(s.slot_at);
        take(&mut self.a, WORDS_AT + 4 * lane, slot_at, 4);
        take(&mut self.a, GATHERED_AT + 4 * lane, slot_at + 4, 4);
        // The nums lanes below the nums stay all ones.
        let below = 2 * usize::from(s.nums.below);
        take(&mut self.a, NUMS_AT + 8 * lane + below, usize::from(s.nums.read_at) + below, 8 - below);
        // The slot's dtype section: which slot kind, and how its tag is read.
        let sections = PSUM_KINDS.iter().enumerate().flat_map(|(k, &kind)| TAG_READS.iter().map(move |&r| (k, kind, r)));
        let (dtype_row, (shift, mask)) = match sections.into_iter().find(|&(_, kind, r)| dtype_base(Some(r), kind) == s.dtype_base) {
            Some((k, _, read)) => {
                take(&mut self.b, DTYPE_AT + 4 * lane, usize::from(s.dtype_at), 1);
                (k * TAG_ROWS, read.shift_mask())
            }
            None if s.dtype_base == dtype_base(None, PsumWrite::Reads) => (NO_FIELD_ROW, (0, 0)),
            None => return None,
        };
        let mode_row = MODE_SECTIONS.iter().position(|m| m.base() == s.mode_base)? * 32;
        put_u32(&mut self.b, SHIFT_AT + 4 * lane, shift);
        put_u32(&mut self.b, TAG_MASK_AT + 4 * lane, mask);
        put_u32(&mut self.b, BASES_AT + 4 * lane, u32::try_from(dtype_row | mode_row << 8).ok()?);
        Some(())
    }
}

/// Looks up the low byte of each u32 lane of `idx` (0..128) in `t`, into
/// the low byte of the lane. The lane's other bytes are those of other
/// lookups, which nothing reads: every use of a class or need below
/// either adds, ORs or shifts it left (carries move up, never into the low
/// byte), or tests bits of its low byte.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lookup(idx: __m128i, t: &Table128) -> __m128i {
    _mm512_castsi512_si128(_mm512_permutex2var_epi8(t[0], _mm512_castsi128_si512(idx), t[1]))
}

/// The state bits the bundle's slots and band tests clear: the scalar
/// `slot_clean` of each used slot and `band_clean` of each band test, at
/// once. No mask registers: on Zen 4 a mask's trip to a general register
/// costs more than a few vector operations.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn failed(k: &Kernel, dtypes: &Table128, v: &SlotVectors, raw: &[u8; BUNDLE_BYTES]) -> u8 {
    let bundle: __m512i = zerocopy::transmute!(*raw);
    let (pa, pb): (__m512i, __m512i) = (zerocopy::transmute!(v.a), zerocopy::transmute!(v.b));
    let a = _mm512_permutex2var_epi8(bundle, pa, k.fill);
    let b = _mm512_castsi512_si128(_mm512_permutex2var_epi8(bundle, pb, k.fill));
    let words = _mm512_castsi512_si128(a);
    let gathered = _mm512_extracti32x4_epi32::<1>(a);
    let nums = _mm512_extracti64x4_epi64::<1>(a);
    let bases = _mm512_extracti32x4_epi32::<3>(pb);
    // The dtype's class.
    let tag = _mm_and_si128(_mm_srlv_epi32(b, _mm512_extracti32x4_epi32::<1>(pb)), _mm512_extracti32x4_epi32::<2>(pb));
    let tag = _mm_min_epu32(tag, _mm_set1_epi32(i32::from(TAG_LIMIT)));
    let dclass = lookup(_mm_add_epi32(tag, bases), dtypes);
    // The address word's class: its region, then its section, register and mode bits.
    let region = lookup(_mm_srli_epi32::<{ MODE_KEY_SHIFT as i32 }>(words), &k.regions);
    let top = _mm_slli_epi32::<2>(_mm_srli_epi32::<{ (MODE_KEY_SHIFT + ADDR_KEY_BITS) as i32 }>(words));
    let class = lookup(_mm_add_epi32(_mm_add_epi32(_mm_srli_epi32::<8>(bases), top), region), &k.modes);
    let need = lookup(_mm_or_si128(_mm_slli_epi32::<{ DTYPE_CLASS_BITS as i32 }>(class), dclass), &k.needs);
    // What must be clear in the address word and the gathered word, and the outright failure.
    let clear = _mm256_permutevar8x32_epi32(k.word_clear, _mm256_castsi128_si256(_mm_srli_epi32::<{ WORD_CLEAR_SHIFT as i32 }>(need)));
    let word_bad = _mm_and_si128(words, _mm256_castsi256_si128(clear));
    let gidx = _mm_or_si128(_mm_and_si128(need, _mm_set1_epi32(i32::from(GATHERED_WIDE))), _mm_srli_epi32::<29>(gathered));
    let gathered_bad = _mm_and_si128(gathered, _mm512_castsi512_si128(_mm512_permutexvar_epi32(_mm512_castsi128_si512(gidx), k.gathered)));
    let bad = _mm_or_si128(_mm_or_si128(word_bad, gathered_bad), _mm_and_si128(need, _mm_set1_epi32(i32::from(NEED_FAIL))));
    // A zero num where the nums are checked: a slot's need widened to its 8 bytes of nums.
    let wide_need = _mm256_cvtepu32_epi64(need);
    let nums_off = _mm256_cmpeq_epi64(_mm256_and_si256(wide_need, _mm256_set1_epi64x(i64::from(NEED_NUMS))), _mm256_setzero_si256());
    let zero_nums = _mm256_cmpeq_epi16(_mm256_or_si256(nums, nums_off), _mm256_setzero_si256());
    let slots_bad = _mm256_or_si256(zero_nums, _mm256_zextsi128_si256(bad));
    // Band tests: the byte's sets (by the value's top bit, from one half of the table or the other) against the test's set.
    let value = _mm_srli_epi32::<{ 8 * BAND_BYTE_AT as i32 }>(b);
    let low = lookup(value, &[k.band_sets[0], k.band_sets[1]]);
    let high = lookup(value, &[k.band_sets[2], k.band_sets[3]]);
    let sets = _mm_blendv_epi8(low, high, value);
    let set = _mm_srli_epi32::<{ 8 * BAND_SET_AT as i32 }>(bases);
    let band_bad = _mm_and_si128(_mm_cmpeq_epi32(_mm_and_si128(sets, set), _mm_setzero_si128()), set);
    (u8::from(_mm256_testz_si256(slots_bad, slots_bad) == 0) * !0) | (u8::from(_mm_testz_si128(band_bad, band_bad) == 0) * BAND_CLEAN)
}

/// [`super::verdicts`] with the slots and band tests checked in lanes, in
/// one pass. The rarer MX operands and tied bands (a tenth of a mixed
/// stream) are checked in the same pass behind a branch: cheaper than
/// listing every bundle's for later passes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
fn judge(k: &Kernel, batch: &Batch, g: Generation) -> [Verdict; BATCH] {
    let t = Planned::get(g);
    let (vectors, dtypes) = (&k.plans[g.index()], &k.dtypes[g.index()]);
    let mut state = [0u8; BATCH];
    for (raw, st) in batch.iter().zip(state.iter_mut()) {
        let op = raw[0];
        let plan = &t.plans[usize::from(op)];
        let mut s = t.head(plan, Raw(raw)) & !failed(k, dtypes, &vectors[usize::from(op)], raw);
        if plan.mx_used != 0 {
            s &= !u8::from(!t.mx_clean(Raw(raw), &plan.mx));
        }
        if plan.tied != TiedBand::None {
            s &= !(u8::from(!t.tied_clean(Raw(raw), plan.tied)) * BAND_CLEAN);
        }
        *st = s;
    }
    state.map(super::verdict_of)
}

/// [`super::verdicts`] in lanes, when this CPU has them.
#[allow(unsafe_code)]
pub(super) fn verdicts(k: &Kernel, batch: &Batch, g: Generation) -> [Verdict; BATCH] {
    // SAFETY: a `Kernel` exists only where `Kernel::build` found every feature `judge` enables.
    unsafe { judge(k, batch, g) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn builds_where_the_cpu_has_the_features() {
        if super::cpu_has_features() {
            assert!(super::Kernel::build(super::super::tables()).is_some());
        }
    }
}
