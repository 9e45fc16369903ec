//! The errata placed on each opcode's body, per generation: which errata can
//! amend a finding there, with every field they read resolved to its bytes
//! once, when the table is built. Amending a finding is then a code compare,
//! a name compare against the listed fields and a few byte reads, never a
//! walk of the layout (the walk was the largest cost of validating real
//! programs, nearly all of whose findings an erratum amends).

use super::super::{slots, Finding};
use crate::addr4::Addr4;
use crate::bundle::{Bundle, BUNDLE_BYTES};
use crate::dtype;
use crate::errata::{Accepts, Erratum, ERRATA};
use crate::generation::Generation;
use crate::layout::Layout;
use crate::opcode;
use crate::operands;
use std::sync::OnceLock;

/// A field's bytes in the bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct At {
    pub off: usize,
    pub size: usize,
}

impl At {
    fn of(layout: &Layout, path: &str) -> Option<At> {
        layout.resolve(path).map(|(off, size)| At { off, size })
    }

    /// The field as an unsigned little-endian value (its first 8 bytes); `None` past the bytes.
    pub(super) fn read(self, bytes: &[u8]) -> Option<u64> {
        bytes.get(self.off..self.off + self.size.min(8)).map(crate::layout::le_u64)
    }
}

/// Whose value a condition of [`Accepts::Values`] reads.
#[derive(Debug)]
enum Of {
    /// The field the finding names.
    Own,
    /// A named field (`None`: not in this body, so the condition never holds).
    Field(Option<At>),
}

/// One erratum on one opcode's body.
#[derive(Debug)]
pub(super) struct Placed<'e> {
    pub erratum: &'e Erratum,
    /// The listed fields and their bytes (`None`: not in this body); empty when it amends every field.
    fields: Vec<(&'static str, Option<At>)>,
    /// [`Accepts::Values`]: each condition's field and values.
    conds: Vec<(Of, &'static [u64])>,
    /// The dtype field `by` of [`Accepts::TypedBy`] and [`Accepts::AlignedTo`].
    by: Option<At>,
    /// [`Accepts::SlotAt`]: the slot's offset by the spec.
    slot_at: Option<usize>,
}

/// `e` with the fields it reads resolved in `layout`.
pub(super) fn place<'e>(e: &'e Erratum, layout: &Layout) -> Placed<'e> {
    let at = |path: &str| At::of(layout, path);
    Placed {
        erratum: e,
        fields: e.amends.fields.listed().iter().map(|&f| (f, at(f))).collect(),
        conds: match e.accepts {
            Accepts::Values { all } => all.iter().map(|c| (if c.field.is_empty() { Of::Own } else { Of::Field(at(c.field)) }, c.values)).collect(),
            _ => Vec::new(),
        },
        by: match e.accepts {
            Accepts::TypedBy { by, .. } | Accepts::AlignedTo { by } => at(by),
            _ => None,
        },
        slot_at: match e.accepts {
            Accepts::SlotAt { slot, .. } => layout.field_offset(slot),
            _ => None,
        },
    }
}

/// The errata that can amend a finding on a bundle of opcode `op` on
/// generation `g` (those whose opcodes and generations include them), in
/// [`ERRATA`] order.
pub(super) fn on(g: Generation, op: u8) -> &'static [Placed<'static>] {
    static TABLE: OnceLock<Vec<Vec<Placed<'static>>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = Vec::with_capacity(Generation::ALL.len() * 256);
        for g in Generation::ALL {
            for op in 0..=u8::MAX {
                // The body layout follows from the opcode byte alone.
                let mut raw = [0u8; BUNDLE_BYTES];
                raw[0] = op;
                let layout = Bundle::decode(&raw).layout();
                let amends = |e: &&Erratum| e.amends.opcodes.contains(&op) && e.amends.generations.contains(&g);
                t.push(ERRATA.iter().filter(amends).map(|e| place(e, layout)).collect());
            }
        }
        t
    });
    table.get(g.index() * 256 + usize::from(op)).map_or(&[], Vec::as_slice)
}

