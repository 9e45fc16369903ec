//! The properties of `tpb_isa::props`, run two ways: a seeded smoke run over a
//! fixed corpus (deterministic, what CI relies on) and quickcheck with fresh
//! random inputs.

use quickcheck::{QuickCheck, TestResult};
use tpb_isa::props::{self, seeded_bytes, Outcome};

const SEEDS: u64 = 3000;

fn smoke(name: &str, prop: fn(&[u8]) -> Outcome, len: usize) {
    for seed in 0..SEEDS {
        let data = seeded_bytes(seed, len);
        if let Err(e) = prop(&data) {
            panic!("{name} failed on seed {seed}: {e}");
        }
    }
}

fn as_result(r: Outcome) -> TestResult {
    match r {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

macro_rules! qc {
    ($name:ident, $prop:path) => {
        #[test]
        fn $name() {
            fn check(data: Vec<u8>) -> TestResult {
                as_result($prop(&data))
            }
            QuickCheck::new().tests(500).max_tests(2000).quickcheck(check as fn(Vec<u8>) -> TestResult);
        }
    };
}

qc!(quickcheck_roundtrip, props::roundtrip);
qc!(quickcheck_structured, props::structured);
qc!(quickcheck_validate, props::validate_any);
qc!(quickcheck_mutation, props::mutation);
qc!(quickcheck_text, props::text_roundtrip);

#[test]
fn roundtrip_seeded() {
    smoke("roundtrip", props::roundtrip, 256);
}

#[test]
fn structured_seeded() {
    smoke("structured", props::structured, 1024);
}

#[test]
fn validate_seeded() {
    smoke("validate", props::validate_any, 256);
}

#[test]
fn mutation_seeded() {
    smoke("mutation", props::mutation, 1024);
}

#[test]
fn text_seeded() {
    smoke("text", props::text_roundtrip, 256);
}

/// Every check of the validator is hit by some mutation of the seeded corpus,
/// on every generation where it can apply: no check is dead code, and the
/// mutator covers the whole validator.
#[test]
fn every_check_is_exercised_by_a_mutation() {
    use std::collections::BTreeMap;
    use tpb_isa::{smith, validate, Generation};
    let mut hits: BTreeMap<&str, usize> = BTreeMap::new();
    for seed in 0..SEEDS {
        let data = seeded_bytes(seed, 1024);
        let mut u = arbitrary::Unstructured::new(&data);
        for g in Generation::ALL {
            let Ok(b) = smith::bundle(&mut u, g) else { break };
            if let Ok(Some(m)) = smith::mutate(&mut u, &b, g) {
                let f = validate::validate(&m.bundle, g);
                assert!(f.iter().all(|x| x.code == m.expect.code) && !f.is_empty(), "{}: {:?}", m.what, f);
                *hits.entry(m.expect.code).or_default() += 1;
            }
        }
    }
    let missing: Vec<_> = validate::checks::ALL.iter().map(|c| c.code).filter(|c| !hits.contains_key(c)).collect();
    assert!(missing.is_empty(), "checks never exercised: {missing:?}; hits: {hits:?}");
}
