//! The clean-bundle fast path. Almost every bundle of a stream passes every
//! rule; proving that straight off the 64 bytes, with offsets planned once
//! per opcode and no branches on field values, costs a fraction of running
//! the reporting checks (whose branches on opcode, body kind, address mode
//! and dims mispredict on a mixed stream). A slot's rules are a few table
//! lookups and masks: its address word's class and its dtype's class
//! select what must hold (`classes`). MX operands (`mx`) and the Pool and
//! Branch bands, whose rules tie fields together (`tied`), have checks of
//! their own. [`verdicts`] judges a batch of bundles at once, so not even
//! the number of slots an opcode has is a branch.
//!
//! The answer is one-sided: [`Verdict::Clean`] means the full path would
//! report nothing; [`Verdict::BandUnknown`] that its header and slot checks
//! would report nothing and only the band must run; [`Verdict::Unknown`]
//! means "run everything". Findings are therefore exactly those of the full
//! path; the tests (`tests.rs`) compare both on generated, corrupted,
//! mutated and random bundles.
//!
//! Every offset, dtype property, address rule and band set is derived from
//! the layout descriptions, the dtype table, [`crate::addr4`] and the band's
//! rules; nothing is restated here.
//!
//! The files, one concept each: `plan.rs` plans each opcode and `build.rs` lays out a
//! generation's tables, once; this file reads a bundle through them (the
//! rules of one bundle, [`verdict_raw`], which every kernel must agree
//! with); `scalar.rs` is the portable kernel, which judges a batch in
//! passes over work lists; `lanes/` the AVX-512 one; `kernel.rs` chooses
//! between them (by name, by the environment, or timed by `auto.rs`) and
//! holds the one call into a `#[target_feature]` kernel.

mod auto;
pub use auto::{ROUNDS as AUTO_ROUNDS, SAMPLE_BUNDLES as AUTO_SAMPLE_BUNDLES};
mod classes;
mod entry;
mod kernel;
pub(super) use kernel::verdicts;
pub use kernel::{Kernel, KernelEnvError, ENV_HIDE, ENV_KERNEL};
mod aligned;
mod amended;
mod band_rule;
mod build;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod mx;
mod plan;
mod prefetch;
mod scalar;
pub(super) use scalar::Work;
mod tied;

use band_rule::{BandTest, SETS};
use build::tables;
use classes::*;
use plan::{Head, Planned, SlotPlan};

use crate::bundle::{Bundle, BUNDLE_BYTES};
use crate::errata::Profile;
use crate::generation::Generation;

/// What a table of the fast path judges by: a generation's rules, as the
/// spec states them or amended by the errata. The amended tables prove
/// valid the bundles whose every finding an erratum would amend (without
/// making one), so they answer for verdicts only (`amended.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rules {
    pub(super) generation: Generation,
    pub(super) profile: Profile,
}

impl Rules {
    /// Every table's rules, by [`Rules::index`]: the spec's first.
    pub(super) const ALL: [Rules; 6] = {
        let g = Generation::ALL;
        let (s, a) = (Profile::Spec, Profile::Amended);
        [
            Rules { generation: g[0], profile: s },
            Rules { generation: g[1], profile: s },
            Rules { generation: g[2], profile: s },
            Rules { generation: g[0], profile: a },
            Rules { generation: g[1], profile: a },
            Rules { generation: g[2], profile: a },
        ]
    };

    /// The spec's rules on `g`.
    pub(super) fn spec(generation: Generation) -> Rules {
        Rules { generation, profile: Profile::Spec }
    }

    pub(super) fn index(self) -> usize {
        let profile = match self.profile {
            Profile::Spec => 0,
            Profile::Amended => 1,
        };
        profile * Generation::ALL.len() + self.generation.index()
    }
}

/// What the fast path could prove about a bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// No check would report anything.
    Clean,
    /// The header and slot checks would report nothing; the band must run.
    BandUnknown,
    /// Run every check.
    Unknown,
}

/// Bundles judged together by [`verdicts`]: 4 KiB, a page. Small, so the
/// first pass (which reads the stream) and the others (which do not)
/// alternate quickly and the hardware prefetcher keeps streaming (128 ran
/// ~12% slower than 32 out of cache); 64 halves the per-batch cost of 32
/// and read the same out of cache (`reports/profiling.md`).
pub(super) const BATCH: usize = 64;
/// A batch of bundles' wire bytes.
pub(super) type Batch = [[u8; BUNDLE_BYTES]; BATCH];

