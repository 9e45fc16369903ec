//! The recovered families as the generator, the mutator and the recovered
//! layer see them: generated bundles hold every claim of [`CLAIMS`] (checked
//! with the same `Claim::holds` the real-program test uses), and a mutation
//! that breaks one claim is reported by the recovered layer, exactly once and
//! only as info, while the spec's validator stays silent.

use arbitrary::Unstructured;
use std::collections::BTreeSet;
use tpb_isa::bundle::claims::{Claim, CLAIMS};
use tpb_isa::opcode::OPCODES;
use tpb_isa::props::seeded_bytes;
use tpb_isa::validate::{self, recovered_claims};
use tpb_isa::{smith, Confidence, Generation, Severity};

const ROUNDS: u64 = 200;

#[test]
fn generated_bundles_of_every_recovered_family_hold_every_claim() {
    let claimed: BTreeSet<u8> = CLAIMS.iter().map(|c| c.0).collect();
    let mut families = 0;
    for g in Generation::ALL {
        for op in OPCODES.iter().filter(|o| o.available(g) && claimed.contains(&o.byte)) {
            families += 1;
            let mut varied: BTreeSet<(&str, Vec<u8>)> = BTreeSet::new();
            for seed in 0..ROUNDS {
                let data = seeded_bytes(seed, 512);
                let mut u = Unstructured::new(&data);
                let Ok(b) = smith::bundle_for(&mut u, g, op) else { continue };
                let raw = b.encode();
                for &(_, field, claim) in CLAIMS.iter().filter(|c| c.0 == op.byte) {
                    let Some((off, size)) = b.layout().resolve(field) else { panic!("{:#04x}: no field {field}", op.byte) };
                    let bytes = &raw[off..off + size];
                    assert!(claim.holds(bytes, g), "{g} {:#04x} seed {seed}: {field} = {bytes:02x?} breaks {claim:?}", op.byte);
                    varied.insert((field, bytes.to_vec()));
                }
                // Still a valid bundle for the spec, and nothing for the recovered layer to report.
                assert!(validate::is_valid(&validate::validate(&b, g)), "{g} {:#04x} seed {seed}", op.byte);
                let mut out = Vec::new();
                recovered_claims(&b, g, &mut out);
                assert!(out.is_empty(), "{g} {:#04x} seed {seed}: {out:?}", op.byte);
            }
            // A claim that admits more than one value must get more than one (the generator draws, not copies).
            for &(_, field, claim) in CLAIMS.iter().filter(|c| c.0 == op.byte) {
                let n = varied.iter().filter(|(f, _)| *f == field).count();
                let fixed = matches!(claim, Claim::Zero | Claim::Bytes(_));
                assert!(fixed || n > 1, "{g} {:#04x} {field}: {n} distinct values for {claim:?}", op.byte);
            }
        }
    }
    assert!(families >= 22, "only {families} (generation, recovered family) pairs with claims");
}

#[test]
fn breaking_one_claim_is_one_info_finding_naming_the_field() {
    let claimed: BTreeSet<u8> = CLAIMS.iter().map(|c| c.0).collect();
    let mut broken: BTreeSet<(u8, String)> = BTreeSet::new();
    for g in Generation::ALL {
        for op in OPCODES.iter().filter(|o| o.available(g) && claimed.contains(&o.byte)) {
            for seed in 0..ROUNDS {
                let data = seeded_bytes(seed, 768);
                let mut u = Unstructured::new(&data);
                let Ok(b) = smith::bundle_for(&mut u, g, op) else { continue };
                let Ok(Some(m)) = smith::break_claim(&mut u, &b, g) else { continue };
                assert_eq!(m.expect.code, "recovered-claim");
                let mut out = Vec::new();
                recovered_claims(&m.bundle, g, &mut out);
                assert_eq!(out.len(), 1, "{g} {:#04x} {}: {out:?}", op.byte, m.what);
                let f = &out[0];
                assert_eq!((f.code, f.severity, f.confidence, f.section), ("recovered-claim", Severity::Info, Confidence::Inferred, "R"));
                assert!(m.what.starts_with(&format!("{} =", f.field)), "{} vs {}", m.what, f.field);
                let at = m.bundle.layout().resolve(&f.field).map(|(off, _)| off);
                assert_eq!(at, Some(f.offset));
                // The spec's validator never judges a recovered field: it finds what it found before.
                assert_eq!(validate::validate(&m.bundle, g), validate::validate(&b, g), "{g} {:#04x} {}", op.byte, m.what);
                broken.insert((op.byte, f.field.clone()));
            }
        }
    }
    // Every claim that a field can break was broken somewhere.
    for &(op, field, _) in CLAIMS {
        assert!(broken.contains(&(op, field.to_string())), "{op:#04x} {field} never broken");
    }
}

#[test]
fn each_claim_holds_up_to_its_edge_and_not_past_it() {
    let g = Generation::ALL[0];
    // A bound is exclusive, read little-endian, over every byte of the field.
    assert!(Claim::Below(4).holds(&[3], g) && !Claim::Below(4).holds(&[4], g));
    assert!(Claim::Below(0x40).holds(&[0x3F, 0, 0, 0], g) && !Claim::Below(0x40).holds(&[0x40, 0, 0, 0], g));
    assert!(!Claim::Below(0x40).holds(&[0x3F, 0, 0, 1], g), "a high byte counts");
    let mut wide = [0u8; 12];
    assert!(Claim::Below(1).holds(&wide, g));
    wide[10] = 1;
    assert!(!Claim::Below(1).holds(&wide, g), "a byte past the eighth must be zero too");
    // Zero, mask and constant bytes: every byte, none spared.
    assert!(Claim::Zero.holds(&[0, 0], g) && !Claim::Zero.holds(&[0, 1], g));
    assert!(Claim::Mask.holds(&[0xFF, 0], g) && !Claim::Mask.holds(&[0xFF, 0xFE], g));
    assert!(Claim::Bytes(&[1, 2]).holds(&[1, 2], g) && !Claim::Bytes(&[1, 2]).holds(&[1, 3], g));
    // Text: printable, then NUL padding only, and not empty.
    assert!(Claim::Ascii.holds(b"q0\0\0", g) && Claim::Ascii.holds(b"abcd", g));
    assert!(!Claim::Ascii.holds(b"\0\0\0\0", g) && !Claim::Ascii.holds(b"q\0r\0", g) && !Claim::Ascii.holds(b"q \0\0", g));
}
