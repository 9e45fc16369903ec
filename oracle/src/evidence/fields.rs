//! Which bytes of a bundle the evidence histograms, and which bytes a
//! finding is about.

use tpb_isa::descriptor;
use tpb_isa::layout::{Layout, LeafFmt};
use tpb_isa::validate::Finding;
use tpb_isa::{text, BodyKind, BUNDLE_BYTES};

/// One histogrammed field: its name, and where its bytes are in the bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    pub path: String,
    pub offset: usize,
    pub size: usize,
}

/// Width of the words an opaque body is cut into.
const WORD: usize = 4;

/// The fields of a body kind, in offset order, the opcode left out (it is
/// the group's key). Arrays of numbers are split into their elements, named
/// as findings and errata name them (`out.num[2]`); padding byte arrays stay
/// whole. An opaque body has no fields to name: it is cut into aligned
/// 4-byte words, `word_04` … `word_3c`.
pub fn fields(kind: BodyKind) -> Vec<FieldSpec> {
    let leaves = text::leaves(kind).iter().filter(|l| l.path != "opcode");
    if kind == BodyKind::Opaque {
        let header = leaves.filter(|l| l.offset < WORD).map(|l| FieldSpec { path: l.path.clone(), offset: l.offset, size: l.size() });
        let words = (WORD..BUNDLE_BYTES).step_by(WORD).map(|o| FieldSpec { path: format!("word_{o:02x}"), offset: o, size: WORD });
        return header.chain(words).collect();
    }
    let mut out = Vec::new();
    for l in leaves {
        match l.len {
            Some(n) if !matches!(l.fmt, LeafFmt::Bytes) => {
                let size = l.prim.size();
                out.extend((0..n).map(|i| FieldSpec { path: format!("{}[{i}]", l.path), offset: l.offset + i * size, size }));
            }
            _ => out.push(FieldSpec { path: l.path.clone(), offset: l.offset, size: l.size() }),
        }
    }
    out
}

/// The bytes a finding is about: its field's width at its offset. A field
/// the body layout does not name is a leaf of a view (an indirect reading of
/// a slot, `src.index`): its width comes from the descriptor that names it.
pub fn finding_bytes<'a>(raw: &'a [u8], layout: &Layout, f: &Finding) -> &'a [u8] {
    let size = layout
        .resolve(&f.field)
        .map(|(_, s)| s)
        .or_else(|| {
            let (_, leaf) = f.field.split_once('.')?;
            descriptor::layouts().iter().find_map(|d| d.resolve(leaf)).map(|(_, s)| s)
        })
        .unwrap_or(1);
    raw.get(f.offset..(f.offset + size).min(raw.len())).unwrap_or(&[])
}
