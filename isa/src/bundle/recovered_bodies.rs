//! Bodies the spec leaves opaque, recovered from real compiled programs.
//!
//! Every field here is INFERRED: read off the bytes the real compiler writes
//! (`tpb infer`, `tpb evidence`), never from the spec. So each body states its
//! provenance once, "R (recovered from real programs)" INFERRED, and its
//! fields inherit it; only the shared prefix (`header;`, `sync;`: the spec's
//! header word and sync band, written by `body!` in `header.rs`) keeps the
//! spec's. Names say what a field looks like (`word_18`, `addr8_10`,
//! `zero_20`) unless the opcode table names its role; meanings are not
//! invented. What each field is claimed to hold is stated once, apart, in
//! [`CLAIMS`](super::claims::CLAIMS), and a test checks every claim on every
//! real bundle of the opcode (`oracle/tests/recovered.rs`); the generator
//! fills each claimed field with a value that holds it. The spec's validator checks none of
//! these fields: an INFERRED fact never makes an error (no recovered body has
//! operand slots, so a field that reads as an access pattern or an ADDR4 word
//! is shown typed but never checked by the spec's rules); a broken claim is
//! only `info`, from the separate layer [`crate::validate::recovered_claims`].

use super::header::body;
use crate::addr4::Addr4;
use crate::descriptor::{Tensor1d, Tensor2d, Tensor3d};
use crate::enums::ALU_OP;
use crate::layout::Fmt::*;
use zerocopy::little_endian::{U16, U32, U64};

body! {
    /// DMATrigger (0xC1): starts a DMA queue, named in ASCII.
    struct DmaTriggerBundle as "NEURON_ISA_TPB_BUNDLE_DMA_TRIGGER", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// NUL-padded ASCII queue name (e.g. `qSPPIOParam0`).
        queue_name: [u8; 20] => Bytes;
        /// Always zero in real programs.
        zero_20: [u8; 16] => Bytes;
        /// A small count that varies between bundles.
        word_30: U32 => Dec;
        /// Always zero in real programs.
        zero_34: [u8; 12] => Bytes;
    }
}

body! {
    /// StreamMask (0x69): eight mask words (bytes 0x00 or 0xFF in real programs).
    struct StreamMaskBundle as "NEURON_ISA_TPB_BUNDLE_STREAM_MASK", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Always zero in real programs.
        zero_0c: [u8; 20] => Bytes;
        /// Words whose bytes are 0x00 or 0xFF.
        words_20: [U32; 8] => Hex;
    }
}

body! {
    /// Dma (0xD4; Load, Save and DMACopy, DMA_DIRECT2D): two 8-byte addresses, each followed by three words.
    struct DmaBundle as "NEURON_ISA_TPB_BUNDLE_DMA", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// A word that varies between bundles.
        word_0c: U32 => Hex;
        /// An 8-byte address (ADDR8 per the opcode table).
        addr8_10: U64 => Hex;
        /// A word (a power of two in most real bundles).
        word_18: U32 => Hex;
        /// A word (1 in most real bundles).
        word_1c: U32 => Hex;
        /// A word (0x10080 in most real bundles).
        word_20: U32 => Hex;
        /// A word between the two address groups.
        word_24: U32 => Hex;
        /// An 8-byte address (ADDR8 per the opcode table).
        addr8_28: U64 => Hex;
        /// A word (a power of two in most real bundles).
        word_30: U32 => Hex;
        /// A word (1 in most real bundles).
        word_34: U32 => Hex;
        /// A word (0x10080 in most real bundles).
        word_38: U32 => Hex;
        /// The last word.
        word_3c: U32 => Hex;
    }
}

body! {
    /// LoadActFuncSet (0x23): one small number at +0x23, zeros elsewhere.
    struct LoadActFuncSetBundle as "NEURON_ISA_TPB_BUNDLE_LOAD_ACT_FUNC_SET", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        /// Always zero in real programs.
        zero_04: [u8; 31] => Bytes;
        /// A small number (0..3 in real programs; the activation table set?).
        byte_23: u8 => Dec;
        /// Always zero in real programs.
        zero_24: [u8; 28] => Bytes;
    }
}

