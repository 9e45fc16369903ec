//! What each field of a recovered body holds on every real bundle of its
//! opcode, stated once: a field is named by its path in its body's layout
//! ([`super::recovered_bodies`]); one not listed claims nothing. The one
//! predicate ([`Claim::holds`]) serves all three readers: the real-program
//! test (`oracle/tests/recovered.rs`), the generator ([`Claim::arbitrary`])
//! and the validator's claim layer ([`crate::validate::recovered_claims`]),
//! which reports a broken claim as `info`, never an error.

use crate::dtype::DTYPES;
use crate::enums::ALU_OP;
use crate::generation::Generation;
use arbitrary::Unstructured;

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
    /// Exactly these bytes.
    Bytes(&'static [u8]),
    /// The byte is a dtype wire tag of §1.1.
    Dtype,
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
    (0x74, "zero_1c", Claim::Zero),
    (0x74, "mask_24", Claim::Mask),
    (0x74, "zero_30", Claim::Zero),
    (0x86, "zero_14", Claim::Zero),
    (0x86, "zero_19", Claim::Zero),
    (0x86, "zero_1b", Claim::Zero),
    (0x86, "zero_1d", Claim::Zero),
    (0x86, "const_2e", Claim::Bytes(&[0x00, 0x00, 0x01, 0x00, 0x00, 0x00])),
    (0x86, "zero_36", Claim::Zero),
    (
        0x24,
        "const_0c",
        Claim::Bytes(&[
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0A, 0x00,
        ]),
    ),
    (0x24, "zero_23", Claim::Zero),
    (0x24, "const_30", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])),
    (0xD6, "const_10", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00])),
    (0xD6, "zero_1c", Claim::Zero),
    (0xD6, "const_23", Claim::Bytes(&[0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x31, 0x01, 0x00, 0x00, 0x00])),
    (0xD6, "zero_2f", Claim::Zero),
    (0xD6, "zero_31", Claim::Zero),
    (0xD6, "const_38", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00])),
    (0xC4, "const_10", Claim::Bytes(&[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00])),
    (0xC4, "zero_1d", Claim::Zero),
    (0xC4, "dtype_24", Claim::Dtype),
    (0xC4, "const_25", Claim::Bytes(&[0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00])),
    (0xC4, "zero_31", Claim::Zero),
    (0xC4, "zero_36", Claim::Zero),
    (0xC4, "zero_3d", Claim::Zero),
    (0x63, "const_0c", Claim::Bytes(&[0x08, 0x00, 0x80, 0x00])),
    (0x63, "const_14", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00])),
    (0x63, "const_2c", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00])),
    (0x63, "const_32", Claim::Bytes(&[0x81, 0x00, 0x01, 0x00, 0x03, 0x00])),
    (
        0x64,
        "const_0c",
        Claim::Bytes(&[
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0xC8, 0x46, 0x0A, 0x00, 0x20,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]),
    ),
    (0x64, "const_30", Claim::Bytes(&[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])),
    (0x65, "const_14", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00])),
    (0x65, "const_3c", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00])),
    (0x85, "const_0c", Claim::Bytes(&[0x05, 0x00])),
    (
        0x85,
        "const_0f",
        Claim::Bytes(&[
            0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00,
        ]),
    ),
    (0x6D, "zero_0c", Claim::Zero),
    (0x6D, "const_14", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0A, 0x00])),
    (0x6D, "zero_23", Claim::Zero),
    (0x6F, "const_1c", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00, 0x0A, 0x0A])),
    (0x6F, "const_23", Claim::Bytes(&[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xFF])),
    (0x6F, "const_3c", Claim::Bytes(&[0x01, 0x00, 0x01, 0x00])),
];

impl Claim {
    /// Whether the field's bytes (little-endian) satisfy the claim on `g`; the
    /// one predicate the real-program test, the generator and the validator's
    /// recovered layer all use.
    pub fn holds(self, bytes: &[u8], g: Generation) -> bool {
        let value = || crate::layout::le_u64(bytes);
        match self {
            Claim::Zero => bytes.iter().all(|&b| b == 0),
            Claim::Ascii => {
                let text = bytes.iter().take_while(|&&b| b != 0).count();
                text > 0 && bytes[..text].iter().all(|b| b.is_ascii_graphic()) && bytes[text..].iter().all(|&b| b == 0)
            }
            Claim::Mask => bytes.iter().all(|&b| b == 0 || b == 0xFF),
            Claim::AluOp => bytes.len() == 1 && ALU_OP.contains(bytes[0]),
            // Bytes past the eighth would be dropped by `value`; they must be zero too.
            Claim::Below(n) => value() < n && bytes.iter().skip(8).all(|&b| b == 0),
            Claim::Bytes(b) => bytes == b,
            Claim::Dtype => bytes.len() == 1 && crate::dtype::info(bytes[0]).is_some_and(|d| d.since <= g),
        }
    }

    /// Arbitrary bytes for a field of `len` bytes that hold the claim on `g`
    /// (`len` is the field's size in the layout, which [`CLAIMS`] fits).
    pub fn arbitrary(self, u: &mut Unstructured, len: usize, g: Generation) -> arbitrary::Result<Vec<u8>> {
        let mut out = vec![0u8; len];
        match self {
            Claim::Zero => {}
            Claim::Ascii => {
                let text = u.int_in_range(1..=len.max(1))?.min(len);
                for b in &mut out[..text] {
                    *b = u.int_in_range(0x21..=0x7E)?;
                }
            }
            Claim::Mask => {
                for b in &mut out {
                    *b = if u.arbitrary()? { 0xFF } else { 0 };
                }
            }
            Claim::AluOp => {
                if let Some(b) = out.first_mut() {
                    *b = u.choose(ALU_OP.entries)?.0;
                }
            }
            Claim::Below(n) => {
                // The largest value below `n` that `len` bytes can hold.
                let v = u.int_in_range(0..=n.saturating_sub(1).min(crate::layout::unsigned_max(len)))?;
                for (dst, src) in out.iter_mut().zip(v.to_le_bytes()) {
                    *dst = src;
                }
            }
            Claim::Bytes(b) => out = b.to_vec(),
            Claim::Dtype => {
                let tags: Vec<u8> = DTYPES.iter().filter(|d| d.since <= g).map(|d| d.tag).collect();
                if let Some(b) = out.first_mut() {
                    *b = *u.choose(&tags)?;
                }
            }
        }
        Ok(out)
    }

    /// What every real bundle holds in a field with this claim, for messages.
    pub fn describe(self) -> String {
        match self {
            Claim::Zero => "zeros".to_string(),
            Claim::Ascii => "printable ASCII then NUL padding".to_string(),
            Claim::Mask => "bytes each 0x00 or 0xFF".to_string(),
            Claim::AluOp => "an ALU op of §1.4".to_string(),
            Claim::Below(n) => format!("a value below {n:#x}"),
            Claim::Bytes(b) => format!("the bytes {}", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
            Claim::Dtype => "a dtype wire tag of §1.1".to_string(),
        }
    }
}

/// The claims on `opcode`'s recovered fields.
pub fn claims(opcode: u8) -> impl Iterator<Item = (&'static str, Claim)> {
    CLAIMS.iter().filter(move |c| c.0 == opcode).map(|&(_, field, claim)| (field, claim))
}
