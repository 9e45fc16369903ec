//! The 64-byte bundle: a header word plus an opcode-selected body. Decoding
//! never fails: an opcode the spec lays out decodes to its typed body, every
//! other byte pattern to [`OpaqueBundle`]; encoding gives back the exact bytes.

pub mod claims;
pub mod control;
pub mod family_a;
pub mod family_b;
pub mod family_c;
pub mod header;
pub mod kind;
pub mod recovered_bodies;

pub use control::{BranchBundle, OpaqueBundle, SemaphoreBundle};
pub use family_a::{ActivationBundle, MatmulBundle, MatmulMxBundle, TensorScalarBundle};
pub use family_b::TensorTensorBundle;
pub use family_c::{BnStatsBundle, PoolCopyBundle};
pub use header::{header_only, header_only_stream, Header, BUNDLE_BYTES, INST_WORD_LEN};
pub use kind::BodyKind;
pub use recovered_bodies::{
    BnBackpropBundle, BnBackpropParamLoadBundle, BnGradientsBundle, CollectiveCoarseBundle, CustomOpArgBundle, CustomOpHeaderBundle, DmaBundle,
    DmaTriggerBundle, IndirectDmaBundle, IndirectDmaCheckedBundle, LoadActFuncSetBundle, MatchReplace8Bundle, MaxIndexValuesBundle, NoOpBundle,
    PoolBufferLoadBundle, ReadActAccumulatorBundle, RegisterAluBundle, RegisterMoveBundle, StreamMaskBundle, TensorLoadBundle,
    TensorScalarAddrBundle, TensorScalarAffineSelectBundle,
};

use crate::layout::Layout;
use zerocopy::{FromBytes, IntoBytes};

/// One 64-byte bundle on the wire.
pub type Raw = [u8; BUNDLE_BYTES];

macro_rules! bundles {
    ($( $kind:ident($ty:ident) $doc:literal; )*) => {
        impl BodyKind {
            /// The described layout of this body (every field, offset and type).
            pub fn layout(self) -> &'static Layout {
                match self { $( BodyKind::$kind => &$ty::LAYOUT, )* }
            }
        }

        /// A decoded bundle: the typed body selected by its opcode.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Bundle { $( #[doc = $doc] $kind($ty), )* }

        impl Bundle {
            /// Decodes one bundle. Infallible: every byte pattern has a reading.
            /// (Each body is exactly 64 bytes, so the conversion is a plain
            /// copy that the compiler emits as whole 16-byte moves; inlined
            /// across crates, it writes the bundle where the caller keeps it.)
            #[inline]
            pub fn decode(raw: &Raw) -> Bundle {
                match crate::opcode::body_kind(raw[0]) {
                    $( BodyKind::$kind => Bundle::$kind(zerocopy::transmute!(*raw)), )*
                }
            }

            /// The exact wire bytes.
            pub fn encode(&self) -> Raw {
                let mut out = [0u8; BUNDLE_BYTES];
                out.copy_from_slice(self.as_bytes());
                out
            }

            /// The 64 wire bytes, borrowed.
            pub fn as_bytes(&self) -> &[u8] {
                match self { $( Bundle::$kind(b) => b.as_bytes(), )* }
            }

            /// Which body the opcode selected (the enum's variant, as a plain tag).
            pub fn kind(&self) -> BodyKind {
                match self { $( Bundle::$kind(_) => BodyKind::$kind, )* }
            }
        }
    };
}

kind::with_bodies!(bundles);

impl Bundle {
    /// The header word every body starts with.
    pub fn header(&self) -> Header {
        // Every body starts with the 4-byte header; the prefix read cannot fail on 64 bytes.
        match Header::read_from_prefix(self.as_bytes()) {
            Ok((h, _)) => h,
            Err(_) => unreachable!(),
        }
    }

    /// The opcode byte (byte 0), which selected the body.
    pub fn opcode(&self) -> u8 {
        self.header().opcode
    }

    /// The described layout of the bundle's body ([`BodyKind::layout`]).
    pub fn layout(&self) -> &'static Layout {
        self.kind().layout()
    }

    /// Decodes the first 64 bytes of `bytes`; `None` if fewer are given.
    pub fn decode_slice(bytes: &[u8]) -> Option<Bundle> {
        let raw: &Raw = bytes.get(..BUNDLE_BYTES)?.try_into().ok()?;
        Some(Bundle::decode(raw))
    }
}

/// A byte string that is not a whole number of bundles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("trailing partial bundle at offset {offset:#x}: {len} bytes is not a multiple of 64")]
pub struct PartialBundle {
    /// Offset of the trailing partial bundle.
    pub offset: usize,
    /// Length of the whole input.
    pub len: usize,
}

/// Splits a stream of N×64 bytes into bundles, with their byte offsets.
pub fn stream(bytes: &[u8]) -> Result<impl Iterator<Item = (usize, &Raw)> + '_, PartialBundle> {
    if !bytes.len().is_multiple_of(BUNDLE_BYTES) {
        return Err(PartialBundle { offset: bytes.len() - bytes.len() % BUNDLE_BYTES, len: bytes.len() });
    }
    Ok(bytes.chunks_exact(BUNDLE_BYTES).enumerate().filter_map(|(i, c)| Some((i * BUNDLE_BYTES, <&Raw>::try_from(c).ok()?))))
}
