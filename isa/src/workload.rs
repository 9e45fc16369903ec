//! The codec workload both benchmark front ends run: a stream of generated
//! valid bundles and the kernels timed over it (memcpy, decode, encode,
//! decode+encode, decode+validate, stream validation, disassemble, parallel
//! validate).
//!
//! Not API: benchmark support, behind the `bench` feature and hidden from
//! the docs. The criterion bench of this crate (`benches/codec.rs`) and
//! `cargo xtask bench` (`xtask/src/bench/`) both call it, so they time
//! literally the same code on the same bytes.

use crate::validate::{self, Finding};
use crate::{props, smith, text, Bundle, Generation, BUNDLE_BYTES};
use rayon::prelude::*;
use std::hint::black_box;

/// Stream size the issue asks for: 64 MiB, well past every cache level.
pub const DEFAULT_MIB: usize = 64;
/// Environment variable that shrinks (or grows) the stream, in MiB, for quick runs.
pub const ENV_MIB: &str = "TPB_BENCH_MIB";
/// The generation the bundles are generated and validated for: CoreV4
/// encodes every typed body (MX matmul included), so every validator path runs.
pub const GENERATION: Generation = Generation::V4;
/// Distinct generated bundles; the stream repeats them. 64 Ki × 64 B = 4 MiB,
/// more than the L2 cache and far more than a branch predictor can memorise.
pub const DISTINCT: usize = 1 << 16;
/// Bundles per parallel work item: 1 MiB of stream (with 64 KiB items two
/// cores sped the AVX-512 kernel up only 1.4–1.6×, with 1 MiB 1.9–2.1×).
pub const PAR_CHUNK_BUNDLES: usize = 16384;
const PAR_CHUNK_BYTES: usize = PAR_CHUNK_BUNDLES * BUNDLE_BYTES;
const SEED: u64 = 0x7462_2d62_656e_6368; // "tpb-bench"

/// Stream size in bytes: `TPB_BENCH_MIB` if set and positive, else `default_mib`.
pub fn stream_bytes(default_mib: usize) -> usize {
    env_mib(ENV_MIB, default_mib) << 20
}

/// A size in MiB from the environment variable `var` if set to a positive
/// whole number, else `default_mib`.
pub fn env_mib(var: &str, default_mib: usize) -> usize {
    mib_or(std::env::var(var).ok().as_deref(), default_mib)
}

fn mib_or(value: Option<&str>, default_mib: usize) -> usize {
    value.and_then(|v| v.trim().parse::<usize>().ok()).filter(|m| *m > 0).unwrap_or(default_mib)
}

/// `len` bytes (rounded down to whole bundles) of valid generated bundles.
pub fn generate(len: usize) -> Vec<u8> {
    let count = len / BUNDLE_BYTES;
    let distinct = count.clamp(1, DISTINCT);
    let mut pool = Vec::with_capacity(distinct * BUNDLE_BYTES);
    // A fresh byte source per bundle, so each is independent of the others' sizes.
    for i in 0..(distinct as u64).saturating_mul(4) {
        if pool.len() >= distinct * BUNDLE_BYTES {
            break;
        }
        let bytes = props::seeded_bytes(SEED ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15), 256);
        let mut u = arbitrary::Unstructured::new(&bytes);
        if let Ok(b) = smith::bundle(&mut u, GENERATION) {
            pool.extend_from_slice(&b.encode());
        }
    }
    if pool.is_empty() {
        return pool;
    }
    let mut out = Vec::with_capacity(count * BUNDLE_BYTES);
    while out.len() < count * BUNDLE_BYTES {
        let take = (count * BUNDLE_BYTES - out.len()).min(pool.len());
        out.extend_from_slice(&pool[..take]);
    }
    out
}

/// The stream's bundles, 64 bytes each (a trailing partial bundle is ignored).
fn bundles(stream: &[u8]) -> impl Iterator<Item = &[u8; BUNDLE_BYTES]> {
    stream.chunks_exact(BUNDLE_BYTES).filter_map(|c| <&[u8; BUNDLE_BYTES]>::try_from(c).ok())
}

/// The physical limit: copy the stream.
pub fn memcpy(src: &[u8], dst: &mut [u8]) {
    dst.copy_from_slice(src);
    black_box(dst);
}

/// Decodes every bundle; the typed values are kept observable.
pub fn decode(stream: &[u8]) -> usize {
    let mut n = 0;
    for raw in bundles(stream) {
        black_box(&Bundle::decode(raw));
        n += 1;
    }
    n
}

/// Decodes the stream once, for the encode kernel.
pub fn decode_all(stream: &[u8]) -> Vec<Bundle> {
    bundles(stream).map(Bundle::decode).collect()
}

/// Encodes typed bundles back into `out` (64 bytes each).
pub fn encode(bundles: &[Bundle], out: &mut [u8]) {
    for (b, dst) in bundles.iter().zip(out.chunks_exact_mut(BUNDLE_BYTES)) {
        dst.copy_from_slice(&b.encode());
    }
    black_box(out);
}

