//! The lanes kernel on AVX2 (every x86-64 CPU since Haswell and Zen 1),
//! which has no byte permute across more than 16 bytes: a permute is one
//! 16-byte shuffle per 16-byte chunk of the bundle, ORed (an index byte
//! XOR its chunk's base is its offset there, any other saturates to a
//! shuffle index that reads zero), and a 128-entry table is eight 16-byte
//! shuffles narrowed by three blends on the index bits above the low four.
//!
//! Measured slower than the scalar kernel on Zen 4 and on an Intel Xeon
//! (`reports/profiling.md`); [`super::super::Kernel::Auto`] times it with the
//! others and picks it only where it is the fastest.

use super::super::tied::TiedBand;
use super::super::{verdict_of, Batch, Planned, Raw, Verdict, BAND_CLEAN, BATCH};
use super::{lanes_kernel, Fields, Lanes, SlotVectors, BASES_AT, ONES, SHIFT_AT, TAG_MASK_AT, ZERO};
use crate::bundle::BUNDLE_BYTES;
use crate::generation::Generation;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// A 16-byte chunk of the bundle.
const CHUNK: usize = 16;
const CHUNKS: usize = BUNDLE_BYTES / CHUNK;
type Plan = SlotVectors;
/// A 128-entry byte table: register `j` holds entries `16j..16j+16`.
type Table128 = [__m128i; 8];

pub(in super::super) struct Kernel {
    plans: [Box<[Plan; 0x100]>; 3],
    dtypes: [Table128; 3],
    regions: Table128,
    modes: Table128,
    needs: Table128,
    word_clear: __m256i,
    band_sets: [Table128; 2],
    /// The 16 gathered-word masks, as two registers of eight.
    gathered: [__m256i; 2],
}

/// The kernel, when this CPU has AVX2 (a `Kernel` is proof that `judge`
/// may run) and the description fits.
pub(in super::super) fn kernel() -> Option<&'static Kernel> {
    static K: OnceLock<Option<Kernel>> = OnceLock::new();
    K.get_or_init(|| if cpu_has_features() { super::lanes().and_then(Kernel::of) } else { None }).as_ref()
}

pub(in super::super) fn cpu_has_features() -> bool {
    is_x86_feature_detected!("avx2")
}

fn table128(t: &[u8; 128]) -> Table128 {
    zerocopy::transmute!(*t)
}

// `fields` makes a fill byte from its index's bit 5 alone: the zero and all-ones
// blocks are the 32 indices from ZERO and the 32 from ONES.
const _: () = assert!(ONES & ZERO == ZERO && ONES - ZERO == 0x20);

impl Kernel {
    /// `None` unless every permute index reads a bundle byte, or a fill
    /// byte where [`fields`] makes the same: zero at [`ZERO`], all ones at [`ONES`].
    fn of(l: &Lanes) -> Option<Kernel> {
        let fill_ok = l.fill.iter().enumerate().all(|(i, &f)| f == if i + BUNDLE_BYTES >= usize::from(ONES) { 0xFF } else { 0 });
        // Bundle bytes (0..64), the zero fill from ZERO (64), the ones fill from ONES: one range.
        let index_ok = |x: u8| x < ONES + 0x20;
        let plans_ok = l.plans.iter().flat_map(|p| p.iter()).all(|v| v.a.iter().chain(&v.b[..SHIFT_AT]).all(|&x| index_ok(x)));
        if !fill_ok || !plans_ok {
            return None;
        }
        let band: [[u8; 128]; 2] = zerocopy::transmute!(l.band_sets);
        let gathered: [[u32; 8]; 2] = zerocopy::transmute!(l.gathered);
        Some(Kernel {
            plans: l.plans.clone(),
            dtypes: l.dtypes.each_ref().map(table128),
            regions: table128(&l.regions),
            modes: table128(&l.modes),
            needs: table128(&l.needs),
            word_clear: zerocopy::transmute!(l.word_clear),
            band_sets: band.each_ref().map(table128),
            gathered: gathered.map(|g| zerocopy::transmute!(g)),
        })
    }
}

