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

/// Declares a bundle body with [`wire_struct!`](crate::wire_struct), its
/// leading bytes written as the shared prefix they are: `header;` is the
/// header word above (`header`, +0x00, §2.1 CONFIRMED), which every body
/// starts with, and `sync;` the 8-byte sync band after it (`_pad04`, +0x04,
/// §2.1 sync, STRONG) in the bodies that carry one. Stated here once, the
/// prefix cannot differ between bodies; each expands to the field a body
/// would otherwise declare by hand, so layouts, text and C header are as
/// before. A doc comment before either replaces its default doc (a body with
/// something to say about its header or band).
///
/// ```ignore
/// body! {
///     /// doc
///     struct NoOpBundle as "NEURON_ISA_TPB_BUNDLE_NOOP", size 64, ["R (recovered from real programs)", Inferred] {
///         header;
///         sync;
///         /// field doc
///         zero_0c: [u8; 52] => Bytes;
///     }
/// }
/// ```
macro_rules! body {
    (
        $(#[doc = $doc:literal])*
        struct $name:ident as $c:literal, size $size:literal, [$sec:literal, $conf:ident] {
            $($fields:tt)*
        }
    ) => {
        $crate::bundle::header::body!(@prefix [$(#[doc = $doc])* struct $name as $c, size $size, [$sec, $conf]] [] $($fields)*);
    };
    (@prefix $head:tt [$($done:tt)*] $(#[doc = $d:literal])+ header; $($rest:tt)*) => {
        $crate::bundle::header::body!(@prefix $head [$($done)*
            $(#[doc = $d])+
            header: $crate::bundle::header::Header => $crate::layout::Fmt::Inline, "2.1", Confirmed;
        ] $($rest)*);
    };
    // The default docs keep the leading space `///` would have written.
    (@prefix $head:tt [$($done:tt)*] header; $($rest:tt)*) => {
        $crate::bundle::header::body!(@prefix $head [$($done)*] #[doc = " Opcode, length, reserved."] header; $($rest)*);
    };
    (@prefix $head:tt [$($done:tt)*] $(#[doc = $d:literal])+ sync; $($rest:tt)*) => {
        $crate::bundle::header::body!(@prefix $head [$($done)*
            $(#[doc = $d])+
            _pad04: [u8; 8] => $crate::layout::Fmt::Bytes, "2.1 §sync", Strong;
        ] $($rest)*);
    };
    (@prefix $head:tt [$($done:tt)*] sync; $($rest:tt)*) => {
        $crate::bundle::header::body!(@prefix $head [$($done)*] #[doc = " Sync band."] sync; $($rest)*);
    };
    // The prefix is written out: the rest are the body's own fields.
    (@prefix [$($head:tt)*] [$($done:tt)*] $($rest:tt)*) => {
        $crate::wire_struct! { $($head)* { $($done)* $($rest)* } }
    };
}
pub(crate) use body;

#[cfg(test)]
mod tests {
    use crate::bundle::BodyKind;
    use crate::layout::{Fmt, Ty};
    use crate::provenance::{Confidence, Provenance};

    #[test]
    fn every_body_starts_with_the_header_and_every_sync_band_is_the_same() {
        // `body!` writes both; a body declaring its own would drift from the others unseen.
        let mut banded = 0;
        for kind in BodyKind::ALL {
            let l = kind.layout();
            let head = &l.fields[0];
            assert_eq!((head.name, head.offset, head.prov), ("header", 0, Provenance::new("2.1", Confidence::Confirmed)), "{}", l.name);
            assert!(matches!((head.fmt, (head.ty)()), (Fmt::Inline, Ty::Struct(h)) if h().name == "Header"), "{}", l.name);
            if let Some(band) = l.fields.iter().find(|f| f.name == "_pad04") {
                assert_eq!((band.offset, (band.ty)().size()), (4, 8), "{}", l.name);
                assert_eq!(band.prov, Provenance::new("2.1 §sync", Confidence::Strong), "{}", l.name);
                assert!(matches!(band.fmt, Fmt::Bytes), "{}", l.name);
                banded += 1;
            }
        }
        assert_eq!((BodyKind::ALL.len(), banded), (32, 27));
    }
}
