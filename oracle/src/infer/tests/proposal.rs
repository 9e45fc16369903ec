//! The proposal as a whole: tiling, rendering, statistics, builds.

use super::*;

#[test]
fn an_opcode_never_seen_holds_no_byte_shape() {
    // No bundle is no evidence: a dtype byte is not proposed for an opcode the programs never use.
    let none = infer(&[]);
    assert!(!op(&none).byte_holds(0x0C, |_, _| true));
    let one = infer(&[bundle(|b| b[0x0C] = 7)]);
    assert!(op(&one).byte_holds(0x0C, |v, g| v == 7 && g == V2));
    assert!(!op(&one).byte_holds(0x0C, |v, _| v == 8));
}

#[test]
fn a_constant_zero_run_is_one_field() {
    let bundles: Vec<Raw> = (0..10u8).map(|i| bundle(|b| (b[0x30], b[0x31]) = (i, 0x5A))).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 10);
    let z = field_at(&fields, 0x04);
    assert_eq!((z.kind, z.size, z.name.as_str(), z.ty.as_str()), (Kind::Zero, 0x2c, "zero_04", "u8[44]"));
    assert_eq!(field_at(&fields, 0x31).kind, Kind::Const);
    let tail = field_at(&fields, 0x32);
    assert_eq!((tail.kind, tail.size), (Kind::Zero, 14));
    // The varying byte at 0x30 counts up bundle by bundle.
    let c = field_at(&fields, 0x30);
    assert_eq!((c.kind, c.name.as_str()), (Kind::Counter, "count_30"));
    assert_eq!(c.steps, Some(Steps { plus_one: 9, pairs: 9 }));
}

#[test]
fn differences_between_builds_are_listed() {
    // +0x08: 0 in the old build, 0 or 7 in the new; +0x0c: 1 in the old, 2 in the new; +0x09 the same in both.
    let old: Vec<Raw> = (0..4u8).map(|i| bundle(|b| (b[0x08], b[0x09], b[0x0c]) = (0, i, 1))).collect();
    let new: Vec<Raw> = (0..4u8).map(|i| bundle(|b| (b[0x08], b[0x09], b[0x0c]) = (7 * (i % 2), i, 2))).collect();
    let mut inf = Inference::new(&[OP]);
    inf.add_stream("a", Some("old"), V2, &old.concat());
    inf.add_stream("b", Some("new"), V3, &new.concat());
    let d = op(&inf).differences();
    assert_eq!(d.iter().map(|x| (x.offset, x.kind)).collect::<Vec<_>>(), [(0x08, DiffKind::ZeroInSome), (0x0c, DiffKind::Disjoint)]);
    assert_eq!(d[1].groups.iter().map(|g| (g.build.as_str(), g.values.clone())).collect::<Vec<_>>(), [("old", vec![1]), ("new", vec![2])]);
    assert_eq!(op(&inf).builds().into_iter().collect::<Vec<_>>(), [("new", 4), ("old", 4)]);
    // Each build was read on its own generation: the bundles per generation, in the JSON too.
    assert_eq!(op(&inf).generations().into_iter().collect::<Vec<_>>(), [(V2, 4), (V3, 4)]);
    assert_eq!(inf.to_json()["opcodes"][0]["fields"][0]["evidence"]["generations"], serde_json::json!({"v2": 4, "v3": 4}));
    // A third build: +0x0c differs among all three.
    let newer: Vec<Raw> = (0..4u8).map(|i| bundle(|b| (b[0x09], b[0x0c]) = (i, 3))).collect();
    inf.add_stream("c", Some("newer"), V3, &newer.concat());
    let d = op(&inf).differences();
    assert!(d.iter().any(|x| x.offset == 0x0c && x.groups.len() == 3), "{d:#?}");
    // The text report lists them under their heading; one build alone has none to list.
    let text = inf.to_text();
    assert!(text.contains("  differences between generations and builds"), "{text}");
    assert!(text.contains("    +0x0c disjoint: v2 old: "), "{text}");
    let alone = infer(&old).to_text();
    assert!(!alone.contains("differences between"), "{alone}");
}

#[test]
fn any_bundles_tile_the_body_and_render_deterministically() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let bundles: Vec<Raw> = (0..300)
        .map(|i| {
            bundle(|b| {
                for (k, x) in b.iter_mut().enumerate().skip(4) {
                    // Some offsets random, some sparse, some zero.
                    *x = match k % 5 {
                        0 => rng.next() as u8,
                        1 => (rng.next() % 3) as u8,
                        2 => 0,
                        3 => (i % 7) as u8,
                        _ => {
                            if rng.next().is_multiple_of(2) {
                                0xff
                            } else {
                                0
                            }
                        }
                    };
                }
            })
        })
        .collect();
    let inf = infer(&bundles);
    assert_tiles(&op(&inf).propose(), 300);
    let again = infer(&bundles);
    assert_eq!(inf.to_text(), again.to_text());
    assert_eq!(inf.to_json(), again.to_json());
}

