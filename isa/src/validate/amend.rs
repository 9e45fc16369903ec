//! The amended profile: the spec's findings, read against the [`errata`].
//!
//! A finding an erratum accepts becomes a `note` carrying the erratum id;
//! where the erratum corrects how a slot is read (its dtype or its
//! placement), the slot's rules are checked again that way and whatever they
//! find is reported as usual, no surer than the erratum.

mod placed;

use super::{slots, Ctx, Finding};
use crate::bundle::Bundle;
use crate::dtype;
use crate::errata::{Accepts, Erratum};
use crate::generation::Generation;
use crate::layout::Layout;
use crate::opcode;
use crate::operands::{self, DtypeRef, SlotType};
use crate::provenance::Severity;

/// Applies the errata to the spec's findings on `bundle` (appending what a corrected reading finds).
pub fn amend(bundle: &Bundle, g: Generation, findings: &mut Vec<Finding>) {
    amend_from(bundle, g, findings, 0, true);
}

/// [`amend`] with only the errata `keep` admits, given each the value of
/// the finding's field ([`finding_value`]): what a smaller errata table would
/// say (the held-out-build evaluation drops what only the held-out build
/// supports).
pub fn amend_with(bundle: &Bundle, g: Generation, findings: &mut Vec<Finding>, keep: &dyn Fn(&Erratum, Option<u64>) -> bool) {
    amend_where(bundle, g, findings, 0, keep, true);
}

/// The value of a finding's field in the bundle (little-endian, up to 8
/// bytes); `None` for a field the body layout does not name.
pub fn finding_value(bundle: &Bundle, f: &Finding) -> Option<u64> {
    read(bundle.as_bytes(), bundle.layout(), &f.field)
}

/// [`amend`] of the findings from index `first` on (those of `bundle`, after
/// others'); none is no work and no allocation.
/// With `messages`, the findings a corrected reading adds get their message.
pub(super) fn amend_from(bundle: &Bundle, g: Generation, findings: &mut Vec<Finding>, first: usize, messages: bool) {
    amend_where(bundle, g, findings, first, &|_, _| true, messages);
}

fn amend_where(
    bundle: &Bundle,
    g: Generation,
    findings: &mut Vec<Finding>,
    first: usize,
    keep: &dyn Fn(&Erratum, Option<u64>) -> bool,
    messages: bool,
) {
    let first = first.min(findings.len());
    if first == findings.len() {
        return;
    }
    let bytes = bundle.as_bytes();
    let layout = bundle.layout();
    let placed = placed::on(g, bundle.opcode());
    let mut rechecked: Vec<&'static str> = Vec::new();
    let mut extra = Vec::new();
    for f in findings[first..].iter_mut() {
        let Some(e) = placed.iter().find_map(|p| {
            let own = p.covers(f, bytes, layout)?;
            (keep(p.erratum, own) && p.accepts(bytes, g, f, own)).then_some(p.erratum)
        }) else {
            continue;
        };
        f.severity = Severity::Note;
        f.erratum = Some(e.id);
        if !rechecked.contains(&e.id) {
            rechecked.push(e.id);
            recheck(bundle, g, e, &mut extra, messages);
        }
    }
    if extra.is_empty() {
        return;
    }
    // A slot checked again repeats what does not depend on the correction (its nums, say): keep only what is new.
    extra.retain(|x| !findings[first..].iter().any(|f| (f.code, &f.field, f.offset) == (x.code, &x.field, x.offset)));
    findings.append(&mut extra);
}

/// Whether, on a bundle whose header and slots are clean ([`super::fast::Verdict::BandUnknown`]),
/// the byte rules' findings would all be amended (so the bundle is valid under the errata):
/// decided from the bytes and the placed errata, with no finding made. `false` also where
/// the band is not one of byte rules, or a finding would be left as it is (then the reporting
/// checks decide).
pub(super) fn band_amended(raw: &[u8; crate::bundle::BUNDLE_BYTES], g: Generation) -> bool {
    use super::band::{kind_of, placed_rules, BandKind, BYTE_RULES};
    let Some(op) = opcode::lookup(raw[0]) else { return false };
    if kind_of(op) != BandKind::Bytes {
        return false;
    }
    // The body kind as decoding chooses it, as the reporting checks read it.
    let kind = opcode::body_kind(raw[0]);
    let layout = kind.layout();
    let placed = placed::on(g, raw[0]);
    placed_rules(kind).iter().all(|p| {
        let (Some(r), Some(&v)) = (BYTE_RULES.get(p.rule), raw.get(p.at)) else { return true };
        // A rule that holds reports nothing; one that fails must be amended, as `amend_where` decides.
        !r.on.contains(&g)
            || (r.allows)(v)
            || placed.iter().any(|e| e.covers_field(r.check.code, r.field, raw, layout).is_some_and(|own| e.accepts_values(raw, own)))
    })
}

