//! Byte enumerations of the control bands: ALU ops, branch comparators,
//! semaphore comparators and subtypes, Pool functions. Each is a table with its
//! provenance; the validator and the text format both read these tables.

use crate::provenance::{Confidence, Provenance};
use serde::Serialize;

/// A byte-valued enumeration of the spec.
#[derive(Debug, Serialize)]
pub struct EnumTable {
    /// The table's name, as the text format's errors and `tpb facts` show it (`alu_op`).
    pub name: &'static str,
    /// The spec section and confidence of the table.
    pub prov: Provenance,
    /// Whether the spec lists every value (`false`: it elides some, so an
    /// unlisted value is only suspicious).
    pub complete: bool,
    /// Each listed value and its name, in ascending value order; the names
    /// are the text format's spellings.
    pub entries: &'static [(u8, &'static str)],
    /// What the values mean, in a line, for the C header and `tpb facts`.
    pub doc: &'static str,
}

impl EnumTable {
    /// The name of value `v`; `None` if the table does not list it.
    pub fn name_of(&self, v: u8) -> Option<&'static str> {
        self.entries.iter().find(|e| e.0 == v).map(|e| e.1)
    }
    /// The value named `name` (exact spelling); `None` if no entry has it.
    pub fn value_of(&self, name: &str) -> Option<u8> {
        self.entries.iter().find(|e| e.1 == name).map(|e| e.0)
    }
    /// Whether the table lists value `v`.
    pub fn contains(&self, v: u8) -> bool {
        self.name_of(v).is_some()
    }
}

/// ALU op wire byte (RegisterAlu / TensorTensor / TensorScalar); the spec elides part of it.
pub static ALU_OP: EnumTable = EnumTable {
    name: "alu_op",
    prov: Provenance::new("1.4 / D-M10", Confidence::Strong),
    complete: false,
    entries: &[
        (0x04, "add"),
        (0x05, "sub"),
        (0x06, "mult"),
        (0x08, "max"),
        (0x09, "min"),
        (0x13, "is_gt"),
        (0x14, "is_ge"),
        (0x15, "is_le"),
        (0x16, "is_lt"),
        (0x18, "not_eq"),
        (0x19, "abs"),
        (0x1a, "pow"),
        (0x1b, "mod"),
        (0x1d, "rsqrt"),
    ],
    doc: "ALU operation byte; values between the listed ones are elided by the spec",
};

/// Branch comparator (+0x0C of the branch bundle). Only the ends of the IMM and
/// REG ranges are named by the spec, so the middle values carry their number.
pub static BRANCH_COMP_OP: EnumTable = EnumTable {
    name: "comp_op",
    prov: Provenance::new("1.5 / D-M10", Confidence::Confirmed),
    complete: true,
    entries: &[
        (0, "always"),
        (1, "imm_lt"),
        (2, "imm_2"),
        (3, "imm_3"),
        (4, "imm_4"),
        (5, "imm_5"),
        (6, "imm_gt"),
        (9, "reg_lt"),
        (10, "reg_10"),
        (11, "reg_11"),
        (12, "reg_12"),
        (13, "reg_13"),
        (14, "reg_gt"),
    ],
    doc: "0 = unconditional; 1..6 compare against an immediate; 9..14 against a register",
};

/// Semaphore WAIT comparator (+0x20 of the semaphore record).
pub static SEMAPHORE_CMP_OP: EnumTable = EnumTable {
    name: "cmp_op",
    prov: Provenance::new("1.6 / 1.14", Confidence::Confirmed),
    complete: true,
    entries: &[(0x01, "eq"), (0x04, "wait_dec"), (0x05, "ge"), (0x85, "ge_reg")],
    doc: "0x04 is the default (wait then decrement); 0x85 compares against a register",
};

/// Semaphore ACT subtype (+0x22 of the semaphore record).
pub static SEMAPHORE_SUBTYPE: EnumTable = EnumTable {
    name: "subtype",
    prov: Provenance::new("1.6 / 1.14", Confidence::Confirmed),
    complete: true,
    entries: &[(0x11, "evt_set"), (0x13, "inc"), (0x14, "dec"), (0x15, "add_imm"), (0x17, "sub_imm"), (0x19, "set")],
    doc: "0x11 targets the event bank instead of a semaphore",
};

/// Pool function (+0x24 of a Family C Pool bundle).
pub static POOL_FUNC: EnumTable = EnumTable {
    name: "func",
    prov: Provenance::new("2.1 §Family C", Confidence::Confirmed),
    complete: true,
    entries: &[(1, "max"), (2, "avg")],
    doc: "MaxPool or AvgPool",
};

/// The ADDR4 mode nibble, `byte3 & 0x60` (§2.2).
pub static ADDR4_MODE: EnumTable = EnumTable {
    name: "addr4_mode",
    prov: Provenance::new("2.2", Confidence::Confirmed),
    complete: true,
    entries: &[(0x00, "static"), (0x20, "indirect"), (0x40, "active"), (0x60, "dead")],
    doc: "bit 29 marks a gather index; bit 30 a dynamic access pattern; both together are never produced",
};

/// Every enumeration, for `tpb facts` and the C header.
pub static ALL: &[&EnumTable] = &[&ALU_OP, &BRANCH_COMP_OP, &SEMAPHORE_CMP_OP, &SEMAPHORE_SUBTYPE, &POOL_FUNC, &ADDR4_MODE];
