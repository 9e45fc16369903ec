//! Control-band checks: the non-operand bytes of a body (matmul perf and
//! group selectors, ALU ops, semaphore comparators, Pool and branch fields).
//!
//! Most of them are one byte against a fixed set of values. Those are
//! declared once as [`ByteRule`]s: the reporting path reads each rule, and
//! the fast path tabulates the same rules (allowed or not, per value) and
//! places them per opcode. Pool and branch rules tie fields together and
//! stay code.

use super::Ctx;
use crate::bundle::{control::*, family_c::PoolCopyBundle, BodyKind, Bundle};
use crate::checks::*;
use crate::enums as en;
use crate::generation::Generation;
use crate::opcode::OpcodeInfo;
use std::sync::OnceLock;

/// One band byte whose legal values are a fixed set.
pub(super) struct ByteRule {
    /// Field name in the body layout.
    pub field: &'static str,
    pub check: &'static Check,
    /// The generations the rule holds on.
    pub on: &'static [Generation],
    pub allows: fn(u8) -> bool,
    /// The finding's message for a value it refuses.
    pub says: fn(u8) -> String,
}

/// Every byte rule; the fast path's sets are indexed like this list.
pub(super) static BYTE_RULES: [&ByteRule; 8] = [&PERF_SEL, &ROW_GROUP, &COL_GROUP, &ALU_OP0, &ALU_OP1, &ALU_OP, &SEMAPHORE_CMP, &SEMAPHORE_SUB];

static PERF_SEL: ByteRule = ByteRule {
    field: "perf_sel",
    check: &MATMUL_PERF_SEL,
    on: &Generation::ALL,
    allows: |v| matches!(v, 0 | 2 | 3),
    says: |v| format!("perf_sel is {v}"),
};
static ROW_GROUP: ByteRule = ByteRule {
    field: "row_group",
    check: &MATMUL_ROW_GROUP,
    on: &[Generation::V2],
    allows: |v| matches!(v, 1 | 2 | 4 | 8),
    says: |v| format!("row_group is {v}"),
};
static COL_GROUP: ByteRule = ByteRule {
    field: "col_group_norm",
    check: &MATMUL_COL_GROUP,
    on: &[Generation::V2],
    allows: |v| matches!(v, 1 | 2 | 4 | 8 | 16),
    says: |v| format!("col_group_norm is {v}"),
};
const fn alu_rule(field: &'static str) -> ByteRule {
    ByteRule {
        field,
        check: &UNKNOWN_ALU_OP,
        on: &Generation::ALL,
        allows: |v| en::ALU_OP.contains(v),
        says: |v| format!("ALU op {v:#04x} is not in the spec's (partial) list"),
    }
}
static ALU_OP0: ByteRule = alu_rule("op0");
static ALU_OP1: ByteRule = alu_rule("op1");
static ALU_OP: ByteRule = alu_rule("alu_op");
static SEMAPHORE_CMP: ByteRule = ByteRule {
    field: "cmp_op",
    check: &SEMAPHORE_CMP_OP,
    on: &Generation::ALL,
    allows: |v| en::SEMAPHORE_CMP_OP.contains(v),
    says: |v| format!("semaphore comparator {v:#04x} is not in the table"),
};
static SEMAPHORE_SUB: ByteRule = ByteRule {
    field: "subtype",
    check: &SEMAPHORE_SUBTYPE,
    on: &Generation::ALL,
    allows: |v| en::SEMAPHORE_SUBTYPE.contains(v),
    says: |v| format!("semaphore subtype {v:#04x} is not in the table"),
};

/// The values the byte rule of `field` allows (`allowed`) or refuses; empty
/// when no rule has that field. The generator and mutator pick from these.
pub(crate) fn byte_values(field: &str, allowed: bool) -> Vec<u8> {
    match BYTE_RULES.iter().find(|r| r.field == field) {
        Some(r) => (0..=u8::MAX).filter(|&v| (r.allows)(v) == allowed).collect(),
        None => Vec::new(),
    }
}

/// The byte rules of a body kind, as indices into [`BYTE_RULES`].
fn rules_of(kind: BodyKind) -> &'static [usize] {
    match kind {
        BodyKind::Matmul => &[0, 1, 2],
        BodyKind::MatmulMx => &[0],
        BodyKind::TensorScalar => &[3, 4],
        BodyKind::TensorTensor => &[5],
        BodyKind::Semaphore => &[6, 7],
        _ => &[],
    }
}

/// A byte rule placed in a body: the field's offset in the bundle.
#[derive(Clone, Copy, Debug)]
pub(super) struct PlacedRule {
    pub at: usize,
    /// Index into [`BYTE_RULES`].
    pub rule: usize,
}

/// The byte rules of a body kind with their offsets, resolved once.
pub(super) fn placed_rules(kind: BodyKind) -> &'static [PlacedRule] {
    static TABLE: OnceLock<Vec<Vec<PlacedRule>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        BodyKind::ALL
            .iter()
            .map(|&k| {
                let layout = k.layout();
                rules_of(k)
                    .iter()
                    .filter_map(|&rule| {
                        let field = BYTE_RULES.get(rule)?.field;
                        Some(PlacedRule { at: layout.field_offset(field)?, rule })
                    })
                    .collect()
            })
            .collect()
    });
    table.get(kind as usize).map_or(&[], Vec::as_slice)
}

/// What an opcode's band is checked by: byte rules, or the rules of the
/// Pool or Branch band, which tie fields together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BandKind {
    Bytes,
    Pool,
    Branch,
}

pub(super) fn kind_of(op: &OpcodeInfo) -> BandKind {
    match op.body {
        BodyKind::Branch => BandKind::Branch,
        BodyKind::PoolCopy if op.byte == POOL_OPCODE => BandKind::Pool,
        _ => BandKind::Bytes,
    }
}

