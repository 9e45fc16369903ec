//! The lanes kernel on AVX-512 with VBMI (e.g. Zen 4, Ice Lake and
//! later): a bundle's two permutes are two-source byte permutes of its 64
//! bytes and the fill, and a 128-entry table is two 512-bit registers
//! looked up with one more.

use super::super::tied::TiedBand;
use super::super::{verdict_of, Batch, Planned, Raw, Verdict, BAND_CLEAN, BATCH};
use super::{lanes_kernel, Fields, Lanes, SlotVectors, BASES_AT, SHIFT_AT, TAG_MASK_AT};
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

/// A 128-entry byte table, as the two sources of a byte permute.
type Table128 = [__m512i; 2];
/// An opcode's permute indices: the description's own.
type Plan = SlotVectors;

pub(in super::super) struct Kernel {
    plans: [Box<[Plan; 0x100]>; 3],
    dtypes: [Table128; 3],
    regions: Table128,
    modes: Table128,
    needs: Table128,
    word_clear: __m256i,
    /// Low and high halves of the band sets by value.
    band_sets: [Table128; 2],
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
        let band: [[u8; 128]; 2] = zerocopy::transmute!(l.band_sets);
        Kernel {
            plans: l.plans.clone(),
            dtypes: l.dtypes.each_ref().map(table128),
            regions: table128(&l.regions),
            modes: table128(&l.modes),
            needs: table128(&l.needs),
            word_clear: zerocopy::transmute!(l.word_clear),
            band_sets: band.each_ref().map(table128),
            gathered: zerocopy::transmute!(l.gathered),
            fill: zerocopy::transmute!(l.fill),
        }
    }
}

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

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lookup(idx: __m128i, t: &Table128) -> __m128i {
    _mm512_castsi512_si128(_mm512_permutex2var_epi8(t[0], _mm512_castsi128_si512(idx), t[1]))
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn gathered_clear(k: &Kernel, gidx: __m128i) -> __m128i {
    _mm512_castsi512_si128(_mm512_permutexvar_epi32(_mm512_castsi128_si512(gidx), k.gathered))
}

lanes_kernel!("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi");

#[cfg(test)]
mod tests {
    #[test]
    fn the_cpu_check_agrees_with_the_flags_linux_lists() {
        // Not on Linux: std's detection is the only witness there.
        let Some(flags) = super::super::cpuinfo_flags() else { return };
        macro_rules! listed {
            ($f:literal) => {
                flags.contains($f)
            };
        }
        assert_eq!(super::cpu_has_features(), features!(listed), "flags: {flags:?}");
    }
}