/// A bundle's bytes, read at plan offsets. An offset is masked or clamped
/// to the bundle, so the compiler sees every read in bounds: no checks, no
/// branches (plans only hold offsets whose reads fit the bundle, so neither
/// changes a read).
#[derive(Clone, Copy)]
struct Raw<'a>(&'a [u8; BUNDLE_BYTES]);

impl Raw<'_> {
    #[inline(always)]
    fn byte(self, at: u8) -> u8 {
        self.0[usize::from(at) & (BUNDLE_BYTES - 1)]
    }
    /// The `N` bytes at `at`, which plans only name where they lie in the
    /// bundle (`pattern_plannable`, `mx_plannable`); past its end, zeros
    /// (a branch never taken, cheaper than clamping every read).
    #[inline(always)]
    fn bytes<const N: usize>(self, at: u8) -> [u8; N] {
        let at = usize::from(at);
        self.0.get(at..at + N).and_then(|b| b.try_into().ok()).unwrap_or([0; N])
    }
    /// The little-endian word at `at`.
    #[inline(always)]
    fn word(self, at: u8) -> u32 {
        u32::from_le_bytes(self.bytes(at))
    }
    #[inline(always)]
    fn dword(self, at: u8) -> u64 {
        u64::from_le_bytes(self.bytes(at))
    }
}

/// An offset inside the bundle as a byte (plans only hold such offsets).
fn offset(at: usize) -> u8 {
    u8::try_from(at.min(BUNDLE_BYTES - 1)).unwrap_or(0)
}

/// A 1 in each 16-bit lane.
const LANE_ONES: u64 = 0x0001_0001_0001_0001;

/// The high bit of each 16-bit lane of `v` that is zero, and possibly of
/// lanes above a zero one: non-zero exactly when some lane is zero (the
/// classic SWAR test).
#[inline(always)]
fn zero_lanes(v: u64) -> u64 {
    const HIGH: u64 = 0x8000_8000_8000_8000;
    v.wrapping_sub(LANE_ONES) & !v & HIGH
}

/// `a | b` where the operands share no bit (a table section's base and a
/// key below the section's size; fail bits of rules that never both apply),
/// so `^` or `+` would give the same: checked in debug builds, which is what
/// the tests run. `.cargo/mutants.toml` names this function for that reason.
#[inline(always)]
fn disjoint<T>(a: T, b: T) -> T
where
    T: Copy + Default + PartialEq + std::fmt::Debug + std::ops::BitOr<Output = T> + std::ops::BitAnd<Output = T>,
{
    debug_assert_eq!(a & b, T::default(), "operands share bits");
    a | b
}

/// What the fast path proves about `bundle` on `g`.
#[inline]
pub(super) fn verdict(bundle: &Bundle, g: Generation) -> Verdict {
    match <&[u8; BUNDLE_BYTES]>::try_from(bundle.as_bytes()) {
        Ok(raw) => verdict_raw(raw, Rules::spec(g)),
        Err(_) => Verdict::Unknown,
    }
}