/// Decode then encode every bundle into `out`: the codec round trip. The
/// decoded value is written to memory (its address escapes mutably) and
/// `encode` reads it back from there, as in user code that decodes into a
/// variable and encodes it.
pub fn roundtrip(stream: &[u8], out: &mut [u8]) {
    for (raw, dst) in bundles(stream).zip(out.chunks_exact_mut(BUNDLE_BYTES)) {
        let mut bundle = Bundle::decode(raw);
        black_box(&mut bundle);
        dst.copy_from_slice(&bundle.encode());
    }
    black_box(out);
}

/// [`roundtrip`] with the decoded value moved once between decode and encode
/// (`black_box` by value copies it to a new place). Untargeted: it shows what
/// a move right after decoding costs (reports/profiling.md: the enum's tag
/// byte puts the body at offset 1, so a move's 16-byte reads each span two
/// of decode's stores and wait for them to retire).
pub fn roundtrip_moved(stream: &[u8], out: &mut [u8]) {
    for (raw, dst) in bundles(stream).zip(out.chunks_exact_mut(BUNDLE_BYTES)) {
        dst.copy_from_slice(&black_box(Bundle::decode(raw)).encode());
    }
    black_box(out);
}

/// Decode and validate every bundle with [`validate::decode_stream`] (every
/// bundle decoded to its typed form, the fast path judging a batch at a
/// time); returns the number of findings.
pub fn decode_validate(stream: &[u8], g: Generation) -> usize {
    decode_validate_on(validate::Kernel::Auto, stream, g)
}

/// [`decode_validate`] on a chosen validator kernel.
pub fn decode_validate_on(kernel: validate::Kernel, stream: &[u8], g: Generation) -> usize {
    let mut n = 0;
    validate::decode_stream_with(kernel, stream, g, |_, bundle, findings| {
        black_box(bundle);
        n += findings.len();
    });
    n
}

/// Decode and validate one bundle at a time ([`Bundle::decode`], then
/// [`validate::validate_into`]); returns the number of findings.
pub fn decode_validate_each(stream: &[u8], g: Generation) -> usize {
    let mut findings: Vec<Finding> = Vec::new();
    let mut n = 0;
    for raw in bundles(stream) {
        findings.clear();
        validate::validate_into(&Bundle::decode(raw), g, &mut findings);
        n += findings.len();
    }
    n
}

/// Validates the stream with [`validate::validate_stream`] (typed decoding
/// only for bundles with findings); returns the number of findings.
pub fn validate_stream(stream: &[u8], g: Generation) -> usize {
    let mut n = 0;
    validate::validate_stream(stream, g, |_, _| n += 1);
    n
}

/// Disassembles every bundle; returns the bytes of text produced.
pub fn disasm(stream: &[u8]) -> usize {
    bundles(stream).map(|raw| text::disasm(&Bundle::decode(raw)).len()).sum()
}

/// [`validate_stream`] over chunks of the stream on a rayon pool; returns the number of findings.
pub fn par_validate(pool: &rayon::ThreadPool, stream: &[u8], g: Generation) -> usize {
    pool.install(|| stream.par_chunks(PAR_CHUNK_BYTES).map(|c| validate_stream(c, g)).sum())
}

/// Reads every byte of the stream in the chunks [`par_validate`] uses, on
/// `pool` (a wrapping sum of its 8-byte words): how fast the cores can read.
pub fn par_read(pool: &rayon::ThreadPool, stream: &[u8]) -> u64 {
    let sum = |c: &[u8]| c.chunks_exact(8).fold(0u64, |s, w| s.wrapping_add(u64::from_le_bytes(w.try_into().unwrap_or_default())));
    pool.install(|| stream.par_chunks(PAR_CHUNK_BYTES).map(sum).reduce(|| 0, u64::wrapping_add))
}