body! {
    /// RegisterAlu (0xA8): an ALU op byte, three more bytes, and three words.
    struct RegisterAluBundle as "NEURON_ISA_TPB_BUNDLE_REGISTER_ALU", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        /// Always zero in real programs.
        zero_04: [u8; 8] => Bytes;
        /// A byte whose values are ALU ops of §1.4 (add, mult in real programs).
        alu_0c: u8 => Enum(&ALU_OP);
        /// A byte (9 in real programs).
        byte_0d: u8 => Hex;
        /// A byte (1 in real programs).
        byte_0e: u8 => Hex;
        /// A byte (0 in real programs).
        byte_0f: u8 => Hex;
        /// A word below 0x40 in real programs (a register id?).
        word_10: U32 => Hex;
        /// A word below 0x40 in real programs (a register id?).
        word_14: U32 => Hex;
        /// A word that varies (an immediate?).
        word_18: U32 => Hex;
        /// Always zero in real programs.
        zero_1c: [u8; 36] => Bytes;
    }
}

body! {
    /// NoOp (0xA4): the sync band and zeros.
    struct NoOpBundle as "NEURON_ISA_TPB_BUNDLE_NOOP", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Always zero in real programs.
        zero_0c: [u8; 52] => Bytes;
    }
}

body! {
    /// TensorLoad (0xCE, immediate address): a constant word, an address-like word, small words.
    struct TensorLoadBundle as "NEURON_ISA_TPB_BUNDLE_TENSOR_LOAD", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// A word (0x01010009 in every real bundle).
        word_0c: U32 => Hex;
        /// Always zero in real programs.
        zero_10: [u8; 4] => Bytes;
        /// A word that varies (an address?).
        word_14: U32 => Hex;
        /// A word (1 in real programs).
        word_18: U32 => Hex;
        /// A word (8 in real programs).
        word_1c: U32 => Hex;
        /// A word below 0x40 in real programs (a register id?).
        word_20: U32 => Hex;
        /// Always zero in real programs.
        zero_24: [u8; 28] => Bytes;
    }
}

body! {
    /// CollectiveComputeCoarse (0xDA): one byte at +0x0F, zeros elsewhere.
    struct CollectiveCoarseBundle as "NEURON_ISA_TPB_BUNDLE_COLLECTIVE_COARSE", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length (0 in real programs: see erratum collective-coarse-word-len-zero), reserved.
        header;
        /// Always zero in real programs.
        zero_04: [u8; 11] => Bytes;
        /// A byte (0x08 or 0x10 in real programs).
        byte_0f: u8 => Hex;
        /// Always zero in real programs.
        zero_10: [u8; 48] => Bytes;
    }
}

body! {
    /// TensorScalarAddr (0x74): 348 real bundles in 27 files of ../shared/neff.
    struct TensorScalarAddrBundle as "NEURON_ISA_TPB_BUNDLE_TENSOR_SCALAR_ADDR", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Reads as a 2-D access pattern (ADDR4, 2 strides, 2 counts).
        pattern2d_0c: Tensor2d => Nested;
        /// Reads as a static SBUF ADDR4 word (45 values).
        addr4_18: Addr4 => Hex;
        /// Always zero in real programs.
        zero_1c: [u8; 4] => Bytes;
        /// A word that varies (39 values, 0x00000000..0xffffffff).
        word_20: U32 => Hex;
        /// Bytes each 0x00 or 0xFF in real programs.
        mask_24: [u8; 4] => Bytes;
        /// Reads as a 1-D access pattern (ADDR4, 1 strides, 1 counts).
        pattern1d_28: Tensor1d => Nested;
        /// Always zero in real programs.
        zero_30: [u8; 4] => Bytes;
        /// Reads as a 2-D access pattern (ADDR4, 2 strides, 2 counts).
        pattern2d_34: Tensor2d => Nested;
    }
}

body! {
    /// CustomOpArg (0x86): 180 real bundles in 1 file of ../shared/neff.
    struct CustomOpArgBundle as "NEURON_ISA_TPB_BUNDLE_CUSTOM_OP_ARG", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Reads as a 1-D access pattern (ADDR4, 1 strides, 1 counts).
        pattern1d_0c: Tensor1d => Nested;
        /// Always zero in real programs.
        zero_14: [u8; 4] => Bytes;
        /// A byte (2 values: 0x01, 0x02).
        byte_18: u8 => Hex;
        /// Always zero in real programs.
        zero_19: u8 => Hex;
        /// A byte (3 values: 0x00, 0x01, 0x8e).
        byte_1a: u8 => Hex;
        /// Always zero in real programs.
        zero_1b: u8 => Hex;
        /// A byte (2 values: 0x00, 0x8e).
        byte_1c: u8 => Hex;
        /// Always zero in real programs.
        zero_1d: [u8; 11] => Bytes;
        /// Reads as a static SBUF ADDR4 word (95 values).
        addr4_28: Addr4 => Hex;
        /// A byte (3 values: 0x01, 0x1c, 0x8e).
        byte_2c: u8 => Hex;
        /// A byte (2 values: 0x00, 0x01).
        byte_2d: u8 => Hex;
        /// Bytes `000001000000` in every real bundle.
        const_2e: [u8; 6] => Bytes;
        /// A byte (3 values: 0x01, 0x1c, 0x8e).
        byte_34: u8 => Hex;
        /// A byte (2 values: 0x00, 0x01).
        byte_35: u8 => Hex;
        /// Always zero in real programs.
        zero_36: [u8; 10] => Bytes;
    }
}

