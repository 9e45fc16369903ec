//! Bodies the spec leaves opaque, recovered from real compiled programs.
//!
//! Every field here is INFERRED: read off the bytes the real compiler writes
//! (`tpb infer`, `tpb evidence`), never from the spec. Names say what a field
//! looks like (`word_18`, `addr8_10`, `zero_20`) unless the opcode table
//! names its role; meanings are not invented. What each field is claimed to
//! hold is stated once, in [`CLAIMS`], and a test checks every claim on every
//! real bundle of the opcode (`oracle/tests/recovered.rs`). The validator
//! checks none of these fields: an INFERRED fact never makes an error.

use super::header::Header;
use crate::enums::ALU_OP;
use crate::layout::Fmt::*;
use crate::wire_struct;
use zerocopy::little_endian::{U32, U64};

wire_struct! {
    /// DMATrigger (0xC1): starts a DMA queue, named in ASCII.
    struct DmaTriggerBundle as "NEURON_ISA_TPB_BUNDLE_DMA_TRIGGER", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length, reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Sync band.
        _pad04: [u8; 8] => Bytes, "2.1 §sync", Strong;
        /// NUL-padded ASCII queue name (e.g. `qSPPIOParam0`).
        queue_name: [u8; 20] => Bytes, "R (recovered from real programs)", Inferred;
        /// Always zero in real programs.
        zero_20: [u8; 16] => Bytes, "R (recovered from real programs)", Inferred;
        /// A small count that varies between bundles.
        word_30: U32 => Dec, "R (recovered from real programs)", Inferred;
        /// Always zero in real programs.
        zero_34: [u8; 12] => Bytes, "R (recovered from real programs)", Inferred;
    }
}

wire_struct! {
    /// StreamMask (0x69): eight mask words (bytes 0x00 or 0xFF in real programs).
    struct StreamMaskBundle as "NEURON_ISA_TPB_BUNDLE_STREAM_MASK", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length, reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Sync band.
        _pad04: [u8; 8] => Bytes, "2.1 §sync", Strong;
        /// Always zero in real programs.
        zero_0c: [u8; 20] => Bytes, "R (recovered from real programs)", Inferred;
        /// Words whose bytes are 0x00 or 0xFF.
        words_20: [U32; 8] => Hex, "R (recovered from real programs)", Inferred;
    }
}

wire_struct! {
    /// Dma (0xD4; Load, Save and DMACopy, DMA_DIRECT2D): two 8-byte addresses, each followed by three words.
    struct DmaBundle as "NEURON_ISA_TPB_BUNDLE_DMA", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length, reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Sync band.
        _pad04: [u8; 8] => Bytes, "2.1 §sync", Strong;
        /// A word that varies between bundles.
        word_0c: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// An 8-byte address (ADDR8 per the opcode table).
        addr8_10: U64 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (a power of two in most real bundles).
        word_18: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (1 in most real bundles).
        word_1c: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (0x10080 in most real bundles).
        word_20: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word between the two address groups.
        word_24: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// An 8-byte address (ADDR8 per the opcode table).
        addr8_28: U64 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (a power of two in most real bundles).
        word_30: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (1 in most real bundles).
        word_34: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (0x10080 in most real bundles).
        word_38: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// The last word.
        word_3c: U32 => Hex, "R (recovered from real programs)", Inferred;
    }
}

wire_struct! {
    /// LoadActFuncSet (0x23): one small number at +0x23, zeros elsewhere.
    struct LoadActFuncSetBundle as "NEURON_ISA_TPB_BUNDLE_LOAD_ACT_FUNC_SET", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length, reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Always zero in real programs.
        zero_04: [u8; 31] => Bytes, "R (recovered from real programs)", Inferred;
        /// A small number (0..3 in real programs; the activation table set?).
        byte_23: u8 => Dec, "R (recovered from real programs)", Inferred;
        /// Always zero in real programs.
        zero_24: [u8; 28] => Bytes, "R (recovered from real programs)", Inferred;
    }
}

wire_struct! {
    /// RegisterAlu (0xA8): an ALU op byte, three more bytes, and three words.
    struct RegisterAluBundle as "NEURON_ISA_TPB_BUNDLE_REGISTER_ALU", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length, reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Always zero in real programs.
        zero_04: [u8; 8] => Bytes, "R (recovered from real programs)", Inferred;
        /// A byte whose values are ALU ops of §1.4 (add, mult in real programs).
        alu_0c: u8 => Enum(&ALU_OP), "R (recovered from real programs)", Inferred;
        /// A byte (9 in real programs).
        byte_0d: u8 => Hex, "R (recovered from real programs)", Inferred;
        /// A byte (1 in real programs).
        byte_0e: u8 => Hex, "R (recovered from real programs)", Inferred;
        /// A byte (0 in real programs).
        byte_0f: u8 => Hex, "R (recovered from real programs)", Inferred;
        /// A word below 0x40 in real programs (a register id?).
        word_10: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word below 0x40 in real programs (a register id?).
        word_14: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word that varies (an immediate?).
        word_18: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// Always zero in real programs.
        zero_1c: [u8; 36] => Bytes, "R (recovered from real programs)", Inferred;
    }
}

