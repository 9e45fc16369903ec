//! Access-pattern descriptors: each opens with an ADDR4 and follows the 4+4N rule
//! (an N-dim static pattern is 4 + 4N bytes: N signed strides, then N unsigned nums).

use crate::addr4::Addr4;
use crate::layout::Fmt::*;
use crate::{wire_alias, wire_struct};
use zerocopy::little_endian::{I16, U16};

wire_struct! {
    /// One free dimension of a static source pattern.
    struct Tensor1d as "NEURON_ISA_TPB_TENSOR1D", size 8, ["2.3", Confirmed] {
        /// Start address word.
        addr: Addr4 => Hex, "2.2", Confirmed;
        /// Element stride (signed).
        stride0: I16 => Dec, "2.3", Confirmed;
        /// Element count (1..=65535).
        num0: U16 => Dec, "2.3", Confirmed;
    }
}

wire_struct! {
    /// Two free dimensions of a static source pattern.
    struct Tensor2d as "NEURON_ISA_TPB_TENSOR2D", size 12, ["2.3", Confirmed] {
        /// Start address word.
        addr: Addr4 => Hex, "2.2", Confirmed;
        /// Element strides, all dims first (signed).
        stride: [I16; 2] => Dec, "2.3", Confirmed;
        /// Element counts (1..=65535), after all strides.
        num: [U16; 2] => Dec, "2.3", Confirmed;
    }
}

wire_struct! {
    /// Three free dimensions: the workhorse slot of Families A and B.
    struct Tensor3d as "NEURON_ISA_TPB_TENSOR3D", size 16, ["2.3", Confirmed] {
        /// Start address word.
        addr: Addr4 => Hex, "2.2", Confirmed;
        /// Element strides (signed).
        stride: [I16; 3] => Dec, "2.3", Confirmed;
        /// Element counts (1..=65535).
        num: [U16; 3] => Dec, "2.3", Confirmed;
    }
}

wire_struct! {
    /// Four free dimensions (Family C); the count array moves to +0x0C.
    struct Tensor4d as "NEURON_ISA_TPB_TENSOR4D", size 20, ["2.4", Confirmed] {
        /// Start address word.
        addr: Addr4 => Hex, "2.2", Confirmed;
        /// Element strides (signed).
        stride: [I16; 4] => Dec, "2.4", Confirmed;
        /// Element counts (1..=65535).
        num: [U16; 4] => Dec, "2.4", Confirmed;
    }
}

wire_alias! {
    /// Destination twin of TENSOR2D: same bytes, write role.
    struct MemPattern2d = Tensor2d as "NEURON_ISA_TPB_MEM_PATTERN2D", ["2.5", Confirmed]
}
wire_alias! {
    /// Destination twin of TENSOR3D: same bytes, write role.
    struct MemPattern3d = Tensor3d as "NEURON_ISA_TPB_MEM_PATTERN3D", ["2.5", Confirmed]
}
wire_alias! {
    /// Destination twin of TENSOR4D: same bytes, write role.
    struct MemPattern4d = Tensor4d as "NEURON_ISA_TPB_MEM_PATTERN4D", ["2.5", Confirmed]
}

wire_struct! {
    /// CoreV4 microscaling operand: packed x4 data plus an E8M0 scale tensor.
    struct MxMemPattern1d as "NEURON_ISA_TPB_MXMEM_PATTERN1D", size 16, ["2.6", Confirmed] {
        /// Packed FP4/FP8-x4 data start address.
        data: Addr4 => Hex, "2.6", Confirmed;
        /// E8M0 per-block exponent start address (SBUF only).
        scale: Addr4 => Hex, "2.6", Confirmed;
        /// Unpacked element count (non-zero).
        k_extent: U16 => Dec, "2.6", Confirmed;
        /// Step direction: 0x01 = +1, 0xFF = -1.
        step_dir: u8 => Hex, "2.6", Confirmed;
        /// Scale base partition modulo the PE count (< 128).
        scale_base_part: u8 => Dec, "2.6", Confirmed;
        /// Not written on the static path.
        _reserved: [u8; 4] => Bytes, "2.6", Confirmed;
    }
}

wire_struct! {
    /// MX gather: an index address pushed in front of the MX operand.
    struct MxIndirect16b as "NEURON_ISA_TPB_MXINDIRECT16B", size 16, ["2.7", Confirmed] {
        /// Gather index-vector address (mode = indirect).
        index: Addr4 => Hex, "2.7", Confirmed;
        /// Indirectly addressed packed data.
        data: Addr4 => Hex, "2.7", Confirmed;
        /// E8M0 scale address.
        scale: Addr4 => Hex, "2.7", Confirmed;
        /// Index count x4.
        k_extent: U16 => Dec, "2.7", Confirmed;
        /// High half of the count word.
        _spare: u8 => Hex, "2.7", Confirmed;
        /// Scale base partition modulo the PE count.
        scale_base_part: u8 => Dec, "2.7", Confirmed;
    }
}

wire_struct! {
    /// Non-MX gather over a 3-D pattern: index and data addresses plus a count.
    struct Indirect16b as "NEURON_ISA_TPB_INDIRECT16B", size 16, ["2.7", Confirmed] {
        /// Gather index address (mode = indirect).
        index: Addr4 => Hex, "2.7", Confirmed;
        /// Data tensor address.
        data: Addr4 => Hex, "2.7", Confirmed;
        /// Number of indirect indices.
        num: U16 => Dec, "2.7", Confirmed;
        /// The static stride/num region, not filled on the indirect path.
        _inert: [u8; 6] => Bytes, "2.7", Confirmed;
    }
}

wire_struct! {
    /// Non-MX gather over a 4-D pattern.
    struct Indirect20b as "NEURON_ISA_TPB_INDIRECT20B", size 20, ["2.7", Confirmed] {
        /// Gather index address (mode = indirect).
        index: Addr4 => Hex, "2.7", Confirmed;
        /// Data tensor address.
        data: Addr4 => Hex, "2.7", Confirmed;
        /// Number of indirect indices.
        num: U16 => Dec, "2.7", Confirmed;
        /// The static stride/num region, not filled on the indirect path.
        _inert: [u8; 10] => Bytes, "2.7", Confirmed;
    }
}

/// Every descriptor layout, in the order the spec introduces them.
pub fn layouts() -> [&'static crate::layout::Layout; 11] {
    [
        &Tensor1d::LAYOUT,
        &Tensor2d::LAYOUT,
        &Tensor3d::LAYOUT,
        &Tensor4d::LAYOUT,
        &MemPattern2d::LAYOUT,
        &MemPattern3d::LAYOUT,
        &MemPattern4d::LAYOUT,
        &MxMemPattern1d::LAYOUT,
        &MxIndirect16b::LAYOUT,
        &Indirect16b::LAYOUT,
        &Indirect20b::LAYOUT,
    ]
}

/// The static pattern layout an operand slot of `dims` dims reads as:
/// TENSOR2D, TENSOR4D, else TENSOR3D (as the reporting checks read it).
pub fn pattern_layout(dims: usize) -> &'static crate::layout::Layout {
    match dims {
        2 => &Tensor2d::LAYOUT,
        4 => &Tensor4d::LAYOUT,
        _ => &Tensor3d::LAYOUT,
    }
}

/// The static N-dim pattern size: 4 + 4N (the `.rodata` size asserts).
pub const fn pattern_size(dims: usize) -> usize {
    4 + 4 * dims
}
