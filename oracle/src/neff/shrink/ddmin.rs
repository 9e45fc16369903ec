//! Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating
//! Failure-Inducing Input", 2002): the `ddmin` algorithm over the items
//! `0..n` of a list. It splits what is kept into `n` runs (halves first,
//! then quarters, … single items), tries keeping each run alone, then
//! dropping each run, and refines the split when neither holds. What it
//! returns is 1-minimal: dropping any one item of it fails the test (unless
//! a halt came first).

/// The items kept (ascending indices into `0..items`), and the halt that
/// stopped the search early, if one did. `test` says whether a set of kept
/// items is still interesting (the full set is taken to be); it is never
/// asked about the empty set or the full set. Deterministic: the same
/// answers give the same sequence of questions.
pub fn ddmin<H>(items: usize, mut test: impl FnMut(&[usize]) -> Result<bool, H>) -> (Vec<usize>, Result<(), H>) {
    let mut kept: Vec<usize> = (0..items).collect();
    let mut n = 2;
    while kept.len() >= 2 {
        let runs = split(&kept, n);
        let mut reduced = false;
        // Reduce to a run: the interesting part is small.
        for run in &runs {
            match test(run) {
                Ok(true) => {
                    kept = run.clone();
                    n = 2;
                    reduced = true;
                    break;
                }
                Ok(false) => {}
                Err(h) => return (kept, Err(h)),
            }
        }
        // Reduce to a complement: drop one run. With two runs each
        // complement is the other run, already asked.
        if !reduced && n > 2 {
            for i in 0..runs.len() {
                let rest: Vec<usize> = runs.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, r)| r.iter().copied()).collect();
                match test(&rest) {
                    Ok(true) => {
                        kept = rest;
                        n = (n - 1).max(2);
                        reduced = true;
                        break;
                    }
                    Ok(false) => {}
                    Err(h) => return (kept, Err(h)),
                }
            }
        }
        if !reduced {
            if n >= kept.len() {
                break;
            }
            n = (n * 2).min(kept.len());
        }
    }
    (kept, Ok(()))
}

/// The items of `before` not in `after` (both ascending, as [`ddmin`] keeps
/// them): what a step dropped.
pub fn dropped(before: &[usize], after: &[usize]) -> Vec<usize> {
    before.iter().copied().filter(|i| after.binary_search(i).is_err()).collect()
}

/// `items` cut into `n` runs of nearly equal length, in order (`n` ≤ its length).
fn split(items: &[usize], n: usize) -> Vec<Vec<usize>> {
    (0..n).map(|i| items[i * items.len() / n..(i + 1) * items.len() / n].to_vec()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{quickcheck, TestResult};
    use std::collections::BTreeSet;
    use std::convert::Infallible;

    fn run(items: usize, test: impl Fn(&[usize]) -> bool) -> (Vec<usize>, usize) {
        let mut asked = 0;
        let (kept, halted) = ddmin::<Infallible>(items, |k| {
            asked += 1;
            Ok(test(k))
        });
        assert!(halted.is_ok());
        (kept, asked)
    }

    #[test]
    fn it_finds_the_items_a_monotone_test_needs() {
        let (kept, asked) = run(1000, |k| k.contains(&3) && k.contains(&700));
        assert_eq!(kept, [3, 700]);
        // Halves, quarters, …: far fewer questions than items.
        assert!(asked < 200, "{asked} questions");
        let (kept, asked) = run(1000, |k| k.contains(&417));
        assert_eq!(kept, [417]);
        assert!(asked <= 20, "{asked} questions: one item is found by halving");
    }

    #[test]
    fn it_never_asks_about_nothing_or_everything_and_keeps_one_of_anything() {
        for items in 0..40 {
            let (kept, _) = run(items, |k| {
                assert!(!k.is_empty() && k.len() < items, "{items}: asked about {k:?}");
                true
            });
            assert_eq!(kept, if items == 0 { vec![] } else { vec![0] }, "{items}");
        }
        // Nothing but everything holds: everything is kept.
        assert_eq!(run(9, |_| false).0, (0..9).collect::<Vec<_>>());
    }

    #[test]
    fn a_halt_keeps_what_was_found_so_far() {
        let mut asked = 0;
        let (kept, halted) = ddmin(64, |k: &[usize]| {
            asked += 1;
            if asked > 3 {
                return Err("budget");
            }
            Ok(k.contains(&5))
        });
        assert_eq!(halted, Err("budget"));
        // Halves then quarters then eighths of what holds: [0, 8) after three questions.
        assert_eq!(kept, (0..8).collect::<Vec<_>>());
    }

    quickcheck! {
        /// A test that holds exactly when every needed item is kept gives back the needed items.
        fn monotone_tests_give_exactly_the_needed_items(items: u8, needed: Vec<u8>) -> TestResult {
            let items = usize::from(items);
            let needed: BTreeSet<usize> = needed.into_iter().map(usize::from).filter(|i| *i < items).collect();
            if needed.is_empty() {
                return TestResult::discard();
            }
            let (kept, _) = run(items, |k| needed.iter().all(|i| k.contains(i)));
            TestResult::from_bool(kept == needed.into_iter().collect::<Vec<_>>())
        }

        /// Any test at all: what is kept holds (or is everything), and dropping any one item of it does not.
        fn any_test_gives_a_one_minimal_set(items: u8, salt: u64) -> bool {
            let items = usize::from(items % 48);
            let holds = |k: &[usize]| {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (salt, k).hash(&mut h);
                h.finish().is_multiple_of(3)
            };
            let (kept, _) = run(items, holds);
            let all = kept.len() == items;
            let one_minimal = kept.len() < 2
                || (0..kept.len()).all(|i| {
                    let rest: Vec<usize> = kept.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, x)| *x).collect();
                    !holds(&rest)
                });
            (all || holds(&kept)) && one_minimal
        }
    }
}
