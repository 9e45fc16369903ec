//! Family C, "4D 2-slot": source 4-D slot at +0x0C, destination at +0x2C,
//! control band +0x20..+0x2B (§2.1 Family C, D-J03, D-J06); and the BNStats
//! mixed-width variant with a 2-D destination at +0x30.

use super::header::body;
use crate::descriptor::{MemPattern2d, MemPattern4d, Tensor4d};
use crate::enums::POOL_FUNC;
use crate::layout::Fmt::*;
use zerocopy::little_endian::U32;

body! {
    /// Pool, TensorCopy, Memset and the other 4-D two-operand ops.
    struct PoolCopyBundle as "NEURON_ISA_TPB_BUNDLE_POOLCOPY", size 64, ["2.1 Family C / D-J03 / D-J06", Confirmed] {
        header;
        sync;
        /// Source (`in` in the spec).
        src: Tensor4d => Nested, "2.1 Family C", Confirmed;
        /// Source dtype wire tag.
        src_dtype: u8 => Dtype, "2.1 Family C", Confirmed;
        /// Destination dtype wire tag.
        dst_dtype: u8 => Dtype, "2.1 Family C", Confirmed;
        /// Control bytes, meaning not pinned.
        _ctl22: [u8; 2] => Bytes, "2.1 Family C", Inferred;
        /// Pool function: 1 = max, 2 = avg.
        func: u8 => Enum(&POOL_FUNC), "2.1 Family C", Confirmed;
        /// Pool sub-mode, 3.
        mode: u8 => Dec, "2.1 Family C", Confirmed;
        /// Control bytes, meaning not pinned.
        _ctl26: [u8; 2] => Bytes, "2.1 Family C", Inferred;
        /// Pool 1/N reciprocal (f32 bits; 1.0 for max) or Memset fill.
        scale_or_fill: U32 => Hex, "2.1 Family C", Confirmed;
        /// Destination (`out` in the spec).
        out: MemPattern4d => Nested, "2.1 Family C", Confirmed;
    }
}

body! {
    /// BNStats: a 4-D source and a 2-D destination at +0x30.
    struct BnStatsBundle as "NEURON_ISA_TPB_BUNDLE_BNSTATS", size 64, ["2.1 mixed-width slots", Confirmed] {
        header;
        sync;
        /// Source.
        src: Tensor4d => Nested, "2.1 mixed-width slots", Confirmed;
        /// Source dtype wire tag (Family C band position).
        src_dtype: u8 => Dtype, "2.1 Family C", Inferred;
        /// Destination dtype wire tag (Family C band position).
        dst_dtype: u8 => Dtype, "2.1 Family C", Inferred;
        /// Control bytes, meaning not pinned.
        _ctl22: [u8; 14] => Bytes, "2.1", Inferred;
        /// Destination.
        out: MemPattern2d => Nested, "2.1 mixed-width slots", Confirmed;
        /// Past the 2-D destination.
        _tail: [u8; 4] => Bytes, "2.1", Inferred;
    }
}
