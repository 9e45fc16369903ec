//! `tpb evidence --check`: the gate on a set of programs. It fails on a
//! contradiction only: a check real bundles disagree with that no erratum
//! accepts, or a recovered claim a real bundle breaks. An erratum these
//! programs give no bundle for is not contradicted, only not exercised
//! (one program rarely holds every case the errata were drawn from): it
//! is listed, and fails only with `--check-support`, the gate for the full
//! set of real programs, where an erratum without support is stale.

use tpb_oracle::evidence::Evidence;

/// What the gate found: `failures` set exit 1, `notes` are said and pass.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    pub failures: Vec<String>,
    pub notes: Vec<String>,
}

/// Judges `ev`; `require_support`: an erratum with no supporting bundle fails too.
pub fn judge(ev: &Evidence, require_support: bool) -> Verdict {
    let mut v = Verdict::default();
    v.failures.extend(ev.contradictions().iter().map(|c| format!("contradiction with no erratum: {c}")));
    v.failures.extend(ev.claims_broken().into_iter().filter(|c| c.4 > 0).map(|(g, build, op, field, n)| {
        format!(
            "recovered claim broken: {g} {} {op:#04x} {} {field}: {n} bundle(s) hold what the claim excludes",
            tpb_oracle::text_safe::escape(build),
            tpb_isa::opcode::name(op)
        )
    }));
    for e in ev.errata().iter().filter(|e| e.bundles() == 0) {
        if require_support {
            v.failures.push(format!("erratum {}: no supporting bundle in these inputs", e.erratum.id));
        } else {
            v.notes.push(format!("erratum {}: not exercised by these programs", e.erratum.id));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_isa::errata::ERRATA;
    use tpb_isa::Generation;

    fn bundle(op: u8) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[0] = op;
        b[1] = tpb_isa::bundle::INST_WORD_LEN;
        b
    }

    #[test]
    fn an_erratum_not_exercised_is_a_note_unless_support_is_required() {
        // 0xB1: an opcode the erratum `unnamed-opcodes` accepts; no other erratum is exercised.
        let mut ev = Evidence::new();
        ev.add_stream("one.neff", Some("b"), Generation::V3, "PE", &bundle(0xB1));
        let v = judge(&ev, false);
        assert!(v.failures.is_empty(), "{:?}", v.failures);
        assert_eq!(v.notes.len(), ERRATA.len() - 1, "{:?}", v.notes);
        assert!(v.notes.iter().all(|n| n.ends_with(": not exercised by these programs") && !n.contains("unnamed-opcodes")), "{:?}", v.notes);
        let strict = judge(&ev, true);
        assert!(strict.notes.is_empty());
        assert_eq!(strict.failures.len(), ERRATA.len() - 1, "{:?}", strict.failures);
        assert!(strict.failures.iter().all(|f| f.ends_with(": no supporting bundle in these inputs")));
    }

    #[test]
    fn a_broken_recovered_claim_fails_and_a_kept_one_does_not() {
        use arbitrary::Unstructured;
        let g = Generation::V3;
        let op = tpb_isa::opcode::OPCODES
            .iter()
            .find(|o| o.available(g) && tpb_isa::bundle::claims::claims(o.byte).next().is_some())
            .expect("an opcode with a recovered claim");
        let data = tpb_isa::props::seeded_bytes(1, 4096);
        let mut u = Unstructured::new(&data);
        let kept = tpb_isa::smith::bundle_for(&mut u, g, op).expect("a bundle");
        let broken = tpb_isa::smith::break_claim(&mut u, &kept, g).expect("draws").expect("a claim to break");
        let mut ev = Evidence::new();
        ev.add_stream("p.neff", Some("b"), g, "PE", &kept.encode());
        let claim_failures = |v: Verdict| v.failures.into_iter().filter(|f| f.starts_with("recovered claim broken")).collect::<Vec<_>>();
        assert_eq!(claim_failures(judge(&ev, false)), Vec::<String>::new());
        ev.add_stream("p.neff", Some("b"), g, "PE", &broken.bundle.encode());
        let f = claim_failures(judge(&ev, false));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].starts_with(&format!("recovered claim broken: v3 b {:#04x} {} ", op.byte, op.name)), "{f:?}");
        assert!(f[0].ends_with(": 1 bundle(s) hold what the claim excludes"), "{f:?}");
    }

    #[test]
    fn a_contradiction_fails_whatever_the_support() {
        let mut ev = Evidence::new();
        ev.add_stream("odd.bin", None, Generation::V3, "", &bundle(0x3B));
        for require in [false, true] {
            let v = judge(&ev, require);
            assert!(v.failures.iter().any(|f| f.starts_with("contradiction with no erratum: v3 unknown 0x3b")), "{:?}", v.failures);
        }
    }
}