/// The control-band checks of a body (run on every path, fast or not).
pub(super) fn band(cx: &mut Ctx<'_>, bundle: &Bundle, op: &OpcodeInfo) {
    match bundle {
        Bundle::PoolCopy(b) if op.byte == POOL_OPCODE => pool(cx, b),
        Bundle::Branch(b) => branch(cx, b),
        _ => {
            let bytes = bundle.as_bytes();
            for p in placed_rules(bundle.kind()) {
                let (Some(r), Some(&v)) = (BYTE_RULES.get(p.rule), bytes.get(p.at)) else { continue };
                if r.on.contains(&cx.generation) && !(r.allows)(v) {
                    cx.report(r.check, r.field, || (r.says)(v));
                }
            }
        }
    }
}

/// The Pool opcode, whose band carries func / mode / scale.
pub const POOL_OPCODE: u8 = 0x45;
/// f32 bits of 1.0: the Max pool scale.
pub const POOL_MAX_SCALE: u32 = 0x3F80_0000;
/// Pool sub-mode constant.
pub const POOL_SUB_MODE: u8 = 3;

/// Whether a Pool's scale suits its function: 1.0 exactly for max, a
/// reciprocal in (0, 1] for avg; `None` when the function is neither.
fn pool_scale_ok(func: u8, scale: u32) -> Option<bool> {
    match en::POOL_FUNC.name_of(func)? {
        "max" => Some(scale == POOL_MAX_SCALE),
        "avg" => {
            let s = f32::from_bits(scale);
            Some(s > 0.0 && s <= 1.0)
        }
        _ => Some(true),
    }
}

/// The Pool band's rules as one predicate, for the fast path.
pub(super) fn pool_ok(func: u8, scale: u32, mode: u8) -> bool {
    pool_scale_ok(func, scale) == Some(true) && mode == POOL_SUB_MODE
}

fn pool(cx: &mut Ctx<'_>, b: &PoolCopyBundle) {
    let scale = b.scale_or_fill.get();
    match (en::POOL_FUNC.name_of(b.func), pool_scale_ok(b.func, scale)) {
        (None, _) => cx.report(&POOL_FUNC, "func", || format!("Pool func {} is neither 1 (max) nor 2 (avg)", b.func)),
        (Some("max"), Some(false)) => cx.report(&POOL_SCALE, "scale_or_fill", || format!("max pool scale is {scale:#010x}, not 1.0")),
        (Some(_), Some(false)) => {
            let s = f32::from_bits(scale);
            cx.report(&POOL_SCALE, "scale_or_fill", || format!("avg pool scale {s} is not a reciprocal in (0, 1]"));
        }
        _ => {}
    }
    if b.mode != POOL_SUB_MODE {
        cx.report(&POOL_MODE, "mode", || format!("Pool mode is {}, not 3", b.mode));
    }
}

/// Operand AP kind of a conditional branch: a scalar register (D-M10).
pub const BRANCH_AP_KIND_SCALAR: u8 = 3;

/// The Branch band's rules as one predicate, for the fast path (given
/// whether the lhs dtype tag is valid on the generation).
pub(super) fn branch_ok(comp_op: u8, lhs_dtype_valid: bool, ap_kind: u8) -> bool {
    en::BRANCH_COMP_OP.contains(comp_op) && (comp_op == 0 || (lhs_dtype_valid && ap_kind == BRANCH_AP_KIND_SCALAR))
}

fn branch(cx: &mut Ctx<'_>, b: &BranchBundle) {
    if !en::BRANCH_COMP_OP.contains(b.comp_op) {
        cx.report(&BRANCH_COMP_OP, "comp_op", || format!("comp_op {} is not 0, 1..6 or 9..14", b.comp_op));
        return;
    }
    if b.comp_op != 0 {
        cx.dtype("lhs_dtype", b.lhs_dtype);
        if b.ap_kind != BRANCH_AP_KIND_SCALAR {
            cx.report(&BRANCH_AP_KIND, "ap_kind", || format!("conditional branch ap_kind is {}, not 3", b.ap_kind));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_placed_in_each_kind_that_lists_it() {
        let mut placed = 0;
        for &k in BodyKind::ALL {
            assert_eq!(placed_rules(k).len(), rules_of(k).len(), "{k:?}: a rule field is missing from its layout");
            for p in placed_rules(k) {
                let r = BYTE_RULES[p.rule];
                assert_eq!(k.layout().field_offset(r.field), Some(p.at));
                assert_eq!(k.layout().resolve(r.field).map(|(_, size)| size), Some(1), "{}: a byte field", r.field);
                placed += 1;
            }
        }
        assert_eq!(placed, 9);
        // Every rule is used by some kind.
        for i in 0..BYTE_RULES.len() {
            assert!(BodyKind::ALL.iter().any(|&k| rules_of(k).contains(&i)), "rule {i} unused");
        }
    }

    #[test]
    fn rules_keep_their_sets() {
        let allowed = |r: &ByteRule| (0..=u8::MAX).filter(|&v| (r.allows)(v)).collect::<Vec<u8>>();
        assert_eq!(allowed(&PERF_SEL), [0, 2, 3]);
        assert_eq!(allowed(&ROW_GROUP), [1, 2, 4, 8]);
        assert_eq!(allowed(&COL_GROUP), [1, 2, 4, 8, 16]);
        assert_eq!(allowed(&ALU_OP).len(), en::ALU_OP.entries.len());
        assert_eq!(allowed(&SEMAPHORE_CMP), [0x01, 0x04, 0x05, 0x85]);
        assert_eq!(allowed(&SEMAPHORE_SUB), [0x11, 0x13, 0x14, 0x15, 0x17, 0x19]);
    }
}
