//! The properties of `tpb_isa::props`, run two ways: a seeded smoke run over a
//! fixed corpus (deterministic, what CI relies on) and quickcheck with fresh
//! random inputs.

use quickcheck::{QuickCheck, TestResult};
use tpb_isa::fuzz::{self, Body};
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
        Err(e) => TestResult::error(e.to_string()),
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

/// Every fuzz target whose body is this crate's, as `tpb conform` runs it:
/// the table's body on inputs of the table's smoke length.
#[test]
fn every_target_of_this_crate_survives_a_seeded_smoke_run() {
    let mut ran = Vec::new();
    for t in fuzz::TARGETS {
        if let Body::Props(run) = t.body {
            smoke(t.name, run, t.smoke_len);
            ran.push(t.name);
        }
    }
    assert!(!ran.is_empty(), "no fuzz target runs a property of this crate");
}

/// Every check of the validator is hit by some mutation of the seeded corpus,
/// on every generation where it can apply: no check is dead code, and the
/// mutator covers the whole validator.
#[test]
fn every_check_is_exercised_by_a_mutation() {
    use std::collections::BTreeMap;
    use tpb_isa::{checks, smith, validate, Generation};
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
    let missing: Vec<_> = checks::ALL.iter().map(|c| c.code).filter(|c| !hits.contains_key(c)).collect();
    assert!(missing.is_empty(), "checks never exercised: {missing:?}; hits: {hits:?}");
}

/// Every mutation of an MX operand gives exactly its finding, and each of
/// them is reached, the scale moved into PSUM among them: MX bundles are
/// too rare in the seeded corpus for the test above to reach each one.
#[test]
fn every_mutation_of_an_mx_operand_gives_its_finding() {
    use std::collections::BTreeMap;
    use tpb_isa::operands::{live_slots, SlotType};
    use tpb_isa::{smith, validate, Generation};
    const PER_OPCODE: u64 = 400;
    let mut hits: BTreeMap<String, usize> = BTreeMap::new();
    for g in Generation::ALL {
        for op in smith::candidate_opcodes(g).filter(|op| live_slots(op).any(|s| s.ty == SlotType::Mx)) {
            for seed in 0..PER_OPCODE {
                let data = seeded_bytes(seed ^ u64::from(op.byte) << 32, 1024);
                let mut u = arbitrary::Unstructured::new(&data);
                let Ok(b) = smith::bundle_for(&mut u, g, op) else { continue };
                let Ok(Some(m)) = smith::mutate(&mut u, &b, g) else { continue };
                let f = validate::validate(&m.bundle, g);
                assert!(!f.is_empty() && f.iter().all(|x| x.code == m.expect.code), "{g} {}: {}: {f:?}", op.name, m.what);
                if m.expect.code.starts_with("mx-") {
                    // The change, without the values drawn: "mx.scale -> PSUM 0x..." is "mx.scale -> PSUM".
                    let kind = m.what.split(" = ").next().unwrap_or_default().split(" 0x").next().unwrap_or_default();
                    *hits.entry(format!("{} {kind}", m.expect.code)).or_default() += 1;
                }
            }
        }
    }
    for want in ["mx-scale-not-sbuf", "mx-step-dir", "mx-zero-k-extent", "mx-scale-part-range"] {
        assert!(hits.keys().any(|k| k.starts_with(want)), "{want} never reached: {hits:?}");
    }
    assert!(hits.keys().any(|k| k.ends_with(".scale -> PSUM")), "the scale never moved into PSUM: {hits:?}");
}

