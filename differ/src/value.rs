//! A worker's value for one field, compared with the description's bytes by
//! meaning: any base (`10`, `0xa`, `0b1010`, `0o12`), a dtype or enum value by
//! name or by tag, an array as `[a,b,…]` or element by element (`num[1]=4`),
//! a byte array as hex. A number is compared as the integer it is: a signed
//! field holding -1 is `-1`, never `65535`.

use tpb_isa::dtype;
use tpb_isa::layout::{Leaf, LeafFmt, Prim};

/// What a worker's value says against the description's.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// Different; the description's value as `tpb disasm` prints it.
    Differs {
        expected: String,
    },
    /// Not a value of this field's type (the reason).
    Unreadable(String),
}

/// Compares `text` with the field `leaf` read from `bytes` (the whole bundle);
/// `element` is `Some(i)` when the worker named one element (`num[1]`).
pub fn compare(leaf: &Leaf, element: Option<usize>, bytes: &[u8], text: &str) -> Verdict {
    let at = |i: usize| bytes.get(leaf.offset + i * leaf.prim.size()..).unwrap_or(&[]);
    let expected = |i: Option<usize>| match i {
        Some(i) => tpb_isa::text::format_value(leaf, at(i).get(..leaf.prim.size()).unwrap_or(&[])),
        None => whole(leaf, bytes),
    };
    let verdict = match (leaf.len, element) {
        (None, Some(_)) => Err("an element of a field that is no array".to_string()),
        (Some(n), Some(i)) if i >= n => Err(format!("element {i} of an array of {n}")),
        (Some(_), Some(i)) => scalar(leaf, at(i), text).map(|same| (same, Some(i))),
        (None, None) => scalar(leaf, at(0), text).map(|same| (same, None)),
        (Some(n), None) => array(leaf, n, &at, text).map(|same| (same, None)),
    };
    match verdict {
        Ok((true, _)) => Verdict::Same,
        Ok((false, i)) => Verdict::Differs { expected: expected(i) },
        Err(why) => Verdict::Unreadable(why),
    }
}

/// The whole field as the disassembly prints it.
fn whole(leaf: &Leaf, bytes: &[u8]) -> String {
    let at = bytes.get(leaf.offset..leaf.offset + leaf.size()).unwrap_or(&[]);
    match leaf.len {
        Some(n) if leaf.prim != Prim::U8 => {
            let parts: Vec<String> =
                (0..n).map(|i| tpb_isa::text::format_value(leaf, at.get(i * leaf.prim.size()..(i + 1) * leaf.prim.size()).unwrap_or(&[]))).collect();
            format!("[{}]", parts.join(","))
        }
        _ => tpb_isa::text::format_value(leaf, at),
    }
}

fn array<'a>(leaf: &Leaf, n: usize, at: &dyn Fn(usize) -> &'a [u8], text: &str) -> Result<bool, String> {
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        // Element by element, without collecting: answers carry many arrays.
        let count = inner.split(',').count();
        if count != n {
            return Err(format!("{count} elements where the field has {n}"));
        }
        let mut same = true;
        for (i, p) in inner.split(',').enumerate() {
            same &= scalar(leaf, at(i), p.trim_ascii())?;
        }
        return Ok(same);
    }
    if leaf.prim == Prim::U8 {
        // A byte array as hex digits, as the disassembly prints it: read and
        // compared in one pass (opaque bodies are 120 digits).
        let digits = text.strip_prefix("0x").unwrap_or(text).as_bytes();
        let bad = || format!("expected {} hex digits or [a,b,…] for {n} bytes", 2 * n);
        if digits.len() != 2 * n {
            return Err(bad());
        }
        let mut same = true;
        for (i, p) in digits.chunks_exact(2).enumerate() {
            let (hi, lo) = (HEX[usize::from(p[0])], HEX[usize::from(p[1])]);
            if hi > 0xF || lo > 0xF {
                return Err(bad());
            }
            same &= at(i).first() == Some(&(hi << 4 | lo));
        }
        return Ok(same);
    }
    Err(format!("expected [a,b,…] with {n} elements"))
}

