//! Errata: where programs written by the real compiler contradict the spec,
//! each contradiction stated once, as data, with the narrowest statement about
//! the encoding that explains it.
//!
//! Real compiled programs run on the hardware, so they outrank the spec. An
//! erratum never switches a check off: it names the check, opcodes, field and
//! generations it amends, and *which encodings* it accepts (values, or a
//! corrected reading of the layout). A finding the erratum accepts is still
//! reported, at severity `note`, carrying the erratum id; anything else the
//! check refuses stays refused. An erratum states where the spec's rule
//! really binds: for a class (every opcode or field, [`Scope::Every`]) where
//! the evidence contradicts the rule across one, and on every generation,
//! for every compiler build (a raw bundle file names no build). The held-out
//! evaluation (`tpb_oracle::evidence::holdout`) measures how far that
//! carries to a build it was not drawn from. The evidence itself (builds, files, bundles) is not typed
//! here: `tpb evidence` regenerates it from real programs, and the tests
//! check that it supports every erratum and that no contradiction lacks one.

use crate::checks::{self, Check};
use crate::generation::Generation;
use crate::provenance::Confidence;
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
    /// The profile's name in reports and on the command line: `amended` or `spec`.
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
    /// The field's path in the body layout (`cmp_op`), or `""` for the finding's own field.
    pub field: &'static str,
    /// The values it may hold for the erratum to apply.
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
    Values {
        /// The conditions, all of which must hold.
        all: &'static [Cond],
    },
    /// The byte is two 4-bit dtype tags, each a wire tag; the low one types
    /// the slot `slot`, whose rules are then checked with it.
    NibbleDtypes {
        /// The operand slot the low nibble types (`in0`).
        slot: &'static str,
    },
    /// The field holds `value` and the slot `slot` is typed by the dtype
    /// field `by` instead; the slot's rules are then checked with it.
    TypedBy {
        /// The value the amended field holds.
        value: u64,
        /// The operand slot retyped.
        slot: &'static str,
        /// The dtype field that types it instead.
        by: &'static str,
    },
    /// The slot's address is aligned to the class of the dtype in field `by`.
    AlignedTo {
        /// The dtype field whose alignment class applies.
        by: &'static str,
    },
    /// The slot is a MEM_PATTERN of `dims` free dims at byte `offset`, the
    /// bytes from its spec offset up to there zero; its rules are then checked there.
    SlotAt {
        /// The operand slot moved.
        slot: &'static str,
        /// Its number of free dims (the MEM_PATTERN size).
        dims: usize,
        /// Its byte offset in the bundle where real programs put it.
        offset: usize,
    },
    /// The opcode byte is one real programs use, though no table names it
    /// (its body stays opaque).
    Opcode,
    /// The slot is a destination the PE's matmul does not write (a DVE,
    /// Activation or Pool store).
    NotMatmulDst,
}

/// Which opcodes or fields an erratum amends: a list, or every one the
/// check runs on. `Every` is for a rule the evidence contradicts across a
/// class (several opcodes, engines or fields): there the spec's rule is
/// scoped wrong, not one opcode's encoding.
#[derive(Clone, Copy, Debug)]
pub enum Scope<T: 'static> {
    /// These items only.
    Only(&'static [T]),
    /// Every item the check runs on.
    Every,
}

impl<T: PartialEq> Scope<T> {
    /// Whether `x` is in scope (always, for `Every`).
    pub fn contains(&self, x: &T) -> bool {
        match self {
            Scope::Only(list) => list.contains(x),
            Scope::Every => true,
        }
    }

    /// The listed items; empty for `Every`.
    pub fn listed(&self) -> &'static [T] {
        match self {
            Scope::Only(list) => list,
            Scope::Every => &[],
        }
    }

    /// Whether the scope is `Every`.
    pub fn is_every(&self) -> bool {
        matches!(self, Scope::Every)
    }
}

impl Scope<&'static str> {
    /// Whether the field path is in scope.
    pub fn has_field(&self, field: &str) -> bool {
        match self {
            Scope::Only(list) => list.contains(&field),
            Scope::Every => true,
        }
    }
}

impl Scope<u8> {
    /// The opcodes as text (`0x41 0x43`, or `every opcode`).
    pub fn opcodes_text(&self) -> String {
        match self {
            Scope::Only(list) => list.iter().map(|o| format!("{o:#04x}")).collect::<Vec<_>>().join(" "),
            Scope::Every => "every opcode".to_string(),
        }
    }
}

impl Scope<&'static str> {
    /// The fields as text (`in0.addr in1.addr`, or `every field`).
    pub fn fields_text(&self) -> String {
        match self {
            Scope::Only(list) => list.join(" "),
            Scope::Every => "every field".to_string(),
        }
    }
}

