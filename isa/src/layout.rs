//! The description language: every wire struct of the format is declared once
//! with [`wire_struct!`](crate::wire_struct), which emits both the zerocopy Rust struct and a
//! [`Layout`] value (names, offsets, types, formats, provenance) that the text
//! format, the validator's field paths, the C header and the reports read.
//! Offsets come from `offset_of!` on the Rust struct, so the data cannot drift
//! from the code.

use crate::enums::EnumTable;
use crate::provenance::Provenance;
use serde::Serialize;

/// A wire type: a primitive leaf, an array of a wire type, or a described struct.
#[derive(Clone, Copy)]
pub enum Ty {
    /// One byte, unsigned.
    U8,
    /// Two bytes, unsigned, little-endian.
    U16,
    /// Two bytes, two's complement, little-endian.
    I16,
    /// Four bytes, unsigned, little-endian.
    U32,
    /// Eight bytes, unsigned, little-endian.
    U64,
    /// The 32-bit start-address word (§2.2).
    Addr4,
    /// `n` elements of the element type, packed (a function, so types can refer to each other).
    Array(fn() -> Ty, usize),
    /// A described struct, by its layout (a function, for the same reason).
    Struct(fn() -> &'static Layout),
}

impl Ty {
    /// Bytes it takes on the wire (arrays and structs included).
    pub fn size(&self) -> usize {
        match self {
            Ty::U8 => 1,
            Ty::U16 | Ty::I16 => 2,
            Ty::U32 | Ty::Addr4 => 4,
            Ty::U64 => 8,
            Ty::Array(elem, n) => elem().size() * n,
            Ty::Struct(l) => l().size,
        }
    }

    /// The primitive of a leaf, `None` for arrays and structs.
    pub fn prim(&self) -> Option<Prim> {
        Some(match self {
            Ty::U8 => Prim::U8,
            Ty::U16 => Prim::U16,
            Ty::I16 => Prim::I16,
            Ty::U32 => Prim::U32,
            Ty::U64 => Prim::U64,
            Ty::Addr4 => Prim::Addr4,
            Ty::Array(..) | Ty::Struct(_) => return None,
        })
    }
}

/// A little-endian scalar on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Prim {
    /// One byte, unsigned.
    U8,
    /// Two bytes, unsigned.
    U16,
    /// Two bytes, two's complement.
    I16,
    /// Four bytes, unsigned.
    U32,
    /// Eight bytes, unsigned.
    U64,
    /// The ADDR4 word, four bytes ([`crate::Addr4`]).
    Addr4,
}

impl Prim {
    /// Bytes it takes on the wire: 1, 2, 4 or 8.
    pub const fn size(self) -> usize {
        match self {
            Prim::U8 => 1,
            Prim::U16 | Prim::I16 => 2,
            Prim::U32 | Prim::Addr4 => 4,
            Prim::U64 => 8,
        }
    }
    /// The C type the generated header declares it with (`uint16_t`, `NEURON_ISA_TPB_ADDR4`).
    pub const fn c_type(self) -> &'static str {
        match self {
            Prim::U8 => "uint8_t",
            Prim::U16 => "uint16_t",
            Prim::I16 => "int16_t",
            Prim::U32 => "uint32_t",
            Prim::U64 => "uint64_t",
            Prim::Addr4 => "NEURON_ISA_TPB_ADDR4",
        }
    }
    /// Whether it is read as signed (I16 only).
    pub const fn is_signed(self) -> bool {
        matches!(self, Prim::I16)
    }

    /// Reads the value at the start of `b`; `None` when `b` is too short.
    pub fn read(self, b: &[u8]) -> Option<i64> {
        let u = self.read_u64(b)?;
        Some(match self {
            Prim::I16 => i64::from(u as u16 as i16),
            // u64 fields keep their bit pattern; callers use `read_u64` for the full range.
            _ => u as i64,
        })
    }

    /// Reads the value at the start of `b` as unsigned bits, zero-extended;
    /// `None` when `b` is too short.
    pub fn read_u64(self, b: &[u8]) -> Option<u64> {
        b.get(..self.size()).map(le_u64)
    }

    /// Writes the low `size` bytes of `v` little-endian; `None` when `b` is too short.
    pub fn write(self, b: &mut [u8], v: u64) -> Option<()> {
        let n = self.size();
        b.get_mut(..n)?.copy_from_slice(&v.to_le_bytes()[..n]);
        Some(())
    }

    /// Whether `v` fits this primitive (signed range for I16).
    pub fn fits(self, v: i128) -> bool {
        match self {
            Prim::I16 => (i16::MIN as i128..=i16::MAX as i128).contains(&v),
            _ => v >= 0 && v <= i128::from(unsigned_max(self.size())),
        }
    }
}

