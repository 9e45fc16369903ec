//! Work over a list of inputs on every core, with results taken in input
//! order: while the caller consumes one window of results (as many as
//! there are threads), the next window loads on the other threads. Output
//! stays in input order and memory holds at most two windows of results.
//! (For NEFF programs the load is the expensive part: decompression.)

use std::thread::ScopedJoinHandle;

/// Threads to load with: every core this process may use, or
/// [`ENV_THREADS`] when set to a positive number.
pub fn threads() -> usize {
    let var = std::env::var(ENV_THREADS).ok();
    let n = threads_from(var.as_deref(), || std::thread::available_parallelism().map_or(1, |n| n.get()));
    if let Some(bad) = var.as_deref().filter(|v| !v.is_empty() && v.parse::<usize>().ok().filter(|&n| n > 0).is_none()) {
        // Said once: a typo would otherwise change nothing visibly.
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!("tpb: warning: {ENV_THREADS}={} is not a positive number: using {n} threads", tpb_oracle::text_safe::escape(bad))
        });
    }
    n
}

/// [`threads`] from the value of [`ENV_THREADS`] and the cores: a positive
/// number is taken as it is, anything else (unset, 0, not a number) gives the cores.
fn threads_from(var: Option<&str>, cores: impl FnOnce() -> usize) -> usize {
    var.and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0).unwrap_or_else(cores)
}

/// Runs `f` in a pool of `threads` threads (rayon's), so the parallel
/// iterators in it use as many as [`threads`] or a command's `--jobs` asked
/// for; on this thread (and rayon's global pool) if no thread can be started.
/// A panic on any of them is raised again here, with its payload.
pub fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// Sets how many threads `threads` gives (e.g. 1 to compare).
pub const ENV_THREADS: &str = "TPB_THREADS";

/// Calls `consume(index, load(item))` for every item in order, loading up
/// to `threads` items ahead on their own threads; stops at the first
/// `Err` of `consume` and returns it.
///
/// Threads by hand, not rayon's: `consume` (the command's output) runs on
/// the calling thread, need not be `Send`, and overlaps the next window's
/// loads, which `rayon::join` would run on a pool thread.
pub fn in_order<I: Sync, T: Send, E>(
    items: &[I],
    threads: usize,
    load: impl Fn(&I) -> T + Sync,
    mut consume: impl FnMut(usize, T) -> Result<(), E>,
) -> Result<(), E> {
    let window = threads.max(1);
    if window == 1 {
        return items.iter().enumerate().try_for_each(|(i, item)| consume(i, load(item)));
    }
    let load = &load;
    std::thread::scope(|s| {
        let spawn =
            |from: usize| -> Vec<ScopedJoinHandle<'_, T>> { items.iter().skip(from).take(window).map(|item| s.spawn(move || load(item))).collect() };
        let mut next = spawn(0);
        let mut at = 0;
        while !next.is_empty() {
            let ready: Vec<T> = next.drain(..).map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect();
            let n = ready.len();
            next = spawn(at + n);
            for (k, t) in ready.into_iter().enumerate() {
                consume(at + k, t)?;
            }
            at += n;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::{in_order, threads, threads_from, ENV_THREADS};

    #[test]
    fn threads_are_a_positive_count_from_the_environment_or_the_cores() {
        let cores = || 6;
        assert_eq!(threads_from(Some("3"), cores), 3);
        assert_eq!(threads_from(Some("1"), cores), 1);
        for not_a_count in [None, Some("0"), Some("-2"), Some("two"), Some("")] {
            assert_eq!(threads_from(not_a_count, cores), 6, "{not_a_count:?}");
        }
        // This process: what its environment and cores give.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(threads(), threads_from(std::env::var(ENV_THREADS).ok().as_deref(), || cores));
    }

    #[test]
    fn one_thread_loads_on_the_callers_and_more_load_on_their_own() {
        let caller = std::thread::current().id();
        let items: Vec<u32> = (0..9).collect();
        for threads in [1, 2, 4] {
            let mut on_caller = Vec::new();
            let r: Result<(), ()> = in_order(
                &items,
                threads,
                |_| std::thread::current().id() == caller,
                |_, here| {
                    on_caller.push(here);
                    Ok(())
                },
            );
            assert!(r.is_ok());
            assert_eq!(on_caller, vec![threads == 1; items.len()], "{threads} threads");
        }
    }

    #[test]
    fn results_come_in_input_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..37).collect();
        for threads in [1, 2, 3, 8, 64] {
            let mut seen = Vec::new();
            let r: Result<(), ()> = in_order(
                &items,
                threads,
                |&x| {
                    // Later items finish first, so order comes from the consumer, not from timing.
                    std::thread::sleep(std::time::Duration::from_micros(200 * (37 - x) % 900));
                    x * x
                },
                |i, y| {
                    seen.push((i, y));
                    Ok(())
                },
            );
            assert!(r.is_ok());
            assert_eq!(seen, items.iter().map(|&x| (x as usize, x * x)).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn the_first_error_stops_the_run() {
        let items: Vec<usize> = (0..20).collect();
        let mut consumed = 0;
        let r = in_order(
            &items,
            4,
            |&x| x,
            |i, _| {
                if i == 6 {
                    Err(i)
                } else {
                    consumed += 1;
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err(6));
        assert_eq!(consumed, 6);
    }
}
