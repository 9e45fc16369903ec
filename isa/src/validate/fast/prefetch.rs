//! A hint that brings the next batch of a stream into the L2 cache while
//! the kernel judges this one: each kernel's first pass, on reaching a
//! bundle, hints the bundle at the same place one batch on. The kernels
//! read a batch in a burst (the first pass reads its every line, the later
//! passes none), and the hardware prefetcher, which follows steady streams
//! and stops at page edges (a batch is a page), fell behind once the
//! stream came from memory. Measured in `reports/profiling.md`: one hint
//! per bundle, spread over the pass, took 17% off the portable kernel's
//! time on a stream out of cache and 3–5% on one in L3, and added 2% on
//! one L2 holds (an instruction per bundle); the same hints issued as a
//! burst of 64 at each batch's start cost 8% in cache.

use super::{Batch, BUNDLE_BYTES};

/// How far ahead a hint reaches: one batch.
const AHEAD: usize = std::mem::size_of::<Batch>();
const _: () = assert!(AHEAD == super::BATCH * BUNDLE_BYTES);

/// Hints the CPU to bring into L2 the line at the bundle one batch after
/// `raw`. A hint only: nothing is read, no result changes. The address
/// may lie past the stream (on its last batch) or anywhere at all: a
/// prefetch never faults. Off x86-64, where std has no stable prefetch, it
/// does nothing.
#[inline(always)]
pub(super) fn next_batch(raw: &[u8; BUNDLE_BYTES]) {
    #[cfg(target_arch = "x86_64")]
    hint(raw.as_ptr().wrapping_add(AHEAD));
    #[cfg(not(target_arch = "x86_64"))]
    let _ = raw;
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn hint(at: *const u8) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
    // SAFETY: PREFETCHh reads nothing the program sees and never faults,
    // whatever the address (Intel SDM vol. 2B, "PREFETCHh"). Its `sse`
    // feature is in every x86-64 CPU.
    unsafe { _mm_prefetch::<_MM_HINT_T1>(at.cast()) }
}
