//! The Pool and Branch bands on the fast path. Their rules tie fields
//! together (the scale depends on the function; the dtype and operand kind
//! matter only for a conditional branch), so each is one predicate shared
//! with the reporting path (`band::pool_ok`, `band::branch_ok`), read at
//! offsets taken from the layouts. In the amended tables, a byte rule an
//! erratum ties to other fields (the semaphore's no-wait and no-action
//! errata: a zero comparator with the wait fields zero) is tested here too,
//! by the predicate the amending reads (`amend::BandAmender`).

use super::super::amend::BandAmender;
use super::super::band::{self, BandKind};
use super::band_rule::{BandTest, SETS};
use super::{dclass, offset, Raw};
use crate::bundle::{BranchBundle, PoolCopyBundle};

/// An opcode's band when its rules tie fields together: the fields' offsets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum TiedBand {
    /// Byte rules only (or none).
    #[default]
    None,
    Pool {
        func: u8,
        scale: u8,
        mode: u8,
    },
    Branch {
        comp_op: u8,
        lhs_dtype: u8,
        ap_kind: u8,
    },
    /// Byte rules an erratum amends by other fields too (amended tables
    /// only): `count` of [`AmendedTest`]s from `first` in the table's list.
    Amended {
        first: u8,
        count: u8,
    },
}

/// A byte rule of the amended tables whose value an erratum accepts by
/// other fields too: its test (the set, as amended by value alone) and
/// every erratum that may amend its finding.
#[derive(Clone, Debug, Default)]
pub(super) struct AmendedTest {
    pub(super) test: BandTest,
    pub(super) errata: Vec<BandAmender>,
}

impl AmendedTest {
    /// Whether the rule holds or an erratum accepts its byte's value: no
    /// finding, or only ones the amending makes notes.
    #[inline]
    fn clean(&self, raw: Raw, allowed: &[[u8; 0x100]; SETS]) -> bool {
        let v = raw.byte(self.test.at);
        allowed[usize::from(self.test.set) & (SETS - 1)][usize::from(v)] != 0 || self.errata.iter().any(|e| e.accepts(raw.0, v))
    }
}

impl TiedBand {
    /// The tied band of a band of `kind`; `None` if a field is missing from
    /// its layout (the band then stays on the reporting path).
    pub(super) fn of(kind: BandKind) -> Option<TiedBand> {
        let at = |layout: &crate::layout::Layout, field: &str| layout.field_offset(field).map(offset);
        Some(match kind {
            BandKind::Bytes => TiedBand::None,
            BandKind::Pool => {
                let l = &PoolCopyBundle::LAYOUT;
                TiedBand::Pool { func: at(l, "func")?, scale: at(l, "scale_or_fill")?, mode: at(l, "mode")? }
            }
            BandKind::Branch => {
                let l = &BranchBundle::LAYOUT;
                TiedBand::Branch { comp_op: at(l, "comp_op")?, lhs_dtype: at(l, "lhs_dtype")?, ap_kind: at(l, "ap_kind")? }
            }
        })
    }

    /// Whether the band passes; `lhs_class` gives the class of a branch's
    /// lhs dtype byte (read as a whole-byte tag), `amended` and `allowed`
    /// the table's amended tests and byte-rule sets.
    #[inline(always)]
    pub(super) fn clean(self, raw: Raw, lhs_class: impl Fn(u8) -> u8, amended: &[AmendedTest], allowed: &[[u8; 0x100]; SETS]) -> bool {
        match self {
            TiedBand::None => true,
            TiedBand::Amended { first, count } => match amended.get(usize::from(first)..usize::from(first) + usize::from(count)) {
                Some(tests) => tests.iter().all(|t| t.clean(raw, allowed)),
                // Not in the table (plans name only tests it has): left to the reporting checks.
                None => false,
            },
            TiedBand::Pool { func, scale, mode } => band::pool_ok(raw.byte(func), raw.word(scale), raw.byte(mode)),
            TiedBand::Branch { comp_op, lhs_dtype, ap_kind } => {
                let valid = lhs_class(raw.byte(lhs_dtype)) & dclass::VALID != 0;
                band::branch_ok(raw.byte(comp_op), valid, raw.byte(ap_kind))
            }
        }
    }
}
