//! Conformance counting and its report, on bundles made here.

use super::{first_diff, text_fields, text_verdict, HarnessFailure, NeffConformance, MAX_DETAILS};

#[test]
fn a_text_round_trip_is_clean_only_when_it_gives_back_the_same_bytes() {
    let a = [0x11u8; 64];
    let mut b = a;
    b[5] = 0;
    let verdict = |assembled: Result<Option<[u8; 64]>, &str>| text_verdict(&a, assembled).map_err(|e| e.to_string());
    assert_eq!(verdict(Ok(Some(a))), Ok(()));
    assert_eq!(verdict(Ok(Some(b))), Err("assembled at byte 0x05 (0x11 vs 0x00) differs from the original".to_string()));
    assert_eq!(verdict(Ok(None)), Err("disassembly assembled to nothing".to_string()));
    assert_eq!(verdict(Err("bad field")), Err("assembler rejected its own disassembly: bad field".to_string()));
}

#[test]
fn a_codec_mismatch_names_its_first_differing_byte() {
    let a = [0u8; 64];
    let mut b = a;
    b[0x21] = 0x7f;
    b[0x30] = 1;
    assert_eq!(first_diff(&a, &b).to_string(), "at byte 0x21 (0x00 vs 0x7f)");
    assert_eq!(first_diff(&a, &a).to_string(), "nowhere");
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
    let paths: Vec<&str> = text::leaves(b.kind()).iter().map(|l| l.path.as_str()).filter(|p| *p != "opcode").collect();
    assert!(paths.len() >= 2, "{line}");
    assert_eq!(text_fields(op, &b, &line), None, "{line}");
    let tokens: Vec<&str> = line.split_whitespace().collect();
    // An opcode byte the table gives another layout: the bundle was decoded with the wrong one.
    let Some(other) = (0..=u8::MAX).find(|&o| opcode::body_kind(o) != b.kind()) else { panic!("one layout for every byte") };
    let cases = [
        (other, line.clone(), format!("decoded as {:?}, table says {:?}", b.kind(), opcode::body_kind(other))),
        (op, tokens[..tokens.len() - 1].join(" "), format!("disassembly has no token for `{}`", paths[paths.len() - 1])),
        (op, format!("{line} x=1"), "disassembly has extra token `x=1`".to_string()),
        (op, line.replacen(&format!(" {}=", paths[0]), " renamed=", 1), format!("disassembly token `renamed` where the layout has `{}`", paths[0])),
    ];
    for (op, line, want) in cases {
        assert_eq!(text_fields(op, &b, &line), Some(want), "{line}");
    }
}

#[test]
fn merged_reports_add_their_harness_failures() {
    let failing = |n: usize| {
        let mut c = NeffConformance::default();
        for index in 0..n {
            c.harness.push(panic_at(index));
        }
        c
    };
    let mut a = failing(3);
    a.merge(failing(4));
    assert_eq!((a.harness_failures(), a.harness.details.len()), (7, 7));
    // Details stop at MAX_DETAILS, merged or not; the count goes on.
    let mut b = failing(MAX_DETAILS - 1);
    b.merge(failing(3));
    assert_eq!((b.harness_failures(), b.harness.details.len()), (MAX_DETAILS + 2, MAX_DETAILS));
    assert_eq!(failing(MAX_DETAILS + 1).harness.details.len(), MAX_DETAILS);
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
        c.harness.push(f);
    }
    assert_eq!(c.harness_failures(), MAX_DETAILS + 5);
    assert_eq!(c.harness.details.len(), MAX_DETAILS);
    assert_eq!(c.harness.details.last().map(|h| h.index), Some(MAX_DETAILS - 1));
    assert_eq!(more(&c), ["(5 more not listed)"]);
}
