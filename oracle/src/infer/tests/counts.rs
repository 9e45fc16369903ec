//! Numbers, counters, patterns and mask-like words.

use super::*;

/// Each stream's whole bundles are counted, of every opcode, as the text and the JSON say.
#[test]
fn bundles_read_counts_every_whole_bundle_of_every_stream() {
    let mut other = bundle(|_| ());
    other[0] = OP ^ 1;
    let mut inf = Inference::new(&[OP]);
    let first: Vec<u8> = [bundle(|_| ()), other, bundle(|b| b[0x20] = 1)].concat();
    inf.add_stream("a.bin", None, V2, &first);
    let mut second = [other, bundle(|_| ())].concat();
    second.extend_from_slice(&[OP; 10]);
    inf.add_stream("b.bin", None, V2, &second);
    assert_eq!(inf.bundles_read, 5);
    assert!(inf.to_text().starts_with("tpb infer: 5 bundles read from 2 files\n"), "{}", inf.to_text());
    assert_eq!(inf.to_json()["bundles_read"], 5);
    assert_eq!(op(&inf).bundles, 3);
}

#[test]
fn a_field_counts_up_when_three_quarters_of_its_steps_are_plus_one() {
    use super::stats::Steps;
    // (steps of +1, pairs): at least two pairs, and +1 on at least three quarters.
    for (plus_one, pairs, want) in
        [(3, 4, true), (2, 4, false), (1, 4, false), (2, 2, true), (1, 1, false), (6, 8, true), (5, 8, false), (1, 12, false)]
    {
        assert_eq!(Steps { plus_one, pairs }.counts_up(), want, "{plus_one} of {pairs}");
    }
}

#[test]
fn a_pattern3d_is_found_at_its_offset() {
    let inf = infer(&pattern3d_bundles());
    let fields = op(&inf).propose();
    assert_tiles(&fields, 50);
    let f = field_at(&fields, 0x20);
    assert_eq!(f.kind, Kind::Pattern(3), "{f:#?}");
    assert_eq!((f.size, f.name.as_str(), f.ty.as_str()), (16, "pattern3d_20", "addr4+i16[3]+u16[3]"));
    let names: Vec<(&str, usize)> = f.parts.iter().map(|p| (p.name.as_str(), p.offset)).collect();
    assert_eq!(
        names,
        [("addr", 0x20), ("stride[0]", 0x24), ("stride[1]", 0x26), ("stride[2]", 0x28), ("num[0]", 0x2a), ("num[1]", 0x2c), ("num[2]", 0x2e)]
    );
    assert_eq!(f.parts[3].values.min, "-2", "strides read signed");
    // Addresses in the PSUM window are distinctive: no note that the word alone is weak.
    assert_eq!(f.note, None);
    assert_eq!(field_at(&fields, 0x04).kind, Kind::Zero);
    assert_eq!(field_at(&fields, 0x30).kind, Kind::Zero);
}

#[test]
fn a_pattern_that_ends_at_the_end_of_the_body_is_found() {
    let fields = op(&infer(&pattern3d_bundles_at(0x30))).propose();
    assert_tiles(&fields, 50);
    let f = field_at(&fields, 0x30);
    assert_eq!((f.kind, f.size, f.name.as_str()), (Kind::Pattern(3), 16, "pattern3d_30"), "{f:#?}");
    assert_eq!(f.parts.last().map(|p| p.offset + p.size), Some(0x40), "its last num is the body's last two bytes");
}

#[test]
fn a_pattern_with_a_zero_num_on_one_bundle_is_not_proposed() {
    let mut bundles = pattern3d_bundles();
    put(&mut bundles[33], 0x2c, &0u16.to_le_bytes());
    let inf = infer(&bundles);
    let fields = op(&inf).propose();
    assert_tiles(&fields, 50);
    assert!(!fields.iter().any(|f| matches!(f.kind, Kind::Pattern(_))), "{fields:#?}");
    // The address word is still an address (PSUM).
    assert_eq!(field_at(&fields, 0x20).kind, Kind::Addr4);
}

#[test]
fn a_spread_u32_is_a_word_and_a_byte_of_only_00_or_ff_is_a_mask() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let bundles: Vec<Raw> = (0..64)
        .map(|i| {
            bundle(|b| {
                put(b, 0x20, &(rng.next() as u32).to_le_bytes());
                b[0x28] = if i % 3 == 0 { 0xFF } else { 0x00 };
            })
        })
        .collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 64);
    let w = field_at(&fields, 0x20);
    assert_eq!((w.kind, w.size), (Kind::Word, 4), "{w:#?}");
    let m = field_at(&fields, 0x28);
    assert_eq!((m.kind, m.size, m.ty.as_str()), (Kind::Mask, 1, "u8"), "{m:#?}");
    // A run of such bytes is one mask, typed by its length.
    let bundles: Vec<Raw> = (0..64).map(|i| bundle(|b| b[0x29..0x2B].fill(if i % 3 == 0 { 0xFF } else { 0x00 }))).collect();
    let fields = op(&infer(&bundles)).propose();
    let m = field_at(&fields, 0x29);
    assert_eq!((m.kind, m.size, m.ty.as_str()), (Kind::Mask, 2, "u8[2]"), "{m:#?}");
}

