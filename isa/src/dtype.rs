//! The on-wire dtype tag (NEURON_ISA_TPB_DTYPE) and the BIR-dtype → wire-tag LUT.

use crate::generation::Generation;
use crate::provenance::{Confidence, Provenance};
use serde::Serialize;

/// One wire dtype tag.
#[derive(Debug, Serialize)]
pub struct DtypeInfo {
    /// The tag's value on the wire (1..=16).
    pub tag: u8,
    /// Short name used by the text format.
    pub name: &'static str,
    /// Enumerator name in the C header.
    pub c_name: &'static str,
    /// Address alignment in bytes required for an operand of this dtype.
    pub align: u32,
    /// Whether a PSUM write may use this tag (the 4-byte class).
    pub psum_write: bool,
    /// First generation that encodes the tag.
    pub since: Generation,
}

/// Provenance of the tag enumeration and its alignment classes (§2.2 `addr_aligned_dtype`).
pub const DTYPE_PROV: Provenance = Provenance::new("1.1 / D-D04 / 2.2", Confidence::Confirmed);

macro_rules! dtypes {
    ($( $tag:literal $name:literal $c:ident align $align:literal psum $psum:literal $since:ident; )*) => {
        /// Every wire dtype tag, in tag order (index = tag - 1).
        pub static DTYPES: &[DtypeInfo] = &[ $(
            DtypeInfo { tag: $tag, name: $name, c_name: stringify!($c), align: $align, psum_write: $psum, since: Generation::$since },
        )* ];
        // `info` indexes by tag, so the rows must run 1, 2, 3, … with no gap.
        const _: () = {
            let tags: &[u8] = &[ $( $tag, )* ];
            let mut i = 0;
            while i < tags.len() {
                assert!(tags[i] as usize == i + 1, "dtype rows out of tag order");
                i += 1;
            }
        };
    };
}

dtypes! {
    1  "u64"      ISA_DT_UINT64          align 8 psum false V2;
    2  "i8"       ISA_DT_INT8            align 1 psum false V2;
    3  "u8"       ISA_DT_UINT8           align 1 psum false V2;
    4  "i16"      ISA_DT_INT16           align 2 psum false V2;
    5  "u16"      ISA_DT_UINT16          align 2 psum false V2;
    6  "bf16"     ISA_DT_BFLOAT16        align 2 psum false V2;
    7  "f16"      ISA_DT_FLOAT16         align 2 psum false V2;
    8  "i32"      ISA_DT_INT32           align 4 psum true  V2;
    9  "u32"      ISA_DT_UINT32          align 4 psum true  V2;
    10 "f32"      ISA_DT_FLOAT32         align 4 psum true  V2;
    11 "f32r"     ISA_DT_FLOAT32R        align 4 psum true  V2;
    12 "i64"      ISA_DT_INT64           align 8 psum false V2;
    13 "f8e3"     ISA_DT_FLOAT8_E3       align 1 psum false V2;
    14 "f8e4m3"   ISA_DT_FLOAT8_E4M3     align 1 psum false V2;
    15 "f8e5m2"   ISA_DT_FLOAT8_E5M2     align 1 psum false V2;
    16 "f4e2m1x4" ISA_DT_FLOAT4_E2M1_X4  align 1 psum false V4;
}

/// The bf16 tag, which a matmul PSUM destination accepts in its "nc" form (§2.10).
pub const BF16: u8 = 6;

/// Looks a tag up; `None` for tags outside 1..=16.
pub fn info(tag: u8) -> Option<&'static DtypeInfo> {
    DTYPES.get(usize::from(tag).checked_sub(1)?)
}

/// Looks a dtype up by the short name the text format uses (`bf16`).
pub fn by_name(name: &str) -> Option<&'static DtypeInfo> {
    DTYPES.iter().find(|d| d.name == name)
}

/// The 20-byte BIR-dtype → wire-tag LUT, `.rodata` 0x1dfbad0 of the known build.
pub const BIR_TO_WIRE: [u8; 20] =
    [0x03, 0x02, 0x10, 0x0d, 0x0e, 0x0e, 0x03, 0x0f, 0x0e, 0x0f, 0x05, 0x04, 0x06, 0x07, 0x09, 0x08, 0x0a, 0x0b, 0x01, 0x0c];

/// Where [`BIR_TO_WIRE`] comes from.
pub const BIR_TO_WIRE_PROV: Provenance = Provenance::new("1.1 / 2.6 / D-D04", Confidence::Confirmed);

/// BIR dtype ordinals the spec names (the others are known only by their wire tag).
pub const BIR_NAMED: &[(usize, &str)] = &[(2, "float4_e2m1fn_x4"), (6, "float8_e8m0fnu")];

/// BIR dtypes whose MX k-extent counts x4-packed elements (§2.6).
pub const BIR_X4_PACKED: [usize; 3] = [2, 8, 9];
