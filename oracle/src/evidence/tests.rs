use super::*;
use tpb_isa::errata::by_id;
use tpb_isa::Generation::{V2, V3};

pub(super) type R<T> = Result<T, Box<dyn std::error::Error>>;

/// A valid TensorCopy (0x46) on v2.
pub(super) fn copy() -> R<Raw> {
    let line = "0x46:TensorCopy src.addr=0x100 src.num=[1,1,1,1] src_dtype=f32 dst_dtype=f32 out.addr=0x200 out.num=[1,1,1,1]";
    let bytes = tpb_isa::text::assemble(line)?;
    Ok(<Raw>::try_from(bytes.as_slice())?)
}

/// The copy with its source dtype `tag` (no erratum accepts a bad one).
pub(super) fn copy_with_src_dtype(tag: u8) -> R<Raw> {
    let mut r = copy()?;
    let (at, _) = Bundle::decode(&r).layout().resolve("src_dtype").ok_or("no src_dtype")?;
    r[at] = tag;
    Ok(r)
}

/// A bundle of an opcode byte with a zero body (0xB1 is one real programs use; 0x3B is not).
pub(super) use tpb_isa::bundle::header_only as bare;

pub(super) fn stream(bundles: &[Raw]) -> Vec<u8> {
    bundles.concat()
}

#[test]
fn counts_checks_errata_and_contradictions() -> R<()> {
    let (good, bad) = (copy()?, copy_with_src_dtype(0x33)?);
    let mut ev = Evidence::new();
    ev.add_stream("a.neff", Some("1.0"), V2, "PE", &stream(&[good, good, bad, bare(0xB1), bare(0x3B)]));
    assert_eq!(ev.bundles(), 5);
    // The bad dtype and both opcodes no table names are errors by the spec; 0xB1 is accepted by an erratum.
    assert_eq!((ev.invalid_spec(), ev.invalid_amended()), (3, 2));

    let dtype = ev.check(V2, "1.0", 0x46, "invalid-dtype").ok_or("no invalid-dtype on 0x46")?;
    assert_eq!((dtype.agree, dtype.disagree, dtype.refused), (2, 1, 1));
    assert!(dtype.accepted.is_empty());
    assert!(ev.check(V2, "1.0", 0x46, "zero-num").is_some_and(|c| c.agree == 3 && c.disagree == 0));

    let b1 = ev.check(V2, "1.0", 0xB1, "unknown-opcode").ok_or("no unknown-opcode on 0xB1")?;
    assert_eq!((b1.agree, b1.disagree, b1.refused), (0, 1, 0));
    assert_eq!(b1.accepted.get("unnamed-opcodes"), Some(&1));
    let x3b = ev.check(V2, "1.0", 0x3B, "unknown-opcode").ok_or("no unknown-opcode on 0x3B")?;
    assert_eq!((x3b.disagree, x3b.refused), (1, 1));
    assert!(x3b.accepted.is_empty());

    let (top, other) = ev.field_values(V2, "1.0", 0x46, "src_dtype").ok_or("no src_dtype values")?;
    let f32_tag = format!("{:#04x}", copy()?[Bundle::decode(&copy()?).layout().resolve("src_dtype").ok_or("src_dtype")?.0]);
    assert_eq!(top, vec![(f32_tag, 2), ("0x33".to_string(), 1)]);
    assert_eq!(other, 0);
    // Arrays are split into their elements, as findings name them; wide values keep their width.
    assert_eq!(ev.field_values(V2, "1.0", 0x46, "out.num[3]").map(|v| v.0), Some(vec![("0x0001".to_string(), 3)]));
    assert_eq!(ev.field_values(V2, "1.0", 0x46, "src.addr").map(|v| v.0), Some(vec![("0x00000100".to_string(), 3)]));

    let c = ev.contradictions();
    let got: Vec<String> = c.iter().map(ToString::to_string).collect();
    assert_eq!(got, ["v2 1.0 0x3b unknown unknown-opcode opcode: 0x3b ×1", "v2 1.0 0x46 TensorCopy invalid-dtype src_dtype: 0x33 ×1"]);
    assert_eq!((c[1].check, c[1].count), ("invalid-dtype", 1));

    let errata = ev.errata();
    assert_eq!(errata.len(), ERRATA.len());
    for e in &errata {
        if e.erratum.id == "unnamed-opcodes" {
            let s = e.builds.get("1.0").ok_or("no support for build 1.0")?;
            assert_eq!((s.bundles, s.files.iter().map(String::as_str).collect::<Vec<_>>()), (1, vec!["a.neff"]));
        } else {
            assert_eq!(e.bundles(), 0, "{}", e.erratum.id);
        }
    }
    Ok(())
}