body! {
    /// ReadActivationAccumulator (0x24): 150 real bundles in 23 files of ../shared/neff.
    struct ReadActAccumulatorBundle as "NEURON_ISA_TPB_BUNDLE_READ_ACT_ACCUMULATOR", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Bytes `00000000000000000000000000000000010000000a00` in every real bundle.
        const_0c: [u8; 22] => Bytes;
        /// A byte (2 values: 0x80, 0x40).
        byte_22: u8 => Hex;
        /// Always zero in real programs.
        zero_23: [u8; 9] => Bytes;
        /// Reads as a static SBUF ADDR4 word (44 values).
        addr4_2c: Addr4 => Hex;
        /// Bytes `01000100000000000000000000000000` in every real bundle.
        const_30: [u8; 16] => Bytes;
    }
}

body! {
    /// IndirectDma (0xD6): 138 real bundles in 25 files of ../shared/neff.
    struct IndirectDmaBundle as "NEURON_ISA_TPB_BUNDLE_INDIRECT_DMA", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Reads as a static SBUF ADDR4 word (61 values).
        addr4_0c: Addr4 => Hex;
        /// Bytes `0100010001000100` in every real bundle.
        const_10: [u8; 8] => Bytes;
        /// Reads as a static SBUF ADDR4 word (35 values).
        addr4_18: Addr4 => Hex;
        /// Always zero in real programs.
        zero_1c: [u8; 4] => Bytes;
        /// A byte (8 values, 0x00..0xfe).
        byte_20: u8 => Hex;
        /// A byte (10 values, 0x00..0x83).
        byte_21: u8 => Hex;
        /// A byte (4 values: 0x02, 0x00, 0x01, 0x29).
        byte_22: u8 => Hex;
        /// Bytes `0000000000113101000000` in every real bundle.
        const_23: [u8; 11] => Bytes;
        /// A byte (13 values, 0x01..0x80).
        byte_2e: u8 => Hex;
        /// Always zero in real programs.
        zero_2f: u8 => Hex;
        /// A byte that counts up along the stream (49 values, 0x00..0x30).
        count_30: u8 => Dec;
        /// Always zero in real programs.
        zero_31: [u8; 3] => Bytes;
        /// A word that varies (61 values, 0x00000010..0x0082fff0).
        word_34: U32 => Hex;
        /// Bytes `0100010001000100` in every real bundle.
        const_38: [u8; 8] => Bytes;
    }
}

body! {
    /// IndirectDmaChecked (0xC4): 138 real bundles in 25 files of ../shared/neff.
    struct IndirectDmaCheckedBundle as "NEURON_ISA_TPB_BUNDLE_INDIRECT_DMA_CHECKED", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Reads as a static SBUF ADDR4 word (61 values).
        addr4_0c: Addr4 => Hex;
        /// Bytes `010000000000040001000000` in every real bundle.
        const_10: [u8; 12] => Bytes;
        /// A byte (13 values, 0x01..0x80).
        byte_1c: u8 => Hex;
        /// Always zero in real programs.
        zero_1d: [u8; 3] => Bytes;
        /// Reads as a static SBUF ADDR4 word (54 values).
        addr4_20: Addr4 => Hex;
        /// Values that read as dtype wire tags (0x04, 0x01).
        dtype_24: u8 => Dtype;
        /// Bytes `0000000000040001000000` in every real bundle.
        const_25: [u8; 11] => Bytes;
        /// A byte (13 values, 0x01..0x80).
        byte_30: u8 => Hex;
        /// Always zero in real programs.
        zero_31: [u8; 3] => Bytes;
        /// A byte (4 values: 0x10, 0x01, 0x04, 0x40).
        byte_34: u8 => Hex;
        /// A byte (2 values: 0x00, 0x01).
        byte_35: u8 => Hex;
        /// Always zero in real programs.
        zero_36: [u8; 2] => Bytes;
        /// Reads as a static SBUF ADDR4 word (49 values).
        addr4_38: Addr4 => Hex;
        /// A byte (2 values: 0x00, 0x01).
        byte_3c: u8 => Hex;
        /// Always zero in real programs.
        zero_3d: [u8; 3] => Bytes;
    }
}

