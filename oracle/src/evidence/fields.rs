//! Which bytes of a bundle the evidence histograms, and which bytes a
//! finding is about.

use tpb_isa::descriptor;
use tpb_isa::layout::{Layout, LeafFmt};
use tpb_isa::validate::Finding;
use tpb_isa::{text, BodyKind, BUNDLE_BYTES};

/// One histogrammed field: its name, and where its bytes are in the bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    /// The field's path in the layout (`in_dtype`, `out.num[2]`), or `word_XX` for a word of an opaque body.
    pub path: String,
    /// Its byte offset in the bundle.
    pub offset: usize,
    /// Its width in bytes.
    pub size: usize,
}

/// How to read a field of 1 to 8 bytes with one 8-byte load (the field's
/// value as the histogram keys it: little-endian, with its width). The
/// evidence reads every field of every bundle; a byte loop per field cost
/// more than counting the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Narrow {
    /// Where the load starts: the field's offset, moved back to fit 8 bytes in the bundle.
    start: usize,
    /// Bits from the load's start to the field's.
    shift: u32,
    mask: u64,
    width: u8,
}

impl Narrow {
    /// The read of `f`, if it is 1 to 8 bytes inside a bundle.
    pub(crate) fn of(f: &FieldSpec) -> Option<Narrow> {
        let width = u8::try_from(f.size).ok().filter(|w| (1..=8).contains(w))?;
        if f.offset + f.size > BUNDLE_BYTES {
            return None;
        }
        let start = f.offset.min(BUNDLE_BYTES - 8);
        let mask = if width == 8 { u64::MAX } else { (1u64 << (8 * u32::from(width))) - 1 };
        Some(Narrow { start, shift: 8 * (f.offset - start) as u32, mask, width })
    }

    /// The field's value in `raw` and its width: `(le_u64(bytes), width)`.
    pub(crate) fn read(&self, raw: &[u8; BUNDLE_BYTES]) -> (u64, u8) {
        let word = raw.get(self.start..).and_then(|b| b.first_chunk::<8>()).map_or(0, |w| u64::from_le_bytes(*w));
        ((word >> self.shift) & self.mask, self.width)
    }
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

#[cfg(test)]
mod tests {
    use super::{fields, Narrow};
    use tpb_isa::{BodyKind, BUNDLE_BYTES};

    /// Every field of every body kind that fits 8 bytes reads, in one load,
    /// what the byte-by-byte reading gives, on bundles of distinct bytes.
    #[test]
    fn a_narrow_read_is_the_fields_bytes_little_endian() {
        let raw: [u8; BUNDLE_BYTES] = std::array::from_fn(|i| (i as u8).wrapping_mul(37).wrapping_add(11));
        let mut seen = 0;
        for kind in BodyKind::ALL {
            for f in fields(*kind) {
                let Some(n) = Narrow::of(&f) else {
                    assert!(f.size > 8 || f.size == 0, "{kind:?} {} of {} bytes has no narrow read", f.path, f.size);
                    continue;
                };
                let bytes = &raw[f.offset..f.offset + f.size];
                assert_eq!(n.read(&raw), (tpb_isa::layout::le_u64(bytes), f.size as u8), "{kind:?} {}", f.path);
                seen += 1;
            }
        }
        assert!(seen > 100, "only {seen} fields read");
        // The last byte of the bundle, read with the load moved back.
        let last = super::FieldSpec { path: "x".into(), offset: BUNDLE_BYTES - 1, size: 1 };
        assert_eq!(Narrow::of(&last).map(|n| n.read(&raw)), Some((u64::from(raw[BUNDLE_BYTES - 1]), 1)));
    }
}