/// How the errata read a slot's dtype byte whose tag the spec refuses, when
/// an erratum accepts it by that byte alone: as no dtype (the slot's dtype
/// rules have nothing to check), or as another tag the slot is checked again with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DtypeReading {
    NoDtype,
    Tag(u8),
}

/// [`DtypeReading`] of `byte`, the dtype byte at `at` of `slot` on a bundle
/// of opcode `op` on `g`, decided as [`amend_where`] would from that byte
/// alone: `None` when the spec accepts the tag, no erratum accepts it, or
/// the first erratum that covers the finding reads more than the byte (then
/// the reporting checks decide).
pub(super) fn dtype_reading(g: Generation, op: u8, slot: &operands::Slot, at: usize, byte: u8) -> Option<DtypeReading> {
    use crate::checks::{DTYPE_UNAVAILABLE, INVALID_DTYPE};
    let code = match dtype::info(slot.dtype.tag_of(byte)) {
        None => INVALID_DTYPE.code,
        Some(d) if d.since > g => DTYPE_UNAVAILABLE.code,
        Some(_) => return None,
    };
    let layout = opcode::body_kind(op).layout();
    let own = Some(u64::from(byte));
    let tag_ok = |t: u8| dtype::info(t).is_some_and(|d| d.since <= g);
    for p in placed::on(g, op) {
        let Some(field) = p.field_at(code, slot.dtype.field(g), layout) else { continue };
        // The finding's value must be this byte, as `covers` reads it.
        if field != Some(placed::At { off: at, size: 1 }) {
            return None;
        }
        match p.erratum.accepts {
            Accepts::Values { .. } if p.values_own_only() => {
                if p.accepts_values(&[], own) {
                    return Some(DtypeReading::NoDtype);
                }
            }
            Accepts::NibbleDtypes { slot: typed } if typed == slot.name => {
                let (lo, hi) = (byte & 0x0F, byte >> 4);
                if tag_ok(lo) && tag_ok(hi) {
                    return Some(DtypeReading::Tag(lo));
                }
            }
            // Accepted or not by other bytes too, or a slot checked again elsewhere.
            _ => return None,
        }
    }
    None
}

/// Whether the errata accept a PSUM write of any dtype by `slot` of opcode
/// `op` on `g` (as [`amend_where`] amends `psum-write-dtype`), decided by the
/// slot alone; `false` where the first erratum that covers it reads more.
pub(super) fn psum_write_amended(g: Generation, op: u8, slot: &operands::Slot) -> bool {
    use crate::checks::PSUM_WRITE_DTYPE;
    let layout = opcode::body_kind(op).layout();
    let field = format!("{}.addr", slot.name);
    let Some(p) = placed::on(g, op).iter().find(|p| p.field_at(PSUM_WRITE_DTYPE.code, &field, layout).is_some()) else { return false };
    let live = opcode::lookup(op).is_some_and(|o| operands::live_slots(o).any(|s| s.name == slot.name && s.role == slot.role));
    matches!(p.erratum.accepts, Accepts::NotMatmulDst) && live && slot.role == (operands::Role::Dst { matmul: false })
}

/// Whether an erratum accepts value `v` of the byte rule on `field` (check
/// `code`) at `at`, on a bundle of opcode `op` on `g`, by that value alone
/// (as [`band_amended`] would); errata that also read other fields are left
/// to it.
pub(super) fn band_value_amended(g: Generation, op: u8, code: &str, field: &str, at: usize, v: u8) -> bool {
    let layout = opcode::body_kind(op).layout();
    placed::on(g, op).iter().any(|p| {
        p.field_at(code, field, layout) == Some(Some(placed::At { off: at, size: 1 }))
            && p.values_own_only()
            && p.accepts_values(&[], Some(u64::from(v)))
    })
}

