//! The text format: one line per bundle, `0xNN:Name field=value …`, every
//! field of the body layout by its path. The disassembler and the assembler
//! both walk the same flattened layout, so text → bytes → text is exact.
//! Comments start with `#`; blank lines are skipped.

use crate::bundle::{BodyKind, Bundle, Raw, BUNDLE_BYTES, INST_WORD_LEN};
use crate::dtype;
use crate::layout::{Leaf, LeafFmt, Prim};
use crate::opcode;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// The flattened leaves of every body kind, built once.
pub fn leaves(kind: BodyKind) -> &'static [Leaf] {
    static CACHE: OnceLock<Vec<Vec<Leaf>>> = OnceLock::new();
    let all = CACHE.get_or_init(|| BodyKind::ALL.iter().map(|k| k.layout().leaves()).collect());
    let i = BodyKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
    all.get(i).map_or(&[], Vec::as_slice)
}

/// The mnemonic: opcode byte and table name.
pub fn mnemonic(op: u8) -> String {
    format!("{op:#04x}:{}", opcode::name(op))
}

/// Disassembles one bundle to one line (no trailing newline).
pub fn disasm(b: &Bundle) -> String {
    let bytes = b.as_bytes();
    let mut s = mnemonic(b.opcode());
    for leaf in leaves(b.kind()) {
        if leaf.path == "opcode" {
            continue;
        }
        s.push(' ');
        s.push_str(&leaf.path);
        s.push('=');
        let at = bytes.get(leaf.offset..).unwrap_or(&[]);
        format_leaf(&mut s, leaf, at);
    }
    s
}

fn format_leaf(s: &mut String, leaf: &Leaf, at: &[u8]) {
    match (leaf.len, leaf.fmt) {
        (Some(n), LeafFmt::Bytes) | (Some(n), _) if leaf.prim == Prim::U8 => {
            for b in at.iter().take(n) {
                push_digits(s, u64::from(*b), 2);
            }
        }
        (Some(n), fmt) => {
            s.push('[');
            for i in 0..n {
                if i > 0 {
                    s.push(',');
                }
                format_scalar(s, leaf.prim, fmt, at.get(i * leaf.prim.size()..).unwrap_or(&[]));
            }
            s.push(']');
        }
        (None, fmt) => format_scalar(s, leaf.prim, fmt, at),
    }
}

/// Some bytes of one field as the disassembly prints that field: a scalar
/// leaf's bytes, one element of an array leaf, or bytes of a byte array
/// (the evidence histograms arrays by element and opaque bodies by word).
pub fn format_value(leaf: &Leaf, bytes: &[u8]) -> String {
    let mut s = String::new();
    if leaf.len.is_some() && leaf.prim == Prim::U8 {
        bytes.iter().for_each(|b| push_digits(&mut s, u64::from(*b), 2));
    } else {
        format_scalar(&mut s, leaf.prim, leaf.fmt, bytes);
    }
    s
}

/// `0x` and the low `digits` hex digits of `v` (the width of its type).
fn push_hex(s: &mut String, v: u64, digits: usize) {
    s.push_str("0x");
    push_digits(s, v, digits);
}

/// The low `digits` lowercase hex digits of `v`, zero-padded: the
/// disassembly prints thousands of these, and `write!` was its slow part.
fn push_digits(s: &mut String, v: u64, digits: usize) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits.min(16)).rev() {
        s.push(char::from(DIGITS[((v >> (4 * i)) & 0xF) as usize]));
    }
}

