//! What the fields pass resets in one bundle, simplest first: the whole body
//! (the header word alone, as setupHeader leaves it), then the body but its
//! sync band (a NoOp's shape: header, band, zeros), then each field of the
//! opcode's body layout alone. The opcode and the rest of the header word
//! are never touched. A field wider than 8 bytes (an opaque body's 60 bytes,
//! a reserved run) is reset a 4-byte word at a time, as are bytes no field
//! covers, so one bundle costs at most 25 predicate runs a round (the
//! most resets of any opcode's layout, measured by the tests).

use std::ops::Range;
use tpb_isa::bundle::{Raw, BUNDLE_BYTES};
use tpb_isa::Bundle;

/// The header word's bytes: opcode, length, reserved.
const HEADER: Range<usize> = 0..4;
/// The sync band after it (`_pad04`), in the bodies that carry one.
const SYNC: Range<usize> = 4..12;
/// The widest field reset at once.
const WIDEST: usize = 8;
/// What a wider field is reset by.
const WORD: usize = 4;

/// One reset of part of a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reset {
    /// What it resets, for the log.
    pub what: String,
    /// The bytes set to zero.
    pub zeroed: Range<usize>,
}

impl Reset {
    /// `raw` with the reset made.
    pub fn apply(&self, raw: &Raw) -> Raw {
        let mut out = *raw;
        out[self.zeroed.clone()].fill(0);
        out
    }
}

/// The resets to try on a bundle of `raw`'s opcode, in order.
pub fn resets(raw: &Raw) -> Vec<Reset> {
    let layout = Bundle::decode(raw).layout();
    let body = HEADER.end..BUNDLE_BYTES;
    let mut out = vec![Reset { what: "body zeroed (header word only)".into(), zeroed: body.clone() }];
    let leaves = layout.leaves();
    if leaves.iter().any(|l| l.path == "_pad04" && l.offset == SYNC.start && l.size() == SYNC.len()) {
        out.push(Reset { what: "body but its sync band zeroed (NoOp-like)".into(), zeroed: SYNC.end..BUNDLE_BYTES });
    }
    let mut covered = [false; BUNDLE_BYTES];
    let mut parts: Vec<(usize, Reset)> = Vec::new();
    for leaf in leaves.iter().filter(|l| l.offset >= body.start && l.offset + l.size() <= BUNDLE_BYTES) {
        let at = leaf.offset..leaf.offset + leaf.size();
        covered[at.clone()].fill(true);
        let step = if at.len() > WIDEST { WORD } else { at.len() };
        parts.extend(words(at, step).map(|r| (r.start, zero(&format!("`{}`", leaf.path), r))));
    }
    // Bytes no field covers (a layout shorter than the bundle), a word at a time.
    let mut i = body.start;
    while i < BUNDLE_BYTES {
        if covered[i] {
            i += 1;
            continue;
        }
        let end = (i + WORD).min(BUNDLE_BYTES);
        let end = (i..end).find(|j| covered[*j]).unwrap_or(end);
        parts.push((i, zero("bytes no field covers", i..end)));
        i = end;
    }
    parts.sort_by_key(|(at, _)| *at);
    out.extend(parts.into_iter().map(|(_, r)| r));
    out
}

/// `at` cut into runs of `step` bytes.
fn words(at: Range<usize>, step: usize) -> impl Iterator<Item = Range<usize>> {
    at.clone().step_by(step.max(1)).map(move |s| s..(s + step).min(at.end))
}

fn zero(what: &str, at: Range<usize>) -> Reset {
    Reset { what: format!("{what} (+{:#04x}, {} bytes) zeroed", at.start, at.len()), zeroed: at }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(opcode: u8) -> Raw {
        let mut raw = [0xffu8; BUNDLE_BYTES];
        raw[0] = opcode;
        raw[1] = tpb_isa::bundle::INST_WORD_LEN;
        raw
    }

    #[test]
    fn resets_cover_the_body_never_the_header_and_stay_bounded() {
        let mut most = 0;
        for op in 0..=255u8 {
            let raw = bundle(op);
            let rs = resets(&raw);
            let mut header_only = [0u8; BUNDLE_BYTES];
            header_only[..4].copy_from_slice(&raw[..4]);
            assert_eq!(rs[0].apply(&raw), header_only, "{op:#04x}");
            let mut zeroed = [false; BUNDLE_BYTES];
            let fields = rs.iter().filter(|r| r.zeroed.len() <= WIDEST).count();
            most = most.max(rs.len());
            for r in &rs {
                assert_eq!(r.apply(&raw)[..4], raw[..4], "{op:#04x}: {} touches the header", r.what);
                zeroed[r.zeroed.clone()].fill(true);
            }
            assert!(zeroed[4..].iter().all(|z| *z), "{op:#04x}: the resets do not cover the body");
            assert!(rs.len() - fields <= 2, "{op:#04x}: {rs:?}");
        }
        assert_eq!(most, 25, "the most resets of one bundle, as the module says");
    }

    #[test]
    fn an_opaque_body_goes_by_words_and_a_banded_body_keeps_its_band_second() {
        let halt = resets(&bundle(0xA1));
        assert_eq!(halt.len(), 1 + 15);
        assert_eq!(halt[1].what, "`body` (+0x04, 4 bytes) zeroed");
        let noop = resets(&bundle(0xA4));
        assert_eq!(noop[1].what, "body but its sync band zeroed (NoOp-like)");
        assert_eq!(noop[1].apply(&bundle(0xA4))[4..12], [0xff; 8]);
        assert_eq!(noop[2].what, "`_pad04` (+0x04, 8 bytes) zeroed");
    }
}