#[test]
fn a_bundle_two_errata_accept_counts_under_each_and_is_no_contradiction() -> R<()> {
    // EventSemaphore with comparator 0 and subtype 0 (no wait, no action): two checks, two errata.
    let sem = bare(0xA0);
    let mut ev = Evidence::new();
    ev.add_stream("s.bin", None, V3, "", &stream(&[sem]));
    assert_eq!((ev.invalid_spec(), ev.invalid_amended()), (1, 0));
    for (code, id) in [("semaphore-cmp-op", "semaphore-no-wait"), ("semaphore-subtype", "semaphore-no-action")] {
        let c = ev.check(V3, UNKNOWN_BUILD, 0xA0, code).ok_or(code)?;
        assert_eq!((c.disagree, c.refused, c.accepted.get(id)), (1, 0, Some(&1)), "{code}");
        assert!(by_id(id).is_some());
    }
    assert!(ev.contradictions().is_empty());
    let support: Vec<(&str, u64)> = ev.errata().iter().filter(|e| e.bundles() > 0).map(|e| (e.erratum.id, e.bundles())).collect();
    assert_eq!(support, [("semaphore-no-action", 1), ("semaphore-no-wait", 1)]);
    // A raw file has no engine: none is listed.
    let j = ev.to_json();
    assert_eq!(j["groups"][0]["engines"], serde_json::json!({}));
    assert_eq!(j["inputs"][0]["build"], "unknown");
    Ok(())
}

#[test]
fn histograms_order_by_count_then_value_and_stay_bounded() {
    let mut h = Hist::default();
    for (v, n) in [(5u8, 3u64), (2, 3), (9, 1), (1, 7), (3, 1), (4, 1), (6, 1), (7, 1), (8, 1), (10, 1)] {
        h.add_n(&[v], n);
    }
    let (top, other) = h.top();
    let names: Vec<&str> = top.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(names, ["0x01", "0x02", "0x05", "0x03", "0x04", "0x06", "0x07", "0x08"]);
    assert_eq!(top[0].1, 7);
    assert_eq!((other, h.distinct(), h.capped(), h.total()), (2, 10, false, 20));
    // Little-endian bytes print most significant first, padded to the width.
    assert_eq!(hex(&[0x00, 0x02, 0x00, 0x00]), "0x00000200");
    assert_eq!(hex(&[0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01]), "0x0123456789abcdef");
    assert_eq!(hex(&[0xf0, 0x0f]), "0x0ff0");
    assert_eq!(hex(&[]), "0x00");

    let mut big = Hist::default();
    for i in 0..(MAX_TRACKED as u32 + 10) {
        big.add(&i.to_le_bytes());
    }
    big.add(&0u32.to_le_bytes());
    assert_eq!((big.distinct(), big.capped(), big.total()), (MAX_TRACKED, true, MAX_TRACKED as u64 + 11));
    let (top, other) = big.top();
    assert_eq!(top[0], ("0x00000000".to_string(), 2));
    assert_eq!(other, MAX_TRACKED as u64 + 11 - top.iter().map(|x| x.1).sum::<u64>());
    // Values wider than 8 bytes are held apart, under the same cap.
    let mut wide = Hist::default();
    for i in 0..(MAX_TRACKED as u64 + 10) {
        wide.add(&[i.to_le_bytes(), [0xEE; 8]].concat());
    }
    wide.add(&[0u64.to_le_bytes(), [0xEE; 8]].concat());
    assert_eq!((wide.distinct(), wide.capped(), wide.total()), (MAX_TRACKED, true, MAX_TRACKED as u64 + 11));
}

#[test]
fn opaque_bodies_are_histogrammed_by_aligned_word() {
    let f = fields(BodyKind::Opaque);
    let names: Vec<&str> = f.iter().map(|x| x.path.as_str()).collect();
    assert!(!names.contains(&"opcode") && names.contains(&"inst_word_len"), "{names:?}");
    let words: Vec<&FieldSpec> = f.iter().filter(|x| x.path.starts_with("word_")).collect();
    assert_eq!(words.len(), 15);
    assert_eq!((words[0].path.as_str(), words[0].offset, words[0].size), ("word_04", 4, 4));
    assert_eq!((words[14].path.as_str(), words[14].offset), ("word_3c", 0x3c));
}

