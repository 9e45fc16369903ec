//! Names the spec's own C header uses where ours differ, so code written
//! against it compiles unchanged with the generated header. Only names live
//! here; every value they stand for is looked up in the description (the
//! opcode table, the ADDR4 mode table, the struct layouts).

use crate::provenance::{Confidence, Provenance};

/// A second C spelling of a struct member: where our Rust name differs from the
/// spec's header (`in` is a Rust keyword; the spec spells some padding in
/// upper-case hex), the C struct carries both names over the same bytes via an
/// anonymous union.
#[derive(Clone, Copy, Debug)]
pub struct SpecSpelling {
    /// C name of the struct that owns the member.
    pub struct_c_name: &'static str,
    /// The member as the description names it.
    pub field: &'static str,
    /// The spec header's spelling of the same member.
    pub spelling: &'static str,
    /// Where the spelling comes from.
    pub prov: Provenance,
}

const fn member(struct_c_name: &'static str, field: &'static str, spelling: &'static str, sec: &'static str, c: Confidence) -> SpecSpelling {
    SpecSpelling { struct_c_name, field, spelling, prov: Provenance::new(sec, c) }
}

/// Every member the spec's header spells differently from the description.
pub static SPEC_SPELLINGS: &[SpecSpelling] = &[
    member("NEURON_ISA_TPB_BUNDLE_POOLCOPY", "src", "in", "2.1 Family C", Confidence::Confirmed),
    member("NEURON_ISA_TPB_BUNDLE_BNSTATS", "src", "in", "2.1 mixed-width slots", Confidence::Strong),
    member("NEURON_ISA_TPB_BUNDLE_MATMUL", "_ctl2d", "_ctl2D", "2.1 Family A", Confidence::Confirmed),
    member("NEURON_ISA_TPB_SEMAPHORE", "_r0c", "_r0C", "1.14", Confidence::Confirmed),
    member("NEURON_ISA_TPB_SEMAPHORE", "_r2c", "_r2C", "1.14", Confidence::Confirmed),
];

/// Where the spec's header names opcodes and ADDR4 modes.
pub const ENUM_NAMES_PROV: Provenance = Provenance::new("1.3 / 2.2 (the spec header's enumerations)", Confidence::Confirmed);

/// The spec header's opcode enumerators (a subset of the table), by opcode byte.
pub static OPCODE_NAMES: &[(&str, u8)] = &[
    ("ISA_OP_LOADSTATIONARY", 0x01),
    ("ISA_OP_MATMUL", 0x02),
    ("ISA_OP_LOADTAGS_SPARSE", 0x06),
    ("ISA_OP_MATMUL_SPARSE", 0x07),
    ("ISA_OP_LDWEIGHT_MX", 0x09),
    ("ISA_OP_MATMUL_MX", 0x0A),
    ("ISA_OP_ACTIVATION", 0x21),
    ("ISA_OP_ACT_TABLE_LOAD", 0x23),
    ("ISA_OP_ACT_READ_ACCUM", 0x24),
    ("ISA_OP_TENSOR_TENSOR", 0x41),
    ("ISA_OP_TENSOR_SCALAR", 0x43),
    ("ISA_OP_POOL", 0x45),
    ("ISA_OP_COPY", 0x46),
    ("ISA_OP_MEMSET", 0x49),
    ("ISA_OP_BNSTATS", 0x61),
    ("ISA_OP_GATHER", 0x68),
    ("ISA_OP_MAX8", 0x6C),
    ("ISA_OP_EVENT_SEMAPHORE", 0xA0),
    ("ISA_OP_HALT", 0xA1),
    ("ISA_OP_DRAIN", 0xA2),
    ("ISA_OP_NOOP", 0xA4),
    ("ISA_OP_REGISTER_MOVE", 0xA7),
    ("ISA_OP_REGISTER_ALU", 0xA8),
    ("ISA_OP_BRANCH", 0xA9),
    ("ISA_OP_GROUP_RESET_SEMA", 0xB0),
    ("ISA_OP_DMA_TRIGGER", 0xC1),
    ("ISA_OP_CALL", 0xD3),
    ("ISA_OP_DMA_DIRECT2D", 0xD4),
    ("ISA_OP_ALL_ENGINE_BARRIER", 0xD5),
];

/// The spec header's ADDR4 mode enumerators, by the mode table's entry name.
pub static ADDR4_MODE_NAMES: &[(&str, &str)] =
    &[("ISA_ADDR_STATIC", "static"), ("ISA_ADDR_INDIRECT", "indirect"), ("ISA_ADDR_ACTIVE", "active"), ("ISA_ADDR_MODE_DEAD", "dead")];

/// The spec header's ADDR4 helper macros: `(macro, parameter list or "", expansion)`,
/// where the expansion names only this header's helpers and masks.
pub static ADDR4_MACROS: &[(&str, &str, &str)] = &[
    ("ADDR4_ADDR29", "(w)", "neuron_isa_tpb_addr4_addr29(w)"),
    ("ADDR4_REGION", "(w)", "((w) & NEURON_ISA_TPB_ADDR4_REGION_MASK)"),
    ("ADDR4_MODE", "(w)", "neuron_isa_tpb_addr4_mode(w)"),
    ("ADDR4_IS_REGISTER", "(w)", "(neuron_isa_tpb_addr4_is_register(w) != 0)"),
    ("ADDR4_REGID", "(w)", "neuron_isa_tpb_addr4_regid(w)"),
    ("ADDR4_PSUM_BASE", "", "NEURON_ISA_TPB_ADDR4_PSUM_BASE"),
    ("ADDR4_PSUM_SPAN", "", "NEURON_ISA_TPB_ADDR4_PSUM_SPAN"),
];