#[test]
fn an_opcode_with_no_bundle_proposes_nothing() {
    let mut inf = Inference::new(&[OP, 0x69]);
    inf.add_stream("x", None, V2, &bundle(|_| {}));
    let Some(none) = inf.opcode(0x69) else { panic!("0x69 was asked for") };
    assert_eq!(none.bundles, 0);
    assert!(none.propose().is_empty());
    assert!(inf.to_text().contains("0x69 StreamMask: no bundles"));
    let j = inf.to_json();
    assert_eq!(j["opcodes"][0]["opcode"], "0x69", "opcodes in byte order");
    assert_eq!(j["opcodes"][0]["status"], "no bundles");
    assert_eq!(j["opcodes"][1]["fields"][0]["evidence"]["builds"]["unknown"], 1);
}

#[test]
fn distinct_values_are_capped() {
    let mut v = Values::new(4);
    for x in 0..(MAX_TRACKED as u32 + 100) {
        v.add(x * 3);
    }
    assert_eq!(v.distinct(), MAX_TRACKED);
    assert!(v.capped());
    assert_eq!((v.min(), v.max()), (0, (MAX_TRACKED as u32 + 99) * 3), "min and max stay exact");
    assert_eq!(v.total(), MAX_TRACKED as u64 + 100);
    let (_, other) = v.top();
    assert_eq!(other, (MAX_TRACKED - TOP_VALUES) as u64 + 100);
}

#[test]
fn strings_from_the_input_are_escaped_in_text() {
    let mut inf = Inference::new(&[OP]);
    inf.add_stream("evil\nfile", Some("build\u{1b}[31m"), V2, &bundle(|b| b[0x10] = 1));
    let t = inf.to_text();
    assert!(t.contains("build\\u{1b}[31m"), "{t}");
    assert!(!t.contains('\u{1b}'));
}

#[test]
fn the_statistics_keep_bytes_halves_at_even_and_words_at_multiples_of_four() {
    let bundles: Vec<Raw> = (0..4u8).map(|i| bundle(|b| b[0x04..0x40].fill(i))).collect();
    let inf = infer(&bundles);
    let d = op(&inf);
    let kept = |at: usize, width: usize| d.values(at, width).is_some();
    for at in [0x04, 0x05, 0x3F] {
        assert!(kept(at, 1), "byte at {at:#04x}");
    }
    assert!(!kept(0x03, 1) && !kept(0x40, 1), "bytes outside the body");
    assert!(kept(0x04, 2) && kept(0x3E, 2) && !kept(0x05, 2) && !kept(0x07, 2), "halves");
    assert!(kept(0x04, 4) && kept(0x3C, 4) && !kept(0x06, 4) && !kept(0x05, 4), "words");
    assert!(!kept(0x04, 3) && !kept(0x04, 8), "no other widths");
    // A kept word reads the four bytes little-endian.
    assert_eq!(super::stats::read_le(&[0x11, 0x22, 0x33, 0x44, 0x55], 1, 4), 0x5544_3322);
    assert_eq!(super::stats::read_le(&[0x11, 0x22], 1, 4), 0, "past the end");
}

#[test]
fn the_text_statistics_say_what_each_kept_offset_holds() {
    // +0x10 varies over 0..=3, +0x11 is always zero, +0x12 always 0x5a.
    let bundles: Vec<Raw> = (0..4u8).map(|i| bundle(|b| (b[0x10], b[0x12]) = (i, 0x5a))).collect();
    let text = infer(&bundles).to_text();
    let stats = text.split("  statistics:\n").nth(1).unwrap_or_else(|| panic!("no statistics heading:\n{text}"));
    let line = |label: &str| stats.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no {label:?} in\n{stats}"));
    assert_eq!(line("    byte +0x11:"), "    byte +0x11: always zero");
    assert_eq!(line("    byte +0x12:"), "    byte +0x12: constant 0x5a");
    assert_eq!(line("    byte +0x10:"), "    byte +0x10: 4 values 0x00..0x03: 0x00 ×1, 0x01 ×1, 0x02 ×1, 0x03 ×1");
    // Every kept offset of each width has its line: 60 bytes, 30 halves, 15 words.
    assert_eq!(stats.lines().filter(|l| l.starts_with("    byte +")).count(), 60, "{stats}");
    assert_eq!(stats.lines().filter(|l| l.starts_with("    u16  +")).count(), 30, "{stats}");
    assert_eq!(stats.lines().filter(|l| l.starts_with("    u32  +")).count(), 15, "{stats}");
}

