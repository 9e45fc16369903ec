//! Which descriptor slots each body carries, the dtype field that types each
//! slot and whether it is read or written. The validator and the generator
//! both walk this table, so a slot's rules are stated once.

use crate::bundle::BodyKind;
use crate::generation::Generation;
use crate::layout::Layout;
use std::sync::OnceLock;

/// The wire type of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotType {
    /// TENSOR*D / MEM_PATTERN*D with this many free dims.
    Pattern(usize),
    /// MXMEM_PATTERN1D (or MXINDIRECT16B when gathered).
    Mx,
}

/// Where the dtype of a slot is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypeRef {
    /// The whole byte of this field path holds the tag.
    Field(&'static str),
    /// Low (0) or high (1) nibble of a byte.
    Nibble(&'static str, u8),
    /// A dense matmul destination: +0x23 on CoreV2/V3, +0x28 on CoreV4 (§2.10).
    MatmulDst,
}

impl DtypeRef {
    /// The field path holding the tag on a generation.
    pub fn field(self, g: Generation) -> &'static str {
        match self {
            DtypeRef::Field(f) | DtypeRef::Nibble(f, _) => f,
            DtypeRef::MatmulDst => match g {
                Generation::V2 | Generation::V3 => "dst_dtype_dense",
                Generation::V4 => "dst_dtype_mx",
            },
        }
    }

    /// Reads the tag from a bundle's bytes.
    pub fn read(self, layout: &Layout, g: Generation, bytes: &[u8]) -> Option<u8> {
        let (off, _) = layout.resolve(self.field(g))?;
        Some(self.tag_of(*bytes.get(off)?))
    }

    /// The tag held by the byte at the field's offset (a nibble or the whole byte).
    pub fn tag_of(self, b: u8) -> u8 {
        match self {
            DtypeRef::Nibble(_, 0) => b & 0x0F,
            DtypeRef::Nibble(_, _) => b >> 4,
            _ => b,
        }
    }

    /// Writes the tag into a bundle's bytes (keeping the other nibble).
    pub fn write(self, layout: &Layout, g: Generation, bytes: &mut [u8], tag: u8) -> Option<()> {
        let (off, _) = layout.resolve(self.field(g))?;
        let b = bytes.get_mut(off)?;
        *b = match self {
            DtypeRef::Nibble(_, 0) => (*b & 0xF0) | (tag & 0x0F),
            DtypeRef::Nibble(_, _) => (*b & 0x0F) | (tag << 4),
            _ => tag,
        };
        Some(())
    }
}

/// Read or written; a matmul destination adds the PSUM-window rule and the bf16 nc form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An input: read.
    Src,
    /// An output: written.
    Dst {
        /// Whether it is a matmul's PSUM destination (the extra rules apply).
        matmul: bool,
    },
}

/// One operand slot of a body.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Field name in the body layout.
    pub name: &'static str,
    /// Its wire type.
    pub ty: SlotType,
    /// Where its dtype tag is read.
    pub dtype: DtypeRef,
    /// Read or written.
    pub role: Role,
}

impl Slot {
    /// Byte offset of the slot in the bundle, from the body layout.
    pub fn offset(&self, layout: &Layout) -> usize {
        layout.field_offset(self.name).unwrap_or(0)
    }
    /// Bytes the slot's descriptor spans.
    pub fn size(&self) -> usize {
        match self.ty {
            SlotType::Pattern(n) => crate::descriptor::pattern_size(n),
            SlotType::Mx => crate::descriptor::MxMemPattern1d::LAYOUT.size,
        }
    }
    /// Whether it is written (any destination).
    pub fn is_dst(&self) -> bool {
        matches!(self.role, Role::Dst { .. })
    }
}

const fn src(name: &'static str, ty: SlotType, dtype: DtypeRef) -> Slot {
    Slot { name, ty, dtype, role: Role::Src }
}
const fn dst(name: &'static str, ty: SlotType, dtype: DtypeRef) -> Slot {
    Slot { name, ty, dtype, role: Role::Dst { matmul: false } }
}
const fn mm_dst(name: &'static str, dtype: DtypeRef) -> Slot {
    Slot { name, ty: SlotType::Pattern(3), dtype, role: Role::Dst { matmul: true } }
}

use DtypeRef::*;
use SlotType::*;

const MATMUL: &[Slot] = &[src("moving", Pattern(3), Field("in_dtype")), mm_dst("psum_dst", MatmulDst)];
const MATMUL_MX: &[Slot] = &[src("moving", Mx, Field("in_dtype")), mm_dst("psum_dst", Field("dst_dtype_mx"))];
const FAMILY_A: &[Slot] = &[src("src", Pattern(3), Field("in_dtype")), dst("dst", Pattern(3), Field("out_dtype"))];
const FAMILY_B: &[Slot] = &[
    dst("dst", Pattern(3), Field("out_dtype")),
    src("in0", Pattern(3), Nibble("in_dtype_nibbles", 0)),
    src("in1", Pattern(3), Nibble("in_dtype_nibbles", 1)),
];
const FAMILY_C: &[Slot] = &[src("src", Pattern(4), Field("src_dtype")), dst("out", Pattern(4), Field("dst_dtype"))];
const BN_STATS: &[Slot] = &[src("src", Pattern(4), Field("src_dtype")), dst("out", Pattern(2), Field("dst_dtype"))];

/// The operand slots of a body kind.
pub fn slots(kind: BodyKind) -> &'static [Slot] {
    match kind {
        BodyKind::Matmul => MATMUL,
        BodyKind::MatmulMx => MATMUL_MX,
        BodyKind::Activation | BodyKind::TensorScalar => FAMILY_A,
        BodyKind::TensorTensor => FAMILY_B,
        BodyKind::PoolCopy => FAMILY_C,
        BodyKind::BnStats => BN_STATS,
        // Control bands, opaque bodies and the layouts recovered from real programs: no operand
        // slot (a recovered field is INFERRED, so no spec rule applies to it; `opcode::body_section`
        // lists those kinds once).
        _ => &[],
    }
}

/// The slots an opcode actually uses (LoadStationary has no destination, Memset no source).
pub fn live_slots(op: &crate::opcode::OpcodeInfo) -> impl Iterator<Item = &'static Slot> + '_ {
    slots(op.body).iter().filter(move |s| if s.is_dst() { op.operands.dst } else { op.operands.src })
}

/// A live slot with its offsets resolved against the body layout. The
/// validator runs on every bundle of a stream; resolving field paths by name
/// there cost more than the checks themselves, so it is done once per opcode.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    /// The slot.
    pub slot: &'static Slot,
    /// Byte offset of the slot in the bundle ([`Slot::offset`]).
    pub offset: usize,
    /// Byte offset of the slot's dtype field on each generation (by
    /// [`Generation::index`]); `None` when the layout has no such field.
    pub dtype_at: [Option<usize>; 3],
}

/// The live slots of an opcode, placed; empty for bytes outside the opcode table.
pub fn placed(op: u8) -> &'static [Placed] {
    static TABLE: OnceLock<Vec<Vec<Placed>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..=u8::MAX)
            .map(|byte| {
                let Some(op) = crate::opcode::lookup(byte) else { return Vec::new() };
                let layout = op.body.layout();
                live_slots(op)
                    .map(|slot| Placed {
                        slot,
                        offset: slot.offset(layout),
                        dtype_at: Generation::ALL.map(|g| layout.resolve(slot.dtype.field(g)).map(|(off, _)| off)),
                    })
                    .collect()
            })
            .collect()
    });
    table.get(usize::from(op)).map_or(&[], Vec::as_slice)
}