fn format_scalar(s: &mut String, prim: Prim, fmt: LeafFmt, at: &[u8]) {
    let u = prim.read_u64(at).unwrap_or(0);
    let hex = |s: &mut String| push_hex(s, u, 2 * prim.size());
    match fmt {
        LeafFmt::Dec if prim.is_signed() => {
            let _ = write!(s, "{}", prim.read(at).unwrap_or(0));
        }
        LeafFmt::Dec => {
            let _ = write!(s, "{u}");
        }
        // Named values are single bytes in every layout (a test in isa/tests/layout.rs).
        LeafFmt::Dtype => match dtype::info(u as u8) {
            Some(d) => s.push_str(d.name),
            _ => hex(s),
        },
        LeafFmt::DtypeNibbles => match (dtype::info((u & 0xF) as u8), dtype::info((u >> 4) as u8 & 0xF)) {
            (Some(lo), Some(hi)) => {
                let _ = write!(s, "{}/{}", lo.name, hi.name);
            }
            _ => hex(s),
        },
        LeafFmt::Enum(t) => match t.name_of(u as u8) {
            Some(n) => s.push_str(n),
            _ => hex(s),
        },
        LeafFmt::Hex | LeafFmt::Bytes => hex(s),
    }
}

/// An assembler error: 1-based line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct TextError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub error: AsmError,
}

/// Why one line does not assemble ([`asm_line`]). Each variant names the
/// token at fault as written; a field's value is judged by [`ValueError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsmError {
    /// The first token is not `0xNN:Name`.
    #[error("`{token}`: expected 0xNN:Name")]
    Mnemonic {
        /// The first token.
        token: String,
    },
    /// The part before `:` is not a number from 0 to 0xFF.
    #[error("`{text}`: not an opcode byte")]
    OpcodeByte {
        /// The part before `:`.
        text: String,
    },
    /// The name after `:` is not the opcode table's name for that byte.
    #[error("`{token}`: opcode {opcode:#04x} is {table}, not {name}")]
    WrongName {
        /// The whole mnemonic token.
        token: String,
        /// The opcode byte it gives.
        opcode: u8,
        /// The opcode table's name for that byte ([`opcode::name`]).
        table: &'static str,
        /// The name the line gives.
        name: String,
    },
    /// A token after the mnemonic has no `=`.
    #[error("`{token}`: expected field=value")]
    NotFieldValue {
        /// The token.
        token: String,
    },
    /// The body layout of the opcode has no field of that path.
    #[error("`{key}`: no such field in {layout}")]
    NoSuchField {
        /// The field path as given.
        key: String,
        /// The body layout's Rust type name ([`crate::layout::Layout::name`]).
        layout: &'static str,
    },
    /// The line gives the same field twice.
    #[error("`{key}`: given twice")]
    GivenTwice {
        /// The field path.
        key: String,
    },
    /// The field's bytes lie past the bundle's 64 (a layout error, not the line's).
    #[error("`{key}`: outside the bundle")]
    OutsideBundle {
        /// The field path.
        key: String,
    },
    /// The field's value does not read.
    #[error("`{key}={value}`: {error}")]
    Value {
        /// The field path.
        key: String,
        /// The value as given.
        value: String,
        /// What is wrong with the value (boxed to keep every `AsmError`, and
        /// so [`TextError`], small: a `ValueError` holds a 16-byte-aligned `i128`).
        error: Box<ValueError>,
    },
}