wire_struct! {
    /// NoOp (0xA4): the sync band and zeros.
    struct NoOpBundle as "NEURON_ISA_TPB_BUNDLE_NOOP", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length, reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Sync band.
        _pad04: [u8; 8] => Bytes, "2.1 §sync", Strong;
        /// Always zero in real programs.
        zero_0c: [u8; 52] => Bytes, "R (recovered from real programs)", Inferred;
    }
}

wire_struct! {
    /// TensorLoad (0xCE, immediate address): a constant word, an address-like word, small words.
    struct TensorLoadBundle as "NEURON_ISA_TPB_BUNDLE_TENSOR_LOAD", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length, reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Sync band.
        _pad04: [u8; 8] => Bytes, "2.1 §sync", Strong;
        /// A word (0x01010009 in every real bundle).
        word_0c: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// Always zero in real programs.
        zero_10: [u8; 4] => Bytes, "R (recovered from real programs)", Inferred;
        /// A word that varies (an address?).
        word_14: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (1 in real programs).
        word_18: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word (8 in real programs).
        word_1c: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// A word below 0x40 in real programs (a register id?).
        word_20: U32 => Hex, "R (recovered from real programs)", Inferred;
        /// Always zero in real programs.
        zero_24: [u8; 28] => Bytes, "R (recovered from real programs)", Inferred;
    }
}

wire_struct! {
    /// CollectiveComputeCoarse (0xDA): one byte at +0x0F, zeros elsewhere.
    struct CollectiveCoarseBundle as "NEURON_ISA_TPB_BUNDLE_COLLECTIVE_COARSE", size 64, ["R (recovered from real programs)", Inferred] {
        /// Opcode, length (0 in real programs: see erratum collective-coarse-word-len-zero), reserved.
        header: Header => Inline, "2.1", Confirmed;
        /// Always zero in real programs.
        zero_04: [u8; 11] => Bytes, "R (recovered from real programs)", Inferred;
        /// A byte (0x08 or 0x10 in real programs).
        byte_0f: u8 => Hex, "R (recovered from real programs)", Inferred;
        /// Always zero in real programs.
        zero_10: [u8; 48] => Bytes, "R (recovered from real programs)", Inferred;
    }
}

/// What a recovered field is claimed to hold on every real bundle of its opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Every byte zero.
    Zero,
    /// Printable ASCII, then NUL padding (at least one character).
    Ascii,
    /// Every byte 0x00 or 0xFF.
    Mask,
    /// The byte is an ALU op of §1.4.
    AluOp,
    /// The value is below this bound.
    Below(u64),
}

/// Each recovered field's claim, by opcode and field name; fields not listed claim nothing.
pub static CLAIMS: &[(u8, &str, Claim)] = &[
    (0xC1, "queue_name", Claim::Ascii),
    (0xC1, "zero_20", Claim::Zero),
    (0xC1, "zero_34", Claim::Zero),
    (0x69, "zero_0c", Claim::Zero),
    (0x69, "words_20", Claim::Mask),
    (0x23, "zero_04", Claim::Zero),
    (0x23, "byte_23", Claim::Below(4)),
    (0x23, "zero_24", Claim::Zero),
    (0xA8, "zero_04", Claim::Zero),
    (0xA8, "alu_0c", Claim::AluOp),
    (0xA8, "word_10", Claim::Below(0x40)),
    (0xA8, "word_14", Claim::Below(0x40)),
    (0xA8, "zero_1c", Claim::Zero),
    (0xA4, "zero_0c", Claim::Zero),
    (0xCE, "zero_10", Claim::Zero),
    (0xCE, "word_20", Claim::Below(0x40)),
    (0xCE, "zero_24", Claim::Zero),
    (0xDA, "zero_04", Claim::Zero),
    (0xDA, "zero_10", Claim::Zero),
];

impl Claim {
    /// Whether the field's bytes (little-endian) satisfy the claim.
    pub fn holds(self, bytes: &[u8]) -> bool {
        let value = || bytes.iter().take(8).rev().fold(0u64, |v, &b| (v << 8) | u64::from(b));
        match self {
            Claim::Zero => bytes.iter().all(|&b| b == 0),
            Claim::Ascii => {
                let text = bytes.iter().take_while(|&&b| b != 0).count();
                text > 0 && bytes[..text].iter().all(|b| b.is_ascii_graphic()) && bytes[text..].iter().all(|&b| b == 0)
            }
            Claim::Mask => bytes.iter().all(|&b| b == 0 || b == 0xFF),
            Claim::AluOp => bytes.len() == 1 && ALU_OP.contains(bytes[0]),
            Claim::Below(n) => value() < n,
        }
    }
}
