//! The lanes kernel on AVX-512 with VBMI (e.g. Zen 4, Ice Lake and
//! later), the backend of the description in `mod.rs`: a bundle's two
//! permutes are two-source byte permutes of its 64 bytes and the fill, a
//! 128-entry table is two 512-bit registers looked up with one more, and
//! every lane is read where the description's constants put it.

use super::super::plan::Planned;
use super::super::tied::TiedBand;
use super::super::{verdict_of, Batch, Raw, Rules, Verdict, BAND_CLEAN, BATCH};
use super::dtypes::{COLUMN_MASK, ROW_BITS};
use super::{
    Lanes, SlotVectors, ADDR_KEY_BITS, BAND_BYTE_AT, BAND_SET_AT, BASES_AT, DTYPE_CLASS_BITS, GATHERED_WIDE, MODE_KEY_SHIFT, NEED_FAIL, NEED_NUMS,
    SHIFT_AT, TAG_MASK_AT, WORD_CLEAR_SHIFT,
};
use crate::bundle::BUNDLE_BYTES;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// The CPU features the kernel needs, as `is_x86_feature_detected!` names
/// them. (Each `#[target_feature]` below spells the same list: the
/// attribute takes only a literal.)
macro_rules! features {
    ($m:ident) => {
        $m!("avx512f") && $m!("avx512bw") && $m!("avx512vl") && $m!("avx512dq") && $m!("avx512vbmi")
    };
}

/// A 128-entry byte table, as the two sources of a byte permute.
type Table128 = [__m512i; 2];
/// A 256-entry byte table: its two halves, by the index's top bit.
type Table256 = [Table128; 2];
/// An opcode's permute indices: the description's own.
type Plan = SlotVectors;

pub(in super::super) struct Kernel {
    plans: [Box<[Plan; 0x100]>; 6],
    /// By rules: the dtype row and class tables (`dtypes.rs`).
    dtype_rows: [Table128; 6],
    dtype_classes: [Table128; 6],
    regions: Table128,
    modes: Table128,
    needs: Table128,
    word_clear: __m256i,
    /// By rules: the low and high bytes of the band-set bits by value.
    band_sets: [[Table256; 2]; 6],
    gathered: __m512i,
    fill: __m512i,
}

fn table128(t: &[u8; 128]) -> Table128 {
    zerocopy::transmute!(*t)
}

/// The kernel, when this CPU has the features (a `Kernel` is proof that
/// `judge` may run) and the description fits the lanes.
pub(in super::super) fn kernel() -> Option<&'static Kernel> {
    static K: OnceLock<Option<Kernel>> = OnceLock::new();
    K.get_or_init(|| if cpu_has_features() { super::lanes().map(Kernel::of) } else { None }).as_ref()
}

/// Whether this CPU has every feature the kernel uses.
pub(in super::super) fn cpu_has_features() -> bool {
    features!(is_x86_feature_detected)
}

impl Kernel {
    fn of(l: &Lanes) -> Kernel {
        let table256 = |t: [u8; 0x100]| {
            let halves: [[u8; 128]; 2] = zerocopy::transmute!(t);
            halves.each_ref().map(table128)
        };
        let band = l.band_sets.map(|b| [0, 8].map(|shift| table256(b.map(|bits| (bits >> shift) as u8))));
        Kernel {
            plans: l.plans.clone(),
            dtype_rows: l.dtype_rows.each_ref().map(table128),
            dtype_classes: l.dtype_classes.each_ref().map(table128),
            regions: table128(&l.regions),
            modes: table128(&l.modes),
            needs: table128(&l.needs),
            word_clear: zerocopy::transmute!(l.word_clear),
            band_sets: band,
            gathered: zerocopy::transmute!(l.gathered),
            fill: zerocopy::transmute!(l.fill),
        }
    }
}

/// A bundle's fields in lanes, as [`fields`] lays them out.
struct Fields {
    /// The slots' address words (u32 lanes).
    words: __m128i,
    /// The words after them.
    gathered: __m128i,
    /// The 8 bytes ending with each slot's nums (u64 lanes).
    nums: __m256i,
    /// Each lane's dtype byte, and band byte above it.
    b: __m128i,
    /// Per lane: the tag's shift and mask, and the bases word.
    shift: __m128i,
    mask: __m128i,
    bases: __m128i,
}