/// The first 8 bytes of `b` as a little-endian value (fewer are zero-extended).
#[inline]
pub fn le_u64(b: &[u8]) -> u64 {
    // Byte by byte below 8: a copy of a variable length is a call to memcpy, and this runs per field per bundle.
    match b.first_chunk::<8>() {
        Some(w) => u64::from_le_bytes(*w),
        None => b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)),
    }
}

/// The largest unsigned value `bytes` bytes hold (0 for none, `u64::MAX` for 8 or more).
pub fn unsigned_max(bytes: usize) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    }
}

/// How the text format prints a field (and how the assembler reads it back).
#[derive(Clone, Copy)]
pub enum Fmt {
    /// `0x` and the type's full width of hex digits.
    Hex,
    /// Decimal, signed where the type is.
    Dec,
    /// A dtype wire tag: printed by name when known.
    Dtype,
    /// Two dtype tags in one byte (low nibble, high nibble).
    DtypeNibbles,
    /// A byte from an enumeration table: printed by name when known.
    Enum(&'static EnumTable),
    /// Raw bytes, printed as one hex string.
    Bytes,
    /// A nested described struct whose fields print with a `name.` prefix.
    Nested,
    /// A nested struct whose fields print without a prefix (the bundle header).
    Inline,
}

/// One field of a described struct.
#[derive(Clone, Copy)]
pub struct Field {
    /// Its name, as the spec writes it (a path element in the text format).
    pub name: &'static str,
    /// Its byte offset in the enclosing struct.
    pub offset: usize,
    /// Its wire type (a function, so types can refer to each other).
    pub ty: fn() -> Ty,
    /// How the text format prints it.
    pub fmt: Fmt,
    /// The spec section and confidence of its placement.
    pub prov: Provenance,
    /// What it holds, in a line (the C header's comment).
    pub doc: &'static str,
}

/// One described wire struct.
#[derive(Clone, Copy)]
pub struct Layout {
    /// Rust type name.
    pub name: &'static str,
    /// C type name (recovered from the binary's symbols where the spec says so).
    pub c_name: &'static str,
    /// Its size in bytes (64 for a bundle body).
    pub size: usize,
    /// The spec section and confidence of the struct.
    pub prov: Provenance,
    /// What it is, in a line.
    pub doc: &'static str,
    /// Its fields, in the order the struct declares them (offset order).
    pub fields: &'static [Field],
    /// For role twins (MEM_PATTERN*D): the TENSOR*D layout it is byte-identical to.
    pub alias_of: Option<fn() -> &'static Layout>,
}

/// Implemented by every type that can be a field.
pub trait Wire {
    /// The type's wire description.
    fn ty() -> Ty;
}

/// Implemented by every described struct.
pub trait Described {
    /// The struct's layout, the same value as its `LAYOUT` constant.
    fn layout() -> &'static Layout;
}

/// The scalar wire types: each names its `Ty`.
macro_rules! scalar_wire {
    ($($t:ty => $ty:ident),* $(,)?) => {
        $( impl Wire for $t {
            fn ty() -> Ty {
                Ty::$ty
            }
        } )*
    };
}
scalar_wire! {
    u8 => U8,
    zerocopy::little_endian::U16 => U16,
    zerocopy::little_endian::I16 => I16,
    zerocopy::little_endian::U32 => U32,
    zerocopy::little_endian::U64 => U64,
}
impl<T: Wire, const N: usize> Wire for [T; N] {
    fn ty() -> Ty {
        Ty::Array(T::ty, N)
    }
}

/// A flattened scalar or scalar array of a layout, with its dotted path.
#[derive(Clone, Debug, Serialize)]
pub struct Leaf {
    /// Its dotted path from the layout's root, as the text format names it
    /// (`psum_dst.num`: an array is one leaf; findings name an element, `psum_dst.num[1]`).
    pub path: String,
    /// Its byte offset from the layout's start.
    pub offset: usize,
    /// Its scalar type (of each element, for an array).
    pub prim: Prim,
    /// `None` for a scalar, `Some(n)` for an array of n elements.
    pub len: Option<usize>,
    /// How the text format prints it.
    #[serde(skip)]
    pub fmt: LeafFmt,
    /// The spec section and confidence of the field it comes from.
    pub prov: Provenance,
    /// What it holds, in a line.
    pub doc: &'static str,
}

/// [`Fmt`] restricted to what a leaf can carry.
#[derive(Clone, Copy, Debug, Default)]
pub enum LeafFmt {
    /// See [`Fmt::Hex`].
    #[default]
    Hex,
    /// See [`Fmt::Dec`].
    Dec,
    /// See [`Fmt::Dtype`].
    Dtype,
    /// See [`Fmt::DtypeNibbles`].
    DtypeNibbles,
    /// See [`Fmt::Enum`].
    Enum(&'static EnumTable),
    /// See [`Fmt::Bytes`].
    Bytes,
}

impl Leaf {
    /// Bytes it spans: the element size times the elements.
    pub fn size(&self) -> usize {
        self.prim.size() * self.len.unwrap_or(1)
    }
}

/// Entries of the [`Layout::locate`] memo, per thread (direct-mapped: a
/// collision only costs a walk).
const MEMO_SLOTS: usize = 4096;

/// One remembered walk: the field table's address and length, the path, and
/// what the walk found.
struct Memo {
    table: (usize, usize),
    path: Box<str>,
    found: Option<(usize, usize, &'static Field)>,
}

thread_local! {
    static MEMO: std::cell::RefCell<Vec<Option<Memo>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The memo slot of `path` in the field table `table`: its first and last
/// eight bytes (where paths of one slot differ: `src.num[0]`, `in1.dtype`),
/// its length and the table, mixed by one multiplication. Copies and
/// integer arithmetic, no loop over the path, so a fuzzer traces few
/// comparisons here.
fn memo_slot(table: (usize, usize), path: &str) -> usize {
    let b = path.as_bytes();
    let (mut head, mut tail) = ([0u8; 8], [0u8; 8]);
    let n = b.len().min(8);
    head[..n].copy_from_slice(&b[..n]);
    tail[..n].copy_from_slice(&b[b.len() - n..]);
    let key = u64::from_le_bytes(head) ^ u64::from_le_bytes(tail).rotate_left(29) ^ (b.len() as u64).rotate_left(58) ^ (table.0 ^ table.1) as u64;
    // Fibonacci hashing: the top bits of the product index the slots.
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MEMO_SLOTS.trailing_zeros())) as usize
}

impl Layout {
    /// Every scalar / array leaf in offset order, nested structs flattened.
    pub fn leaves(&self) -> Vec<Leaf> {
        let mut out = Vec::new();
        self.push_leaves("", 0, &mut out);
        out
    }