/// Each byte's value as a hex digit, 0xFF for a byte that is none.
const HEX: [u8; 256] = {
    let mut t = [0xFFu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// One scalar: `text` read as a name the field's format knows, else as an integer.
fn scalar(leaf: &Leaf, at: &[u8], text: &str) -> Result<bool, String> {
    let prim = leaf.prim;
    let have: i128 = if prim.is_signed() { i128::from(prim.read(at).unwrap_or(0)) } else { i128::from(prim.read_u64(at).unwrap_or(0)) };
    if let Some(v) = by_name(leaf.fmt, text) {
        return Ok(i128::from(v) == have);
    }
    let want = integer(text).ok_or_else(|| format!("`{}` is not a number or a name of this field", short(text)))?;
    Ok(want == have)
}

/// A value the field's format names: a dtype, an enum entry, or `lo/hi` dtype nibbles.
fn by_name(fmt: LeafFmt, text: &str) -> Option<u64> {
    match fmt {
        LeafFmt::Dtype => dtype::by_name(text).map(|d| u64::from(d.tag)),
        LeafFmt::Enum(t) => t.value_of(text).map(u64::from),
        LeafFmt::DtypeNibbles => {
            let (lo, hi) = text.split_once('/')?;
            let tag = |t: &str| dtype::by_name(t).map(|d| d.tag).or_else(|| integer(t).and_then(|v| u8::try_from(v).ok()));
            let (lo, hi) = (tag(lo)?, tag(hi)?);
            (lo <= 0xF && hi <= 0xF).then(|| u64::from(lo) | u64::from(hi) << 4)
        }
        _ => None,
    }
}

/// An integer in any base a C or Rust programmer writes: decimal, `0x`, `0o`, `0b`, a leading `-`.
pub fn integer(text: &str) -> Option<i128> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (digits, radix) = match t.as_bytes() {
        [b'0', b'x' | b'X', rest @ ..] => (rest, 16),
        [b'0', b'o' | b'O', rest @ ..] => (rest, 8),
        [b'0', b'b' | b'B', rest @ ..] => (rest, 2),
        all => (all, 10),
    };
    // Digits by hand: every answer holds dozens of numbers. `_` separates
    // digits (not first); no field is wider than 64 bits.
    if matches!(digits.first(), None | Some(b'_')) {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        if d == b'_' {
            continue;
        }
        let x = (d as char).to_digit(radix)?;
        v = v.checked_mul(u64::from(radix))?.checked_add(u64::from(x))?;
    }
    let v = i128::from(v);
    Some(if neg { -v } else { v })
}

/// At most 80 characters of a worker's text, for messages.
pub fn short(text: &str) -> String {
    let mut s: String = text.chars().take(80).collect();
    if text.chars().nth(80).is_some() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_isa::text::leaves;
    use tpb_isa::Bundle;

    fn leaf_of(raw: &[u8; 64], path: &str) -> Leaf {
        leaves(Bundle::decode(raw).kind()).iter().find(|l| l.path == path).unwrap_or_else(|| panic!("no {path}")).clone()
    }

    fn tensor_copy() -> [u8; 64] {
        let line = "0x46:TensorCopy src.addr=0x00004000 src.num=[512,1,1,1] src_dtype=bf16 dst_dtype=f32";
        tpb_isa::text::asm_line(line).unwrap().unwrap()
    }

    #[test]
    fn numbers_compare_in_any_base() {
        let raw = tensor_copy();
        let addr = leaf_of(&raw, "src.addr");
        for t in ["0x00004000", "0x4000", "16384", "0o40000", "0b100000000000000", "0X4000"] {
            assert_eq!(compare(&addr, None, &raw, t), Verdict::Same, "{t}");
        }
        assert_eq!(compare(&addr, None, &raw, "0x4001"), Verdict::Differs { expected: "0x00004000".into() });
        assert!(matches!(compare(&addr, None, &raw, "four"), Verdict::Unreadable(_)));
    }

    #[test]
    fn dtypes_compare_by_name_or_tag() {
        let raw = tensor_copy();
        let d = leaf_of(&raw, "src_dtype");
        let tag = dtype::by_name("bf16").unwrap().tag;
        assert_eq!(compare(&d, None, &raw, "bf16"), Verdict::Same);
        assert_eq!(compare(&d, None, &raw, &tag.to_string()), Verdict::Same);
        assert_eq!(compare(&d, None, &raw, "f16"), Verdict::Differs { expected: "bf16".into() });
    }

    #[test]
    fn arrays_compare_whole_or_by_element() {
        let raw = tensor_copy();
        let num = leaf_of(&raw, "src.num");
        assert_eq!(compare(&num, None, &raw, "[512,1,1,1]"), Verdict::Same);
        assert_eq!(compare(&num, None, &raw, "[0x200, 1, 1, 1]"), Verdict::Same);
        assert_eq!(compare(&num, Some(0), &raw, "512"), Verdict::Same);
        assert_eq!(compare(&num, Some(1), &raw, "2"), Verdict::Differs { expected: "1".into() });
        assert_eq!(compare(&num, None, &raw, "[512,1,1,2]"), Verdict::Differs { expected: "[512,1,1,1]".into() });
        assert!(matches!(compare(&num, None, &raw, "[512,1]"), Verdict::Unreadable(w) if w.contains("2 elements")));
        assert!(matches!(compare(&num, None, &raw, "[512,1,1,1,1]"), Verdict::Unreadable(w) if w.contains("5 elements")));
        assert!(matches!(compare(&num, Some(4), &raw, "1"), Verdict::Unreadable(_)));
    }

    #[test]
    fn dtype_nibbles_compare_as_names_tags_or_the_byte() {
        let raw = tpb_isa::text::asm_line("0x41:TensorTensor in_dtype_nibbles=bf16/f32").unwrap().unwrap();
        let leaf = leaf_of(&raw, "in_dtype_nibbles");
        let (bf16, f32) = (dtype::by_name("bf16").unwrap().tag, dtype::by_name("f32").unwrap().tag);
        for same in ["bf16/f32".to_string(), format!("{bf16}/{f32}"), format!("{:#04x}", bf16 | f32 << 4)] {
            assert_eq!(compare(&leaf, None, &raw, &same), Verdict::Same, "{same}");
        }
        assert!(matches!(compare(&leaf, None, &raw, "f32/bf16"), Verdict::Differs { .. }));
        // A tag wider than a nibble names nothing here, on either side.
        let wide = dtype::DTYPES.iter().find(|d| d.tag > 0xF).map(|d| d.name).unwrap();
        for bad in [format!("{wide}/f32"), format!("bf16/{wide}")] {
            assert!(matches!(compare(&leaf, None, &raw, &bad), Verdict::Unreadable(_)), "{bad}");
        }
    }

    #[test]
    fn byte_arrays_compare_as_hex_digits_of_every_case() {
        let mut raw = tensor_copy();
        raw[4..12].copy_from_slice(&[0x0a, 0xbc, 0xde, 0xf0, 0x19, 0x28, 0x37, 0x46]);
        let pad = leaf_of(&raw, "_pad04");
        assert_eq!((pad.prim, pad.len), (Prim::U8, Some(8)));
        for same in ["0abcdef019283746", "0ABCDEF019283746", "0x0abcdef019283746", "[10,188,222,240,25,40,55,70]"] {
            assert_eq!(compare(&pad, None, &raw, same), Verdict::Same, "{same}");
        }
        // One nibble off anywhere is a difference, the last byte's included.
        for (i, c) in "0abcdef019283746".char_indices() {
            let other = if c == '0' { '1' } else { '0' };
            let mut t = "0abcdef019283746".to_string();
            t.replace_range(i..i + 1, &other.to_string());
            assert_eq!(compare(&pad, None, &raw, &t), Verdict::Differs { expected: "0abcdef019283746".into() }, "{t}");
        }
        for bad in ["0abcdef01928374", "0abcdef01928374:", "0abcdef01928374g", "0abcdef01928374/", "0abcdef01928374@"] {
            assert!(matches!(compare(&pad, None, &raw, bad), Verdict::Unreadable(_)), "{bad}");
        }
        assert_eq!(compare(&pad, Some(1), &raw, "0xbc"), Verdict::Same);
    }

    #[test]
    fn signed_fields_are_compared_as_signed() {
        // Find a signed leaf anywhere in the description; every layout is searched.
        let signed = tpb_isa::BodyKind::ALL.iter().flat_map(|k| leaves(*k).iter()).find(|l| l.prim.is_signed()).cloned();
        let Some(leaf) = signed else { return };
        let mut raw = [0u8; 64];
        raw[leaf.offset..leaf.offset + 2].copy_from_slice(&(-1i16).to_le_bytes());
        assert_eq!(compare(&leaf, leaf.len.map(|_| 0), &raw, "-1"), Verdict::Same);
        assert!(matches!(compare(&leaf, leaf.len.map(|_| 0), &raw, "65535"), Verdict::Differs { .. }));
    }

    #[test]
    fn integers_take_the_usual_prefixes_and_nothing_else() {
        assert_eq!(integer("-0x10"), Some(-16));
        assert_eq!(integer("1_000"), Some(1000));
        assert_eq!(integer("+1"), None);
        assert_eq!(integer(""), None);
        assert_eq!(integer("0x"), None);
        assert_eq!(integer("--1"), None);
    }
}