/// The bundle through its opcode's two permutes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn fields(k: &Kernel, v: &Plan, raw: &[u8; BUNDLE_BYTES]) -> Fields {
    let bundle: __m512i = zerocopy::transmute!(*raw);
    let (pa, pb): (__m512i, __m512i) = (zerocopy::transmute!(v.a), zerocopy::transmute!(v.b));
    let a = _mm512_permutex2var_epi8(bundle, pa, k.fill);
    const _: () = assert!(SHIFT_AT == 16 && TAG_MASK_AT == 32 && BASES_AT == 48);
    Fields {
        words: _mm512_castsi512_si128(a),
        gathered: _mm512_extracti32x4_epi32::<1>(a),
        nums: _mm512_extracti64x4_epi64::<1>(a),
        b: _mm512_castsi512_si128(_mm512_permutex2var_epi8(bundle, pb, k.fill)),
        shift: _mm512_extracti32x4_epi32::<1>(pb),
        mask: _mm512_extracti32x4_epi32::<2>(pb),
        bases: _mm512_extracti32x4_epi32::<3>(pb),
    }
}

/// Entry `idx` of a 128-entry table, for the low byte of each u32 lane
/// (0..128), in the lane's low byte; the lane's other bytes are entries
/// for its other index bytes. Nothing reads them: every use of a class or
/// need in [`failed`] either adds, ORs or shifts it left (carries move up,
/// never into the low byte), or tests bits of its low byte (of the band
/// sets' high byte, looked up by byte 1, only byte 1 is tested).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lookup(idx: __m128i, t: &Table128) -> __m128i {
    _mm512_castsi512_si128(_mm512_permutex2var_epi8(t[0], _mm512_castsi128_si512(idx), t[1]))
}

/// [`lookup`] in a 256-entry table: each byte's entry from one half or the other by its index's top bit.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lookup256(idx: __m128i, t: &Table256) -> __m128i {
    _mm_blendv_epi8(lookup(idx, &t[0]), lookup(idx, &t[1]), idx)
}

/// The gathered-word mask of each lane's index (0..16).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn gathered_clear(k: &Kernel, gidx: __m128i) -> __m128i {
    _mm512_castsi512_si128(_mm512_permutexvar_epi32(_mm512_castsi128_si512(gidx), k.gathered))
}

/// The tables of one rules.
struct RulesTables<'k> {
    dtype_rows: &'k Table128,
    dtype_classes: &'k Table128,
    band_sets: &'k [Table256; 2],
}

/// The state bits the bundle's slots and band tests clear: the scalar
/// `slot_clean` of each used slot and `band_clean` of each band test, at
/// once. No mask registers: on Zen 4 a mask's trip to a general register
/// costs more than a few vector operations.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn failed(k: &Kernel, t: &RulesTables, v: &Plan, raw: &[u8; BUNDLE_BYTES]) -> u8 {
    let Fields { words, gathered, nums, b, shift, mask, bases } = fields(k, v, raw);
    // The dtype's class: the row of what the slot reads (its section's start plus the high nibble), then the column.
    let x = _mm_and_si128(_mm_srlv_epi32(b, shift), mask);
    let row = lookup(_mm_add_epi32(_mm_srli_epi32::<{ ROW_BITS as i32 }>(x), bases), t.dtype_rows);
    let dclass = lookup(_mm_add_epi32(row, _mm_and_si128(x, _mm_set1_epi32(COLUMN_MASK as i32))), t.dtype_classes);
    // The address word's class: its region, then its section, register and mode bits.
    let region = lookup(_mm_srli_epi32::<{ MODE_KEY_SHIFT as i32 }>(words), &k.regions);
    let top = _mm_slli_epi32::<2>(_mm_srli_epi32::<{ (MODE_KEY_SHIFT + ADDR_KEY_BITS) as i32 }>(words));
    let class = lookup(_mm_add_epi32(_mm_add_epi32(_mm_srli_epi32::<8>(bases), top), region), &k.modes);
    let need = lookup(_mm_or_si128(_mm_slli_epi32::<{ DTYPE_CLASS_BITS as i32 }>(class), dclass), &k.needs);
    // What must be clear in the address word and the gathered word, and the outright failure.
    let clear = _mm256_permutevar8x32_epi32(k.word_clear, _mm256_castsi128_si256(_mm_srli_epi32::<{ WORD_CLEAR_SHIFT as i32 }>(need)));
    let word_bad = _mm_and_si128(words, _mm256_castsi256_si128(clear));
    let gidx = _mm_or_si128(_mm_and_si128(need, _mm_set1_epi32(i32::from(GATHERED_WIDE))), _mm_srli_epi32::<29>(gathered));
    let gathered_bad = _mm_and_si128(gathered, gathered_clear(k, gidx));
    let bad = _mm_or_si128(_mm_or_si128(word_bad, gathered_bad), _mm_and_si128(need, _mm_set1_epi32(i32::from(NEED_FAIL))));
    // A zero num where the nums are checked: a slot's need widened to its 8 bytes of nums.
    let wide_need = _mm256_cvtepu32_epi64(need);
    let nums_off = _mm256_cmpeq_epi64(_mm256_and_si256(wide_need, _mm256_set1_epi64x(i64::from(NEED_NUMS))), _mm256_setzero_si256());
    let zero_nums = _mm256_cmpeq_epi16(_mm256_or_si256(nums, nums_off), _mm256_setzero_si256());
    let slots_bad = _mm256_or_si256(zero_nums, _mm256_zextsi128_si256(bad));
    // Band tests: the byte's sets against the test's set, the low byte of their bits
    // looked up by the byte moved to the lane's low byte, the high one where it is.
    const _: () = assert!(BAND_BYTE_AT == 1);
    let low = lookup256(_mm_srli_epi32::<8>(b), &t.band_sets[0]);
    let high = lookup256(_mm_and_si128(b, _mm_set1_epi32(0xFF00)), &t.band_sets[1]);
    let sets = _mm_blendv_epi8(low, high, _mm_set1_epi32(0x8000));
    let set = _mm_srli_epi32::<{ 8 * BAND_SET_AT as i32 }>(bases);
    let band_bad = _mm_and_si128(_mm_cmpeq_epi32(_mm_and_si128(sets, set), _mm_setzero_si128()), set);
    (u8::from(_mm256_testz_si256(slots_bad, slots_bad) == 0) * !0) | (u8::from(_mm_testz_si128(band_bad, band_bad) == 0) * BAND_CLEAN)
}

