//! The validator's checks as data: a stable kebab-case code, the spec section
//! and confidence of the invariant, and what it says. Severity follows the
//! confidence (see [`Confidence::severity`]).
//!
//! A table of the format's invariants, beside the opcode and dtype tables
//! rather than inside [`crate::validate`]: the validator reports them, but the
//! errata amend them, the mutator names the one it breaks and the evidence
//! counts each, and none of those should reach into the validator for it.

use crate::provenance::{Confidence, Provenance};
use serde::Serialize;

/// One documented invariant.
#[derive(Debug, Serialize)]
pub struct Check {
    /// The check's name in findings, reports and the C header (`inst-word-len`).
    pub code: &'static str,
    /// The spec section it comes from and how sure that is.
    pub prov: Provenance,
    /// The invariant, in one line.
    pub summary: &'static str,
}

macro_rules! checks {
    ($( $id:ident $code:literal $sec:literal $conf:ident $summary:literal; )*) => {
        $( #[doc = $summary] pub static $id: Check = Check {
            code: $code,
            prov: Provenance::new($sec, Confidence::$conf),
            summary: $summary,
        }; )*
        /// Every check, in the order the validator runs them.
        pub static ALL: &[&Check] = &[ $( &$id, )* ];
    };
}

checks! {
    INST_WORD_LEN "inst-word-len" "2.1" Confirmed "inst_word_len is 0x10 (0x11 only for QuantizeMx)";
    HEADER_RESERVED "header-reserved" "2.1" Confirmed "header bytes 2..3 are zero";
    UNKNOWN_OPCODE "unknown-opcode" "1.3 / D-J32" Confirmed "the opcode byte is in the opcode table";
    OPCODE_UNAVAILABLE "opcode-unavailable" "1.3 / D-J32" Confirmed "the opcode is encoded on the chosen generation";
    INVALID_DTYPE "invalid-dtype" "1.1 / D-D04" Confirmed "a dtype field holds a wire tag 1..=16";
    DTYPE_UNAVAILABLE "dtype-unavailable" "1.1 / D-M08" Confirmed "tag 16 (FP4-x4) exists only on CoreV4";
    MISALIGNED_ADDRESS "misaligned-address" "2.2 addr_aligned_dtype" Confirmed "the start address is aligned to the operand dtype's class";
    PSUM_WRITE_DTYPE "psum-write-dtype" "2.2 / 2.10" Confirmed "a PSUM write uses a 4-byte dtype (bf16 allowed for a matmul nc destination)";
    ADDRESS_OUTSIDE_MEMORY "address-outside-memory" "2.2" Strong "region bits set only inside the 4 MiB PSUM window at 32 MiB";
    MATMUL_DST_NOT_PSUM "matmul-dst-not-psum" "2.5" Confirmed "a matmul destination lies in the PSUM window";
    DEAD_ADDR_MODE "dead-addr-mode" "2.2" Confirmed "ADDR4 mode nibble 0x60 is never produced";
    REGISTER_ID "register-id" "2.2" Confirmed "a register-mode ADDR4 names a register id below 0x40";
    REGISTER_RESERVED_BITS "register-reserved-bits" "2.2" Confirmed "a register-mode ADDR4 has bits 8..30 zero";
    ZERO_NUM "zero-num" "2.3 / 2.4" Confirmed "every num of a static pattern is at least 1";
    MX_SCALE_NOT_SBUF "mx-scale-not-sbuf" "2.6" Confirmed "an MX scale tensor lies in SBUF";
    MX_STEP_DIR "mx-step-dir" "2.6" Confirmed "MX step direction is 0x01 or 0xFF";
    MX_ZERO_K_EXTENT "mx-zero-k-extent" "2.6" Confirmed "MX k_extent is non-zero";
    MX_SCALE_PART_RANGE "mx-scale-part-range" "2.6" Confirmed "MX scale_base_part is below the PE count 128";
    MATMUL_PERF_SEL "matmul-perf-sel" "2.5" Inferred "matmul perf-mode selector is 0, 2 or 3";
    MATMUL_ROW_GROUP "matmul-row-group" "2.5" Inferred "CoreV2 row group is 1, 2, 4 or 8";
    MATMUL_COL_GROUP "matmul-col-group" "2.5" Inferred "CoreV2 normalized column group is 1, 2, 4, 8 or 16";
    UNKNOWN_ALU_OP "unknown-alu-op" "1.4 / D-M10" Strong "an ALU op byte is one the spec lists (the list is partial)";
    POOL_FUNC "pool-func" "2.1 Family C" Confirmed "Pool func is 1 (max) or 2 (avg)";
    POOL_MODE "pool-mode" "2.1 Family C" Confirmed "Pool mode is 3";
    POOL_SCALE "pool-scale" "2.1 Family C" Confirmed "Pool scale is 1.0 for max and a reciprocal 1/N in (0, 1] for avg";
    SEMAPHORE_CMP_OP "semaphore-cmp-op" "1.6 / 1.14" Confirmed "semaphore comparator is one of 0x01, 0x04, 0x05, 0x85";
    SEMAPHORE_SUBTYPE "semaphore-subtype" "1.6 / 1.14" Confirmed "semaphore subtype is one of 0x11, 0x13, 0x14, 0x15, 0x17, 0x19";
    BRANCH_COMP_OP "branch-comp-op" "1.5 / D-M10" Confirmed "branch comp_op is 0, 1..6 or 9..14";
    BRANCH_AP_KIND "branch-ap-kind" "D-M10" Confirmed "a conditional branch's operand AP kind is 3 (scalar register)";
}

/// Looks a check up by its code.
pub fn by_code(code: &str) -> Option<&'static Check> {
    ALL.iter().copied().find(|c| c.code == code)
}

/// A recovered field breaks what every real bundle holds there
/// ([`crate::bundle::claims::CLAIMS`]). Not in [`ALL`]: the spec's
/// validator never runs it; only the separate layer
/// [`crate::validate::recovered_claims`] does, and only as `info`.
pub static RECOVERED_CLAIM: Check = Check {
    code: "recovered-claim",
    prov: Provenance::new("R", Confidence::Inferred),
    summary: "a recovered field holds what every real bundle of its opcode holds there",
};