impl Placed<'_> {
    /// `Some(the value of the finding's field)` when the erratum amends the
    /// finding's check and field (its opcode and generation are the table's).
    pub(super) fn covers(&self, f: &Finding, bytes: &[u8], layout: &Layout) -> Option<Option<u64>> {
        self.covers_field(f.code, &f.field, bytes, layout)
    }

    /// [`Placed::covers`] of a finding of check `code` on `field`.
    pub(super) fn covers_field(&self, code: &str, field: &str, bytes: &[u8], layout: &Layout) -> Option<Option<u64>> {
        if self.erratum.amends.check.code != code {
            return None;
        }
        if self.erratum.amends.fields.is_every() {
            return Some(super::read(bytes, layout, field));
        }
        let (_, at) = self.fields.iter().find(|(name, _)| *name == field)?;
        Some(at.and_then(|at| at.read(bytes)))
    }

    /// Where the field a finding of check `code` on `field` reads is, when
    /// the erratum amends that check and field: `Some(None)` for a field
    /// this body does not have (its value is none).
    pub(super) fn field_at(&self, code: &str, field: &str, layout: &Layout) -> Option<Option<At>> {
        if self.erratum.amends.check.code != code {
            return None;
        }
        if self.erratum.amends.fields.is_every() {
            return Some(At::of(layout, field));
        }
        self.fields.iter().find(|(name, _)| *name == field).map(|&(_, at)| at)
    }

    /// Whether every condition of an [`Accepts::Values`] erratum is on the
    /// finding's own field (so its value alone decides).
    pub(super) fn values_own_only(&self) -> bool {
        matches!(self.erratum.accepts, Accepts::Values { .. }) && self.conds.iter().all(|(of, _)| matches!(of, Of::Own))
    }

    /// The offsets of every byte the conditions on named fields read (for
    /// the tests that sweep them).
    #[cfg(test)]
    pub(super) fn cond_bytes(&self) -> Vec<usize> {
        let fields = self.conds.iter().filter_map(|(of, _)| match of {
            Of::Field(Some(at)) => Some(at.off..at.off + at.size),
            _ => None,
        });
        fields.flatten().collect()
    }

    /// Whether the erratum accepts by values alone ([`Accepts::Values`]), its
    /// own field holding `own`: what a byte rule's finding needs.
    pub(super) fn accepts_values(&self, bytes: &[u8], own: Option<u64>) -> bool {
        matches!(self.erratum.accepts, Accepts::Values { .. }) && self.values_hold(bytes, own)
    }

    fn values_hold(&self, bytes: &[u8], own: Option<u64>) -> bool {
        self.conds.iter().all(|(of, values)| {
            let v = match of {
                Of::Own => own,
                Of::Field(at) => at.and_then(|at| at.read(bytes)),
            };
            v.is_some_and(|v| values.contains(&v))
        })
    }

    /// Whether the address word at `at` is aligned to the class of the dtype
    /// in the erratum's field `by` ([`Accepts::AlignedTo`]; any other: `false`).
    pub(super) fn aligned_by(&self, bytes: &[u8], at: usize) -> bool {
        if !matches!(self.erratum.accepts, Accepts::AlignedTo { .. }) {
            return false;
        }
        let word = bytes.get(at..at + 4).and_then(|w| <[u8; 4]>::try_from(w).ok()).map(|w| Addr4::new(u32::from_le_bytes(w)));
        let class = self.by.and_then(|at| at.read(bytes)).and_then(|t| u8::try_from(t).ok()).and_then(dtype::info);
        matches!((word, class), (Some(a), Some(d)) if !slots::misaligned(a.addr29(), d.align))
    }

    /// Whether the erratum accepts the encoding the finding refused; `own`
    /// is the value of the finding's field.
    pub(super) fn accepts(&self, bytes: &[u8], g: Generation, f: &Finding, own: Option<u64>) -> bool {
        let tag_ok = |t: u64| u8::try_from(t).ok().and_then(dtype::info).is_some_and(|d| d.since <= g);
        match self.erratum.accepts {
            Accepts::Values { .. } => self.values_hold(bytes, own),
            Accepts::Opcode => true,
            Accepts::NotMatmulDst => {
                let slot = f.field.strip_suffix(".addr");
                let op = bytes.first().and_then(|&b| opcode::lookup(b));
                op.is_some_and(|op| operands::live_slots(op).any(|s| Some(s.name) == slot && s.role == operands::Role::Dst { matmul: false }))
            }
            Accepts::NibbleDtypes { .. } => own.is_some_and(|b| tag_ok(b & 0x0F) && tag_ok(b >> 4)),
            Accepts::TypedBy { value, .. } => own == Some(value),
            Accepts::AlignedTo { .. } => self.aligned_by(bytes, f.offset),
            Accepts::SlotAt { dims, offset, .. } => {
                let Some(spec_at) = self.slot_at else { return false };
                let gap_zero = bytes.get(spec_at..offset).is_some_and(|b| b.iter().all(|&x| x == 0));
                gap_zero && offset + crate::descriptor::pattern_size(dims) <= bytes.len()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table says, for every generation and opcode byte, what
    /// [`Erratum::covers`] says by name, and places each field where the
    /// layout's walk does.
    #[test]
    fn the_table_places_every_erratum_where_its_names_resolve() {
        let mut placed = 0;
        for g in Generation::ALL {
            for op in 0..=u8::MAX {
                let mut raw = [0u8; BUNDLE_BYTES];
                raw[0] = op;
                let layout = Bundle::decode(&raw).layout();
                let here = on(g, op);
                let ids: Vec<&str> = here.iter().map(|p| p.erratum.id).collect();
                let want: Vec<&str> =
                    ERRATA.iter().filter(|e| e.amends.opcodes.contains(&op) && e.amends.generations.contains(&g)).map(|e| e.id).collect();
                assert_eq!(ids, want, "{g} {op:#04x}");
                for p in here {
                    for (name, at) in &p.fields {
                        assert_eq!(at.map(|a| (a.off, a.size)), layout.resolve(name), "{} {name} on {op:#04x}", p.erratum.id);
                        // A listed field is covered by its name and only by it.
                        let f = |field: &str| Finding {
                            code: p.erratum.amends.check.code,
                            field: field.into(),
                            offset: 0,
                            section: "",
                            confidence: crate::provenance::Confidence::Confirmed,
                            severity: crate::provenance::Severity::Error,
                            message: String::new(),
                            erratum: None,
                        };
                        assert!(p.covers(&f(name), &raw, layout).is_some(), "{} {name}", p.erratum.id);
                        assert!(p.covers(&f(&format!("{name}_not")), &raw, layout).is_none(), "{} {name}", p.erratum.id);
                        placed += 1;
                    }
                    if let Accepts::Values { all } = p.erratum.accepts {
                        for (c, (of, _)) in all.iter().zip(&p.conds) {
                            match of {
                                Of::Own => assert!(c.field.is_empty()),
                                Of::Field(at) => assert_eq!(at.map(|a| (a.off, a.size)), layout.resolve(c.field), "{} {}", p.erratum.id, c.field),
                            }
                        }
                    }
                }
            }
        }
        assert!(placed > 50, "only {placed} placed fields");
    }
}