#[test]
fn a_word_is_a_number_only_when_its_low_half_spreads_over_enough_values() {
    // Both halves vary; the low half takes `distinct` values.
    let words = |distinct: u32| -> Vec<Raw> {
        (0..64u32).map(|i| bundle(|b| put(b, 0x20, &(((i % distinct) * 0x0101) | ((i % 3 + 1) << 16)).to_le_bytes()))).collect()
    };
    let at_word = |distinct: u32| {
        let fields = op(&infer(&words(distinct))).propose();
        let f = field_at(&fields, 0x20);
        (f.kind, f.size)
    };
    assert_eq!(at_word(16), (Kind::Word, 4), "16 distinct low halves");
    assert_eq!(at_word(17), (Kind::Word, 4), "17 distinct low halves");
    assert_ne!(at_word(15), (Kind::Word, 4), "15 distinct low halves");
    assert_ne!(at_word(2), (Kind::Word, 4), "2 distinct low halves");
}

#[test]
fn a_word_is_a_number_only_when_both_halves_vary() {
    // The low half spreads over many values, the high half is one constant: no u32 word.
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let bundles: Vec<Raw> = (0..64).map(|_| bundle(|b| put(b, 0x20, &((rng.next() as u32 & 0xFFFF) | 0x5A5A_0000).to_le_bytes()))).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 64);
    let f = field_at(&fields, 0x20);
    assert!(f.size < 4 && f.kind != Kind::Word, "{f:#?}");
}

#[test]
fn a_word_of_single_bits_across_its_bytes_is_one_pow2_and_a_bit_in_one_byte_is_not() {
    // 0, 1 << 3, 1 << 12, 1 << 20, 1 << 26 at 0x20 (the last no ADDR4: region bits outside
    // memory): one number whose one bit moves across its bytes. At 0x30 the bit stays in one
    // byte: a byte, not a pow2.
    let bits = [None, Some(3), Some(12), Some(20), Some(26)];
    let bundles: Vec<Raw> = (0..40)
        .map(|i| {
            bundle(|b| {
                let bit = bits[i % bits.len()].map_or(0u32, |k| 1 << k);
                put(b, 0x20, &bit.to_le_bytes());
                b[0x30] = 1 << (i % 8);
                // A u16 whose bit moves between its two bytes only.
                put(b, 0x38, &[0u16, 1 << 1, 1 << 9][i % 3].to_le_bytes());
            })
        })
        .collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 40);
    let w = field_at(&fields, 0x20);
    assert_eq!((w.kind, w.size), (Kind::Pow2, 4), "{w:#?}");
    let h = field_at(&fields, 0x38);
    assert_eq!((h.kind, h.size), (Kind::Pow2, 2), "{h:#?}");
    assert!(!fields.iter().any(|f| f.kind == Kind::Pow2 && ![0x20, 0x38].contains(&f.offset)), "{fields:#?}");
}

#[test]
fn counts_in_a_row_are_one_nums_field() {
    // Three u16 counts at 0x32..0x38: one num array.
    let bundles = three_counts_at(0x32, 0x2545_F491_4F6C_DD1D);
    let inf = infer(&bundles);
    let fields = op(&inf).propose();
    assert_tiles(&fields, 64);
    let f = field_at(&fields, 0x32);
    assert_eq!((f.kind, f.size, f.ty.as_str(), f.parts.len()), (Kind::Nums, 6, "u16[3]", 3), "{fields:#?}");
    let parts: Vec<(&str, usize, usize)> = f.parts.iter().map(|p| (p.name.as_str(), p.offset, p.size)).collect();
    assert_eq!(parts, [("num[0]", 0x32, 2), ("num[1]", 0x34, 2), ("num[2]", 0x36, 2)]);
    // The JSON evidence gives each part's values, and no field without parts has any.
    let j = inf.to_json();
    let Some(listed) = j["opcodes"][0]["fields"].as_array() else { panic!("no fields in {j}") };
    for x in listed {
        let parts = x["evidence"]
            .get("parts")
            .and_then(serde_json::Value::as_array)
            .map(|p| p.iter().map(|q| (q["name"].clone(), q["offset"].clone())).collect::<Vec<_>>());
        if x["offset"] == 0x32 {
            let want: Vec<(serde_json::Value, serde_json::Value)> = (0..3).map(|i| (format!("num[{i}]").into(), (0x32 + 2 * i).into())).collect();
            assert_eq!(parts, Some(want), "{x}");
        } else {
            assert_eq!(parts, None, "{x}");
        }
    }
}