/// Serialised as the list, or the string `"every"`.
impl Serialize for Scope<u8> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Scope::Only(list) => s.collect_seq(list.iter().map(|o| format!("{o:#04x}"))),
            Scope::Every => s.serialize_str("every"),
        }
    }
}

impl Serialize for Scope<&'static str> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Scope::Only(list) => s.collect_seq(list.iter()),
            Scope::Every => s.serialize_str("every"),
        }
    }
}

/// What an erratum amends: one check, on some opcodes, fields and generations.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Amends {
    /// The check whose findings it accepts (serialised as its code).
    #[serde(serialize_with = "check_code")]
    pub check: &'static Check,
    /// The opcode bytes it amends.
    pub opcodes: Scope<u8>,
    /// Field paths as findings name them (`in1.addr`, `out.num[2]`).
    pub fields: Scope<&'static str>,
    /// The generations it amends.
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
    /// The check, opcodes, fields and generations it amends.
    pub amends: Amends,
    /// The spec's claim, in brief.
    pub claim: &'static str,
    /// What real programs write.
    pub observed: &'static str,
    /// The encodings it accepts, where the spec refuses them.
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
            && self.amends.fields.has_field(field)
            && self.amends.generations.contains(&g)
    }
}

/// Every generation the spec describes. An erratum states an encoding; the
/// bytes it is about have one layout and one meaning on every generation
/// the spec describes, so it holds on all of them unless evidence on one
/// says otherwise (none does). Inferred for the generations no real program
/// of the evidence was built for (v4 today): `tpb evidence` shows the
/// support per generation and build.
const EVERY_GENERATION: &[Generation] = &Generation::ALL;
/// The ALU op bytes real programs write that §1.4's partial list lacks.
const UNLISTED_ALU_OPS: &[u64] = &[0x03, 0x0F, 0x12, 0xC4];

macro_rules! errata {
    ($( $id:literal $check:ident $ops:expr, $fields:expr, $gens:expr, $accepts:expr, $conf:ident;
        claim $claim:literal; observed $obs:literal; resolution $res:literal; )*) => {
        /// Every erratum, in id order.
        pub static ERRATA: &[Erratum] = &[ $( Erratum {
            id: $id,
            amends: Amends { check: &checks::$check, opcodes: $ops, fields: $fields, generations: $gens },
            claim: $claim,
            observed: $obs,
            accepts: $accepts,
            resolution: $res,
            confidence: Confidence::$conf,
        }, )* ];
    };
}

