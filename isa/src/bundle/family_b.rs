//! Family B, "3D 3-slot": control band +0x0C..+0x0F, then three contiguous
//! 3-D slots dst / in0 / in1 (§2.1 Family B, D-J05).

use super::header::body;
use crate::descriptor::{MemPattern3d, Tensor3d};
use crate::enums::ALU_OP;
use crate::layout::Fmt::*;

body! {
    /// TensorTensor (0x41) and its bit-vector twin (0x51).
    struct TensorTensorBundle as "NEURON_ISA_TPB_BUNDLE_TENSORTENSOR", size 64, ["2.1 Family B / D-J05", Confirmed] {
        header;
        sync;
        /// Low nibble: in0 dtype; high nibble: in1 dtype.
        in_dtype_nibbles: u8 => DtypeNibbles, "2.1 Family B", Confirmed;
        /// Output dtype wire tag.
        out_dtype: u8 => Dtype, "2.1 Family B", Confirmed;
        /// ALU op.
        alu_op: u8 => Enum(&ALU_OP), "2.1 / D-M10", Strong;
        /// Number of active partitions.
        num_active_parts: u8 => Dec, "2.1 Family B", Confirmed;
        /// Destination.
        dst: MemPattern3d => Nested, "2.1 Family B", Confirmed;
        /// First input.
        in0: Tensor3d => Nested, "2.1 Family B", Confirmed;
        /// Second input.
        in1: Tensor3d => Nested, "2.1 Family B", Confirmed;
    }
}
