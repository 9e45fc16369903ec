//! Relations between fields: equal words, functions of one another.

use super::*;

/// A byte pair at the distance of an equal word pair is said on its own when it lies
/// just past that word (a pair inside it is not repeated).
#[test]
fn an_equal_byte_pair_just_past_an_equal_word_pair_is_its_own_relation() {
    let bundles: Vec<Raw> = (0..64u32)
        .map(|i| {
            bundle(|b| {
                let v = ((i * 37 % 61) as u16) | 0x0200;
                put(b, 0x10, &v.to_le_bytes());
                put(b, 0x14, &v.to_le_bytes());
                b[0x12] = (i % 7) as u8 + 1;
                b[0x16] = (i % 7) as u8 + 1;
                b[0x13] = (i % 3) as u8;
                b[0x17] = (i % 5) as u8;
            })
        })
        .collect();
    let inf = infer(&bundles);
    let d = op(&inf);
    let rel = d.relations(&d.propose());
    assert!(rel.contains(&Relation::Equal { width: 2, a: 0x10, b: 0x14 }), "{rel:?}");
    assert!(rel.contains(&Relation::Equal { width: 1, a: 0x12, b: 0x16 }), "{rel:?}");
    assert!(!rel.iter().any(|r| matches!(r, Relation::Equal { width: 1, a: 0x10 | 0x11, .. })), "{rel:?}");
}

#[test]
fn a_byte_both_zero_and_not_for_one_value_of_another_is_no_function_of_it() {
    // +0x20 is 1 or 2 in turn; +0x22 is 0 on the first two bundles, 5 after:
    // both values meet each value of +0x20, a zero first (zero is the value a
    // map could mistake for "not seen yet").
    let bundles: Vec<Raw> = (0..64u32).map(|i| bundle(|b| (b[0x20], b[0x22]) = ((i % 2) as u8 + 1, if i < 2 { 0 } else { 5 }))).collect();
    let d = infer(&bundles);
    let rel = op(&d).relations(&op(&d).propose());
    let between = |r: &Relation| matches!(*r, Relation::Function { from, to } | Relation::OneToOne { a: from, b: to } if [from, to] == [0x20, 0x22] || [from, to] == [0x22, 0x20]);
    assert!(!rel.iter().any(between), "{rel:?}");
    // Made a function (+0x22 is 0 exactly when +0x20 is 1), it is one.
    let bundles: Vec<Raw> = (0..64u32).map(|i| bundle(|b| (b[0x20], b[0x22]) = ((i % 4 / 2) as u8 + 1, if i % 4 < 2 { 0 } else { 5 }))).collect();
    let d = infer(&bundles);
    let rel = op(&d).relations(&op(&d).propose());
    assert!(rel.iter().any(between), "{rel:?}");
}

#[test]
fn equal_words_and_functions_are_related() {
    let bundles: Vec<Raw> = (0..64u32)
        .map(|i| {
            bundle(|b| {
                let v = (i * 37 % 11) as u16 + 0x100;
                put(b, 0x10, &v.to_le_bytes());
                put(b, 0x30, &v.to_le_bytes());
                b[0x20] = (i % 5) as u8 + 1;
                b[0x22] = if i % 5 < 2 { 0x80 } else { 0x40 };
            })
        })
        .collect();
    let inf = infer(&bundles);
    let d = op(&inf);
    let rel = d.relations(&d.propose());
    assert!(rel.contains(&Relation::Equal { width: 4, a: 0x10, b: 0x30 }), "{rel:?}");
    assert!(rel.contains(&Relation::Function { from: 0x20, to: 0x22 }), "{rel:?}");
    assert!(!rel.iter().any(|r| matches!(r, Relation::Equal { width: 1, .. })), "bytes of an equal word are not repeated: {rel:?}");
    // The text lists them under their heading, one line each.
    let text = inf.to_text();
    let heading = "  relations (hold on every bundle; constants left out):\n";
    let listed = text.split(heading).nth(1).unwrap_or_else(|| panic!("no relations heading:\n{text}"));
    let lines: Vec<&str> = listed.lines().take_while(|l| l.starts_with("    ")).collect();
    assert_eq!(lines.len(), rel.len(), "{listed}");
    assert!(lines.contains(&"    byte +0x22 is a function of byte +0x20"), "{lines:?}");
    // The JSON names each relation with its offsets.
    let j = inf.to_json();
    let rels = &j["opcodes"][0]["relations"];
    let want_equal = serde_json::json!({"relation": "equal", "width": 4, "a": 0x10, "b": 0x30});
    let want_function = serde_json::json!({"relation": "function", "width": 1, "from": 0x20, "to": 0x22});
    let Some(listed) = rels.as_array() else { panic!("no relations in {j}") };
    assert!(listed.contains(&want_equal) && listed.contains(&want_function), "{rels}");
    assert_eq!(listed.len(), rel.len());
}

#[test]
fn independent_bytes_are_not_related() {
    // Two nearby bytes drawn apart: neither decides the other.
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let bundles: Vec<Raw> = (0..256).map(|_| bundle(|b| (b[0x10], b[0x12]) = (rng.next() as u8 % 8 + 1, (rng.next() >> 8) as u8 % 8 + 1))).collect();
    let inf = infer(&bundles);
    let d = op(&inf);
    assert_eq!(d.relations(&d.propose()), Vec::<Relation>::new());
}

#[test]
fn an_equal_pair_inside_an_equal_wider_pair_at_another_distance_is_its_own_relation() {
    // The u32 at 0x10 equals the one at 0x30; the u16 at 0x10 also equals the u16 at 0x20,
    // a different distance: that pair is not implied by the wider one, so it is listed.
    let mut rng = Rng(0x51_7CC1_B727_220A);
    let bundles: Vec<Raw> = (0..64)
        .map(|_| {
            let x = rng.next() as u32;
            bundle(|b| {
                put(b, 0x10, &x.to_le_bytes());
                put(b, 0x30, &x.to_le_bytes());
                put(b, 0x20, &(x as u16).to_le_bytes());
                put(b, 0x22, &(rng.next() as u16).to_le_bytes());
            })
        })
        .collect();
    let d = op(&infer(&bundles)).clone();
    let rel = d.relations(&d.propose());
    for want in [
        Relation::Equal { width: 4, a: 0x10, b: 0x30 },
        Relation::Equal { width: 2, a: 0x10, b: 0x20 },
        Relation::Equal { width: 2, a: 0x20, b: 0x30 },
    ] {
        assert!(rel.contains(&want), "{want:?} not in {rel:?}");
    }
}
