//! Conformance counting and its report, on bundles made here.

use super::{first_diff, record_fields, text_verdict, FieldDist, HarnessFailure, NeffConformance, OpStats, MAX_DETAILS, MAX_TRACKED, TOP_VALUES};

#[test]
fn a_text_round_trip_is_clean_only_when_it_gives_back_the_same_bytes() {
    let a = [0x11u8; 64];
    let mut b = a;
    b[5] = 0;
    assert_eq!(text_verdict(&a, Ok(Some(a))), Ok(()));
    assert_eq!(text_verdict(&a, Ok(Some(b))), Err("assembled at byte 0x05 (0x11 vs 0x00) differs from the original".to_string()));
    assert_eq!(text_verdict(&a, Ok(None)), Err("disassembly assembled to nothing".to_string()));
    assert_eq!(text_verdict(&a, Err("bad field".into())), Err("assembler rejected its own disassembly: bad field".to_string()));
}

#[test]
fn a_codec_mismatch_names_its_first_differing_byte() {
    let a = [0u8; 64];
    let mut b = a;
    b[0x21] = 0x7f;
    b[0x30] = 1;
    assert_eq!(first_diff(&a, &b), "at byte 0x21 (0x00 vs 0x7f)");
    assert_eq!(first_diff(&a, &a), "nowhere");
}

/// A harness failure: a panic at bundle `index`.
fn panic_at(index: usize) -> HarnessFailure {
    HarnessFailure { file: "f.neff".into(), member: "m".into(), index, offset: 0, opcode: "0x00".into(), kind: "panic", detail: String::new() }
}

#[test]
fn a_disassembly_line_that_disagrees_with_the_layout_is_named() {
    use tpb_isa::{opcode, text, BodyKind, Bundle};
    // A typed opcode's bundle: its line names each field of the layout in order.
    let Some(op) = (0..=u8::MAX).find(|&op| opcode::lookup(op).is_some() && opcode::body_kind(op) != BodyKind::Opaque) else {
        panic!("no typed opcode")
    };
    let mut raw = [0u8; tpb_isa::bundle::BUNDLE_BYTES];
    raw[0] = op;
    let b = Bundle::decode(&raw);
    let line = text::disasm(&b);
    let mut st = OpStats::new(op);
    assert!(st.fields.len() >= 2, "{line}");
    assert_eq!(record_fields(&mut st, b.kind(), &line), None, "{line}");
    assert!(st.fields.iter().all(|f| f.top().0.iter().map(|x| x.1).sum::<usize>() == 1), "each field counted once");
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let first = &st.fields[0].path;
    let other = BodyKind::ALL.iter().copied().find(|&k| k != b.kind()).unwrap_or(BodyKind::Opaque);
    let cases = [
        (other, line.clone(), format!("decoded as {other:?}, table says {:?}", b.kind())),
        (b.kind(), tokens[..tokens.len() - 1].join(" "), format!("disassembly has no token for `{}`", st.fields[st.fields.len() - 1].path)),
        (b.kind(), format!("{line} x=1"), "disassembly has extra token `x=1`".to_string()),
        (b.kind(), line.replacen(&format!(" {first}="), " renamed=", 1), format!("disassembly token `renamed` where the layout has `{first}`")),
    ];
    for (kind, line, want) in cases {
        assert_eq!(record_fields(&mut OpStats::new(op), kind, &line), Some(want), "{line}");
    }
}

#[test]
fn merged_opcode_stats_add_the_values_they_no_longer_track() {
    let op = (0..=u8::MAX).find(|&op| !OpStats::new(op).fields.is_empty()).unwrap_or(0);
    // "0x1", then values to the cap, then `untracked` more past it.
    let with = |untracked: usize| {
        let mut st = OpStats::new(op);
        st.fields[0].add("0x1", 1);
        for v in 0..MAX_TRACKED - 1 + untracked {
            st.fields[0].add(&format!("v{v:05}"), 1);
        }
        st
    };
    let mut a = with(2);
    a.merge(with(5));
    let f = &a.fields[0];
    assert_eq!((f.values.untracked(), f.top().0[0]), (7, ("0x1", 2)));
    assert_eq!(f.values.total(), 2 * MAX_TRACKED as u64 + 7);
}

#[test]
fn merged_reports_add_their_harness_failures() {
    let failing = |n: usize| {
        let mut c = NeffConformance::default();
        for index in 0..n {
            c.harness_failure(panic_at(index));
        }
        c
    };
    let mut a = failing(3);
    a.merge(failing(4));
    assert_eq!((a.harness_failures(), a.harness.len()), (7, 7));
    // Details stop at MAX_DETAILS, merged or not; the count goes on.
    let mut b = failing(MAX_DETAILS - 1);
    b.merge(failing(3));
    assert_eq!((b.harness_failures(), b.harness.len()), (MAX_DETAILS + 2, MAX_DETAILS));
    assert_eq!(failing(MAX_DETAILS + 1).harness.len(), MAX_DETAILS);
}

#[test]
fn a_field_distribution_counts_each_value_and_caps_what_it_tracks() {
    let prov = tpb_isa::Provenance::new("2.1", tpb_isa::Confidence::Confirmed);
    let mut d = FieldDist { path: "src.addr".into(), offset: 0x0C, prov, values: Default::default() };
    d.add("0x10", 3);
    d.add("0x20", 1);
    d.add("0x10", 2);
    assert_eq!(d.top(), (vec![("0x10", 5), ("0x20", 1)], 0));
    assert_eq!(d.distinct(), "2");
    // Past MAX_TRACKED distinct values, new ones are only counted; known ones still are.
    for v in 0..MAX_TRACKED + 10 {
        d.add(&format!("v{v:05}"), 1);
    }
    d.add("0x10", 1);
    let (top, other) = d.top();
    assert_eq!((top.len(), top[0]), (TOP_VALUES, ("0x10", 6)));
    assert_eq!(top.iter().map(|x| x.1).sum::<usize>() + other, 6 + 1 + MAX_TRACKED + 10);
    assert_eq!(d.distinct(), format!(">{MAX_TRACKED}"));
    let j = d.to_json();
    assert_eq!((j["distinct_capped"].as_bool(), j["top"][0]["count"].as_u64()), (Some(true), Some(6)));
}

#[test]
fn harness_failures_are_all_counted_and_the_first_max_details_kept() {
    let mut c = NeffConformance::default();
    let more = |c: &NeffConformance| c.to_markdown().lines().filter(|l| l.ends_with("more not listed)")).map(String::from).collect::<Vec<_>>();
    for index in 0..MAX_DETAILS + 5 {
        if index == MAX_DETAILS {
            // Every one listed: nothing more to say.
            assert!(more(&c).is_empty(), "{:?}", more(&c));
        }
        let f = panic_at(index);
        c.harness_failure(f);
    }
    assert_eq!(c.harness_failures(), MAX_DETAILS + 5);
    assert_eq!(c.harness.len(), MAX_DETAILS);
    assert_eq!(c.harness.last().map(|h| h.index), Some(MAX_DETAILS - 1));
    assert_eq!(more(&c), ["(5 more not listed)"]);
}
