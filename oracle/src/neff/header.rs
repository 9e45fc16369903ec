//! The 1024-byte NEFF container header. The spec never describes the
//! container (its gap G1); every field here was measured on real compiler
//! output (2.18 and 2.23), so the provenance says so. Described once with
//! `tpb_isa`'s `wire_struct!`, so names, offsets and provenance are data.

use tpb_isa::layout::Fmt::*;
use tpb_isa::wire_struct;
use zerocopy::little_endian::{U32, U64};
use zerocopy::FromBytes;

/// Size of the header struct; `header_size` in real files equals it.
pub const HEADER_BYTES: usize = 0x400;

wire_struct! {
    /// The fixed container header in front of the payload.
    struct NeffHeader as "NEFF_HEADER", size 1024, ["G1 (measured on real NEFFs)", Strong] {
        /// 2: gzip tar payload + MD5; 1: tar payload + SHA-256.
        pkg_version: U64 => Dec, "G1 (measured on real NEFFs)", Strong;
        /// Offset of the payload (0x400).
        header_size: U64 => Hex, "G1 (measured on real NEFFs)", Strong;
        /// Compressed payload length in bytes.
        data_size: U64 => Dec, "G1 (measured on real NEFFs)", Strong;
        /// Container format version, major.
        neff_version_major: U64 => Dec, "G1 (measured on real NEFFs)", Strong;
        /// Container format version, minor.
        neff_version_minor: U64 => Dec, "G1 (measured on real NEFFs)", Strong;
        /// NUL-padded build version text (empty in the files seen).
        build_version: [u8; 128] => Bytes, "G1 (measured on real NEFFs)", Strong;
        /// Unnamed word; 1 in every file seen, meaning unknown.
        unnamed_0a8: U32 => Hex, "G1 (measured on real NEFFs)", Inferred;
        /// Payload digest (MD5 in the first 16 bytes for pkg_version 2).
        hash: [u8; 32] => Bytes, "G1 (measured on real NEFFs)", Strong;
        /// Container UUID.
        uuid: [u8; 16] => Bytes, "G1 (measured on real NEFFs)", Strong;
        /// NUL-padded program name.
        name: [u8; 256] => Bytes, "G1 (measured on real NEFFs)", Strong;
        /// NeuronCores the program asks for.
        requested_tpb_count: U32 => Dec, "G1 (measured on real NEFFs)", Strong;
        /// Unnamed word; 1 in every file seen (tracks info.json num_tpb?).
        unnamed_1e0: U32 => Hex, "G1 (measured on real NEFFs)", Inferred;
        /// Zero in every file seen.
        reserved_1e4: [u8; 60] => Bytes, "G1 (measured on real NEFFs)", Inferred;
        /// Feature bit set.
        feature_bits: U64 => Hex, "G1 (measured on real NEFFs)", Strong;
        /// Virtual NeuronCore size.
        vnc_size: U32 => Dec, "G1 (measured on real NEFFs)", Strong;
        /// Zero in every file seen.
        reserved_22c: [u8; 468] => Bytes, "G1 (measured on real NEFFs)", Inferred;
    }
}

impl NeffHeader {
    /// Reads the header from the start of `bytes`; `None` when fewer than 1024 bytes.
    pub fn read(bytes: &[u8]) -> Option<NeffHeader> {
        NeffHeader::read_from_prefix(bytes).ok().map(|(h, _)| h)
    }

    /// `build_version` up to its first NUL, lossily decoded.
    pub fn build_version_text(&self) -> String {
        c_text(&self.build_version)
    }

    /// `name` up to its first NUL, lossily decoded.
    pub fn name_text(&self) -> String {
        c_text(&self.name)
    }

    /// The 16-byte `uuid` field as 32 lowercase hex digits.
    pub fn uuid_hex(&self) -> String {
        hex(&self.uuid)
    }

    /// Offsets of non-zero bytes in the reserved ranges (none in any file seen).
    pub fn reserved_nonzero(&self) -> Vec<usize> {
        let ranges: [(&str, &[u8]); 2] = [("reserved_1e4", &self.reserved_1e4), ("reserved_22c", &self.reserved_22c)];
        let mut out = Vec::new();
        for (field, bytes) in ranges {
            let base = NeffHeader::LAYOUT.field_offset(field).unwrap_or(0);
            out.extend(bytes.iter().enumerate().filter(|(_, b)| **b != 0).map(|(i, _)| base + i));
        }
        out
    }
}

/// Bytes up to the first NUL as text.
pub fn c_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Lower-case hex of a byte string.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::NeffHeader;
    use zerocopy::FromZeros;

    #[test]
    fn text_fields_end_at_their_first_nul() {
        let mut h = NeffHeader::new_zeroed();
        h.build_version[..9].copy_from_slice(b"2.23.0\0xx");
        h.name[..4].copy_from_slice(b"mlp\0");
        assert_eq!(h.build_version_text(), "2.23.0");
        assert_eq!(h.name_text(), "mlp");
        h.build_version.fill(b'7');
        assert_eq!(h.build_version_text().len(), 128, "no NUL: the whole field");
    }
}
