//! Recognisers and the proposal on synthetic bundles: each shape is found
//! where it is, and not where one bundle breaks it.

use super::*;
use tpb_isa::Generation::{V2, V3};

const OP: u8 = 0xC1;

/// A bundle of opcode [`OP`] with the body bytes `set` writes.
fn bundle(set: impl FnOnce(&mut Raw)) -> Raw {
    let mut b = [0u8; BUNDLE_BYTES];
    b[0] = OP;
    b[1] = 0x10;
    set(&mut b);
    b
}

fn put(b: &mut Raw, at: usize, le: &[u8]) {
    b[at..at + le.len()].copy_from_slice(le);
}

fn infer(bundles: &[Raw]) -> Inference {
    let mut inf = Inference::new(&[OP]);
    inf.add_stream("synthetic", Some("b1"), V2, &bundles.concat());
    inf
}

fn op(inf: &Inference) -> &OpData {
    let Some(d) = inf.opcode(OP) else { panic!("opcode {OP:#04x} was asked for") };
    d
}

fn field_at(fields: &[Field], offset: usize) -> &Field {
    fields.iter().find(|f| f.offset == offset).unwrap_or_else(|| panic!("no field starts at {offset:#04x}: {fields:#?}"))
}

/// The fields tile 0x04..0x40 in order with no gap or overlap, each holding on every bundle.
fn assert_tiles(fields: &[Field], bundles: u64) {
    let mut at = BODY.start;
    for f in fields {
        assert_eq!(f.offset, at, "gap or overlap at {at:#04x}: {fields:#?}");
        assert!(f.size > 0);
        assert_eq!(f.bundles, bundles, "{}", f.name);
        at += f.size;
    }
    assert_eq!(at, BODY.end);
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

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
fn no_spec_layout_places_an_address_in_the_sync_band() {
    assert_eq!(shapes::first_spec_address(), 0x0C);
    // Only what the spec states places the band's end: an inferred ADDR4 leaf lower down does not.
    let leaves: Vec<tpb_isa::layout::Leaf> = tpb_isa::BodyKind::ALL.iter().flat_map(|k| k.layout().leaves()).collect();
    let Some(mut lower) = leaves.iter().find(|l| l.prim == tpb_isa::layout::Prim::Addr4).cloned() else { panic!("no ADDR4 leaf") };
    lower.offset = 0x04;
    lower.prov = tpb_isa::Provenance::new("a test's guess", tpb_isa::Confidence::Inferred);
    let with = |l: &tpb_isa::layout::Leaf| leaves.iter().cloned().chain([l.clone()]);
    assert_eq!(shapes::lowest_stated_address(with(&lower)), Some(0x0C));
    lower.prov = tpb_isa::Provenance::new("a test's claim", tpb_isa::Confidence::Strong);
    assert_eq!(shapes::lowest_stated_address(with(&lower)), Some(0x04));
    assert_eq!(shapes::lowest_stated_address(Vec::new()), None);
    // A PSUM word at 0x08 is left to the plain readings.
    let bundles: Vec<Raw> = (0..20u32).map(|i| bundle(|b| put(b, 0x08, &(0x0200_0000 + 0x40 * i).to_le_bytes()))).collect();
    let fields = op(&infer(&bundles)).propose();
    assert_tiles(&fields, 20);
    assert!(!fields.iter().any(|f| f.kind == Kind::Addr4), "{fields:#?}");
}

/// ADDR4-like needs a word seen: none seen, or only zeros, is no evidence.
#[test]
fn an_addr4_reading_needs_a_non_zero_word_seen() {
    let (acc, mut values) = (shapes::Addr4Acc::default(), Values::new(4));
    assert!(!acc.holds(&values), "no word seen");
    values.add(0);
    assert!(!acc.holds(&values), "only zeros");
    values.add(0x1e08);
    assert!(acc.holds(&values));
}

#[test]
fn addr4_forms_follow_the_spec() {
    assert_eq!(addr4_form(0x0000_1e08), Some(AddrForm::Sbuf));
    assert_eq!(addr4_form(0x0101_4a08), Some(AddrForm::Sbuf));
    assert_eq!(addr4_form(0x0200_3000), Some(AddrForm::Psum));
    assert_eq!(addr4_form(0x8000_0012), Some(AddrForm::Register));
    assert_eq!(addr4_form(0x0400_0000), None, "region bits outside the PSUM window");
    assert_eq!(addr4_form(0x6000_0100), None, "dead mode");
    assert_eq!(addr4_form(0x8000_003F), Some(AddrForm::Register), "the last register id below the limit");
    assert_eq!(addr4_form(0x8000_0040), None, "register id at the limit");
    assert_eq!(addr4_form(0x8000_0140), None, "register id over the limit");
    assert_eq!(addr4_form(0x8000_0112), None, "register form with reserved bits");
}

/// Only a four-byte number may read as a weak address: a u16 followed by zeros
/// makes a word of low SBUF addresses too, yet is a half with nothing more to say.
#[test]
fn a_half_of_low_values_before_zeros_is_no_weak_address() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let bundles: Vec<Raw> = (0..64).map(|_| bundle(|b| put(b, 0x20, &((rng.next() as u16) | 0x0100).to_le_bytes()))).collect();
    let fields = op(&infer(&bundles)).propose();
    let f = field_at(&fields, 0x20);
    assert_eq!((f.kind, f.size), (Kind::Half, 2), "{f:#?}");
    assert!(f.also.is_empty(), "{:?}", f.also);
}

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
fn a_word_of_low_sbuf_addresses_is_a_number_that_also_reads_as_a_weak_address() {
    let mut rng = Rng(0xA076_1D64_78BD_642F);
    let bundles: Vec<Raw> = (0..64).map(|_| bundle(|b| put(b, 0x20, &((rng.next() as u32) % 0x00FE_0000 + 0x1_0000).to_le_bytes()))).collect();
    let fields = op(&infer(&bundles)).propose();
    let f = field_at(&fields, 0x20);
    assert_eq!((f.kind, f.size), (Kind::Word, 4), "{f:#?}");
    assert!(f.also.iter().any(|a| a.starts_with("addr4 (weak")), "{:?}", f.also);
    // The JSON says so in the field's evidence; a field with nothing else to say has no `also`.
    let j = infer(&bundles).to_json();
    let fields = j["opcodes"][0]["fields"].as_array().cloned().unwrap_or_default();
    let Some(word) = fields.iter().find(|f| f["offset"] == 0x20) else { panic!("no field at 0x20: {fields:?}") };
    assert!(
        word["evidence"]["also"].as_array().is_some_and(|a| a.iter().any(|x| x.as_str().is_some_and(|x| x.starts_with("addr4 (weak")))),
        "{word}"
    );
    assert!(fields.iter().any(|f| f["offset"] != 0x20 && f["evidence"].get("also").is_none()), "{fields:?}");
}

