//! Family A, "3D 2-slot": source descriptor at +0x10, destination at +0x30,
//! control band +0x20..+0x2F between them (§2.1 Family A, §2.5, §2.10).

use super::header::body;
use crate::descriptor::{MemPattern3d, MxMemPattern1d, Tensor3d};
use crate::enums::ALU_OP;
use crate::layout::Fmt::*;

body! {
    /// Dense matmul and LoadStationary (the Family A witness).
    struct MatmulBundle as "NEURON_ISA_TPB_BUNDLE_MATMUL", size 64, ["2.1 / 2.5 / 2.10", Confirmed] {
        header;
        /// Sync band; the spec says a matmul carries none.
        sync;
        /// Unused.
        _pad0c: [u8; 4] => Bytes, "2.1", Confirmed;
        /// Moving (ifmap) source in SBUF.
        moving: Tensor3d => Nested, "2.1", Confirmed;
        /// Input dtype wire tag.
        in_dtype: u8 => Dtype, "2.5", Confirmed;
        /// Perf-mode selector (0, 2 or 3).
        perf_sel: u8 => Dec, "2.5", Inferred;
        /// Control byte, meaning not pinned.
        _ctl22: u8 => Hex, "2.5", Inferred;
        /// Dense PSUM destination dtype, read here on CoreV2/V3.
        dst_dtype_dense: u8 => Dtype, "2.10", Confirmed;
        /// PE row-tile group (CoreV2: 1, 2, 4 or 8).
        row_group: u8 => Dec, "2.5", Inferred;
        /// PE column-tile group (CoreV2).
        col_group: u8 => Dec, "2.5", Inferred;
        /// Weights base partition / number of active rows.
        wt_base_rows: u8 => Dec, "2.5", Inferred;
        /// Number of active columns.
        num_active_cols: u8 => Dec, "2.5", Inferred;
        /// PSUM destination dtype as read on CoreV4 (6 = bf16 "nc" form).
        dst_dtype_mx: u8 => Dtype, "2.10", Confirmed;
        /// Control bytes, meaning not pinned.
        _ctl29: [u8; 2] => Bytes, "2.5", Inferred;
        /// Bit 0 start, bit 1 stop, bit 2 accumulate.
        accumulate: u8 => Hex, "2.5", Confirmed;
        /// CoreV3 packed row/column group.
        rowcol_group_v3: u8 => Hex, "2.5", Inferred;
        /// Control byte, meaning not pinned.
        _ctl2d: u8 => Hex, "2.5", Inferred;
        /// Normalized column group (CoreV2: 1, 2, 4, 8 or 16).
        col_group_norm: u8 => Dec, "2.5", Inferred;
        /// ceil(log2 of the PSUM bank span) to zero.
        psum_zero_region: u8 => Dec, "2.5", Confirmed;
        /// PSUM destination.
        psum_dst: MemPattern3d => Nested, "2.5", Confirmed;
    }
}

body! {
    /// CoreV4 MX matmul and MX weight load: the MX operand replaces the moving slot.
    struct MatmulMxBundle as "NEURON_ISA_TPB_BUNDLE_MATMUL_MX", size 64, ["2.6 / 2.10", Confirmed] {
        header;
        sync;
        /// Unused.
        _pad0c: [u8; 4] => Bytes, "2.1", Confirmed;
        /// MX data + scale operand.
        moving: MxMemPattern1d => Nested, "2.6", Confirmed;
        /// Input dtype wire tag.
        in_dtype: u8 => Dtype, "2.5", Confirmed;
        /// Perf-mode selector.
        perf_sel: u8 => Dec, "2.5", Inferred;
        /// Control bytes, meaning not pinned.
        _ctl22: [u8; 6] => Bytes, "2.5", Inferred;
        /// PSUM destination dtype (6 = bf16 "nc" form).
        dst_dtype_mx: u8 => Dtype, "2.10", Confirmed;
        /// Control bytes, meaning not pinned.
        _ctl29: [u8; 2] => Bytes, "2.5", Inferred;
        /// Bit 0 start, bit 1 stop, bit 2 accumulate.
        accumulate: u8 => Hex, "2.5", Confirmed;
        /// Control bytes, meaning not pinned.
        _ctl2c: [u8; 3] => Bytes, "2.5", Inferred;
        /// ceil(log2 of the PSUM bank span) to zero.
        psum_zero_region: u8 => Dec, "2.5", Confirmed;
        /// PSUM destination.
        psum_dst: MemPattern3d => Nested, "2.5", Confirmed;
    }
}

body! {
    /// Activation (0x21 on CoreV2/V3, 0x25 on CoreV4).
    struct ActivationBundle as "NEURON_ISA_TPB_BUNDLE_ACTIVATION", size 64, ["2.1 Family A", Confirmed] {
        header;
        sync;
        /// Unused.
        _pad0c: [u8; 4] => Bytes, "2.1", Confirmed;
        /// Source.
        src: Tensor3d => Nested, "2.1", Confirmed;
        /// Input dtype wire tag.
        in_dtype: u8 => Dtype, "2.1", Confirmed;
        /// Output dtype wire tag.
        out_dtype: u8 => Dtype, "2.1", Confirmed;
        /// Control byte, meaning not pinned.
        _ctl22: u8 => Hex, "2.1", Inferred;
        /// Activation table selector.
        act_tbl_sel: u8 => Dec, "2.1", Confirmed;
        /// Control bytes, meaning not pinned.
        _ctl24: [u8; 12] => Bytes, "2.1", Inferred;
        /// Destination.
        dst: MemPattern3d => Nested, "2.1", Confirmed;
    }
}

body! {
    /// TensorScalar and its OrPtr variants.
    struct TensorScalarBundle as "NEURON_ISA_TPB_BUNDLE_TENSORSCALAR", size 64, ["2.1 Family A", Confirmed] {
        header;
        sync;
        /// Unused.
        _pad0c: [u8; 4] => Bytes, "2.1", Confirmed;
        /// Source.
        src: Tensor3d => Nested, "2.1", Confirmed;
        /// Input dtype wire tag.
        in_dtype: u8 => Dtype, "2.1", Confirmed;
        /// Output dtype wire tag.
        out_dtype: u8 => Dtype, "2.1", Confirmed;
        /// Scalar base.
        scalar_base: u8 => Hex, "2.1", Confirmed;
        /// Control byte, meaning not pinned.
        _ctl23: u8 => Hex, "2.1", Inferred;
        /// First ALU op.
        op0: u8 => Enum(&ALU_OP), "2.1 / D-M10", Strong;
        /// Second ALU op.
        op1: u8 => Enum(&ALU_OP), "2.1 / D-M10", Strong;
        /// Operand order reversed.
        reverse: u8 => Hex, "2.1", Confirmed;
        /// Control bytes, meaning not pinned.
        _ctl27: [u8; 9] => Bytes, "2.1", Inferred;
        /// Destination.
        dst: MemPattern3d => Nested, "2.1", Confirmed;
    }
}