/// An erratum that may amend a byte rule's finding, read as [`band_amended`]
/// reads it: the fast path's amended tables test a byte rule by these where
/// an erratum ties the byte to other fields (`fast/tied.rs`).
#[derive(Clone, Copy, Debug)]
pub(super) struct BandAmender(&'static placed::Placed<'static>);

impl BandAmender {
    /// Whether the erratum accepts the rule's byte holding `v` in the bundle `raw`.
    #[inline]
    pub(super) fn accepts(self, raw: &[u8], v: u8) -> bool {
        self.0.accepts_values(raw, Some(u64::from(v)))
    }

    /// Whether the byte's value alone decides (the amended rows fold those in).
    pub(super) fn by_value_alone(self) -> bool {
        self.0.values_own_only()
    }

    /// The offsets of the bytes its conditions read besides the rule's own.
    #[cfg(test)]
    pub(super) fn reads(self) -> Vec<usize> {
        self.0.cond_bytes()
    }
}

/// The errata that may amend a finding of the byte rule on `field` (check
/// `code`) at `at`, on a bundle of opcode `op` on `g`: all of them read that
/// byte as the finding's value, so a finding is amended exactly when one
/// [`BandAmender::accepts`] it. `None` when one reads the value elsewhere
/// (then the reporting checks decide).
pub(super) fn band_amenders(g: Generation, op: u8, code: &str, field: &str, at: usize) -> Option<Vec<BandAmender>> {
    let layout = opcode::body_kind(op).layout();
    let mut found = Vec::new();
    for p in placed::on(g, op) {
        match p.field_at(code, field, layout) {
            None => {}
            Some(Some(placed::At { off, size: 1 })) if off == at => found.push(BandAmender(p)),
            Some(_) => return None,
        }
    }
    Some(found)
}

/// An erratum that accepts a misaligned address by another dtype's alignment
/// ([`Accepts::AlignedTo`]), as the amending reads it: the fast path's
/// amended tables check such a slot's alignment by it (`fast/aligned.rs`).
#[derive(Clone, Copy, Debug)]
pub(super) struct AlignAmender(&'static placed::Placed<'static>);

impl AlignAmender {
    /// Whether the erratum accepts the address word at `at` of the bundle `raw`.
    #[inline]
    pub(super) fn accepts(self, raw: &[u8], at: usize) -> bool {
        self.0.aligned_by(raw, at)
    }
}

/// The errata that accept a misaligned address of `slot` of opcode `op` on
/// `g` by another dtype's alignment: where one accepts, so does the amending
/// (it may name another first).
pub(super) fn align_amenders(g: Generation, op: u8, slot: &operands::Slot) -> Vec<AlignAmender> {
    use crate::checks::MISALIGNED_ADDRESS;
    let layout = opcode::body_kind(op).layout();
    let field = format!("{}.addr", slot.name);
    let covers = |p: &&placed::Placed<'static>| p.field_at(MISALIGNED_ADDRESS.code, &field, layout).is_some();
    placed::on(g, op).iter().filter(covers).filter(|p| matches!(p.erratum.accepts, Accepts::AlignedTo { .. })).map(AlignAmender).collect()
}

/// Reads a field of the body layout as an unsigned little-endian value.
fn read(bytes: &[u8], layout: &Layout, field: &str) -> Option<u64> {
    let (off, size) = layout.resolve(field)?;
    placed::At { off, size }.read(bytes)
}