#[test]
fn counts_in_a_row_are_a_nums_field_at_any_even_offset() {
    // Half words are read at even body offsets, whichever eighth of the body they are in
    // (at a multiple of 4 the u32 reading comes first: these start at 2 mod 4).
    for (at, seed) in [(0x16, 0x1234_5678_9ABC_DEF1), (0x26, 0x0F1E_2D3C_4B5A_6978)] {
        let fields = op(&infer(&three_counts_at(at, seed))).propose();
        let f = field_at(&fields, at);
        assert_eq!((f.kind, f.size), (Kind::Nums, 6), "{at:#x}: {fields:#?}");
    }
}

#[test]
fn counts_that_end_the_body_are_one_nums_field() {
    // Three u16 counts at 0x3a..0x40: the last ends the body and still belongs to the array.
    let bundles = three_counts_at(0x3A, 0x1F83_D9AB_FB41_BD6B);
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 64);
    let f = field_at(&fields, 0x3A);
    assert_eq!((f.kind, f.size, f.ty.as_str()), (Kind::Nums, 6, "u16[3]"), "{fields:#?}");
}

#[test]
fn a_lone_count_or_large_numbers_in_a_row_are_no_nums_field() {
    // One count at 0x30 (a num array has two or more), and two u16 numbers at 0x38 too
    // large to be counts: neither is a num array.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let bundles: Vec<Raw> = (0..64)
        .map(|_| {
            bundle(|b| {
                put(b, 0x30, &((rng.next() % 0x3FF) as u16 + 1).to_le_bytes());
                for k in 0..2 {
                    put(b, 0x38 + 2 * k, &((rng.next() % 0x7FFF) as u16 + 0x8000).to_le_bytes());
                }
            })
        })
        .collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 64);
    for at in [0x30, 0x38] {
        let f = field_at(&fields, at);
        assert_ne!(f.kind, Kind::Nums, "{at:#x}: {fields:#?}");
    }
}

#[test]
fn a_u16_counting_up_is_counted_at_its_even_offset_only() {
    let bundles: Vec<Raw> = (0..20u16).map(|i| bundle(|b| put(b, 0x10, &(0x100 + i).to_le_bytes()))).collect();
    let d = op(&infer(&bundles)).clone();
    let s = d.steps(0x10, 2);
    assert_eq!((s.plus_one, s.pairs), (19, 19));
    // Half words sit at even body offsets: an odd one has none, and no steps.
    let odd = d.steps(0x11, 2);
    assert_eq!((odd.plus_one, odd.pairs), (0, 0));
}

#[test]
fn words_and_half_words_past_the_body_start_count_their_own_steps() {
    // A u32 at body offset 0x18 counts up, a u16 at 0x14 counts down: each field's steps
    // are its own, at its own offset, and an offset of the wrong alignment has none.
    let bundles: Vec<Raw> = (0..20u32)
        .map(|i| {
            bundle(|b| {
                put(b, 0x18, &(0x1000 + i).to_le_bytes());
                put(b, 0x14, &(0x900 - i as u16).to_le_bytes());
            })
        })
        .collect();
    let d = op(&infer(&bundles)).clone();
    let word = d.steps(0x18, 4);
    assert_eq!((word.plus_one, word.pairs), (19, 19));
    let half = d.steps(0x14, 2);
    assert_eq!((half.plus_one, half.pairs), (0, 19));
    let misaligned = d.steps(0x1A, 4);
    assert_eq!((misaligned.plus_one, misaligned.pairs), (0, 0));
}

#[test]
fn an_opcode_counts_each_file_it_appears_in_once() {
    let mut inf = Inference::new(&[OP, OP + 1]);
    let one = bundle(|_| {});
    let other = bundle(|b| b[0] = OP + 1);
    inf.add_stream("a.neff", Some("b1"), V2, &[one, one, other].concat());
    inf.add_stream("b.neff", Some("b1"), V2, &[one].concat());
    inf.add_stream("a.neff", Some("b1"), V2, &[one].concat());
    let files = |o: u8| inf.opcode(o).map(|d| d.files.iter().cloned().collect::<Vec<_>>());
    assert_eq!(files(OP), Some(vec!["a.neff".to_string(), "b.neff".to_string()]));
    assert_eq!(files(OP + 1), Some(vec!["a.neff".to_string()]));
    assert_eq!(inf.files.len(), 2);
}

#[test]
fn a_num_array_holds_when_three_quarters_of_its_values_are_small() {
    // 4 values per element, all ≥ 1: 6 of 8 at most NUM_SMALL holds, 5 of 8 does not, nor
    // does a zero, nor an element with no values, nor no elements at all.
    let of = |vs: &[u32]| {
        let mut v = stats::Values::new(2);
        vs.iter().for_each(|&x| v.add(x));
        v
    };
    let big = NUM_SMALL + 1;
    let (a, b) = (of(&[1, 2, 3, NUM_SMALL]), of(&[5, 6, big, big]));
    assert!(nums_hold(&[&a, &b]));
    let c = of(&[5, big, big, big]);
    assert!(!nums_hold(&[&a, &c]));
    assert!(!nums_hold(&[&a, &of(&[0, 1, 2, 3])]));
    assert!(!nums_hold(&[&a, &of(&[])]));
    assert!(!nums_hold(&[]));
}
