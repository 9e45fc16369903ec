//! Address words: ADDR4 forms, regions, and what makes an address weak evidence.

use super::*;

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