use Scope::{Every, Only};
errata! {
    "activation-in-dtype-nibbles" INVALID_DTYPE Only(&[0x21]), Only(&["in_dtype"]), EVERY_GENERATION, Accepts::NibbleDtypes { slot: "src" }, Strong;
    claim "Activation +0x20 is one dtype tag 1..=16 (§2.1 Family A)";
    observed "+0x20 holds bytes such as 0xaa, 0x7a, 0xa6, 0xa3, 0xa8: two 4-bit tags; the low one matches the src slot's alignment on every real bundle";
    resolution "Activation's +0x20 packs two dtype tags as TensorTensor's in_dtype_nibbles does: the low nibble types the src slot, the high one is a second tag (meaning unknown); both must be wire tags";

    "alu-ops-unlisted" UNKNOWN_ALU_OP Every, Every, EVERY_GENERATION, Accepts::Values { all: &[own(UNLISTED_ALU_OPS)] }, Inferred;
    claim "the ALU op bytes are those of §1.4 (a list the spec calls partial)";
    observed "TensorScalar (0x43) op0 holds 0x0f and 0x12, TensorScalar (0x53) op0 0x03, TensorTensor alu_op 0xc4 (with int32 inputs)";
    resolution "0x03, 0x0f, 0x12 and 0xc4 are ALU op bytes (names unknown) in every ALU op field: the ALU op byte is one encoding shared by the DVE ops, and §1.4 lists only part of it";

    "collective-coarse-word-len-zero" INST_WORD_LEN Only(&[0xDA]), Only(&["inst_word_len"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[0x00])] }, Strong;
    claim "inst_word_len is always 0x10 (§2.1, the hardcoded setupHeader immediate)";
    observed "every CollectiveComputeCoarse (0xDA) bundle of the v3 programs has header bytes da 00 00 00";
    resolution "opcode 0xDA carries inst_word_len 0x00 (its header is not written by setupHeader)";

    "loadstationary-col-group-15" MATMUL_COL_GROUP Only(&[0x01]), Only(&["col_group_norm"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[15])] }, Strong;
    claim "the CoreV2 normalized column group is 1, 2, 4, 8 or 16 (§2.5, inferred)";
    observed "LoadStationary writes 15 at +0x2E beside 1 and 2";
    resolution "LoadStationary's +0x2E also holds 15";

    "loadstationary-perf-sel-1" MATMUL_PERF_SEL Only(&[0x01]), Only(&["perf_sel"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[1])] }, Strong;
    claim "the matmul perf-mode selector is 0, 2 or 3 (§2.5, inferred)";
    observed "LoadStationary writes 1 at +0x21 beside 0 and 2; MatMul never does";
    resolution "LoadStationary's +0x21 also holds 1";

    "matmul-dst-dtype-zero" INVALID_DTYPE Only(&[0x02]), Only(&["dst_dtype_dense", "dst_dtype_mx"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[0])] }, Strong;
    claim "a MatMul writes its PSUM destination dtype at +0x23 (dense, §2.10), at +0x28 on CoreV4";
    observed "+0x23 is 0 in every real MatMul, and +0x28 too";
    resolution "MatMul's destination dtype byte may be 0, at +0x23 and at +0x28 (where CoreV4 reads it): no destination dtype on the wire (the psum_dst slot's dtype rules then have nothing to check)";

    "matmul-row-group-zero" MATMUL_ROW_GROUP Only(&[0x01, 0x02]), Only(&["row_group"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[0])] }, Strong;
    claim "the CoreV2 PE row group at +0x24 is 1, 2, 4 or 8 (§2.5, inferred)";
    observed "+0x24 is 0 in every real LoadStationary and MatMul";
    resolution "+0x24 may be 0 (unset)";

    "max8-out-2d-at-0x30" ZERO_NUM Only(&[0x6C]), Only(&["out.num[2]", "out.num[3]"]), EVERY_GENERATION, Accepts::SlotAt { slot: "out", dims: 2, offset: 0x30 }, Strong;
    claim "Max8 is Family C: its output is a MEM_PATTERN4D at +0x2C (§2.1, assigned by width)";
    observed "+0x2C..+0x2F are zero and an address, strides and nums (8, 1) follow at +0x30, as in BNStats' 2D output";
    resolution "Max8's output is a MEM_PATTERN2D at +0x30 (the mixed-width placement of BNStats), +0x2C..+0x2F zero";

    "memset-dtype-at-src-byte" INVALID_DTYPE Only(&[0x49]), Only(&["dst_dtype"]), EVERY_GENERATION, Accepts::TypedBy { value: 0, slot: "out", by: "src_dtype" }, Strong;
    claim "a Family C output is typed by dst_dtype at +0x21 (§2.1)";
    observed "Memset writes 0 at +0x21 and a dtype at +0x20 that matches the output's alignment on every real bundle";
    resolution "Memset types its output by +0x20 and leaves +0x21 zero";

    "psum-write-dtype-binds-matmul" PSUM_WRITE_DTYPE Every, Every, EVERY_GENERATION, Accepts::NotMatmulDst, Inferred;
    claim "a PSUM write uses a 4-byte dtype (§2.2 / 2.10)";
    observed "TensorTensor writes u8 results (is_gt 0x13, is_lt 0x16) into PSUM; every other PSUM write of a real program is f32, or a MatMul's, whose destination dtype is not on the wire";
    resolution "the 4-byte rule binds the PE's accumulating (matmul) writes only: a DVE, Activation or Pool instruction's destination in PSUM is a plain store and may hold any dtype the generation has (the dtype itself is still checked)";

    "semaphore-no-action" SEMAPHORE_SUBTYPE Every, Only(&["subtype"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[0]), at("act_idx", &[0]), at("act_value", &[0])] }, Strong;
    claim "the semaphore subtype is one of 0x11, 0x13, 0x14, 0x15, 0x17, 0x19 (§1.6)";
    observed "subtype 0 on every real EventSemaphore, always with act_idx 0 and act_value 0";
    resolution "subtype 0 means no semaphore action, and then act_idx and act_value are 0";

    "semaphore-no-wait" SEMAPHORE_CMP_OP Every, Only(&["cmp_op"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[0]), at("wait_idx", &[0]), at("wait_value", &[0])] }, Strong;
    claim "the semaphore comparator is one of 0x01, 0x04, 0x05, 0x85 (§1.6)";
    observed "comparator 0 on most real EventSemaphores, always with wait_idx 0 and wait_value 0 (the others use 0x05)";
    resolution "comparator 0 means no wait, and then wait_idx and wait_value are 0";

    "tensorscalar-op1-none" UNKNOWN_ALU_OP Every, Only(&["op1"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[0])] }, Strong;
    claim "op1 is an ALU op byte of §1.4";
    observed "op1 is 0 on TensorScalar bundles (0x43, 0x53) that apply one operation";
    resolution "a second ALU op byte of 0 means no second operation";

    "tensortensor-inputs-aligned-to-out" MISALIGNED_ADDRESS Only(&[0x41]), Only(&["in0.addr", "in1.addr"]), EVERY_GENERATION, Accepts::AlignedTo { by: "out_dtype" }, Inferred;
    claim "an input's address is aligned to its own dtype's class (§2.2 addr_aligned_dtype, high nibble of +0x0C)";
    observed "in1 is 2 mod 4 for an f32 in1 on bundles whose output is bf16; aligned to the output dtype on every real bundle";
    resolution "either TensorTensor input may be aligned to the output dtype's class instead of its own (the two inputs are read alike)";

    "unnamed-opcodes" UNKNOWN_OPCODE Only(&[0x72, 0x8C, 0xB1, 0xCC]), Only(&["opcode"]), EVERY_GENERATION, Accepts::Opcode, Strong;
    claim "the opcode byte is one of the opcode table's (opcodes.tsv lists 0xB1 and 0xCC as seen, unnamed)";
    observed "every engine stream opens with 0xB1 (body zero), then 0xCC (body zero but for a small count at +0x0C); 0x72 (build 2.14) and 0x8C (build 2.23) in DVE streams";
    resolution "0x72, 0x8C, 0xB1 and 0xCC are opcodes the real compiler writes (names and bodies unknown): the table is incomplete, not these programs";
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
            assert!(!e.amends.generations.is_empty(), "{}", e.id);
            assert!(e.amends.opcodes.is_every() || !e.amends.opcodes.listed().is_empty(), "{}", e.id);
            assert!(e.amends.fields.is_every() || !e.amends.fields.listed().is_empty(), "{}", e.id);
            // A listed opcode is named by the table unless the erratum is about the opcode byte itself;
            // every opcode means every named one.
            let ops: Vec<u8> = match e.amends.opcodes {
                Scope::Only(list) => list.to_vec(),
                Scope::Every => opcode::OPCODES.iter().map(|o| o.byte).collect(),
            };
            let mut bodies_with_fields = 0;
            for op in ops {
                let known = opcode::lookup(op).is_some();
                assert_eq!(known, !matches!(e.accepts, Accepts::Opcode), "{} {op:#04x}", e.id);
                let mut raw = [0u8; BUNDLE_BYTES];
                raw[0] = op;
                let layout = Bundle::decode(&raw).layout();
                let has = |f: &str| layout.resolve(f).is_some();
                // Listed opcodes must have every listed field; under `Every` only the bodies that have them count.
                if !e.amends.fields.listed().iter().all(|f| has(f)) {
                    assert!(e.amends.opcodes.is_every(), "{}: a field of {:?} is not in {}", e.id, e.amends.fields.listed(), layout.name);
                    continue;
                }
                bodies_with_fields += 1;
                let named: Vec<&str> = match e.accepts {
                    Accepts::Values { all } => all.iter().map(|c| c.field).filter(|f| !f.is_empty()).collect(),
                    Accepts::TypedBy { slot, by, .. } => vec![slot, by],
                    Accepts::AlignedTo { by } => vec![by],
                    Accepts::NibbleDtypes { slot } | Accepts::SlotAt { slot, .. } => vec![slot],
                    Accepts::Opcode | Accepts::NotMatmulDst => vec![],
                };
                for f in named {
                    assert!(has(f) || layout.field_offset(f).is_some(), "{}: {f} is not in {}", e.id, layout.name);
                }
            }
            assert!(bodies_with_fields > 0, "{}: no body has its fields", e.id);
        }
    }

    #[test]
    fn errata_amend_only_their_generations_opcodes_and_fields() {
        let Some(e) = by_id("semaphore-no-wait") else { panic!("no erratum semaphore-no-wait") };
        assert!(e.covers("semaphore-cmp-op", 0xA0, "cmp_op", Generation::V2));
        // No v4 program was seen, but the comparator byte means the same there.
        assert!(e.covers("semaphore-cmp-op", 0xA0, "cmp_op", Generation::V4));
        let Some(m) = by_id("matmul-row-group-zero") else { panic!("no erratum matmul-row-group-zero") };
        assert!(m.covers("matmul-row-group", 0x02, "row_group", Generation::V3));
        assert!(!m.covers("matmul-row-group", 0x41, "row_group", Generation::V2), "listed opcodes only");
        let Some(p) = by_id("psum-write-dtype-binds-matmul") else { panic!("no PSUM erratum") };
        assert!(p.covers("psum-write-dtype", 0x41, "dst.addr", Generation::V3) && p.covers("psum-write-dtype", 0x46, "out.addr", Generation::V2));
        assert!(!e.covers("semaphore-subtype", 0xA0, "cmp_op", Generation::V2));
        assert!(!e.covers("semaphore-cmp-op", 0xA0, "subtype", Generation::V2));
        assert!(by_id("nope").is_none());
    }
}