/// A TensorScalar bundle's unknown-ALU-op mutation reaches both of its ops.
#[test]
fn unknown_alu_op_mutations_reach_both_ops_of_a_tensor_scalar() {
    use std::collections::BTreeSet;
    use tpb_isa::bundle::BodyKind;
    use tpb_isa::{smith, Generation};
    let mut fields = BTreeSet::new();
    for g in Generation::ALL {
        for op in smith::candidate_opcodes(g).filter(|op| op.body == BodyKind::TensorScalar) {
            for seed in 0..200 {
                let data = seeded_bytes(seed ^ u64::from(op.byte) << 32, 1024);
                let mut u = arbitrary::Unstructured::new(&data);
                let Ok(b) = smith::bundle_for(&mut u, g, op) else { continue };
                if let Ok(Some(m)) = smith::mutate(&mut u, &b, g) {
                    if m.expect.code == "unknown-alu-op" {
                        fields.insert(m.what.split(" = ").next().unwrap_or_default().to_string());
                    }
                }
            }
        }
    }
    assert_eq!(fields, BTreeSet::from(["op0".to_string(), "op1".to_string()]));
}

/// The generator reaches everything valid, not just something valid: on
/// every generation, each operand slot of each opcode is given every dtype
/// it may carry (a nibble field only 4-bit tags; a PSUM destination only the
/// dtypes PSUM can be written with, bf16 also for a matmul), and each
/// pattern slot every address shape (SBUF, PSUM, register, and for a source
/// a gather). A generator that quietly narrows leaves bugs unfound.
#[test]
fn the_generator_reaches_every_dtype_and_address_shape() {
    use std::collections::BTreeSet;
    use tpb_isa::dtype::{BF16, DTYPES};
    use tpb_isa::operands::{live_slots, DtypeRef, Role, SlotType};
    use tpb_isa::{smith, Addr4, Generation};
    const PER_OPCODE: u64 = 300;
    for g in Generation::ALL {
        for op in smith::candidate_opcodes(g) {
            let layout = op.body.layout();
            for slot in live_slots(op) {
                let nibble = matches!(slot.dtype, DtypeRef::Nibble(..));
                let matmul = slot.role == (Role::Dst { matmul: true });
                let fits = |tag: u8| !nibble || tag <= 0x0F;
                let want: BTreeSet<u8> = DTYPES.iter().filter(|d| d.since <= g && fits(d.tag)).map(|d| d.tag).collect();
                let want_psum: BTreeSet<u8> =
                    DTYPES.iter().filter(|d| d.since <= g && fits(d.tag) && (d.psum_write || (matmul && d.tag == BF16))).map(|d| d.tag).collect();
                let (mut seen, mut seen_psum, mut shapes) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
                for seed in 0..PER_OPCODE {
                    let data = seeded_bytes(seed ^ u64::from(op.byte) << 32, 1024);
                    let Ok(b) = smith::bundle_for(&mut arbitrary::Unstructured::new(&data), g, op) else { continue };
                    let raw = b.as_bytes();
                    let Some(tag) = slot.dtype.read(layout, g, raw) else { panic!("{g} {}: no dtype field", op.name) };
                    seen.insert(tag);
                    let at = slot.offset(layout);
                    let Some(word) = raw.get(at..at + 4).and_then(|w| <[u8; 4]>::try_from(w).ok()) else { panic!("{g} {}: slot outside", op.name) };
                    let a = Addr4::new(u32::from_le_bytes(word));
                    let shape = if a.is_register() {
                        "register"
                    } else if a.is_indirect() {
                        "gather"
                    } else if a.is_psum() {
                        "psum"
                    } else {
                        "sbuf"
                    };
                    shapes.insert(shape);
                    if shape == "psum" && slot.is_dst() {
                        seen_psum.insert(tag);
                    }
                }
                let what = format!("{g} {} slot {}", op.name, slot.name);
                assert_eq!(seen, want, "{what}: dtypes");
                if slot.is_dst() {
                    assert_eq!(seen_psum, want_psum, "{what}: dtypes written to PSUM");
                }
                if let SlotType::Pattern(_) = slot.ty {
                    let mut want_shapes = BTreeSet::from(["psum", "register"]);
                    if !matmul {
                        want_shapes.insert("sbuf");
                    }
                    if !slot.is_dst() {
                        want_shapes.insert("gather");
                    }
                    assert_eq!(shapes, want_shapes, "{what}: address shapes");
                }
            }
        }
    }
}
