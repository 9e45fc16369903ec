//! Wall-clock timing that holds on a noisy machine: every kernel is timed in
//! rounds that alternate with its baseline, and each side keeps its best
//! round. Interference only ever adds time, so the minimum is the cleanest
//! reading, and alternating means a burst of load hits both sides alike.

use std::time::{Duration, Instant};

/// Times one call.
pub fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = f();
    (start.elapsed(), out)
}

/// Best of `rounds` alternating runs of `baseline` and `kernel`: (baseline, kernel).
pub fn best_pair(rounds: usize, mut baseline: impl FnMut(), mut kernel: impl FnMut()) -> (Duration, Duration) {
    let (mut b, mut k) = (Duration::MAX, Duration::MAX);
    for _ in 0..rounds.max(1) {
        b = b.min(time(&mut baseline).0);
        k = k.min(time(&mut kernel).0);
    }
    (b, k)
}

/// Bytes per second as GiB/s.
pub fn gib_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64().max(f64::MIN_POSITIVE) / f64::from(1u32 << 30)
}

/// A duration for tables: ms with three significant-ish digits.
pub fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1e3;
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.2} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_pair_keeps_each_minimum() {
        let mut calls = (0, 0);
        let (b, k) = best_pair(3, || calls.0 += 1, || calls.1 += 1);
        assert_eq!(calls, (3, 3));
        assert!(b < Duration::MAX && k < Duration::MAX);
    }

    #[test]
    fn units() {
        assert_eq!(gib_per_s(1 << 30, Duration::from_secs(2)), 0.5);
        assert_eq!(ms(Duration::from_micros(1500)), "1.50 ms");
        assert_eq!(ms(Duration::from_millis(250)), "250 ms");
    }
}