/// Why the value of one `field=value` does not read for that field's type
/// and format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// A byte array is written as exactly two hex digits per byte.
    #[error("expected {digits} hex digits")]
    HexLength {
        /// Two per byte of the field.
        digits: usize,
    },
    /// A byte array's digits split inside a multi-byte character.
    #[error("bad hex")]
    BadHex,
    /// Two digits of a byte array are not hex.
    #[error("`{pair}` is not hex")]
    NotHex {
        /// The two characters.
        pair: String,
    },
    /// An array of wider elements is not written `[a,b,…]`.
    #[error("expected [a,b,…]")]
    NotArray,
    /// An array has another number of elements than the field.
    #[error("expected {expected} elements, got {got}")]
    ElementCount {
        /// The field's number of elements.
        expected: usize,
        /// The number given.
        got: usize,
    },
    /// The value's bytes lie past the field's (a layout error, not the line's).
    #[error("outside the bundle")]
    OutsideBundle,
    /// Neither a decimal nor a `0x` hex number (nor, where the field has
    /// names, a name).
    #[error("`{text}` is not a number")]
    NotANumber {
        /// The value as given.
        text: String,
    },
    /// Neither a number nor a dtype name, in a dtype field.
    #[error("`{text}` is not a number or a dtype name (one of {})", dtype_names())]
    NotADtype {
        /// The value as given.
        text: String,
    },
    /// Neither a number nor `LOW/HIGH` dtype names, in a nibble-packed dtype field.
    #[error("`{text}` is not a number or LOW/HIGH dtype names (each one of {})", dtype_names())]
    NotDtypeNibbles {
        /// The value as given.
        text: String,
    },
    /// Neither a number nor a name of the field's enumeration.
    #[error("`{text}` is not a number or a name of {table} (one of {})", entry_names(.entries))]
    NotAnEnumName {
        /// The value as given.
        text: String,
        /// The enumeration's name ([`crate::enums::EnumTable::name`]).
        table: &'static str,
        /// The enumeration's values and names, as listed.
        entries: &'static [(u8, &'static str)],
    },
    /// The number is outside the range of the field's primitive type.
    #[error("{value} does not fit {prim:?}")]
    DoesNotFit {
        /// The number, with its sign.
        value: i128,
        /// The field's (or element's) primitive type.
        prim: Prim,
    },
    /// A dtype whose tag is above 0x0F, named for one 4-bit half of a
    /// nibble-packed field: it would spill into the other half.
    #[error("dtype {name} (tag {tag}) does not fit a 4-bit dtype field")]
    WideNibble {
        /// The dtype's name.
        name: &'static str,
        /// Its tag.
        tag: u8,
    },
}

/// Every dtype name, comma separated, as an error lists them.
fn dtype_names() -> String {
    dtype::DTYPES.iter().map(|d| d.name).collect::<Vec<_>>().join(", ")
}

/// The names of an enumeration's entries, comma separated, in table order.
fn entry_names(entries: &[(u8, &str)]) -> String {
    entries.iter().map(|e| e.1).collect::<Vec<_>>().join(", ")
}

/// Assembles a whole text (one bundle per non-blank line) into bytes.
pub fn assemble(text: &str) -> Result<Vec<u8>, TextError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match asm_line(line) {
            Ok(Some(raw)) => out.extend_from_slice(&raw),
            Ok(None) => {}
            Err(error) => return Err(TextError { line: i + 1, error }),
        }
    }
    Ok(out)
}

/// Assembles one line; `Ok(None)` for a blank or comment line.
pub fn asm_line(line: &str) -> Result<Option<Raw>, AsmError> {
    let code = line.split('#').next().unwrap_or("").trim();
    let mut tokens = code.split_whitespace();
    let Some(mn) = tokens.next() else { return Ok(None) };
    let (op_text, name) = mn.split_once(':').ok_or_else(|| AsmError::Mnemonic { token: mn.to_string() })?;
    let op = parse_uint(op_text).filter(|v| *v <= 0xFF).ok_or_else(|| AsmError::OpcodeByte { text: op_text.to_string() })? as u8;
    if name != opcode::name(op) {
        return Err(AsmError::WrongName { token: mn.to_string(), opcode: op, table: opcode::name(op), name: name.to_string() });
    }
    let kind = opcode::body_kind(op);
    let leaves = leaves(kind);
    let mut raw = [0u8; BUNDLE_BYTES];
    raw[0] = op;
    raw[1] = INST_WORD_LEN;
    let mut seen = vec![false; leaves.len()];
    for tok in tokens {
        let (key, value) = tok.split_once('=').ok_or_else(|| AsmError::NotFieldValue { token: tok.to_string() })?;
        let i = leaves
            .iter()
            .position(|l| l.path == key && l.path != "opcode")
            .ok_or_else(|| AsmError::NoSuchField { key: key.to_string(), layout: kind.layout().name })?;
        if std::mem::replace(&mut seen[i], true) {
            return Err(AsmError::GivenTwice { key: key.to_string() });
        }
        let leaf = &leaves[i];
        let at = raw.get_mut(leaf.offset..leaf.offset + leaf.size()).ok_or_else(|| AsmError::OutsideBundle { key: key.to_string() })?;
        parse_leaf(leaf, value, at).map_err(|error| AsmError::Value { key: key.to_string(), value: value.to_string(), error: Box::new(error) })?;
    }
    Ok(Some(raw))
}