    fn push_leaves(&self, prefix: &str, base: usize, out: &mut Vec<Leaf>) {
        for f in self.fields {
            let path = format!("{prefix}{}", f.name);
            let off = base + f.offset;
            let leaf_fmt = match f.fmt {
                Fmt::Hex => LeafFmt::Hex,
                Fmt::Dec => LeafFmt::Dec,
                Fmt::Dtype => LeafFmt::Dtype,
                Fmt::DtypeNibbles => LeafFmt::DtypeNibbles,
                Fmt::Enum(t) => LeafFmt::Enum(t),
                Fmt::Bytes => LeafFmt::Bytes,
                Fmt::Nested | Fmt::Inline => {
                    if let Ty::Struct(l) = (f.ty)() {
                        let p = if matches!(f.fmt, Fmt::Inline) { prefix.to_string() } else { format!("{path}.") };
                        l().push_leaves(&p, off, out);
                    }
                    continue;
                }
            };
            let (prim, len) = match (f.ty)() {
                Ty::Array(elem, n) => (elem().prim(), Some(n)),
                t => (t.prim(), None),
            };
            if let Some(prim) = prim {
                out.push(Leaf { path, offset: off, prim, len, fmt: leaf_fmt, prov: f.prov, doc: f.doc });
            }
        }
    }