body! {
    /// BNGradients (0x63): 54 real bundles in 1 file of ../shared/neff.
    struct BnGradientsBundle as "NEURON_ISA_TPB_BUNDLE_BN_GRADIENTS", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Bytes `08008000` in every real bundle.
        const_0c: [u8; 4] => Bytes;
        /// A word that varies (36 values, 0x00018000..0x0002f880).
        word_10: U32 => Hex;
        /// Bytes `01000100` in every real bundle.
        const_14: [u8; 4] => Bytes;
        /// Reads as a 3-D access pattern (ADDR4, 3 strides, 3 counts).
        pattern3d_18: Tensor3d => Nested;
        /// Reads as a static SBUF ADDR4 word (2 values).
        addr4_28: Addr4 => Hex;
        /// Bytes `01000100` in every real bundle.
        const_2c: [u8; 4] => Bytes;
        /// A half-word that varies (54 values, 0xf200..0xf47c).
        half_30: U16 => Hex;
        /// Bytes `810001000300` in every real bundle.
        const_32: [u8; 6] => Bytes;
        /// Reads as a static SBUF ADDR4 word (1 values).
        addr4_38: Addr4 => Hex;
        /// Reads as an ADDR4 word (1 values).
        addr4_3c: Addr4 => Hex;
    }
}

body! {
    /// BNBackprop (0x64): 54 real bundles in 1 file of ../shared/neff.
    struct BnBackpropBundle as "NEURON_ISA_TPB_BUNDLE_BN_BACKPROP", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Bytes `000000000000000001000100030001000000c8460a0020000000000000000000` in every real bundle.
        const_0c: [u8; 32] => Bytes;
        /// Reads as a static SBUF ADDR4 word (1 values).
        addr4_2c: Addr4 => Hex;
        /// Bytes `01000000000000000000000000000000` in every real bundle.
        const_30: [u8; 16] => Bytes;
    }
}

body! {
    /// BNBackpropParamLoad (0x65): 54 real bundles in 1 file of ../shared/neff.
    struct BnBackpropParamLoadBundle as "NEURON_ISA_TPB_BUNDLE_BN_BACKPROP_PARAM_LOAD", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Reads as a 1-D access pattern (ADDR4, 1 strides, 1 counts).
        pattern1d_0c: Tensor1d => Nested;
        /// Bytes `01000100` in every real bundle.
        const_14: [u8; 4] => Bytes;
        /// Reads as a 3-D access pattern (ADDR4, 3 strides, 3 counts).
        pattern3d_18: Tensor3d => Nested;
        /// Reads as a 3-D access pattern (ADDR4, 3 strides, 3 counts).
        pattern3d_28: Tensor3d => Nested;
        /// Reads as a static SBUF ADDR4 word (2 values).
        addr4_38: Addr4 => Hex;
        /// Bytes `01000100` in every real bundle.
        const_3c: [u8; 4] => Bytes;
    }
}

body! {
    /// CustomOpHeader (0x85): 36 real bundles in 1 file of ../shared/neff.
    struct CustomOpHeaderBundle as "NEURON_ISA_TPB_BUNDLE_CUSTOM_OP_HEADER", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Bytes `0500` in every real bundle.
        const_0c: [u8; 2] => Bytes;
        /// A byte (2 values: 0x01, 0x00).
        byte_0e: u8 => Hex;
        /// Bytes `04000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000` in every real bundle.
        const_0f: [u8; 49] => Bytes;
    }
}

body! {
    /// MaxIndexValues (0x6D): 15 real bundles in 15 files of ../shared/neff.
    struct MaxIndexValuesBundle as "NEURON_ISA_TPB_BUNDLE_MAX_INDEX_VALUES", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Always zero in real programs.
        zero_0c: [u8; 4] => Bytes;
        /// Reads as a static SBUF ADDR4 word (8 values).
        addr4_10: Addr4 => Hex;
        /// Bytes `0100010008000100000000000a00` in every real bundle.
        const_14: [u8; 14] => Bytes;
        /// A byte (7 values, 0x04..0x3b).
        byte_22: u8 => Hex;
        /// Always zero in real programs.
        zero_23: [u8; 29] => Bytes;
    }
}