#[target_feature(enable = "avx2")]
#[inline]
fn fields(_: &Kernel, p: &Plan, raw: &[u8; BUNDLE_BYTES]) -> Fields {
    let chunks: [__m128i; CHUNKS] = zerocopy::transmute!(*raw);
    let wide = [
        _mm256_broadcastsi128_si256(chunks[0]),
        _mm256_broadcastsi128_si256(chunks[1]),
        _mm256_broadcastsi128_si256(chunks[2]),
        _mm256_broadcastsi128_si256(chunks[3]),
    ];
    let [a0, a1]: [__m256i; 2] = zerocopy::transmute!(p.a);
    const _: () = assert!(SHIFT_AT == 16 && TAG_MASK_AT == 32 && BASES_AT == 48);
    let [b, shift, mask, bases]: [__m128i; 4] = zerocopy::transmute!(p.b);
    // An index byte of chunk c, XOR c << 4, is its offset in the chunk; any other is 16 or more: saturated past 0x7F it reads zero.
    let sat = _mm256_set1_epi8(0x70);
    let pick = |idx: __m256i| {
        let mut r = _mm256_setzero_si256();
        for (c, w) in wide.iter().enumerate() {
            let i = _mm256_adds_epu8(_mm256_xor_si256(idx, _mm256_set1_epi8((c << 4) as i8)), sat);
            r = _mm256_or_si256(r, _mm256_shuffle_epi8(*w, i));
        }
        r
    };
    // Fill bytes from ONES on read as all ones.
    let ones = |idx: __m256i| _mm256_cmpeq_epi8(_mm256_and_si256(idx, _mm256_set1_epi8(ONES as i8)), _mm256_set1_epi8(ONES as i8));
    let (a0, a1) = (pick(a0), _mm256_or_si256(pick(a1), ones(a1)));
    let b = _mm256_castsi256_si128(pick(_mm256_castsi128_si256(b)));
    Fields { words: _mm256_castsi256_si128(a0), gathered: _mm256_extracti128_si256::<1>(a0), nums: a1, b, shift, mask, bases }
}

#[target_feature(enable = "avx2")]
#[inline]
fn lookup(idx: __m128i, t: &Table128) -> __m128i {
    let i = _mm_and_si128(idx, _mm_set1_epi8(0x7F));
    // Each register's entry for the index's low four bits, then its bits 4, 5 and 6 pick.
    let s: [__m128i; 8] = [0, 1, 2, 3, 4, 5, 6, 7].map(|j| _mm_shuffle_epi8(t[j], i));
    let (b4, b5, b6) = (_mm_slli_epi16::<3>(i), _mm_slli_epi16::<2>(i), _mm_slli_epi16::<1>(i));
    let lo = _mm_blendv_epi8(_mm_blendv_epi8(s[0], s[1], b4), _mm_blendv_epi8(s[2], s[3], b4), b5);
    let hi = _mm_blendv_epi8(_mm_blendv_epi8(s[4], s[5], b4), _mm_blendv_epi8(s[6], s[7], b4), b5);
    _mm_blendv_epi8(lo, hi, b6)
}

#[target_feature(enable = "avx2")]
#[inline]
fn gathered_clear(k: &Kernel, gidx: __m128i) -> __m128i {
    let g = _mm256_castsi128_si256(gidx);
    let lo = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(k.gathered[0], g));
    let hi = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(k.gathered[1], g));
    // Index bit 3 picks the second register: moved to each lane's sign bit.
    _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(lo), _mm_castsi128_ps(hi), _mm_castsi128_ps(_mm_slli_epi32::<28>(gidx))))
}

lanes_kernel!("avx2");

#[cfg(test)]
mod tests {
    #[test]
    fn the_cpu_check_agrees_with_the_flags_linux_lists() {
        // Not on Linux: std's detection is the only witness there.
        let Some(flags) = super::super::cpuinfo_flags() else { return };
        assert_eq!(super::cpu_has_features(), flags.contains("avx2"), "flags: {flags:?}");
    }

    use super::super::{lanes, ONES, ZERO};
    use super::Kernel;
    use crate::bundle::BUNDLE_BYTES;

    /// The backend refuses tables its `fields` cannot serve: a fill byte
    /// other than the zero or all-ones it makes, or a permute index that is
    /// neither a bundle byte nor a fill byte. (Building it runs no AVX2
    /// instruction, so this runs on any x86-64 CPU.)
    #[test]
    fn tables_the_backend_cannot_serve_are_refused() {
        let Some(l) = lanes() else { panic!("the lanes tables do not build") };
        assert!(Kernel::of(l).is_some());
        let zeros = usize::from(ONES) - BUNDLE_BYTES;
        for (at, v) in [(0, 0xFF), (zeros - 1, 0x01), (zeros, 0x00), (BUNDLE_BYTES - 1, 0x7F)] {
            let mut bad = l.clone();
            bad.fill[at] = v;
            assert!(Kernel::of(&bad).is_none(), "fill byte {at} = {v:#04x} accepted");
        }
        for x in [ONES + 0x20, 0xFF] {
            let mut bad = l.clone();
            bad.plans[0][0].a[0] = x;
            assert!(Kernel::of(&bad).is_none(), "permute index {x:#04x} accepted");
            let mut bad = l.clone();
            bad.plans[2][0xFF].b[0] = x;
            assert!(Kernel::of(&bad).is_none(), "permute index {x:#04x} accepted");
        }
        assert!(usize::from(ZERO) == BUNDLE_BYTES && usize::from(ONES + 0x20) == 2 * BUNDLE_BYTES);
    }
}
