//! Errata: where programs written by the real compiler contradict the spec,
//! each contradiction stated once, as data, with the narrowest statement about
//! the encoding that explains it.
//!
//! Real compiled programs run on the hardware, so they outrank the spec. An
//! erratum never switches a check off: it names the check, opcodes, field and
//! generations it amends, and *which encodings* it accepts (values, or a
//! corrected reading of the layout). A finding the erratum accepts is still
//! reported, at severity `note`, carrying the erratum id; anything else the
//! check refuses stays refused. An erratum holds on the generations its
//! evidence comes from, for every compiler build of them (a raw bundle file
//! names no build). The evidence itself (builds, files, bundles) is not typed
//! here: `tpb evidence` regenerates it from real programs, and the tests
//! check that it supports every erratum and that no contradiction lacks one.

use crate::generation::Generation;
use crate::provenance::Confidence;
use crate::validate::checks::{self, Check};
use serde::Serialize;

/// Which verdicts the validator gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The spec amended by [`ERRATA`] (the default).
    #[default]
    Amended,
    /// The spec alone.
    Spec,
}

impl Profile {
    pub const fn as_str(self) -> &'static str {
        match self {
            Profile::Amended => "amended",
            Profile::Spec => "spec",
        }
    }
}

/// A field of the bundle's body layout must hold one of `values` (read
/// little-endian over the field's width). The empty field name means the
/// field the finding names.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Cond {
    pub field: &'static str,
    pub values: &'static [u64],
}

const fn own(values: &'static [u64]) -> Cond {
    Cond { field: "", values }
}
const fn at(field: &'static str, values: &'static [u64]) -> Cond {
    Cond { field, values }
}

