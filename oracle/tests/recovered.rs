//! The layouts recovered from real programs (`isa/src/bundle/recovered_bodies.rs`,
//! their claims in `isa/src/bundle/claims.rs`):
//! every field's claim holds on every real bundle of its opcode, every real
//! bundle of those opcodes decodes typed and round-trips byte for byte, and
//! the real bundles of ../shared/neff left opaque stay below 0.5%.

use std::collections::BTreeMap;
use tpb_isa::bundle::claims::CLAIMS;
use tpb_isa::{opcode, text, validate, BodyKind, Bundle, Severity};

use crate::common;
use common::{bundles, corpus, shared, R};

/// `max_opaque`: the share of real bundles allowed to stay opaque (the target is set on the full set);
/// `require_all`: every claim must be held, not only those of opcodes the set has.
fn check(files: &[std::path::PathBuf], what: &str, max_opaque: f64, require_all: bool) -> R<()> {
    if files.is_empty() {
        return Ok(());
    }
    let all = bundles(files)?;
    let mut held: BTreeMap<(u8, &str), usize> = BTreeMap::new();
    let mut opaque = 0usize;
    let mut found = Vec::new();
    for (g, raw) in &all {
        let b = Bundle::decode(raw);
        // The recovered layer finds nothing on a real bundle (it checks the same claims, the same way).
        validate::recovered_claims(&b, *g, &mut found);
        assert!(found.is_empty(), "{what}: {found:?}");
        if b.kind() == BodyKind::Opaque {
            opaque += 1;
            continue;
        }
        for &(op, field, claim) in CLAIMS.iter().filter(|c| c.0 == raw[0]) {
            let (off, size) = b.layout().resolve(field).ok_or(format!("{op:#04x}: no field {field}"))?;
            let bytes = &raw[off..off + size];
            assert!(claim.holds(bytes, *g), "{what}: {op:#04x} {field} = {bytes:02x?} breaks {claim:?}");
            *held.entry((op, field)).or_insert(0) += 1;
        }
        // Lossless: the typed body re-encodes, and its text reads back, byte for byte.
        assert_eq!(b.encode(), *raw);
        let line = text::disasm(&b);
        assert_eq!(text::asm_line(&line)?, Some(*raw), "{line}");
    }
    // A claim must be held by some bundle of its opcode, where the set has that opcode at all
    // (the committed subset lacks a few opcodes; ../shared/neff must hold every claim).
    let present: std::collections::BTreeSet<u8> = all.iter().map(|(_, raw)| raw[0]).collect();
    for &(op, field, _) in CLAIMS.iter().filter(|c| require_all || present.contains(&c.0)) {
        assert!(held.contains_key(&(op, field)), "{what}: no real {:#04x} {} bundle to hold {field}", op, opcode::name(op));
    }
    let share = opaque as f64 / all.len() as f64;
    eprintln!("{what}: {opaque} of {} real bundles opaque ({:.2}%)", all.len(), share * 100.0);
    assert!(share < max_opaque, "{what}: {:.2}% of real bundles still opaque", share * 100.0);
    Ok(())
}

#[test]
fn recovered_fields_hold_on_every_committed_real_bundle() -> R<()> {
    // The committed subset was chosen for its rare opcodes, so its opaque share is higher.
    check(&corpus(), "corpus/neff/real", 0.01, false)
}

#[test]
fn recovered_fields_hold_on_every_shared_real_bundle() -> R<()> {
    check(&shared(), "../shared/neff", 0.005, true)
}

/// One claimed byte changed in a real bundle is one `info` finding naming the
/// field (at its offset), and the spec's validator finds what it found before.
#[test]
fn one_broken_claimed_byte_is_one_info_finding() -> R<()> {
    let files: Vec<_> = corpus().into_iter().chain(shared()).collect();
    let all = bundles(&files)?;
    let mut seen: std::collections::BTreeSet<(u8, &str)> = std::collections::BTreeSet::new();
    for (g, raw) in &all {
        for &(op, field, claim) in CLAIMS.iter().filter(|c| c.0 == raw[0]) {
            if !seen.insert((op, field)) {
                continue;
            }
            let b = Bundle::decode(raw);
            let (off, size) = b.layout().resolve(field).ok_or(format!("{op:#04x}: no field {field}"))?;
            // The field's last byte (a bound's most significant), set to the first value that breaks the claim.
            let at = off + size - 1;
            let mut bad = *raw;
            let breaks = |v: u8| {
                let mut x = *raw;
                x[at] = v;
                !claim.holds(&x[off..off + size], *g)
            };
            bad[at] = [0xFF, 0x5A, 0xFE].into_iter().chain(0..=0xFF).find(|&v| breaks(v)).ok_or(format!("{op:#04x} {field}: unbreakable"))?;
            let broken = Bundle::decode(&bad);
            let mut found = Vec::new();
            validate::recovered_claims(&broken, *g, &mut found);
            assert_eq!(found.len(), 1, "{op:#04x} {field}: {found:?}");
            let f = &found[0];
            assert_eq!((f.code, f.field.as_str(), f.offset, f.severity, f.section), ("recovered-claim", field, off, Severity::Info, "R"));
            assert!(f.message.contains(&claim.describe()), "{}", f.message);
            assert_eq!(validate::validate(&broken, *g), validate::validate(&b, *g), "{op:#04x} {field}");
        }
    }
    assert!(!seen.is_empty(), "no real bundle of a recovered family with claims");
    Ok(())
}

/// `tpb evidence` counts, per opcode and claimed field, the bundles that break
/// the claim: on the committed real programs every count is 0.
#[test]
fn evidence_counts_no_broken_claim_on_real_programs() -> R<()> {
    let mut ev = tpb_oracle::evidence::Evidence::new();
    for f in corpus() {
        let n = tpb_oracle::neff::read_file(&f)?;
        let g = n.generation().ok_or_else(|| format!("{}: no generation", f.display()))?;
        for s in &n.streams {
            ev.add_stream(&f.display().to_string(), None, g, "", &s.bytes);
        }
    }
    let rows = ev.claims_broken();
    assert!(!rows.is_empty(), "no recovered family with claims in corpus/neff/real");
    let broken: Vec<_> = rows.iter().filter(|r| r.4 > 0).collect();
    assert!(broken.is_empty(), "{broken:?}");
    Ok(())
}
