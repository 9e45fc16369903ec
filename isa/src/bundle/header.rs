//! The 4-byte header word, the only bytes every bundle shares (§2.1).

use crate::layout::Fmt::*;
use crate::wire_struct;
use zerocopy::little_endian::U16;

/// Size of one bundle: 16 dwords.
pub const BUNDLE_BYTES: usize = 64;
/// `inst_word_len`: the bundle length in dwords, an immediate in setupHeader.
pub const INST_WORD_LEN: u8 = 0x10;
/// QuantizeMx may carry 0x11 here (SATURATE), the one exception.
pub const INST_WORD_LEN_SATURATE: u8 = 0x11;
/// A bundle that is its header and nothing else: what setupHeader writes
/// before the body is filled (the opcode, the word length, the zero reserved
/// half-word) with a zero body. Fixtures build streams of them.
pub fn header_only(opcode: u8) -> [u8; BUNDLE_BYTES] {
    let mut b = [0u8; BUNDLE_BYTES];
    b[0] = opcode;
    b[1] = INST_WORD_LEN;
    b
}

/// [`header_only`] bundles of each opcode in turn, as one stream.
pub fn header_only_stream(opcodes: &[u8]) -> Vec<u8> {
    opcodes.iter().flat_map(|&op| header_only(op)).collect()
}

/// setupHeader's body, byte-identical on CoreV2/V3/V4:
/// load opcode, store length 0x10, store opcode, zero the reserved half-word, return.
pub const SETUP_HEADER_CODE: [u8; 16] = [0x0f, 0xb6, 0x02, 0xc6, 0x46, 0x01, 0x10, 0x88, 0x06, 0x31, 0xc0, 0x66, 0x89, 0x46, 0x02, 0xc3];
/// Where [`SETUP_HEADER_CODE`] comes from: spec §2.1, CONFIRMED.
pub const SETUP_HEADER_PROV: crate::provenance::Provenance = crate::provenance::Provenance::new("2.1", crate::provenance::Confidence::Confirmed);

wire_struct! {
    /// Opcode, length, reserved: written by setupHeader before the body is filled.
    struct Header as "NEURON_ISA_TPB_HEADER", size 4, ["2.1", Confirmed] {
        /// L3 opcode: the union discriminant.
        opcode: u8 => Hex, "2.1", Confirmed;
        /// Bundle length in dwords, always 0x10 (0x11 only for QuantizeMx).
        inst_word_len: u8 => Hex, "2.1", Confirmed;
        /// Zero.
        reserved: U16 => Hex, "2.1", Confirmed;
    }
}