/// [`super::super::verdicts`] with the slots and band tests checked in
/// lanes, in one pass. The rarer MX operands and tied bands (a tenth of a
/// mixed stream) are checked in the same pass behind a branch: cheaper
/// than listing every bundle's for later passes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub(in super::super) fn judge(k: &Kernel, batch: &Batch, rules: Rules) -> [Verdict; BATCH] {
    let t = Planned::get(rules);
    let r = rules.index() % Rules::ALL.len();
    let plans = &k.plans[r];
    let tables = RulesTables { dtype_rows: &k.dtype_rows[r], dtype_classes: &k.dtype_classes[r], band_sets: &k.band_sets[r] };
    let mut state = [0u8; BATCH];
    // Only bundles with slots or band tests need the lanes: listed in the first pass.
    let mut work = [0u8; BATCH];
    let mut n = 0usize;
    for (i, (raw, st)) in batch.iter().zip(state.iter_mut()).enumerate() {
        super::super::prefetch::next_batch(raw);
        let op = raw[0];
        let plan = &t.plans[usize::from(op)];
        let mut s = t.head(&plan.head, Raw(raw));
        if plan.mx_used != 0 {
            s &= !u8::from(!t.mx_clean(Raw(raw), &plan.mx));
        }
        if plan.tied != TiedBand::None {
            s &= !(u8::from(!t.tied_clean(Raw(raw), plan.tied)) * BAND_CLEAN);
        }
        if plan.head.special_used != 0 {
            // A slot whose alignment an erratum relaxes: its lanes' dtype section asks none (`aligned.rs`).
            s &= !u8::from(!t.aligned_clean(Raw(raw)));
        }
        *st = s;
        work[n.min(BATCH - 1)] = i as u8;
        n += usize::from((plan.head.used | plan.head.band_used) != 0);
    }
    for &i in &work[..n.min(BATCH)] {
        let i = usize::from(i) & (BATCH - 1);
        let raw = &batch[i];
        state[i] &= !failed(k, &tables, &plans[usize::from(raw[0])], raw);
    }
    state.map(verdict_of)
}

#[cfg(test)]
mod tests {
    /// The CPU flags Linux lists in /proc/cpuinfo (`None` elsewhere): a
    /// witness of the CPU check that does not go through std's detection.
    fn cpuinfo_flags() -> Option<std::collections::BTreeSet<String>> {
        let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("flags"))?;
        Some(line.split_once(':')?.1.split_whitespace().map(str::to_owned).collect())
    }

    #[test]
    fn the_cpu_check_agrees_with_the_flags_linux_lists() {
        // Not on Linux: std's detection is the only witness there.
        let Some(flags) = cpuinfo_flags() else { return };
        macro_rules! listed {
            ($f:literal) => {
                flags.contains($f)
            };
        }
        assert_eq!(super::cpu_has_features(), features!(listed), "flags: {flags:?}");
    }
}