/// Checks again the slot an erratum reads differently; its findings are no surer than the erratum.
fn recheck(bundle: &Bundle, g: Generation, e: &Erratum, out: &mut Vec<Finding>, messages: bool) {
    let Some(op) = opcode::lookup(bundle.opcode()) else { return };
    let bytes = bundle.as_bytes();
    let layout = bundle.layout();
    let live = |name: &str| operands::live_slots(op).find(|s| s.name == name).copied();
    let mut cx = Ctx { layout, body_conf: op.body_prov.confidence.max(e.confidence), generation: g, out, messages };
    match e.accepts {
        Accepts::NibbleDtypes { slot } => {
            let Some(s) = live(slot) else { return };
            let field = s.dtype.field(g);
            let low = DtypeRef::Nibble(field, 0);
            let dt = low.read(layout, g, bytes).and_then(|t| cx.dtype(field, t));
            slots::operand(&mut cx, bytes, &s, s.offset(layout), dt);
        }
        Accepts::TypedBy { slot, by, .. } => {
            let Some(s) = live(slot) else { return };
            let dt = read(bytes, layout, by).and_then(|t| u8::try_from(t).ok()).and_then(|t| cx.dtype(by, t));
            slots::operand(&mut cx, bytes, &s, s.offset(layout), dt);
        }
        Accepts::SlotAt { slot, dims, offset } => {
            let Some(mut s) = live(slot) else { return };
            // The spec's pass already reported the dtype field itself.
            let dt = s.dtype.read(layout, g, bytes).and_then(dtype::info).filter(|d| d.since <= g);
            s.ty = SlotType::Pattern(dims);
            let first = cx.out.len();
            slots::operand(&mut cx, bytes, &s, offset, dt);
            // Findings name the slot's fields; place them where the slot now is.
            let view = crate::descriptor::pattern_layout(dims);
            for f in &mut cx.out[first..] {
                if let Some((at, _)) = f.field.strip_prefix(slot).and_then(|p| p.strip_prefix('.')).and_then(|leaf| view.resolve(leaf)) {
                    f.offset = offset + at;
                }
            }
        }
        Accepts::Values { .. } | Accepts::AlignedTo { .. } | Accepts::Opcode | Accepts::NotMatmulDst => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::descriptor::Tensor2d;

    #[test]
    fn a_moved_slot_is_accepted_only_where_its_pattern_fits_in_the_bundle() {
        use crate::errata::{Accepts, ERRATA};
        use crate::provenance::{Confidence, Severity};
        let Some(real) = ERRATA.iter().find(|e| matches!(e.accepts, Accepts::SlotAt { .. })) else { panic!("no moved-slot erratum") };
        let Accepts::SlotAt { slot, dims, .. } = real.accepts else { panic!("not a moved slot") };
        let Some(op) = crate::opcode::OPCODES.iter().find(|o| o.body.layout().field_offset(slot).is_some()) else {
            panic!("no body with slot {slot}")
        };
        let layout = op.body.layout();
        let Some(spec_at) = layout.field_offset(slot) else { panic!("no {slot}") };
        let f = super::Finding {
            code: "C",
            field: slot.into(),
            offset: spec_at,
            section: "2.1",
            confidence: Confidence::Confirmed,
            severity: Severity::Error,
            message: String::new(),
            erratum: None,
        };
        let bytes = [0u8; crate::bundle::BUNDLE_BYTES];
        let size = crate::descriptor::pattern_size(dims);
        for (offset, fits) in [(bytes.len() - size, true), (bytes.len() - size + 4, false)] {
            let accepts = Accepts::SlotAt { slot, dims, offset };
            let e = crate::errata::Erratum { accepts, amends: real.amends, ..*real };
            let g = crate::generation::Generation::V2;
            let own = super::read(&bytes, layout, &f.field);
            assert_eq!(super::placed::place(&e, layout).accepts(&bytes, g, &f, own), fits, "{slot} at {offset:#x}");
        }
    }

    #[test]
    fn a_field_reads_little_endian_whatever_its_width() {
        // An erratum's condition may name a wide field (a word, an address): its bytes read low first.
        let layout = &Tensor2d::LAYOUT;
        let Some((at, 4)) = layout.resolve("addr") else { panic!("TENSOR2D.addr is a 4-byte word") };
        let mut bytes = [0u8; 64];
        bytes[at..at + 4].copy_from_slice(&[0x78, 0x56, 0x34, 0x12]);
        assert_eq!(super::read(&bytes, layout, "addr"), Some(0x1234_5678));
        assert_eq!(super::read(&bytes[..at + 3], layout, "addr"), None, "a field past the bytes reads as nothing");
        assert_eq!(super::read(&bytes, layout, "not_a_field"), None);
    }
}
