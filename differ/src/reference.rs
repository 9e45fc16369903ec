//! The description's own answers: what a worker is held against, and the
//! answers of a perfect worker ([`answer`]), which the tests and the
//! `differential` fuzz target use when no worker is named.

use crate::request::{self, Ask, Request};
use arbitrary::Unstructured;
use tpb_isa::validate::{validate_as, Finding};
use tpb_isa::{Bundle, Generation, Profile, Severity};

/// The findings that make `b` invalid on `g` under `profile`, in the validator's order.
pub fn errors(b: &Bundle, g: Generation, profile: Profile) -> Vec<Finding> {
    validate_as(b, g, profile).into_iter().filter(|f| f.severity == Severity::Error).collect()
}

/// `valid`, or `invalid` and the codes, as a worker would answer.
pub fn verdict_text(errors: &[Finding]) -> String {
    if errors.is_empty() {
        return "valid".to_string();
    }
    let mut codes: Vec<&str> = errors.iter().map(|f| f.code).collect();
    codes.dedup();
    format!("invalid {}", codes.join(" "))
}

/// [`verdict_text`] of `b`.
pub fn verdict_line(b: &Bundle, g: Generation, profile: Profile) -> String {
    verdict_text(&errors(b, g, profile))
}

/// The decode answer: every field, `opcode=0xNN` first.
pub fn decode_line(raw: &tpb_isa::Raw) -> String {
    request::encode_fields(raw)
}

/// What a worker that agrees with the description answers.
pub fn answer(req: &Request, profile: Profile) -> String {
    match req.ask {
        Ask::Decode => decode_line(&req.raw),
        Ask::Encode => request::hex(&req.raw),
        Ask::Validate => verdict_line(&Bundle::decode(&req.raw), req.generation, profile),
    }
}

/// A valid bundle of opcode `op` on `g`, the same for the same `seed`: the
/// generator run on seeded bytes. A bundle of only the header when the
/// opcode is not available on `g`.
pub fn generated(g: Generation, op: u8, seed: u64) -> tpb_isa::Raw {
    // The generator reads at most ~110 bytes of choices for any opcode (measured over every opcode × 50 seeds).
    let bytes = tpb_isa::props::seeded_bytes(seed ^ (u64::from(op) << 40) ^ ((g.index() as u64) << 56), 256);
    let mut u = Unstructured::new(&bytes);
    match tpb_isa::opcode::lookup(op).filter(|o| o.available(g)) {
        Some(info) => tpb_isa::smith::bundle_for(&mut u, g, info).map_or_else(|_| header_only(op), |b| b.encode()),
        None => header_only(op),
    }
}

/// The opcode and the standard word length, every other byte zero.
pub fn header_only(op: u8) -> tpb_isa::Raw {
    let mut raw = [0u8; 64];
    raw[0] = op;
    raw[1] = tpb_isa::bundle::INST_WORD_LEN;
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_bundles_are_valid_and_pinned_to_their_seed() {
        for g in Generation::ALL {
            for op in tpb_isa::smith::candidate_opcodes(g).map(|o| o.byte) {
                let a = generated(g, op, 7);
                assert_eq!(a[0], op);
                assert_eq!(a, generated(g, op, 7));
                assert!(errors(&Bundle::decode(&a), g, Profile::Amended).is_empty(), "{g} {op:#04x}");
            }
        }
        assert_ne!(generated(Generation::V2, 0x46, 1), generated(Generation::V2, 0x46, 2));
    }

    #[test]
    fn verdicts_read_as_a_worker_writes_them() {
        let ok = Bundle::decode(&generated(Generation::V2, 0x46, 1));
        assert_eq!(verdict_line(&ok, Generation::V2, Profile::Amended), "valid");
        let mut raw = ok.encode();
        raw[1] = 0x33;
        let line = verdict_line(&Bundle::decode(&raw), Generation::V2, Profile::Amended);
        assert!(line.starts_with("invalid "), "{line}");
    }
}
