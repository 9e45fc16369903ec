//! The validator's claim layer: what real programs establish about the
//! bodies the spec leaves opaque ([`CLAIMS`](crate::bundle::claims::CLAIMS)),
//! checked only as far as that evidence goes, reporting each field that
//! breaks its claim. A broken claim is `info`, never an error, and is kept
//! out of [`super::validate`]'s findings (the fast path's contract is that a
//! bundle it proves clean has no findings there).

use super::Finding;
use crate::bundle::claims::claims;
use crate::bundle::Bundle;
use crate::checks::RECOVERED_CLAIM;
use crate::generation::Generation;
use crate::provenance::Confidence;

/// Appends an `info` finding for each recovered field of `bundle` that breaks its claim.
pub fn recovered_claims(bundle: &Bundle, g: Generation, out: &mut Vec<Finding>) {
    let bytes = bundle.as_bytes();
    let layout = bundle.layout();
    for (field, claim) in claims(bundle.opcode()) {
        let Some((offset, size)) = layout.resolve(field) else { continue };
        let Some(held) = bytes.get(offset..offset + size) else { continue };
        if claim.holds(held, g) {
            continue;
        }
        let hex: String = held.iter().map(|b| format!("{b:02x}")).collect();
        out.push(Finding {
            code: RECOVERED_CLAIM.code,
            field: field.to_string(),
            offset,
            section: RECOVERED_CLAIM.prov.section,
            confidence: Confidence::Inferred,
            severity: Confidence::Inferred.severity(),
            message: format!("every real bundle holds {} here; this one holds {hex}", claim.describe()),
            erratum: None,
        });
    }
}
