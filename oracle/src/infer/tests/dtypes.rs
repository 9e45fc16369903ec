//! Dtype bytes and nibble pairs, and enumerations of the spec.

use super::*;

#[test]
fn a_dtype_byte_is_found_and_a_constant_tag_is_only_a_constant() {
    let tags = [6u8, 10, 7, 6, 14];
    let bundles: Vec<Raw> = (0..25).map(|i| bundle(|b| (b[0x20], b[0x22]) = (tags[i % tags.len()], 6))).collect();
    let inf = infer(&bundles);
    let fields = op(&inf).propose();
    assert_tiles(&fields, 25);
    let f = field_at(&fields, 0x20);
    assert_eq!((f.kind, f.name.as_str()), (Kind::Dtype, "dtype_20"));
    assert!(f.names.contains(&("0x06".to_string(), "bf16".to_string())), "{:?}", f.names);
    assert_eq!(field_at(&fields, 0x22).kind, Kind::Const);
    // The JSON evidence names the dtype's values, and only where there are names.
    let j = inf.to_json();
    let Some(listed) = j["opcodes"][0]["fields"].as_array() else { panic!("no fields in {j}") };
    let at = |o: usize| listed.iter().find(|f| f["offset"] == o).unwrap_or_else(|| panic!("no field at {o:#x} in {j}"));
    assert_eq!(at(0x20)["evidence"]["names"]["0x06"], "bf16", "{j}");
    assert!(at(0x22)["evidence"].get("names").is_none(), "{j}");
}

#[test]
fn a_tag_out_of_its_generation_is_no_dtype() {
    // Tag 16 (f4e2m1x4) is v4 only: on v2 the byte is no dtype.
    let tags = [6u8, 16, 10];
    let bundles: Vec<Raw> = (0..9).map(|i| bundle(|b| b[0x20] = tags[i % 3])).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_ne!(field_at(&fields, 0x20).kind, Kind::Dtype);
    let mut inf = Inference::new(&[OP]);
    inf.add_stream("synthetic", Some("b1"), tpb_isa::Generation::V4, &bundles.concat());
    assert_eq!(field_at(&op(&inf).propose(), 0x20).kind, Kind::Dtype);
}

#[test]
fn a_nibble_pair_of_dtypes_is_found() {
    let pairs = [0x66u8, 0xa6, 0x6a, 0xaa, 0x77, 0x7a];
    let bundles: Vec<Raw> = (0..30).map(|i| bundle(|b| b[0x21] = pairs[i % pairs.len()])).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 30);
    let f = field_at(&fields, 0x21);
    assert_eq!((f.kind, f.name.as_str()), (Kind::DtypePair, "dtypes_21"));
    assert!(f.names.contains(&("0xa6".to_string(), "bf16/f32".to_string())), "{:?}", f.names);
    assert!(dtype_pair(0xa6, V2) && !dtype_pair(0xa0, V2) && !dtype_pair(0x06, V2));
}

#[test]
fn nibble_pairs_that_never_pair_a_tag_with_itself_are_a_weak_reading() {
    // Spread values that all read as dtype pairs, but none like 0x66 (same tag twice): most
    // bytes would read so by chance, so the pair reading is only mentioned, as weak.
    let pairs = [0xa6u8, 0x6a, 0x7a, 0xa7];
    let bundles: Vec<Raw> = (0..32).map(|i| bundle(|b| b[0x21] = pairs[i % pairs.len()])).collect();
    let fields = op(&infer(&bundles)).propose();
    let f = field_at(&fields, 0x21);
    assert_ne!(f.kind, Kind::DtypePair, "{f:#?}");
    assert!(f.also.iter().any(|a| a.contains("no value pairs a tag with itself")), "{:?}", f.also);
}

#[test]
fn an_enumeration_of_the_spec_is_found_and_a_chance_match_is_weak() {
    let subtypes = [0x11u8, 0x13, 0x19];
    let runs = [0u8, 1, 2, 3];
    let bundles: Vec<Raw> = (0..24).map(|i| bundle(|b| (b[0x22], b[0x28]) = (subtypes[i % 3], runs[(i * 7) % 4]))).collect();
    let fields = op(&infer(&bundles)).propose();
    let f = field_at(&fields, 0x22);
    assert_eq!((f.kind, f.name.as_str()), (Kind::Enum("subtype"), "subtype_22"));
    // 0..3 is in the branch comparator table, but a run of small numbers is what a count takes.
    let g = field_at(&fields, 0x28);
    assert_eq!(g.kind, Kind::Byte, "{g:#?}");
    assert!(g.also.iter().any(|a| a.starts_with("enum comp_op (weak")), "{:?}", g.also);
    // The text names the enumeration's values under its field, and only there.
    assert!(!f.names.is_empty(), "{f:#?}");
    let text = infer(&bundles).to_text();
    let reads: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("reads as:")).collect();
    let want: Vec<String> = f.names.iter().map(|(v, n)| format!("{v}={n}")).collect();
    assert_eq!(reads, [format!("             reads as: {}", want.join(", "))], "{text}");
}