fn parse_leaf(leaf: &Leaf, value: &str, at: &mut [u8]) -> Result<(), ValueError> {
    match leaf.len {
        Some(n) if leaf.prim == Prim::U8 => {
            if value.len() != 2 * n {
                return Err(ValueError::HexLength { digits: 2 * n });
            }
            for (i, b) in at.iter_mut().enumerate() {
                let pair = value.get(2 * i..2 * i + 2).ok_or(ValueError::BadHex)?;
                *b = u8::from_str_radix(pair, 16).map_err(|_| ValueError::NotHex { pair: pair.to_string() })?;
            }
            Ok(())
        }
        Some(n) => {
            let inner = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')).ok_or(ValueError::NotArray)?;
            let parts: Vec<&str> = inner.split(',').collect();
            if parts.len() != n {
                return Err(ValueError::ElementCount { expected: n, got: parts.len() });
            }
            let sz = leaf.prim.size();
            for (i, p) in parts.iter().enumerate() {
                let v = parse_scalar(leaf.prim, leaf.fmt, p)?;
                leaf.prim.write(&mut at[i * sz..], v).ok_or(ValueError::OutsideBundle)?;
            }
            Ok(())
        }
        None => {
            let v = parse_scalar(leaf.prim, leaf.fmt, value)?;
            leaf.prim.write(at, v).ok_or(ValueError::OutsideBundle)
        }
    }
}

fn parse_scalar(prim: Prim, fmt: LeafFmt, text: &str) -> Result<u64, ValueError> {
    let symbolic = match fmt {
        LeafFmt::Dtype => dtype::by_name(text).map(|d| u64::from(d.tag)),
        LeafFmt::Enum(t) => t.value_of(text).map(u64::from),
        LeafFmt::DtypeNibbles => match text.split_once('/').map(|(lo, hi)| (dtype::by_name(lo), dtype::by_name(hi))) {
            Some((Some(lo), Some(hi))) => Some(u64::from(nibble(lo)?) | u64::from(nibble(hi)?) << 4),
            _ => None,
        },
        _ => None,
    };
    if let Some(v) = symbolic {
        return Ok(v);
    }
    let n: i128 = if let Some(neg) = text.strip_prefix('-') {
        -(parse_uint(neg).ok_or_else(|| ValueError::NotANumber { text: text.to_string() })? as i128)
    } else {
        parse_uint(text).ok_or_else(|| not_a_name(fmt, text))? as i128
    };
    if !prim.fits(n) {
        return Err(ValueError::DoesNotFit { value: n, prim });
    }
    Ok(n as i64 as u64 & crate::layout::unsigned_max(prim.size()))
}

/// Why `text` is neither a number nor a name the field's format knows (the
/// error lists the names it knows).
fn not_a_name(fmt: LeafFmt, text: &str) -> ValueError {
    let text = text.to_string();
    match fmt {
        LeafFmt::Dtype => ValueError::NotADtype { text },
        LeafFmt::DtypeNibbles => ValueError::NotDtypeNibbles { text },
        LeafFmt::Enum(t) => ValueError::NotAnEnumName { text, table: t.name, entries: t.entries },
        _ => ValueError::NotANumber { text },
    }
}