body! {
    /// MatchReplace8 (0x6F): 15 real bundles in 15 files of ../shared/neff.
    struct MatchReplace8Bundle as "NEURON_ISA_TPB_BUNDLE_MATCH_REPLACE8", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Reads as a 3-D access pattern (ADDR4, 3 strides, 3 counts).
        pattern3d_0c: Tensor3d => Nested;
        /// Bytes `010001000a0a` in every real bundle.
        const_1c: [u8; 6] => Bytes;
        /// A byte (7 values, 0x04..0x3b).
        byte_22: u8 => Hex;
        /// Bytes `0000000000000080ff` in every real bundle.
        const_23: [u8; 9] => Bytes;
        /// Reads as a 3-D access pattern (ADDR4, 3 strides, 3 counts).
        pattern3d_2c: Tensor3d => Nested;
        /// Bytes `01000100` in every real bundle.
        const_3c: [u8; 4] => Bytes;
    }
}

body! {
    /// TensorScalarAffineSelect (0x92): 2 real bundles in 1 file of ../shared/neff; too few to say more than what each byte held.
    struct TensorScalarAffineSelectBundle as "NEURON_ISA_TPB_BUNDLE_TENSOR_SCALAR_AFFINE_SELECT", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Bytes `80` in every real bundle.
        const_0c: u8 => Hex;
        /// Two nibbles that read as dtype wire tags.
        dtypes_0d: u8 => DtypeNibbles;
        /// Bytes `033d0000000001000100010001008000010001000100` in every real bundle.
        const_0e: [u8; 22] => Bytes;
        /// A byte (2 values: 0x10, 0xa8).
        byte_24: u8 => Hex;
        /// A byte (2 values: 0x58, 0x6a).
        byte_25: u8 => Hex;
        /// Bytes `00000100010080000100` in every real bundle.
        const_26: [u8; 10] => Bytes;
        /// A byte (2 values: 0x10, 0xa8).
        byte_30: u8 => Hex;
        /// A byte (2 values: 0x58, 0x6a).
        byte_31: u8 => Hex;
        /// Bytes `00000100010080000100ffffffff` in every real bundle.
        const_32: [u8; 14] => Bytes;
    }
}

body! {
    /// PoolBufferLoad (0x67): 2 real bundles in 1 file of ../shared/neff; too few to say more than what each byte held.
    struct PoolBufferLoadBundle as "NEURON_ISA_TPB_BUNDLE_POOL_BUFFER_LOAD", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Reads as a 3-D access pattern (ADDR4, 3 strides, 3 counts).
        pattern3d_0c: Tensor3d => Nested;
        /// Bytes `010001000a0002000000000000000000ff01000000000000000000000000000000000000` in every real bundle.
        const_1c: [u8; 36] => Bytes;
    }
}

body! {
    /// RegisterMove (0xA7): 1 real bundle in 1 file of ../shared/neff; too few to say more than what each byte held.
    struct RegisterMoveBundle as "NEURON_ISA_TPB_BUNDLE_REGISTER_MOVE", size 64, ["R (recovered from real programs)", Inferred] {
        header;
        sync;
        /// Bytes `0109010000000000000000003d000000000000000000803f00000000000000000000000000000000000000000000000000000000` in every real bundle.
        const_0c: [u8; 52] => Bytes;
    }
}

#[cfg(test)]
mod tests {
    use crate::bundle::BodyKind;
    use crate::provenance::{Confidence, Provenance};

    #[test]
    fn a_recovered_field_is_as_recovered_as_its_body() {
        // Fields inherit their body's provenance; the spec's prefix is the only exception.
        let recovered = Provenance::new("R (recovered from real programs)", Confidence::Inferred);
        let mut fields = 0;
        for l in BodyKind::ALL.iter().map(|k| k.layout()).filter(|l| l.prov == recovered) {
            for f in l.fields.iter().filter(|f| !matches!(f.name, "header" | "_pad04")) {
                assert_eq!(f.prov, recovered, "{}.{}", l.name, f.name);
                fields += 1;
            }
        }
        assert_eq!(fields, 142);
    }
}
