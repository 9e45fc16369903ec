//! Everything the description holds, for reports, `tpb layout`, `tpb facts`,
//! the C header and the oracle: one place that lists the described items.

use crate::bundle::{BodyKind, Header};
use crate::layout::Layout;
use crate::provenance::{Confidence, Fact, FactValue, Provenance};

/// Every described struct: the header, the descriptors, then each body.
pub fn layouts() -> Vec<&'static Layout> {
    let mut v: Vec<&'static Layout> = vec![&Header::LAYOUT];
    v.extend(crate::descriptor::layouts());
    v.extend(BodyKind::ALL.iter().map(|k| k.layout()));
    v
}

/// The scalar constants of the format with their provenance.
pub fn facts() -> Vec<Fact> {
    use crate::addr4 as a;
    use crate::bundle::header as h;
    let int = |id, v: u64, sec, conf, doc| Fact { id, value: FactValue::Int(v), prov: Provenance::new(sec, conf), doc };
    let mut f = vec![
        int("bundle_bytes", h::BUNDLE_BYTES as u64, "2.1", Confidence::Confirmed, "bytes per bundle"),
        int("inst_word_len", u64::from(h::INST_WORD_LEN), "2.1", Confidence::Confirmed, "header byte 1"),
        int("inst_word_len_saturate", u64::from(h::INST_WORD_LEN_SATURATE), "1.3", Confidence::Confirmed, "QuantizeMx SATURATE form"),
        Fact {
            id: "setup_header_code",
            value: FactValue::Bytes(&h::SETUP_HEADER_CODE),
            prov: h::SETUP_HEADER_PROV,
            doc: "setupHeader body, identical on CoreV2/V3/V4",
        },
        int("addr4_addr_mask", u64::from(a::ADDR_MASK), "2.2", Confidence::Confirmed, "29-bit byte address"),
        int("addr4_region_mask", u64::from(a::REGION_MASK), "2.2", Confidence::Confirmed, "SBUF (0) / PSUM region bits"),
        int("psum_base", u64::from(a::PSUM_BASE), "2.2", Confidence::Confirmed, "PSUM window base (32 MiB)"),
        int("psum_span", u64::from(a::PSUM_SPAN), "2.2", Confidence::Confirmed, "PSUM window span minus one (4 MiB)"),
        int("addr4_mode_indirect", u64::from(a::MODE_INDIRECT), "2.2", Confidence::Confirmed, "bit 29: gather index"),
        int("addr4_mode_active", u64::from(a::MODE_ACTIVE), "2.2", Confidence::Confirmed, "bit 30: dynamic pattern"),
        int("addr4_register_bit", u64::from(a::REGISTER_BIT), "2.2", Confidence::Confirmed, "bit 31: register mode"),
        int("addr4_regid_limit", u64::from(a::REGID_LIMIT), "2.2", Confidence::Confirmed, "register ids are below this"),
        Fact {
            id: "bir_to_wire_lut",
            value: FactValue::Bytes(&crate::dtype::BIR_TO_WIRE),
            prov: crate::dtype::BIR_TO_WIRE_PROV,
            doc: "BIR dtype ordinal -> wire tag, .rodata 0x1dfbad0 of the known build",
        },
    ];
    for l in crate::descriptor::layouts() {
        f.push(Fact { id: l.c_name, value: FactValue::Int(l.size as u64), prov: l.prov, doc: "descriptor size in bytes" });
    }
    f
}