    /// Resolves a field path (`psum_dst.num[1]`, `opcode`) to its byte offset
    /// and size. Walks the description without allocating (the validator
    /// resolves dtype fields on every bundle).
    pub fn resolve(&self, path: &str) -> Option<(usize, usize)> {
        self.locate(path).map(|(off, size, _)| (off, size))
    }

    /// [`Layout::resolve`] and [`Layout::leaf_prov`] of the path without its
    /// index, in one walk: the offset of a field path and the provenance of
    /// the leaf it names (`None` unless both resolve). The validator's
    /// report path resolves every finding's field this way.
    pub fn resolve_leaf(&self, path: &str) -> Option<(usize, Provenance)> {
        let (off, _, f) = self.locate(path)?;
        Some((off, Self::leaf_field_prov(f.ty, f)?))
    }

    /// Offset and size of a field path, and the field it ends in: [`Layout::walk`],
    /// remembered per thread. Findings name the same few paths over and
    /// over, and a walk compares names byte by byte; under a fuzzer, which
    /// traces every comparison, walking was most of the `validate` target's
    /// time, a memo hit is a hash of a few words and one `memcmp`.
    fn locate(&self, path: &str) -> Option<(usize, usize, &'static Field)> {
        // The field table is `'static` and never written: its address and
        // length name its contents, so a hit is the walk's answer whichever
        // `Layout` value (a copy, a promoted constant) holds it.
        let table = (self.fields.as_ptr() as usize, self.fields.len());
        let slot = memo_slot(table, path);
        MEMO.with_borrow_mut(|memo| {
            if memo.is_empty() {
                memo.resize_with(MEMO_SLOTS, || None);
            }
            let entry = memo.get_mut(slot)?;
            if let Some(m) = entry.as_ref().filter(|m| m.table == table && *m.path == *path) {
                return m.found;
            }
            let found = self.walk(path);
            *entry = Some(Memo { table, path: path.into(), found });
            found
        })
    }

    /// Offset and size of a field path, and the field it ends in, by walking the description.
    fn walk(&self, path: &str) -> Option<(usize, usize, &'static Field)> {
        // The index, if any: `name[3]`. Found by a byte scan, not `split_once`:
        // under a fuzzer's comparison tracing, `str`'s char searcher was a fifth
        // of the `validate` target's time.
        let (base, index) = match path.strip_suffix(']').and_then(|p| Some(p.split_at(p.bytes().position(|b| b == b'[')?))) {
            Some((b, i)) => (b, Some(i[1..].parse::<usize>().ok()?)),
            None => (path, None),
        };
        let (off, ty, f) = self.find(base)?;
        match (index, ty) {
            (None, t) => Some((off, t.size(), f)),
            (Some(i), Ty::Array(elem, n)) if i < n => {
                let sz = elem().size();
                Some((off + i * sz, sz, f))
            }
            _ => None,
        }
    }

    /// Finds a leaf or struct field by dotted path; inline structs are searched without a prefix.
    fn find(&self, path: &str) -> Option<(usize, Ty, &'static Field)> {
        let (head, rest) = match path.bytes().position(|b| b == b'.') {
            Some(i) => (&path[..i], Some(&path[i + 1..])),
            None => (path, None),
        };
        for f in self.fields {
            // Only an inline struct or the named field needs its type (an indirect call, traced by a fuzzer).
            if matches!(f.fmt, Fmt::Inline) {
                if let Ty::Struct(l) = (f.ty)() {
                    if let Some((o, t, leaf)) = l().find(path) {
                        return Some((f.offset + o, t, leaf));
                    }
                    continue;
                }
            }
            if f.name != head {
                continue;
            }
            return match (rest, (f.ty)()) {
                (None, t) => Some((f.offset, t, f)),
                (Some(r), Ty::Struct(l)) => l().find(r).map(|(o, t, leaf)| (f.offset + o, t, leaf)),
                _ => None,
            };
        }
        None
    }

