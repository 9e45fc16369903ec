//! ASCII names: where they start, end and how they are capped.

use super::*;

#[test]
fn an_ascii_name_may_run_to_the_end_of_the_body() {
    // Eight printable bytes at 0x38..0x40 with no NUL after them (the body ends there).
    let names: [&[u8]; 3] = [b"qSPIO_00", b"qPoolIO1", b"qDVE_abc"];
    let bundles: Vec<Raw> = (0..9).map(|i| bundle(|b| put(b, 0x38, names[i % 3]))).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 9);
    let f = field_at(&fields, 0x38);
    assert_eq!((f.kind, f.size), (Kind::Ascii, 8), "{f:#?}");
}

#[test]
fn an_ascii_name_is_one_field() {
    let names: [&[u8]; 3] = [b"qSPIO0", b"qDVESpillReload0", b"qPoolIO0"];
    let bundles: Vec<Raw> = (0..9).map(|i| bundle(|b| put(b, 0x0c, names[i % 3]))).collect();
    let inf = infer(&bundles);
    let fields = op(&inf).propose();
    assert_tiles(&fields, 9);
    let f = field_at(&fields, 0x0c);
    assert_eq!((f.kind, f.size, f.ty.as_str()), (Kind::Ascii, 16, "char[16]"));
    assert_eq!(f.values.top[0], ("\"qDVESpillReload0\"".to_string(), 3));
    // Characters of one name decide each other: not listed as relations.
    assert!(op(&inf).relations(&fields).is_empty(), "{:?}", op(&inf).relations(&fields));
    let text = inf.to_text();
    assert!(!text.contains("  relations ("), "no relations, no heading:\n{text}");
}

#[test]
fn ascii_names_are_capped_only_past_the_strings_tracked() {
    // Each name is counted; past the tracked number of distinct names, new ones are only counted.
    let name = |i: usize| format!("nm{i:04}\0\0");
    let mut acc = shapes::AsciiAcc::new(0);
    for i in 0..256 {
        acc.add(name(i).as_bytes());
    }
    acc.add(name(0).as_bytes());
    assert_eq!((acc.distinct(), acc.capped()), (256, false));
    let (top, other) = acc.top(TOP_VALUES);
    assert_eq!((top[0].clone(), other), (("nm0000".to_string(), 2), 256 - TOP_VALUES as u64));
    acc.add(name(256).as_bytes());
    assert_eq!((acc.distinct(), acc.capped()), (256, true));
    assert_eq!(acc.top(TOP_VALUES).1, 256 - TOP_VALUES as u64 + 1);
}

#[test]
fn a_name_longer_than_another_bundles_padding_is_no_ascii_field() {
    // "abcdefgh" and NULs on some bundles; "abcd" then a non-NUL byte at +4 on others: the
    // field cannot be 8 bytes on those, so no ASCII field is proposed at 0x0c.
    let bundles: Vec<Raw> = (0..8).map(|i| bundle(|b| if i % 2 == 0 { put(b, 0x0c, b"abcdefgh") } else { put(b, 0x0c, b"abcd\x01") })).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 8);
    assert!(!fields.iter().any(|f| f.kind == Kind::Ascii), "{fields:#?}");
    // With the padding there, it is one.
    let padded: Vec<Raw> = (0..8).map(|i| bundle(|b| put(b, 0x0c, if i % 2 == 0 { b"abcdefgh" } else { b"abcd" }))).collect();
    let f = field_at(&op(&infer(&padded)).propose(), 0x0c).clone();
    assert_eq!((f.kind, f.size), (Kind::Ascii, 8), "{f:#?}");
}

#[test]
fn ascii_names_of_two_characters_are_names_and_the_longer_ones_after_them_count() {
    // Two characters is the shortest a name may be; names after one are still counted.
    let mut acc = shapes::AsciiAcc::new(0);
    for s in [&b"ok\0\0\0\0\0\0"[..], b"abcdef\0\0", b"ok\0\0\0\0\0\0"] {
        acc.add(s);
    }
    assert_eq!(acc.distinct(), 2);
    let (top, other) = acc.top(TOP_VALUES);
    assert_eq!((top, other), (vec![("ok".to_string(), 2), ("abcdef".to_string(), 1)], 0));
}

#[test]
fn an_ascii_name_of_four_characters_is_a_four_byte_field() {
    let mut acc = shapes::AsciiAcc::new(0);
    for s in [&b"ab\0\0\0\0\0\0"[..], b"abcd\0\0\0\0"] {
        acc.add(s);
    }
    assert_eq!(acc.size(), Some(4));
    let mut short = shapes::AsciiAcc::new(0);
    short.add(b"abc\0\0\0\0\0");
    assert_eq!(short.size(), None, "no name reaches 4 characters");
    // One bundle's single character (a stray printable byte) makes it no name field,
    // however long the names before it were.
    let mut stray = shapes::AsciiAcc::new(0);
    for s in [&b"abcdef\0\0"[..], b"x\0\0\0\0\0\0\0"] {
        stray.add(s);
    }
    assert_eq!(stray.size(), None);
}

#[test]
fn a_byte_equal_to_one_inside_a_name_but_itself_outside_keeps_its_relation() {
    // A 13-character name at 0x10 (a 16-byte field) and a byte 6 past its last character
    // that copies that character: the pair straddles the field's end, so it is said;
    // pairs inside the name are its spelling, not relations.
    let bundles: Vec<Raw> = (0..40u8)
        .map(|i| {
            bundle(|b| {
                let tail = [b'a' + i % 26, b'a' + (i % 26 * 7) % 26, b'A' + (i % 26 * 3) % 26].map(char::from);
                let name = format!("kernels_{i:02}{}{}{}", tail[0], tail[1], tail[2]);
                assert_eq!(name.len(), 13);
                put(b, 0x10, name.as_bytes());
                b[0x22] = b[0x1C];
                b[0x23] = 0x80 | i; // so the half words at 0x1C and 0x22 differ: the pair is a byte's
            })
        })
        .collect();
    let d = op(&infer(&bundles)).clone();
    let fields = d.propose();
    let name = field_at(&fields, 0x10);
    assert_eq!((name.kind, name.size), (Kind::Ascii, 16), "{fields:#?}");
    let rel = d.relations(&fields);
    assert!(rel.contains(&Relation::Equal { width: 1, a: 0x1C, b: 0x22 }), "{rel:?}");
    assert!(!rel.iter().any(|r| matches!(*r, Relation::Equal { width: 1, a, b } | Relation::OneToOne { a, b } | Relation::Function { from: a, to: b } if a >= 0x10 && b < 0x20)), "{rel:?}");
}