/// One bundle's rules, read through its generation's plans: each a few
/// table lookups and masks, with no branch on a field's value. The kernels
/// call these, or do in lanes what they do (`lanes/`).
impl Planned {
    /// The plans and tables of `rules`, built on first use.
    #[inline(always)]
    fn get(rules: Rules) -> &'static Planned {
        &tables()[rules.index() % Rules::ALL.len()]
    }

    /// The header test of one bundle, and whether its band can be decided
    /// here: [`HEAD_CLEAN`] and [`BAND_CLEAN`] bits.
    #[inline(always)]
    fn head(&self, head: &Head, raw: Raw) -> u8 {
        let h = raw.word(0);
        let head_ok = (h ^ head.header) & head.header_same == 0;
        let bit = if head_ok { HEAD_CLEAN } else { 0 };
        disjoint(bit, head.band_clean)
    }

    /// Whether the byte a band test reads is in its set.
    #[inline(always)]
    fn band_clean(&self, raw: Raw, b: BandTest) -> bool {
        self.allowed[usize::from(b.set) & (SETS - 1)][usize::from(raw.byte(b.at))] != 0
    }

    /// The dtype check and the rules of an MX operand.
    #[inline(always)]
    fn mx_clean(&self, raw: Raw, m: &mx::MxPlan) -> bool {
        let dtype = self.dtypes[(usize::from(m.dtype_base) + usize::from(raw.byte(m.dtype_at))) & (DTYPE_ENTRIES - 1)];
        mx::clean(raw, m, &self.mx, dtype)
    }

    /// Whether every slot of the bundle's opcode whose alignment an erratum
    /// relaxes is aligned as the spec or the erratum asks (`aligned.rs`).
    #[inline]
    fn aligned_clean(&self, raw: Raw) -> bool {
        let Some(slots) = self.aligned.get(usize::from(raw.0[0])) else { return true };
        slots.iter().all(|a| a.clean(raw, &self.modes, &self.dtypes))
    }

    /// The rules of a Pool or Branch band, or the amended tests of byte rules tied to other fields.
    #[inline(always)]
    fn tied_clean(&self, raw: Raw, band: tied::TiedBand) -> bool {
        let byte_tags = usize::from(dtype_base(Some(TagRead::Byte), PsumWrite::Reads));
        band.clean(raw, |tag| self.dtypes[(byte_tags + usize::from(tag)) & (DTYPE_ENTRIES - 1)], &self.amended, &self.allowed)
    }

    /// The dtype check and the pattern rules of one slot, as straight-line
    /// arithmetic: the address word's class and the dtype's class select
    /// what must hold, as masks.
    #[inline(always)]
    fn slot_clean(&self, raw: Raw, s: &SlotPlan) -> bool {
        let head = raw.dword(s.slot_at);
        let (word, gathered) = (head as u32, (head >> 32) as u32);
        let row = self.modes[disjoint(usize::from(s.mode_base), (word >> MODE_KEY_SHIFT) as usize) & (MODE_ENTRIES - 1)];
        let dtype = self.dtypes[(usize::from(s.dtype_base) + usize::from(raw.byte(s.dtype_at))) & (DTYPE_ENTRIES - 1)];
        let pair = disjoint(usize::from(row), usize::from(dtype));
        let need = &self.needs[disjoint(usize::from(s.nums.below) * NEEDS, pair) & (SLOT_NEEDS - 1)];
        let gathered_bad = gathered & self.gathered_clear[(need.clear >> SEL_SHIFT) as usize | (head >> (32 + 29)) as usize];
        // The word's bits that must be clear and the fail bit above them, in one AND.
        let word_bad = (u64::from(word) | 1 << FAIL_SHIFT) & need.clear;
        // A Need clears address bits or checks the gathered word, never both.
        (word_bad | u64::from(gathered_bad)) | zero_lanes(raw.dword(s.nums.read_at) | need.nums_or) == 0
    }
}

/// Bits of a bundle's state in [`verdicts`]: the header (and slots) pass,
/// the band passes.
const HEAD_CLEAN: u8 = 1;
const BAND_CLEAN: u8 = 2;

fn verdict_of(state: u8) -> Verdict {
    match (state & HEAD_CLEAN != 0, state & BAND_CLEAN != 0) {
        (true, true) => Verdict::Clean,
        (true, false) => Verdict::BandUnknown,
        (false, _) => Verdict::Unknown,
    }
}

/// What the fast path proves about the bundle with wire bytes `raw` by `rules`.
#[inline]
pub(super) fn verdict_raw(raw: &[u8; BUNDLE_BYTES], rules: Rules) -> Verdict {
    verdict_of(Planned::get(rules).state(Raw(raw)))
}

impl Planned {
    /// One bundle's [`HEAD_CLEAN`] and [`BAND_CLEAN`] bits, every rule in
    /// turn: the reference the kernels agree with.
    #[inline(always)]
    fn state(&self, raw: Raw) -> u8 {
        let plan = &self.plans[usize::from(raw.0[0])];
        let mut state = self.head(&plan.head, raw);
        for s in plan.slots.iter().take(usize::from(plan.head.used)) {
            state &= !u8::from(!self.slot_clean(raw, s));
        }
        for &b in plan.band.iter().take(usize::from(plan.head.band_used)) {
            state &= !(u8::from(!self.band_clean(raw, b)) * BAND_CLEAN);
        }
        if plan.tied != tied::TiedBand::None {
            state &= !(u8::from(!self.tied_clean(raw, plan.tied)) * BAND_CLEAN);
        }
        if plan.mx_used != 0 {
            state &= !u8::from(!self.mx_clean(raw, &plan.mx));
        }
        if plan.head.special_used != 0 {
            state &= !u8::from(!self.aligned_clean(raw));
        }
        state
    }
}

#[cfg(test)]
mod tests;