    /// The provenance of the leaf at `path` (no index), as [`Layout::leaves`]
    /// gives it, without building the leaf list: the validator's report path.
    pub fn leaf_prov(&self, path: &str) -> Option<Provenance> {
        let (_, ty, f) = self.find(path)?;
        Self::leaf_field_prov(|| ty, f)
    }

    /// `f`'s provenance if a path ending in it (typed `ty`) names a leaf.
    fn leaf_field_prov(ty: impl FnOnce() -> Ty, f: &Field) -> Option<Provenance> {
        if matches!(f.fmt, Fmt::Nested | Fmt::Inline) {
            return None;
        }
        let prim = match ty() {
            Ty::Array(elem, _) => elem().prim(),
            t => t.prim(),
        };
        prim.is_some().then_some(f.prov)
    }

    /// Resolves a path naming a nested struct field (`moving`, `psum_dst`) to its offset.
    pub fn field_offset(&self, name: &str) -> Option<usize> {
        self.fields.iter().find(|f| f.name == name).map(|f| f.offset)
    }
}

/// Declares a wire struct once: emits the zerocopy struct and its [`Layout`].
///
/// A field names its own section and confidence only where they differ from
/// the struct's; without them it inherits the struct's (a body recovered from
/// real programs says "recovered" once, not once per field).
///
/// ```ignore
/// wire_struct! {
///     /// doc
///     struct Tensor1d as "NEURON_ISA_TPB_TENSOR1D", size 8, ["2.3", Confirmed] {
///         /// field doc: its own provenance
///         addr: Addr4 => Hex, "2.2", Confirmed;
///         /// field doc: the struct's provenance, §2.3 CONFIRMED
///         num: U16 => Dec;
///     }
/// }
/// ```
#[macro_export]
macro_rules! wire_struct {
    // A field's provenance: its own when it names one, else its struct's.
    (@prov [$sec:literal, $conf:ident]) => {
        $crate::provenance::Provenance::new($sec, $crate::provenance::Confidence::$conf)
    };
    (@prov [$sec:literal, $conf:ident] [$fsec:literal, $fconf:ident]) => {
        $crate::provenance::Provenance::new($fsec, $crate::provenance::Confidence::$fconf)
    };
    (
        $(#[doc = $doc:literal])*
        struct $name:ident as $c:literal, size $size:literal, [$sec:literal, $conf:ident] {
            $(
                $(#[doc = $fdoc:literal])*
                $f:ident : $t:ty => $fmt:expr $(, $fsec:literal, $fconf:ident)?;
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[repr(C)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug,
                 zerocopy::FromBytes, zerocopy::IntoBytes, zerocopy::KnownLayout,
                 zerocopy::Immutable, zerocopy::Unaligned)]
        pub struct $name {
            $( $(#[doc = $fdoc])* pub $f: $t, )*
        }

        const _: () = assert!(core::mem::size_of::<$name>() == $size, concat!(stringify!($name), " size"));

        impl $name {
            /// This struct's description.
            pub const LAYOUT: $crate::layout::Layout = $crate::layout::Layout {
                name: stringify!($name),
                c_name: $c,
                size: $size,
                prov: $crate::provenance::Provenance::new($sec, $crate::provenance::Confidence::$conf),
                doc: concat!($($doc, "\n",)*),
                fields: &[ $(
                    $crate::layout::Field {
                        name: stringify!($f),
                        offset: core::mem::offset_of!($name, $f),
                        ty: <$t as $crate::layout::Wire>::ty,
                        fmt: $fmt,
                        prov: $crate::wire_struct!(@prov [$sec, $conf] $([$fsec, $fconf])?),
                        doc: concat!($($fdoc,)*),
                    },
                )* ],
                alias_of: None,
            };
        }

        impl $crate::layout::Described for $name {
            fn layout() -> &'static $crate::layout::Layout {
                &Self::LAYOUT
            }
        }

        impl $crate::layout::Wire for $name {
            fn ty() -> $crate::layout::Ty {
                $crate::layout::Ty::Struct(<$name as $crate::layout::Described>::layout)
            }
        }
    };
}

/// Declares a role twin: byte-identical to `$of`, with its own C name (§2.5).
#[macro_export]
macro_rules! wire_alias {
    ($(#[doc = $doc:literal])* struct $name:ident = $of:ident as $c:literal, [$sec:literal, $conf:ident]) => {
        $(#[doc = $doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug,
                 zerocopy::FromBytes, zerocopy::IntoBytes, zerocopy::KnownLayout,
                 zerocopy::Immutable, zerocopy::Unaligned)]
        pub struct $name(pub $of);

        impl $name {
            /// The twin's layout: its own names and provenance over the fields of the struct it twins.
            pub const LAYOUT: $crate::layout::Layout = $crate::layout::Layout {
                name: stringify!($name),
                c_name: $c,
                prov: $crate::provenance::Provenance::new($sec, $crate::provenance::Confidence::$conf),
                doc: concat!($($doc, "\n",)*),
                alias_of: Some(<$of as $crate::layout::Described>::layout),
                ..$of::LAYOUT
            };
        }

        impl core::ops::Deref for $name {
            type Target = $of;
            fn deref(&self) -> &$of {
                &self.0
            }
        }
        impl core::ops::DerefMut for $name {
            fn deref_mut(&mut self) -> &mut $of {
                &mut self.0
            }
        }
        impl $crate::layout::Described for $name {
            fn layout() -> &'static $crate::layout::Layout {
                &Self::LAYOUT
            }
        }
        impl $crate::layout::Wire for $name {
            fn ty() -> $crate::layout::Ty {
                $crate::layout::Ty::Struct(<$name as $crate::layout::Described>::layout)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::{Field, Fmt, Layout, Prim, Ty};
    use crate::provenance::{Confidence, Provenance};

    const PROV: Provenance = Provenance::new("test", Confidence::Inferred);
    const fn field(name: &'static str, offset: usize, ty: fn() -> Ty, fmt: Fmt) -> Field {
        Field { name, offset, ty, fmt, prov: PROV, doc: "" }
    }
    const fn layout(name: &'static str, size: usize, fields: &'static [Field]) -> Layout {
        Layout { name, c_name: name, size, prov: PROV, doc: "", fields, alias_of: None }
    }
    fn word() -> Ty {
        Ty::U32
    }
    fn inner() -> Ty {
        static INNER: Layout = layout("Inner", 4, &[field("x", 0, word, Fmt::Hex)]);
        Ty::Struct(|| &INNER)
    }

    #[test]
    fn leaf_prov_agrees_with_the_leaf_list_on_every_field_shape() {
        // A scalar (a leaf), a struct nested as such (its fields are the leaves), and the
        // two shapes no described layout has: a scalar marked nested, a struct marked hex.
        static OUTER: Layout = layout(
            "Outer",
            16,
            &[field("a", 0, word, Fmt::Hex), field("n", 4, inner, Fmt::Nested), field("b", 8, word, Fmt::Nested), field("c", 12, inner, Fmt::Hex)],
        );
        let leaves: Vec<String> = OUTER.leaves().into_iter().map(|l| l.path).collect();
        assert_eq!(leaves, ["a", "n.x"]);
        // (Below a struct marked hex, `find` still walks in; no layout can have one:
        // `a_field_is_nested_exactly_when_it_is_a_struct`.)
        for path in ["a", "n", "n.x", "b", "c"] {
            assert_eq!(OUTER.leaf_prov(path).is_some(), leaves.iter().any(|l| l == path), "`{path}`");
        }
    }

    /// What `resolve_leaf` must give: the two lookups it replaces, each walked.
    fn walked(l: &Layout, path: &str) -> Option<(usize, Provenance)> {
        let (off, _, _) = l.walk(path)?;
        let base = path.split('[').next().unwrap_or(path);
        let (_, ty, f) = l.find(base)?;
        Some((off, Layout::leaf_field_prov(|| ty, f)?))
    }

    #[test]
    fn a_remembered_lookup_is_the_walk_on_every_path_of_every_layout() {
        // Each path twice (a miss, then a hit), every element of every array, and
        // paths that are no leaf: a struct, an index out of range, an unknown name.
        let mut checked = 0;
        for l in crate::catalog::layouts() {
            let mut paths = Vec::new();
            for leaf in l.leaves() {
                paths.extend((0..leaf.len.unwrap_or(0) + 1).map(|i| format!("{}[{i}]", leaf.path)));
                paths.push(leaf.path);
            }
            paths.extend(l.fields.iter().map(|f| f.name.to_string()));
            paths.extend(["nope".to_string(), "opcode[0]".to_string(), "x.".to_string(), "[1]".to_string(), String::new()]);
            for p in paths.iter().chain(&paths) {
                let want = walked(l, p).map(|(o, prov)| (o, prov.section, prov.confidence));
                assert_eq!(l.resolve_leaf(p).map(|(o, prov)| (o, prov.section, prov.confidence)), want, "{}: `{p}`", l.name);
                assert_eq!(l.resolve(p), l.walk(p).map(|(o, s, _)| (o, s)), "{}: `{p}`", l.name);
                checked += 1;
            }
        }
        assert!(checked > 2000, "only {checked} lookups");
    }

    #[test]
    fn the_memo_tells_layouts_apart_by_their_field_tables() {
        // The same path in two layouts, alternately: each answer is its own layout's.
        static ONE: Layout = layout("One", 8, &[field("a", 0, word, Fmt::Hex), field("b", 4, word, Fmt::Hex)]);
        static TWO: Layout = layout("Two", 8, &[field("b", 0, word, Fmt::Hex), field("a", 4, word, Fmt::Hex)]);
        for _ in 0..3 {
            assert_eq!(ONE.resolve("a"), Some((0, 4)));
            assert_eq!(TWO.resolve("a"), Some((4, 4)));
            // A copy of a layout reads the same table, so it gets the same answers.
            let copy = TWO;
            assert_eq!(copy.resolve("b"), Some((0, 4)));
        }
    }

    #[test]
    fn a_field_is_nested_exactly_when_it_is_a_struct() {
        // The layouts are declared by hand (`field: Type => Fmt`): a struct printed as a
        // number, or a number marked nested, would vanish from the leaf list.
        let mut fields = 0;
        for l in crate::catalog::layouts() {
            for f in l.fields {
                let is_struct = matches!((f.ty)(), Ty::Struct(_));
                assert_eq!(matches!(f.fmt, Fmt::Nested | Fmt::Inline), is_struct, "{}.{}", l.name, f.name);
                fields += 1;
            }
        }
        assert!(fields > 100, "{fields} fields");
    }

    #[test]
    fn bytes_hold_values_up_to_all_ones() {
        let max: Vec<u64> = [0, 1, 2, 3, 4, 7, 8, 9].into_iter().map(super::unsigned_max).collect();
        assert_eq!(max, [0, 0xFF, 0xFFFF, 0xFF_FFFF, 0xFFFF_FFFF, 0xFF_FFFF_FFFF_FFFF, u64::MAX, u64::MAX]);
    }

    #[test]
    fn a_value_fits_a_primitive_exactly_up_to_its_width() {
        // The text assembler refuses a value its field cannot hold, so each edge matters.
        for (prim, max) in
            [(Prim::U8, 0xFFi128), (Prim::U16, 0xFFFF), (Prim::U32, 0xFFFF_FFFF), (Prim::Addr4, 0xFFFF_FFFF), (Prim::U64, u64::MAX as i128)]
        {
            assert!(prim.fits(0) && prim.fits(max), "{prim:?} holds 0..={max:#x}");
            assert!(!prim.fits(max + 1), "{prim:?} cannot hold {:#x}", max + 1);
            assert!(!prim.fits(-1), "{prim:?} is unsigned");
        }
        assert!(Prim::I16.fits(-0x8000) && Prim::I16.fits(0x7FFF));
        assert!(!Prim::I16.fits(-0x8001) && !Prim::I16.fits(0x8000));
    }
}
