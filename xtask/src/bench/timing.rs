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

/// `a / b` in seconds, never a division by zero: how many times `b` fits in `a`.
pub fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(f64::MIN_POSITIVE)
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
        // The slow first round of each side is not what is kept.
        let mut round = (0, 0);
        let nap = |n: &mut i32, first: u64| {
            *n += 1;
            std::thread::sleep(Duration::from_millis(if *n == 1 { first } else { 1 }));
        };
        let (b, k) = best_pair(3, || nap(&mut round.0, 60), || nap(&mut round.1, 90));
        assert!(b < Duration::from_millis(50) && k < Duration::from_millis(50), "{b:?} {k:?}");
        let mut once = 0;
        let _ = best_pair(0, || once += 1, || {});
        assert_eq!(once, 1, "at least one round");
        let (d, v) = time(|| {
            std::thread::sleep(Duration::from_millis(20));
            7
        });
        assert!(v == 7 && d >= Duration::from_millis(20), "{d:?}");
    }

    #[test]
    fn a_ratio_is_of_the_seconds_and_survives_a_zero_baseline() {
        assert_eq!(ratio(Duration::from_secs(3), Duration::from_secs(2)), 1.5);
        assert_eq!(ratio(Duration::from_millis(500), Duration::from_secs(2)), 0.25);
        assert!(ratio(Duration::from_millis(1), Duration::ZERO).is_finite());
        assert_eq!(ratio(Duration::ZERO, Duration::from_secs(1)), 0.0);
    }

    #[test]
    fn units() {
        assert_eq!(gib_per_s(1 << 30, Duration::from_secs(2)), 0.5);
        assert_eq!(ms(Duration::from_micros(1500)), "1.50 ms");
        assert_eq!(ms(Duration::from_millis(250)), "250 ms");
        assert_eq!(ms(Duration::from_micros(99_960)), "100.0 ms");
        assert_eq!(ms(Duration::from_micros(12_345)), "12.3 ms");
        assert_eq!(ms(Duration::from_micros(9_994)), "9.99 ms");
        assert_eq!(gib_per_s(3 << 29, Duration::from_secs(1)), 1.5);
        assert!(gib_per_s(1, Duration::ZERO).is_finite());
    }
}