#[test]
fn output_is_deterministic_whatever_the_order_streams_arrive_in() -> R<()> {
    let a = stream(&[copy()?, copy_with_src_dtype(0x44)?, bare(0xB1)]);
    let b = stream(&[bare(0xA0), copy_with_src_dtype(0x33)?, bare(0xCC)]);
    let build = |order: &[(&str, &Vec<u8>, &str)]| {
        let mut ev = Evidence::new();
        for (file, bytes, engine) in order {
            ev.add_stream(file, Some("2.0"), V2, engine, bytes);
        }
        ev
    };
    let one = build(&[("x/a.neff", &a, "PE"), ("x/b.neff", &b, "SP")]);
    let again = build(&[("x/a.neff", &a, "PE"), ("x/b.neff", &b, "SP")]);
    let swapped = build(&[("x/b.neff", &b, "SP"), ("x/a.neff", &a, "PE")]);
    let text = serde_json::to_string_pretty(&one.to_json())?;
    assert_eq!(text, serde_json::to_string_pretty(&again.to_json())?);
    assert_eq!(text, serde_json::to_string_pretty(&swapped.to_json())?);
    assert_eq!(one.to_text(), swapped.to_text());
    // Inputs and groups are sorted.
    let j = one.to_json();
    assert_eq!(j["inputs"][0]["file"], "x/a.neff");
    let ops: Vec<&str> = j["groups"].as_array().ok_or("groups")?.iter().filter_map(|g| g["opcode"].as_str()).collect();
    assert_eq!(ops, ["0x46", "0xa0", "0xb1", "0xcc"]);
    assert_eq!(j["totals"]["bundles"], 6);
    Ok(())
}

#[test]
fn text_escapes_input_strings() -> R<()> {
    let mut ev = Evidence::new();
    ev.add_stream("evil\nfile", Some("b\n0x46 forged"), V2, "PE", &stream(&[copy_with_src_dtype(0x33)?]));
    let t = ev.to_text();
    assert!(t.contains("evil\\nfile") && t.contains("b\\n0x46 forged"), "{t}");
    assert!(!t.lines().any(|l| l.starts_with("0x46 forged") || l.starts_with("file")), "{t}");
    assert!(t.contains("contradictions:\n  v2 b\\n0x46 forged 0x46 TensorCopy invalid-dtype src_dtype: 0x33 ×1"), "{t}");
    Ok(())
}

#[test]
fn fields_of_every_body_tile_the_bundle_after_the_opcode() {
    for kind in BodyKind::ALL {
        let mut covered = vec![0u8; BUNDLE_BYTES];
        for f in fields(*kind) {
            assert!(f.size > 0 && f.offset + f.size <= BUNDLE_BYTES, "{kind:?} {}", f.path);
            covered[f.offset..f.offset + f.size].iter_mut().for_each(|c| *c += 1);
        }
        assert_eq!(covered[0], 0, "{kind:?}: the opcode is the group's key, not a field");
        assert!(covered[1..].iter().all(|&c| c == 1), "{kind:?}: bytes covered {covered:?}");
    }
}

#[test]
fn a_finding_reads_its_fields_width_even_through_a_view() -> R<()> {
    let raw = copy()?;
    let layout = Bundle::decode(&raw).layout();
    let finding = |field: &str, offset: usize| Finding {
        code: "x",
        field: field.to_string(),
        offset,
        section: "",
        confidence: tpb_isa::Confidence::Confirmed,
        severity: tpb_isa::Severity::Error,
        message: String::new(),
        erratum: None,
    };
    assert_eq!(finding_bytes(&raw, layout, &finding("opcode", 0)), [0x46]);
    let (at, _) = layout.resolve("src.addr").ok_or("src.addr")?;
    assert_eq!(finding_bytes(&raw, layout, &finding("src.addr", at)), 0x100u32.to_le_bytes());
    // `src.index` is a leaf of the gather view, not of the body: a 4-byte address word.
    assert_eq!(finding_bytes(&raw, layout, &finding("src.index", at)).len(), 4);
    assert!(finding_bytes(&raw, layout, &finding("nowhere", 200)).is_empty());
    Ok(())
}