#[test]
fn an_address_word_is_distinctive_by_any_one_of_its_telling_values() {
    use super::shapes::Addr4Acc;
    let acc = |words: &[u32]| {
        let mut a = Addr4Acc::default();
        words.iter().for_each(|&w| a.add(w));
        a
    };
    // Low static SBUF addresses are what any small number is.
    assert!(!acc(&[0x0000_1e08, 0x0000_0040, 0x00ff_fff0]).distinctive());
    // Each telling value alone, among plain ones, and one of each kind together.
    let telling = [
        ("PSUM", 0x0200_3000),
        ("register", 0x8000_0012),
        ("indirect mode", 0x2000_1000),
        ("active mode", 0x4000_1000),
        ("SBUF bit 24", 0x0101_4a08),
    ];
    for (what, w) in telling {
        assert!(acc(&[0x0000_1e08, w]).distinctive(), "{what} {w:#010x}");
        assert!(acc(&[w]).distinctive(), "{what} {w:#010x} alone");
    }
    for (i, (a, wa)) in telling.iter().enumerate() {
        for (b, wb) in &telling[..i] {
            assert!(acc(&[*wa, *wb]).distinctive(), "{a} and {b}");
        }
    }
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

fn sbuf_words(outside_at: Option<usize>) -> Vec<Raw> {
    (0..40u32)
        .map(|i| {
            let w = if Some(i as usize) == outside_at { 0x0400_0000 } else { 0x0100_0000 + 0x40 * i + (i % 3) * 0x0001_0000 };
            bundle(|b| put(b, 0x10, &w.to_le_bytes()))
        })
        .collect()
}

#[test]
fn an_addr4_word_in_sbuf_is_found() {
    let inf = infer(&sbuf_words(None));
    let fields = op(&inf).propose();
    assert_tiles(&fields, 40);
    let f = field_at(&fields, 0x10);
    assert_eq!((f.kind, f.size, f.name.as_str()), (Kind::Addr4, 4, "addr4_10"));
    let Some(r) = f.regions.as_ref() else { panic!("no address forms for {}", f.name) };
    assert_eq!((r.sbuf, r.psum, r.register, r.failed), (40, 0, 0, 0));
}

#[test]
fn a_word_with_one_outside_memory_value_is_no_addr4() {
    let inf = infer(&sbuf_words(Some(17)));
    let fields = op(&inf).propose();
    assert_tiles(&fields, 40);
    let covering: Vec<&Field> = fields.iter().filter(|f| f.offset <= 0x10 && 0x10 < f.offset + f.size).collect();
    assert_eq!(covering.len(), 1);
    assert_ne!(covering[0].kind, Kind::Addr4, "{:#?}", covering[0]);
    assert!(!fields.iter().any(|f| f.kind == Kind::Addr4 || matches!(f.kind, Kind::Pattern(_))), "{fields:#?}");
}

#[test]
fn a_constant_small_word_is_no_addr4() {
    // SBUF-like values below 0x01000000 read as plain numbers: no address is proposed.
    let bundles: Vec<Raw> = (0..20u32).map(|i| bundle(|b| put(b, 0x10, &(0x40 * i + 0x1000 * (i % 4)).to_le_bytes()))).collect();
    let inf = infer(&bundles);
    let fields = op(&inf).propose();
    assert_tiles(&fields, 20);
    assert!(!fields.iter().any(|f| f.kind == Kind::Addr4), "{fields:#?}");
}

/// Bundles with a 3-dim pattern at 0x20 whose N = 1, 2 and 4 readings all break on some bundle.
fn pattern3d_bundles() -> Vec<Raw> {
    pattern3d_bundles_at(0x20)
}

/// The same pattern at `at` (at most 0x30, where it ends at the body's end).
fn pattern3d_bundles_at(at: usize) -> Vec<Raw> {
    (0..50u32)
        .map(|i| {
            bundle(|b| {
                put(b, at, &(0x0200_0000 + 0x800 * (i % 8) + 4 * i).to_le_bytes());
                let strides: [i16; 3] = [1 + (i % 3) as i16, if i % 5 == 0 { 0 } else { 64 }, if i % 7 == 0 { 0 } else { -2 }];
                let nums: [u16; 3] = [1 + (i % 100) as u16 * 3, 1 + (i % 2) as u16, 1];
                for (k, s) in strides.iter().enumerate() {
                    put(b, at + 4 + 2 * k, &s.to_le_bytes());
                }
                for (k, n) in nums.iter().enumerate() {
                    put(b, at + 0x0a + 2 * k, &n.to_le_bytes());
                }
                // at + 0x10.. zero: a fourth num would be 0.
            })
        })
        .collect()
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
fn a_pattern_of_low_sbuf_addresses_says_its_address_is_weak_evidence() {
    let low: Vec<Raw> = pattern3d_bundles()
        .into_iter()
        .enumerate()
        .map(|(i, mut b)| {
            // Low SBUF words whose low byte spreads: the nums and that spread are the evidence.
            put(&mut b, 0x20, &(0x0000_1000 + 0x104 * i as u32).to_le_bytes());
            b
        })
        .collect();
    let fields = op(&infer(&low)).propose();
    let f = field_at(&fields, 0x20);
    assert_eq!(f.kind, Kind::Pattern(3), "{f:#?}");
    assert!(f.note.as_deref().is_some_and(|n| n.contains("weak")), "{f:#?}");
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

/// 64 bundles with three u16 counts (small, never zero, both bytes varying) from `at`.
fn three_counts_at(at: usize, seed: u64) -> Vec<Raw> {
    let mut rng = Rng(seed);
    let count = |rng: &mut Rng| (rng.next() % 0x3FF) as u16 + 1;
    (0..64).map(|_| bundle(|b| (0..3).for_each(|k| put(b, at + 2 * k, &count(&mut rng).to_le_bytes())))).collect()
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
fn the_text_says_value_for_one_and_values_for_more() {
    let bundles: Vec<Raw> = (0..6u8).map(|i| bundle(|b| (b[0x10], b[0x11]) = (7, i % 3 + 1))).collect();
    let text = infer(&bundles).to_text();
    assert!(text.contains(" 1 value: 0x07 ×6"), "{text}");
    assert!(text.contains(" 3 values 0x01..0x03: "), "{text}");
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

#[test]
fn an_empty_histogram_is_neither_constant_nor_varying_nor_zero() {
    let mut v = stats::Values::new(2);
    assert!(!v.varies() && !v.constant() && !v.always_zero() && v.min() == 0, "nothing counted");
    v.add(7);
    assert!(v.constant() && !v.varies() && !v.always_zero(), "one value");
    v.add(9);
    assert!(v.varies() && !v.constant() && (v.min(), v.max()) == (7, 9), "two values");
}

#[test]
fn address_words_are_counted_by_region_mode_and_high_bit() {
    let mut acc = shapes::Addr4Acc::default();
    for word in [0x40, 0x00FF_FFC0, 0x0100_0000, 0x0180_0040, 0x0200_0000, 0x2000_0040, 0x4200_0000, 0x8000_0003, 0x6000_0040] {
        acc.add(word);
    }
    // Five SBUF words, two of them at or above 16 MiB; two PSUM words; one register; the dead one fails.
    assert_eq!((acc.sbuf, acc.high_sbuf, acc.psum, acc.register, acc.failed), (5, 2, 2, 1, 1));
    // Per mode (static, indirect, active, dead), registers apart.
    assert_eq!(acc.modes, [5, 1, 1, 0]);
}
