//! Which kernel [`Kernel::Auto`] runs when [`super::ENV_KERNEL`] names none:
//! the fastest this CPU runs, timed once per process on a sample of bundles,
//! the way Linux times its RAID-6 and XOR routines at boot. Which kernel is
//! fastest depends on the CPU, not on the input, and differs between CPUs
//! with the same instructions (`reports/profiling.md`: on Zen 4 the AVX-512
//! kernel outran the scalar one, as measured before the scalar kernel's
//! 2026-12-05 changes; on an Intel Xeon with AVX-512, since them, the reverse),
//! so no fixed order is right everywhere. Every kernel gives the same
//! verdicts (the tests compare them), so the choice changes speed only.

use super::plan::Planned;
use super::{verdicts, Batch, Kernel, Rules, Work, BATCH};
use crate::bundle::BUNDLE_BYTES;
use crate::generation::Generation;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rounds of timing, each kernel once per round in turn; a kernel's best
/// round counts, so a round an interrupt or another process slowed is
/// dropped and the first round's table building is never counted.
pub const ROUNDS: usize = 16;
/// The generation timed: CoreV4 has every body kind, MX included.
const SAMPLE_GENERATION: Generation = Generation::V4;

/// What the choice was made from: each kernel timed and its best round.
pub type Timings = Vec<(Kernel, Duration)>;

/// Bundles in the sample: 32 KiB, which an L1 data cache holds.
pub const SAMPLE_BUNDLES: usize = 512;

/// The sample: bundles of every opcode the fast path decides, each with
/// the header its plan accepts (so it lists and runs the slots and band
/// tests a stream's bundle of that opcode costs) and a zero body, cycled
/// through. The kernels have no branch on field values, so the body's
/// values do not change their time.
fn sample() -> Vec<Batch> {
    let t = Planned::get(Rules::spec(SAMPLE_GENERATION));
    let header = |op: u8| t.plans[usize::from(op)].head.header.to_le_bytes();
    let mut decided: Vec<u8> = (0..=u8::MAX).filter(|&op| header(op)[0] == op).collect();
    if decided.is_empty() {
        decided = (0..=u8::MAX).collect(); // nothing decided: every kernel costs the header pass only
    }
    let bundles: Vec<[u8; BUNDLE_BYTES]> = decided
        .iter()
        .cycle()
        .take(SAMPLE_BUNDLES)
        .map(|&op| {
            let mut raw = [0u8; BUNDLE_BYTES];
            raw[..4].copy_from_slice(&header(op));
            raw[0] = op;
            raw
        })
        .collect();
    bundles
        .chunks_exact(BATCH)
        .map(|c| {
            let mut b: Batch = [[0; BUNDLE_BYTES]; BATCH];
            b.copy_from_slice(c);
            b
        })
        .collect()
}

/// Times each of `kernels` on the sample, in turn, [`ROUNDS`] times.
pub(super) fn timings(kernels: &[Kernel]) -> Timings {
    let sample = sample();
    let mut work = Work::default();
    let mut best = vec![Duration::MAX; kernels.len()];
    for _ in 0..ROUNDS {
        for (&k, b) in kernels.iter().zip(best.iter_mut()) {
            let start = Instant::now();
            for batch in &sample {
                black_box(verdicts(black_box(batch), Rules::spec(SAMPLE_GENERATION), k, &mut work));
            }
            *b = (*b).min(start.elapsed());
        }
    }
    kernels.iter().copied().zip(best).collect()
}

/// The kernel with the shortest time; of equal times the first listed
/// ([`Kernel::CONCRETE`]'s order); portable when none was timed.
pub(super) fn fastest(timed: &[(Kernel, Duration)]) -> Kernel {
    timed.iter().min_by_key(|(_, d)| *d).map_or(Kernel::Portable, |&(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::{fastest, sample, timings, Kernel, BATCH};
    use std::time::Duration;

    #[test]
    fn the_fastest_is_the_shortest_time_and_the_first_of_equal_ones() {
        let ms = Duration::from_millis;
        assert_eq!(fastest(&[(Kernel::Avx512, ms(3)), (Kernel::Portable, ms(2))]), Kernel::Portable);
        assert_eq!(fastest(&[(Kernel::Avx512, ms(2)), (Kernel::Portable, ms(3))]), Kernel::Avx512);
        assert_eq!(fastest(&[(Kernel::Avx512, ms(2)), (Kernel::Portable, ms(2))]), Kernel::Avx512);
        assert_eq!(fastest(&[(Kernel::Portable, ms(2)), (Kernel::Avx512, ms(2))]), Kernel::Portable);
        assert_eq!(fastest(&[]), Kernel::Portable);
    }

    #[test]
    fn the_sample_is_every_decided_opcode_with_its_header_accepted() {
        use super::super::{Raw, HEAD_CLEAN};
        let batches = sample();
        assert_eq!(batches.len() * BATCH, super::SAMPLE_BUNDLES);
        let t = super::Planned::get(super::Rules::spec(super::SAMPLE_GENERATION));
        let mut seen = [0usize; 0x100];
        for raw in batches.iter().flatten() {
            seen[usize::from(raw[0])] += 1;
            // Accepted, so its slots are listed and run as a stream's would be.
            assert_ne!(t.head(&t.plans[usize::from(raw[0])].head, Raw(raw)) & HEAD_CLEAN, 0, "{raw:02x?}");
        }
        let decided = (0..0x100).filter(|&op| t.plans[op].head.header.to_le_bytes()[0] as usize == op);
        assert!(decided.clone().count() > 50, "the fast path decides many of CoreV4's opcodes");
        assert!(decided.clone().all(|op| seen[op] >= 2), "{seen:?}");
        assert!((0..0x100).all(|op| seen[op] == 0 || decided.clone().any(|d| d == op)), "only decided opcodes");
        // Both slotted and slotless opcodes are in it.
        assert!(batches.iter().flatten().any(|raw| t.plans[usize::from(raw[0])].head.used >= 2));
        assert!(batches.iter().flatten().any(|raw| t.plans[usize::from(raw[0])].head.used == 0));
    }

    #[test]
    fn every_kernel_the_cpu_runs_is_timed() {
        let kernels = Kernel::available_kernels();
        let timed = timings(&kernels);
        assert_eq!(timed.iter().map(|&(k, _)| k).collect::<Vec<_>>(), kernels);
        assert!(timed.iter().all(|&(_, d)| d > Duration::ZERO && d < Duration::MAX), "{timed:?}");
        assert!(kernels.contains(&fastest(&timed)));
    }
}