#[test]
fn counts_the_bundles_that_break_a_recovered_claim() -> R<()> {
    // NoOp (0xA4): zeros after the sync band in every real bundle.
    let clean = bare(0xA4);
    let mut broken = clean;
    broken[0x20] = 1;
    let mut ev = Evidence::new();
    ev.add_stream("a.neff", Some("1.0"), V2, "SP", &stream(&[clean, broken, clean]));
    assert_eq!(ev.claims_broken(), vec![(V2, "1.0", 0xA4, "zero_0c", 1)]);
    // The spec's validator is unmoved: nothing invalid, no contradiction.
    assert_eq!((ev.invalid_spec(), ev.invalid_amended()), (0, 0));
    assert!(ev.contradictions().is_empty());
    assert!(ev.to_text().contains("  claim zero_0c: zeros; broken by 1\n"), "{}", ev.to_text());
    let json = ev.to_json();
    let claims = &json["groups"][0]["claims"];
    assert_eq!(claims, &serde_json::json!([{"field": "zero_0c", "claim": "zeros", "broken": 1, "first_broken": 1}]), "{json}");
    // The first breaking bundle is the second of the stream: position 1 of the locations table.
    assert_eq!(json["locations"], serde_json::json!({"files": ["a.neff"], "members": ["SP"], "at": ["0 0 0", "0 0 1"]}));
    Ok(())
}

/// Streams cut from arbitrary bytes (each its own file, build and engine
/// from a few choices), counted whole and counted as random parts merged in
/// a random order: the same evidence, to the byte of its JSON, which reads
/// back into evidence that renders the same again.
/// One stream: file, build, engine, bytes.
type Stream<'a> = (String, Option<&'a str>, &'a str, &'a [u8]);

fn merged_parts_are_the_whole(bytes: Vec<u8>, cuts: Vec<u8>, order: Vec<u8>) -> bool {
    let streams: Vec<Stream> = bytes
        .chunks(64 * 3)
        .enumerate()
        .map(|(i, c)| {
            let whole = &c[..c.len() - c.len() % 64];
            (format!("f{}.neff", i % 5), [None, Some("b1"), Some("b2")][i % 3], ["PE", "ACT", ""][i % 3], whole)
        })
        .collect();
    let count = |parts: &[&Stream]| {
        let mut ev = Evidence::new();
        for (file, build, engine, b) in parts {
            ev.add_stream(file, *build, V2, engine, b);
        }
        ev
    };
    let whole = count(&streams.iter().collect::<Vec<_>>());
    let n = 1 + usize::from(cuts.first().copied().unwrap_or(0) % 4);
    let mut parts: Vec<Vec<&Stream>> = vec![Vec::new(); n];
    for (i, s) in streams.iter().enumerate() {
        parts[usize::from(cuts.get(i).copied().unwrap_or(0)) % n].push(s);
    }
    for (i, o) in order.iter().enumerate() {
        parts.swap(i % n, usize::from(*o) % n);
    }
    let mut merged = Evidence::new();
    for p in &parts {
        merged.merge(count(p));
    }
    let (a, b) = (whole.to_json(), merged.to_json());
    a == b && Evidence::from_json(&a).is_ok_and(|e| e.to_json() == a)
}

#[test]
fn evidence_of_any_split_merges_into_the_evidence_of_the_whole() {
    quickcheck::QuickCheck::new().tests(300).quickcheck(merged_parts_are_the_whole as fn(Vec<u8>, Vec<u8>, Vec<u8>) -> bool);
}

/// A check outside the table the per-stream counts index is counted by name,
/// the same as one inside it; both reach the group's map once flushed.
#[test]
fn a_check_outside_the_table_is_counted_by_name() -> R<()> {
    use tpb_isa::checks::{INVALID_DTYPE, RECOVERED_CLAIM};
    let applies = Applies::of(vec![&RECOVERED_CLAIM, &INVALID_DTYPE]);
    assert_eq!(applies.others.len(), 1, "{applies:?}");
    assert_eq!(applies.in_table.count_ones(), 1, "{applies:?}");
    let raw = copy()?;
    let bundle = Bundle::decode(&raw);
    let mut group = Group::new(bundle.kind(), raw[0]);
    let at = loc::At::new("a.neff", "sg00/PE.bin");
    for i in 0..3 {
        group.add(&raw, &bundle, V2, (&[], &[]), &applies, &at, i);
    }
    group.flush("PE", &at);
    for code in [RECOVERED_CLAIM.code, INVALID_DTYPE.code] {
        assert_eq!(group.checks.get(code).map(|c| (c.agree, c.disagree)), Some((3, 0)), "{code}");
    }
    assert_eq!((group.bundles, group.engines.get("PE")), (3, Some(&3)));
    Ok(())
}