/// The encodings an erratum accepts where the spec refuses them.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Accepts {
    /// Every condition holds (e.g. the comparator is 0 while the wait fields are 0).
    Values { all: &'static [Cond] },
    /// The byte is two 4-bit dtype tags, each a wire tag; the low one types
    /// the slot `slot`, whose rules are then checked with it.
    NibbleDtypes { slot: &'static str },
    /// The field holds `value` and the slot `slot` is typed by the dtype
    /// field `by` instead; the slot's rules are then checked with it.
    TypedBy { value: u64, slot: &'static str, by: &'static str },
    /// The slot's address is aligned to the class of the dtype in field `by`.
    AlignedTo { by: &'static str },
    /// The slot is a MEM_PATTERN of `dims` free dims at byte `offset`, the
    /// bytes from its spec offset up to there zero; its rules are then checked there.
    SlotAt { slot: &'static str, dims: usize, offset: usize },
    /// The opcode byte is one real programs use, though no table names it
    /// (its body stays opaque).
    Opcode,
}

/// What an erratum amends: one check, on some opcodes, fields and generations.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Amends {
    #[serde(serialize_with = "check_code")]
    pub check: &'static Check,
    pub opcodes: &'static [u8],
    /// Field paths as findings name them (`in1.addr`, `out.num[2]`).
    pub fields: &'static [&'static str],
    pub generations: &'static [Generation],
}

fn check_code<S: serde::Serializer>(c: &&'static Check, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.code)
}

/// One contradiction between the spec and real programs, resolved.
#[derive(Debug, Serialize)]
pub struct Erratum {
    /// Stable id, carried by the findings it overrides.
    pub id: &'static str,
    pub amends: Amends,
    /// The spec's claim, in brief.
    pub claim: &'static str,
    /// What real programs write.
    pub observed: &'static str,
    pub accepts: Accepts,
    /// The resolution: the narrowest statement about the encoding.
    pub resolution: &'static str,
    /// How sure the resolution is (the observation itself is a count).
    pub confidence: Confidence,
}

impl Erratum {
    /// Whether the erratum amends this check on this opcode, field and generation.
    pub fn covers(&self, code: &str, opcode: u8, field: &str, g: Generation) -> bool {
        self.amends.check.code == code
            && self.amends.opcodes.contains(&opcode)
            && self.amends.fields.contains(&field)
            && self.amends.generations.contains(&g)
    }
}

use Generation::{V2, V3};
/// The comparison ALU ops of §1.4 (is_gt, is_ge, is_le, is_lt, not_eq): an erratum about a
/// comparison's result holds for the class, not only for the ops one program happened to use.
const COMPARISONS: &[u64] = &[0x13, 0x14, 0x15, 0x16, 0x18];
const V2_V3: &[Generation] = &[V2, V3];

macro_rules! errata {
    ($( $id:literal $check:ident [$($op:literal),*] [$($field:literal),*] $gens:expr, $accepts:expr, $conf:ident;
        claim $claim:literal; observed $obs:literal; resolution $res:literal; )*) => {
        /// Every erratum, in id order.
        pub static ERRATA: &[Erratum] = &[ $( Erratum {
            id: $id,
            amends: Amends { check: &checks::$check, opcodes: &[$($op),*], fields: &[$($field),*], generations: $gens },
            claim: $claim,
            observed: $obs,
            accepts: $accepts,
            resolution: $res,
            confidence: Confidence::$conf,
        }, )* ];
    };
}

errata! {
    "activation-in-dtype-nibbles" INVALID_DTYPE [0x21] ["in_dtype"] V2_V3, Accepts::NibbleDtypes { slot: "src" }, Strong;
    claim "Activation +0x20 is one dtype tag 1..=16 (§2.1 Family A)";
    observed "+0x20 holds bytes such as 0xaa, 0x7a, 0xa6, 0xa3, 0xa8: two 4-bit tags; the low one matches the src slot's alignment on every real bundle";
    resolution "on v2/v3, +0x20 packs two dtype tags as TensorTensor's in_dtype_nibbles does: the low nibble types the src slot, the high one is a second tag (meaning unknown); both must be wire tags";

    "collective-coarse-word-len-zero" INST_WORD_LEN [0xDA] ["inst_word_len"] &[V3], Accepts::Values { all: &[own(&[0x00])] }, Strong;
    claim "inst_word_len is always 0x10 (§2.1, the hardcoded setupHeader immediate)";
    observed "every CollectiveComputeCoarse (0xDA) bundle of the v3 programs has header bytes da 00 00 00";
    resolution "on v3, opcode 0xDA carries inst_word_len 0x00 (its header is not written by setupHeader)";

    "loadstationary-col-group-15" MATMUL_COL_GROUP [0x01] ["col_group_norm"] &[V2], Accepts::Values { all: &[own(&[15])] }, Strong;
    claim "the CoreV2 normalized column group is 1, 2, 4, 8 or 16 (§2.5, inferred)";
    observed "LoadStationary writes 15 at +0x2E beside 1 and 2";
    resolution "on v2, LoadStationary's +0x2E also holds 15";

    "loadstationary-perf-sel-1" MATMUL_PERF_SEL [0x01] ["perf_sel"] V2_V3, Accepts::Values { all: &[own(&[1])] }, Strong;
    claim "the matmul perf-mode selector is 0, 2 or 3 (§2.5, inferred)";
    observed "LoadStationary writes 1 at +0x21 beside 0 and 2; MatMul never does";
    resolution "LoadStationary's +0x21 also holds 1";

    "matmul-dst-dtype-zero" INVALID_DTYPE [0x02] ["dst_dtype_dense"] V2_V3, Accepts::Values { all: &[own(&[0])] }, Strong;
    claim "a dense MatMul writes its PSUM destination dtype at +0x23 (§2.10)";
    observed "+0x23 is 0 in every real MatMul, and +0x28 too";
    resolution "on v2/v3, MatMul's +0x23 may be 0: no destination dtype on the wire (the psum_dst slot's dtype rules then have nothing to check)";

    "matmul-row-group-zero" MATMUL_ROW_GROUP [0x01, 0x02] ["row_group"] &[V2], Accepts::Values { all: &[own(&[0])] }, Strong;
    claim "the CoreV2 PE row group at +0x24 is 1, 2, 4 or 8 (§2.5, inferred)";
    observed "+0x24 is 0 in every real LoadStationary and MatMul";
    resolution "on v2, +0x24 may be 0 (unset)";

    "max8-out-2d-at-0x30" ZERO_NUM [0x6C] ["out.num[2]", "out.num[3]"] &[V2], Accepts::SlotAt { slot: "out", dims: 2, offset: 0x30 }, Strong;
    claim "Max8 is Family C: its output is a MEM_PATTERN4D at +0x2C (§2.1, assigned by width)";
    observed "+0x2C..+0x2F are zero and an address, strides and nums (8, 1) follow at +0x30, as in BNStats' 2D output";
    resolution "on v2, Max8's output is a MEM_PATTERN2D at +0x30 (the mixed-width placement of BNStats), +0x2C..+0x2F zero";

    "memset-dtype-at-src-byte" INVALID_DTYPE [0x49] ["dst_dtype"] V2_V3, Accepts::TypedBy { value: 0, slot: "out", by: "src_dtype" }, Strong;
    claim "a Family C output is typed by dst_dtype at +0x21 (§2.1)";
    observed "Memset writes 0 at +0x21 and a dtype at +0x20 that matches the output's alignment on every real bundle";
    resolution "on v2/v3, Memset types its output by +0x20 and leaves +0x21 zero";

    "semaphore-no-action" SEMAPHORE_SUBTYPE [0xA0] ["subtype"] V2_V3, Accepts::Values { all: &[own(&[0]), at("act_idx", &[0]), at("act_value", &[0])] }, Strong;
    claim "the semaphore subtype is one of 0x11, 0x13, 0x14, 0x15, 0x17, 0x19 (§1.6)";
    observed "subtype 0 on every real EventSemaphore, always with act_idx 0 and act_value 0";
    resolution "subtype 0 means no semaphore action, and then act_idx and act_value are 0";

    "semaphore-no-wait" SEMAPHORE_CMP_OP [0xA0] ["cmp_op"] V2_V3, Accepts::Values { all: &[own(&[0]), at("wait_idx", &[0]), at("wait_value", &[0])] }, Strong;
    claim "the semaphore comparator is one of 0x01, 0x04, 0x05, 0x85 (§1.6)";
    observed "comparator 0 on most real EventSemaphores, always with wait_idx 0 and wait_value 0 (the others use 0x05)";
    resolution "comparator 0 means no wait, and then wait_idx and wait_value are 0";

    "tensorscalar-alu-ops" UNKNOWN_ALU_OP [0x43] ["op0"] &[V2], Accepts::Values { all: &[own(&[0x0F, 0x12])] }, Inferred;
    claim "the ALU op bytes are those of §1.4 (a partial list)";
    observed "TensorScalar (0x43) op0 also holds 0x0f and 0x12";
    resolution "on v2, 0x0f and 0x12 are TensorScalar ALU ops too (names unknown)";

    "tensorscalar-op1-none" UNKNOWN_ALU_OP [0x43, 0x53] ["op1"] V2_V3, Accepts::Values { all: &[own(&[0])] }, Strong;
    claim "op1 is an ALU op byte of §1.4";
    observed "op1 is 0 on TensorScalar bundles that apply one operation";
    resolution "op1 0 means no second operation";

    "tensorscalar53-alu-03" UNKNOWN_ALU_OP [0x53] ["op0"] &[V2], Accepts::Values { all: &[own(&[0x03])] }, Inferred;
    claim "the ALU op bytes are those of §1.4 (a partial list)";
    observed "TensorScalar (0x53) op0 holds 0x03";
    resolution "on v2, 0x03 is an ALU op of opcode 0x53 (name unknown)";

    "tensortensor-alu-c4" UNKNOWN_ALU_OP [0x41] ["alu_op"] &[V2], Accepts::Values { all: &[own(&[0xC4]), at("in_dtype_nibbles", &[0x88])] }, Inferred;
    claim "the ALU op bytes are those of §1.4 (a partial list)";
    observed "TensorTensor alu_op 0xc4, always with two int32 inputs (in_dtype_nibbles 0x88)";
    resolution "on v2, 0xc4 is a TensorTensor ALU op on int32 inputs (name unknown)";

    "tensortensor-in1-aligned-to-out" MISALIGNED_ADDRESS [0x41] ["in1.addr"] &[V2], Accepts::AlignedTo { by: "out_dtype" }, Inferred;
    claim "in1's address is aligned to its own dtype's class (§2.2 addr_aligned_dtype, high nibble of +0x0C)";
    observed "in1 is 2 mod 4 for an f32 in1 on bundles whose output is bf16; aligned to the output dtype on every real bundle";
    resolution "on v2, TensorTensor's in1 may be aligned to the output dtype's class instead of its own";

    "tensortensor-psum-u8-compare" PSUM_WRITE_DTYPE [0x41] ["dst.addr"] &[V2], Accepts::Values { all: &[at("out_dtype", &[3]), at("alu_op", COMPARISONS)] }, Inferred;
    claim "a PSUM write uses a 4-byte dtype (§2.2 / 2.10)";
    observed "TensorTensor comparisons (is_gt 0x13, is_lt 0x16 seen) write u8 results into PSUM";
    resolution "on v2, a TensorTensor comparison (the §1.4 comparison ops is_gt, is_ge, is_le, is_lt, not_eq) may write a u8 destination in PSUM: a 0/1 result, not an accumulator";

    "unnamed-opcode-72" UNKNOWN_OPCODE [0x72] ["opcode"] &[V2], Accepts::Opcode, Strong;
    claim "the opcode byte is one of the opcode table's";
    observed "opcode 0x72 in the DVE streams of the v2 programs";
    resolution "on v2, 0x72 is an opcode (name and body unknown)";

    "unnamed-opcodes-b1-cc" UNKNOWN_OPCODE [0xB1, 0xCC] ["opcode"] V2_V3, Accepts::Opcode, Strong;
    claim "the opcode byte is one of the opcode table's (opcodes.tsv lists 0xB1 and 0xCC as seen, unnamed)";
    observed "every engine stream opens with 0xB1 (body zero); 0xCC follows it (body zero but for a small count at +0x0C)";
    resolution "on v2/v3, 0xB1 and 0xCC are opcodes (names and bodies unknown)";
}

/// Looks an erratum up by id.
pub fn by_id(id: &str) -> Option<&'static Erratum> {
    ERRATA.iter().find(|e| e.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::{Bundle, BUNDLE_BYTES};
    use crate::opcode;

    #[test]
    fn every_erratum_names_what_exists() {
        let mut ids: Vec<&str> = ERRATA.iter().map(|e| e.id).collect();
        let sorted = ids.clone();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids, sorted, "ids are unique and in order");
        for e in ERRATA {
            assert!(checks::by_code(e.amends.check.code).is_some(), "{}", e.id);
            assert!(!e.amends.opcodes.is_empty() && !e.amends.fields.is_empty() && !e.amends.generations.is_empty(), "{}", e.id);
            for &op in e.amends.opcodes {
                let known = opcode::lookup(op).is_some();
                // An opcode erratum is for bytes no table names; every other one amends a named op's field.
                assert_eq!(known, !matches!(e.accepts, Accepts::Opcode), "{} {op:#04x}", e.id);
                let mut raw = [0u8; BUNDLE_BYTES];
                raw[0] = op;
                let layout = Bundle::decode(&raw).layout();
                for f in e.amends.fields {
                    assert!(layout.resolve(f).is_some(), "{}: {f} is not a field of {}", e.id, layout.name);
                }
                let named: Vec<&str> = match e.accepts {
                    Accepts::Values { all } => all.iter().map(|c| c.field).filter(|f| !f.is_empty()).collect(),
                    Accepts::TypedBy { slot, by, .. } => vec![slot, by],
                    Accepts::AlignedTo { by } => vec![by],
                    Accepts::NibbleDtypes { slot } | Accepts::SlotAt { slot, .. } => vec![slot],
                    Accepts::Opcode => vec![],
                };
                for f in named {
                    assert!(layout.resolve(f).is_some() || layout.field_offset(f).is_some(), "{}: {f} is not in {}", e.id, layout.name);
                }
            }
        }
    }

    #[test]
    fn errata_amend_only_their_generations_opcodes_and_fields() {
        let Some(e) = by_id("semaphore-no-wait") else { panic!("no erratum semaphore-no-wait") };
        assert!(e.covers("semaphore-cmp-op", 0xA0, "cmp_op", Generation::V2));
        assert!(!e.covers("semaphore-cmp-op", 0xA0, "cmp_op", Generation::V4), "no v4 program was seen");
        assert!(!e.covers("semaphore-subtype", 0xA0, "cmp_op", Generation::V2));
        assert!(!e.covers("semaphore-cmp-op", 0xA0, "subtype", Generation::V2));
        assert!(by_id("nope").is_none());
    }
}