/// A dtype's tag as one nibble of a `dtype_nibbles` byte; a wider tag
/// would spill into the other nibble, so it is refused.
fn nibble(d: &dtype::DtypeInfo) -> Result<u8, ValueError> {
    if d.tag <= 0x0F {
        Ok(d.tag)
    } else {
        Err(ValueError::WideNibble { name: d.name, tag: d.tag })
    }
}

/// Digits only: the standard parsers also take a leading `+`, which the
/// text form never writes.
fn parse_uint(t: &str) -> Option<u64> {
    let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (t, 10),
    };
    if digits.starts_with('+') {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::{asm_line, assemble, format_scalar, push_digits, push_hex, AsmError, TextError, ValueError};
    use crate::layout::{LeafFmt, Prim};

    #[test]
    fn assembler_errors_name_the_line_the_token_and_the_value() {
        let e = assemble("# first\n0x41:TensorTensor alu_op=frobnicate").err();
        let Some(TextError { line: 2, error: AsmError::Value { key, value, error } }) = &e else { panic!("{e:?}") };
        let ValueError::NotAnEnumName { text, table, .. } = error.as_ref() else { panic!("{e:?}") };
        assert_eq!((key.as_str(), value.as_str(), text.as_str(), *table), ("alu_op", "frobnicate", "frobnicate", "alu_op"));
        let shown = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(shown.starts_with("line 2: `alu_op=frobnicate`: `frobnicate` is not a number or a name of alu_op (one of "), "{shown}");
        assert_eq!(asm_line("0x41:NoOp").map_err(|e| e.to_string()), Err("`0x41:NoOp`: opcode 0x41 is TensorTensor, not NoOp".to_string()));
    }

    #[test]
    fn value_errors_read_as_before() {
        let cases = [
            (ValueError::HexLength { digits: 8 }, "expected 8 hex digits"),
            (ValueError::ElementCount { expected: 4, got: 3 }, "expected 4 elements, got 3"),
            (ValueError::DoesNotFit { value: -32769, prim: Prim::I16 }, "-32769 does not fit I16"),
            (ValueError::WideNibble { name: "fp8", tag: 0x13 }, "dtype fp8 (tag 19) does not fit a 4-bit dtype field"),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
    }

    #[test]
    fn hex_digits_match_the_formatter() {
        let values = [0u64, 1, 0x7F, 0x80, 0xFF, 0x1234, 0xFFFF, 0x0200_0000, 0xDEAD_BEEF, u64::MAX, 0x0123_4567_89AB_CDEF];
        for v in values {
            for bytes in [1usize, 2, 4, 8] {
                let v = if bytes == 8 { v } else { v & ((1 << (8 * bytes)) - 1) };
                let mut s = String::new();
                push_hex(&mut s, v, 2 * bytes);
                assert_eq!(s, format!("{v:#0w$x}", w = 2 + 2 * bytes));
                let mut d = String::new();
                push_digits(&mut d, v, 2 * bytes);
                assert_eq!(d, format!("{v:0w$x}", w = 2 * bytes));
            }
        }
    }

    #[test]
    fn decimal_fields_print_by_their_signedness_at_every_width() {
        // No layout has a 64-bit decimal field today; the format must not
        // read one with its top bit set as negative when one comes.
        let cases: [(Prim, &[u8], &str); 5] = [
            (Prim::U64, &[0xFF; 8], "18446744073709551615"),
            (Prim::U32, &[0xFF; 4], "4294967295"),
            (Prim::U16, &[0xFF, 0xFF], "65535"),
            (Prim::I16, &[0xFF, 0xFF], "-1"),
            (Prim::U8, &[0x80], "128"),
        ];
        for (prim, at, want) in cases {
            let mut s = String::new();
            format_scalar(&mut s, prim, LeafFmt::Dec, at);
            assert_eq!(s, want, "{prim:?}");
        }
    }
}
