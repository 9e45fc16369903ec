//! Codec throughput against the physical limit: every kernel runs over the
//! same stream of generated bundles as a `memcpy` of it, in one criterion
//! group with byte throughput, so the ratios can be read off one run.
//!
//! `cargo bench -p tpb-isa --bench codec` (64 MiB stream);
//! `TPB_BENCH_MIB=8 cargo bench -p tpb-isa --bench codec -- --quick` for a quick look.
//! `cargo xtask bench` runs the same kernels and writes the ratios to `reports/bench.md`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;
use tpb_isa::validate::Kernel;
// The kernels and the stream, shared with `cargo xtask bench`: both front ends time the same code.
use tpb_isa::workload;

fn codec(c: &mut Criterion) {
    let stream = workload::generate(workload::stream_bytes(workload::DEFAULT_MIB));
    let bytes = stream.len() as u64;
    let g = workload::GENERATION;
    let mut out = vec![0u8; stream.len()];
    out.copy_from_slice(&stream); // fault the destination pages in before timing
    let typed = workload::decode_all(&stream);
    assert_eq!(workload::decode_validate(&stream, g), 0, "the generated stream must validate clean");

    let mut group = c.benchmark_group("codec");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("memcpy", |b| b.iter(|| workload::memcpy(&stream, &mut out)));
    group.bench_function("decode", |b| b.iter(|| workload::decode(&stream)));
    group.bench_function("encode", |b| b.iter(|| workload::encode(&typed, &mut out)));
    group.bench_function("decode+encode", |b| b.iter(|| workload::roundtrip(&stream, &mut out)));
    group.bench_function("decode+move+encode", |b| b.iter(|| workload::roundtrip_moved(&stream, &mut out)));
    group.bench_function("decode+validate", |b| b.iter(|| workload::decode_validate(&stream, g)));
    for k in Kernel::available_kernels() {
        group.bench_function(format!("decode+validate-{}", k.label()), |b| b.iter(|| workload::decode_validate_on(k, &stream, g)));
    }
    group.bench_function("decode+validate-each", |b| b.iter(|| workload::decode_validate_each(&stream, g)));
    group.bench_function("validate_stream", |b| b.iter(|| workload::validate_stream(&stream, g)));
    for threads in [1, 2] {
        let Ok(pool) = workload::pool(threads) else { continue };
        group.bench_with_input(BenchmarkId::new("par-validate", threads), &threads, |b, _| b.iter(|| workload::par_validate(&pool, &stream, g)));
        group.bench_with_input(BenchmarkId::new("par-read", threads), &threads, |b, _| b.iter(|| workload::par_read(&pool, &stream)));
    }
    // Text is hundreds of times slower than binary: a sixteenth of the stream keeps the run short.
    let part = &stream[..(stream.len() / 16 / 64).max(1) * 64];
    group.throughput(Throughput::Bytes(part.len() as u64));
    group.bench_function("disasm", |b| b.iter(|| workload::disasm(part)));
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