/// A rayon pool of exactly `threads` workers.
pub fn pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes the comments promise (and `reports/profiling.md` measured).
    #[test]
    fn the_sizes_are_64_ki_distinct_bundles_and_1_mib_work_items() {
        assert_eq!(DISTINCT * BUNDLE_BYTES, 4 << 20);
        assert_eq!(PAR_CHUNK_BYTES, 1 << 20);
        assert_eq!(mib_or(Some(" 3 "), 64), 3);
        assert_eq!(mib_or(Some("0"), 64), 64);
        assert_eq!(mib_or(Some("-1"), 64), 64);
        assert_eq!(mib_or(Some("x"), 64), 64);
        assert_eq!(mib_or(None, 64), 64);
        assert_eq!(stream_bytes(5) >> 20, env_mib(ENV_MIB, 5));
        assert_eq!(env_mib("TPB_BENCH_TEST_VARIABLE_NEVER_SET", 7), 7);
    }

    /// The pool repeats, and each distinct bundle came from its own seed.
    #[test]
    fn the_stream_repeats_its_distinct_bundles_in_order() {
        let s = generate(DISTINCT * BUNDLE_BYTES + 3 * BUNDLE_BYTES);
        assert_eq!(s.len(), (DISTINCT + 3) * BUNDLE_BYTES);
        assert_eq!(s[DISTINCT * BUNDLE_BYTES..], s[..3 * BUNDLE_BYTES]);
        let mut seen = std::collections::HashSet::new();
        let distinct = s[..DISTINCT * BUNDLE_BYTES].chunks_exact(BUNDLE_BYTES).filter(|b| seen.insert(*b)).count();
        assert!(distinct > DISTINCT * 9 / 10, "{distinct} distinct of {DISTINCT}");
        assert!(generate(BUNDLE_BYTES - 1).is_empty());
        // The stream is pinned to its seeds, so every run (and the criterion bench) times the same bytes.
        let from_seed = |i: u64| {
            let bytes = props::seeded_bytes(SEED ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15), 256);
            smith::bundle(&mut arbitrary::Unstructured::new(&bytes), GENERATION).ok().map(|b| b.encode())
        };
        let first: Vec<u8> = (0..8).filter_map(from_seed).take(3).flatten().collect();
        assert_eq!(s[..3 * BUNDLE_BYTES], first);
        assert_eq!(generate(BUNDLE_BYTES).len(), BUNDLE_BYTES);
    }

    /// A kernel that writes the stream back: (stream, its typed bundles, out).
    type Writes = fn(&[u8], &[Bundle], &mut [u8]);

    /// Each kernel does the work it is timed for, on the whole stream.
    #[test]
    fn every_kernel_does_its_work_on_every_bundle() -> Result<(), rayon::ThreadPoolBuildError> {
        let mut s = generate(40 * BUNDLE_BYTES);
        s.extend_from_slice(&[0xAB; 10]); // a partial bundle, ignored by all
        let whole = &s[..40 * BUNDLE_BYTES];
        let mut out = vec![0u8; whole.len()];
        memcpy(whole, &mut out);
        assert_eq!(out, whole);
        assert_eq!(decode(&s), 40);
        let typed = decode_all(&s);
        assert_eq!(typed.len(), 40);
        assert_eq!(typed[7], Bundle::decode(&whole[7 * 64..8 * 64].try_into().unwrap_or([0; 64])));
        let kernels: [Writes; 3] = [|_, t, o| encode(t, o), |s, _, o| roundtrip(s, o), |s, _, o| roundtrip_moved(s, o)];
        for kernel in kernels {
            let mut out = vec![0u8; whole.len()];
            kernel(whole, &typed, &mut out);
            assert_eq!(out, whole);
        }
        let text: usize = whole.chunks_exact(64).map(|b| text::disasm(&Bundle::decode(b.try_into().unwrap_or(&[0; 64]))).len()).sum();
        assert!(text > 40);
        assert_eq!(disasm(&s), text);
        // Findings counted on every path: two bundles with an out-of-range inst_word_len.
        let mut broken = whole.to_vec();
        broken[3 * 64 + 1] = 0x11;
        broken[30 * 64 + 1] = 0x11;
        let mut findings = Vec::new();
        for b in broken.chunks_exact(64) {
            validate::validate_into(&Bundle::decode(b.try_into().unwrap_or(&[0; 64])), GENERATION, &mut findings);
        }
        let n = findings.len();
        assert!(n >= 2, "{n}");
        assert_eq!(decode_validate(whole, GENERATION), 0);
        assert_eq!(decode_validate(&broken, GENERATION), n);
        for k in validate::Kernel::available_kernels() {
            assert_eq!(decode_validate_on(k, &broken, GENERATION), n, "{}", k.label());
        }
        assert_eq!(decode_validate_each(&broken, GENERATION), n);
        assert_eq!(validate_stream(&broken, GENERATION), n);
        let two = pool(2)?;
        assert_eq!(two.current_num_threads(), 2);
        assert_eq!(par_validate(&two, &broken, GENERATION), n);
        let sum = broken.chunks_exact(8).fold(0u64, |a, w| a.wrapping_add(u64::from_le_bytes(w.try_into().unwrap_or_default())));
        assert_ne!(sum, 0);
        assert_eq!(par_read(&two, &broken), sum);
        Ok(())
    }

    #[test]
    fn the_workload_is_whole_valid_bundles_of_the_size_asked() {
        let s = super::generate(100 * super::BUNDLE_BYTES + 10);
        assert_eq!(s.len(), 100 * super::BUNDLE_BYTES);
        assert_eq!(super::validate_stream(&s, super::GENERATION), 0);
    }

    #[test]
    fn validate_stream_counts_each_finding() {
        let mut s = super::generate(8 * super::BUNDLE_BYTES);
        let clean = super::validate_stream(&s, super::GENERATION);
        // inst_word_len of bundles 0 and 5 out of range: findings on both.
        s[1] = 0x11;
        s[5 * super::BUNDLE_BYTES + 1] = 0x11;
        let broken = super::validate_stream(&s, super::GENERATION);
        assert_eq!(clean, 0);
        assert!(broken >= 2, "{broken}");
    }
}
