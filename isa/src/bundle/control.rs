//! SP-engine records: the semaphore (0xA0, §1.14) and the branch (0xA9, D-M10).

use super::header::body;
use crate::enums::{BRANCH_COMP_OP, SEMAPHORE_CMP_OP, SEMAPHORE_SUBTYPE};
use crate::layout::Fmt::*;
use zerocopy::little_endian::{U32, U64};

body! {
    /// Wait on one semaphore and act on another; 256 semaphores per core.
    struct SemaphoreBundle as "NEURON_ISA_TPB_SEMAPHORE", size 64, ["1.14", Confirmed] {
        header;
        /// Embedded event predicate: mode at +4, index at +5, value at +8.
        events: [u8; 8] => Bytes, "1.14", Confirmed;
        /// Reserved.
        _r0c: [u8; 20] => Bytes, "1.14", Confirmed;
        /// WAIT comparator.
        cmp_op: u8 => Enum(&SEMAPHORE_CMP_OP), "1.6 / 1.14", Confirmed;
        /// WAIT semaphore index.
        wait_idx: u8 => Dec, "1.14", Confirmed;
        /// ACT subtype.
        subtype: u8 => Enum(&SEMAPHORE_SUBTYPE), "1.6 / 1.14", Confirmed;
        /// ACT semaphore index.
        act_idx: u8 => Dec, "1.14", Confirmed;
        /// WAIT threshold (a register id for ge_reg).
        wait_value: U32 => Hex, "1.14", Confirmed;
        /// ACT operand.
        act_value: U32 => Hex, "1.14", Confirmed;
        /// Reserved.
        _r2c: [u8; 20] => Bytes, "1.14", Confirmed;
    }
}

body! {
    /// CompareAndBranch and UnconditionalBranch.
    struct BranchBundle as "NEURON_ISA_TPB_BUNDLE_BRANCH", size 64, ["D-M10", Confirmed] {
        header;
        sync;
        /// Comparator: 0 always, 1..6 immediate, 9..14 register.
        comp_op: u8 => Enum(&BRANCH_COMP_OP), "1.5 / D-M10", Confirmed;
        /// LHS dtype wire tag.
        lhs_dtype: u8 => Dtype, "D-M10", Confirmed;
        /// Operand access-pattern kind (3 = scalar register).
        ap_kind: u8 => Dec, "D-M10", Confirmed;
        /// Reserved.
        _r0f: u8 => Hex, "D-M10", Confirmed;
        /// RHS immediate (immediate form).
        rhs_imm: U32 => Hex, "D-M10", Confirmed;
        /// Reserved.
        _r14: [u8; 12] => Bytes, "D-M10", Confirmed;
        /// LHS register id.
        lhs_reg: u8 => Dec, "D-M10", Confirmed;
        /// RHS register id (register form).
        rhs_reg: u8 => Dec, "D-M10", Confirmed;
        /// Reserved.
        _r22: [u8; 14] => Bytes, "D-M10", Confirmed;
        /// Branch target id.
        target_pc: U64 => Hex, "D-M10", Confirmed;
        /// Reserved.
        _r38: [u8; 8] => Bytes, "D-M10", Confirmed;
    }
}

body! {
    /// Any bundle whose body the spec does not lay out: kept byte for byte.
    struct OpaqueBundle as "NEURON_ISA_TPB_BUNDLE_OPAQUE", size 64, ["2.1", Confirmed] {
        header;
        /// The 60-byte body.
        body: [u8; 60] => Bytes, "2.1", Confirmed;
    }
}