#[test]
fn the_json_statistics_say_what_each_kept_offset_holds() {
    // +0x10 takes 0..=3, +0x11 is always zero, +0x12 always 0x5a.
    let bundles: Vec<Raw> = (0..4u8).map(|i| bundle(|b| (b[0x10], b[0x12]) = (i, 0x5a))).collect();
    let json = infer(&bundles).to_json();
    let stats = &json["opcodes"][0]["stats"];
    let at = |width: &str, offset: usize| {
        let all = stats[width].as_array().unwrap_or_else(|| panic!("no {width} in {stats}"));
        all.iter().find(|s| s["offset"] == offset).cloned().unwrap_or_else(|| panic!("no {width} at {offset:#x}"))
    };
    let b10 = at("bytes", 0x10);
    assert_eq!(b10["values"], serde_json::json!([["0x00", 1], ["0x01", 1], ["0x02", 1], ["0x03", 1]]));
    assert_eq!((&b10["other"], &b10["distinct"], &b10["distinct_capped"]), (&serde_json::json!(0), &serde_json::json!(4), &serde_json::json!(false)));
    assert_eq!((&b10["min"], &b10["max"]), (&serde_json::json!("0x00"), &serde_json::json!("0x03")));
    assert_eq!((&b10["constant"], &b10["always_zero"]), (&serde_json::json!(false), &serde_json::json!(false)));
    assert_eq!(b10["steps_plus_one"], serde_json::json!({"steps": 3, "pairs": 3}), "0, 1, 2, 3: each step +1");
    let b11 = at("bytes", 0x11);
    assert_eq!((&b11["constant"], &b11["always_zero"]), (&serde_json::json!(true), &serde_json::json!(true)));
    let b12 = at("bytes", 0x12);
    assert_eq!(
        (&b12["constant"], &b12["always_zero"], &b12["min"]),
        (&serde_json::json!(true), &serde_json::json!(false), &serde_json::json!("0x5a"))
    );
    // Every kept offset of each width has its entry: 60 bytes, 30 halves, 15 words.
    let counts: Vec<usize> = ["bytes", "halves", "words"].iter().map(|w| stats[w].as_array().map_or(0, Vec::len)).collect();
    assert_eq!(counts, [60, 30, 15]);
}

#[test]
fn a_constant_run_ends_at_a_word_boundary() {
    // Non-zero constant bytes 0x05..0x0b: one run up to the word at 0x08, another from it;
    // and a lone one at 0x0f, just before the next word.
    let bundles: Vec<Raw> = (0..10u8).map(|i| bundle(|b| (b[0x05..0x0b].fill(0x5A), b[0x0f] = 0x33, b[0x30] = i).0)).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 10);
    let runs: Vec<(usize, usize, &str)> = fields.iter().filter(|f| f.kind == Kind::Const).map(|f| (f.offset, f.size, f.ty.as_str())).collect();
    assert_eq!(runs, [(0x05, 3, "u8[3]"), (0x08, 3, "u8[3]"), (0x0f, 1, "u8")], "{fields:#?}");
}

#[test]
fn a_field_s_json_evidence_holds_its_values() {
    // +0x30 takes 1, 2, 3 (four bundles each); +0x31 is always 0x5a.
    let bundles: Vec<Raw> = (0..12u8).map(|i| bundle(|b| (b[0x30], b[0x31]) = (1 + i % 3, 0x5A))).collect();
    let inf = infer(&bundles);
    let j = inf.to_json();
    let Some(fields) = j["opcodes"][0]["fields"].as_array() else { panic!("no fields in {j}") };
    let at = |o: usize| fields.iter().find(|f| f["offset"] == o).unwrap_or_else(|| panic!("no field at {o:#x} in {j}"));
    let ev = &at(0x30)["evidence"];
    assert_eq!((ev["distinct"].as_u64(), ev["other"].as_u64(), ev["distinct_capped"].as_bool()), (Some(3), Some(0), Some(false)), "{ev}");
    assert_eq!(ev["values"].as_array().map(Vec::len), Some(3), "{ev}");
    assert!(ev["min"].is_string() && ev["max"].is_string() && ev["min"] != ev["max"], "{ev}");
    assert_eq!(at(0x31)["evidence"]["distinct"], 1);
}

#[test]
fn the_text_says_value_for_one_and_values_for_more() {
    let bundles: Vec<Raw> = (0..6u8).map(|i| bundle(|b| (b[0x10], b[0x11]) = (7, i % 3 + 1))).collect();
    let text = infer(&bundles).to_text();
    assert!(text.contains(" 1 value: 0x07 ×6"), "{text}");
    assert!(text.contains(" 3 values 0x01..0x03: "), "{text}");
}

#[test]
fn an_empty_histogram_is_neither_constant_nor_varying_nor_zero() {
    let mut v = stats::Values::new(2);
    assert!(!v.varies() && !v.constant() && !v.always_zero() && v.min() == 0, "nothing counted");
    v.add(7);
    assert!(v.constant() && !v.varies() && !v.always_zero(), "one value");
    v.add(9);
    assert!(v.varies() && !v.constant() && (v.min(), v.max()) == (7, 9), "two values");
}
