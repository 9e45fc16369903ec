//! Each pass and the whole reduction on real committed programs and on
//! small built ones. Every predicate first reads its candidate back with
//! the reader (`read_back`): every candidate must be a container `tpb neff`
//! reads, its digest matching, a bundle in it.

use super::tester::{Current, Halt, Tester};
use super::*;
use crate::neff::{self, build, Neff};
use std::convert::Infallible;
use std::path::PathBuf;
use tpb_isa::bundle::{header_only, BUNDLE_BYTES};

type R<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn real(name: &str) -> R<Vec<u8>> {
    Ok(std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/neff/real").join(name))?)
}

/// Two graphs, ten streams; 0x46 TensorCopy in two of them, 56 MatMuls in `sg00/PE.bin`.
const FUSION: &str = "nki-2.23/kernel-fusion_baseline_bf16_s512.neff";
/// One graph, five streams of 1 to 5 bundles.
const SMALL: &str = "xla-2.14/MODULE_11790936170214357810.neff";

/// The candidate as the reader reads it; fails the test when it does not read as `tpb neff` reads it.
fn read_back(c: &[u8]) -> Neff {
    let n = match neff::parse(c, "candidate") {
        Ok(n) => n,
        Err(e) => panic!("a candidate does not read back: {e}"),
    };
    assert!(n.integrity.ok(), "a candidate fails its digest: {}", n.integrity.describe());
    assert_eq!(n.unread(), None, "a candidate holds no bundle");
    // Its members read too, as `tpb neff unpack` reads them.
    if let Err(e) = pack::explode(c, "candidate", &Limits::default()) {
        panic!("a candidate does not explode: {e}");
    }
    n
}

/// Each stream's member and opcodes.
fn opcodes(n: &Neff) -> Vec<(String, Vec<u8>)> {
    n.streams.iter().map(|s| (s.member.clone(), s.bundles().map(|(_, _, b)| b[0]).collect())).collect()
}

fn has_opcode(n: &Neff, op: u8) -> bool {
    n.streams.iter().any(|s| s.bundles().any(|(_, _, b)| b[0] == op))
}

/// MatMuls (0x02) in the PE stream that has the most.
fn pe_matmuls(n: &Neff) -> usize {
    n.streams.iter().filter(|s| s.engine.stem() == "PE").map(|s| s.bundles().filter(|(_, _, b)| b[0] == 0x02).count()).max().unwrap_or(0)
}

type PassFn = fn(&mut Current, &mut Tester<Infallible>, &mut passes::Log) -> Result<bool, Halt<Infallible>>;

/// What one pass left: the bytes, read back, its steps and counts.
struct After {
    bytes: Vec<u8>,
    neff: Neff,
    steps: Vec<Step>,
    counts: Counts,
}

/// Runs one pass on `input` with `holds`, every candidate read back first.
fn one_pass(input: &[u8], pass: PassFn, holds: impl Fn(&Neff) -> bool) -> R<After> {
    let mut cur = Current { bytes: input.to_vec(), ex: pack::explode(input, "in", &Limits::default())? };
    let mut predicate = |c: &[u8]| Ok::<bool, Infallible>(holds(&read_back(c)));
    let mut t = Tester::new(&mut predicate, Limits::default(), MAX_TESTS);
    let mut steps = Vec::new();
    if pass(&mut cur, &mut t, &mut |s| steps.push(s)).is_err() {
        return Err("the pass halted".into());
    }
    let counts = t.counts;
    Ok(After { neff: read_back(&cur.bytes), bytes: cur.bytes, steps, counts })
}

fn whole(input: &[u8], holds: impl Fn(&Neff) -> bool) -> R<Shrunk> {
    let s = shrink(input, "in", &Options::default(), |c| holds(&read_back(c)), |_| {})?;
    assert_eq!(s.counts.malformed, 0, "every candidate built reads back");
    Ok(s)
}

fn member<'a>(ex: &'a pack::Exploded, name: &str) -> R<&'a [u8]> {
    let i = ex.manifest.members.iter().position(|e| e.name == name).ok_or_else(|| format!("no member {name}"))?;
    Ok(&ex.data[i])
}

#[test]
fn the_subgraphs_pass_drops_a_graph_with_its_definition_and_members() -> R {
    let input = real(FUSION)?;
    let a = one_pass(&input, passes::subgraphs, |n| has_opcode(n, 0x46))?;
    let graphs: Vec<&str> = a.neff.kelf.as_ref().map(|k| k.graphs.iter().map(|g| g.name.as_str()).collect()).unwrap_or_default();
    assert_eq!(graphs, ["sg00"]);
    // Only sg01/ went.
    let before = neff::parse(&input, "in")?;
    let kept: Vec<&str> = before.members.iter().map(|m| m.name.as_str()).filter(|m| !m.starts_with("sg01/")).collect();
    assert_eq!(a.neff.members.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), kept);
    assert_eq!(a.steps.len(), 1, "{:?}", a.steps);
    let step = &a.steps[0];
    assert!(step.what.starts_with("dropped subgraph `sg01` (30 members)"), "{step}");
    assert_eq!((step.before.members - step.after.members, step.before.bundles - step.after.bundles), (30, 10), "{step}");
    assert_eq!((a.counts.tests, a.counts.malformed), (1, 0), "one question: sg00 alone");
    Ok(())
}

#[test]
fn the_streams_pass_drops_streams_and_their_definition_keys() -> R {
    let input = real(SMALL)?;
    let a = one_pass(&input, passes::streams, |n| n.streams.iter().any(|s| s.engine.stem() == "DVE"))?;
    assert_eq!(opcodes(&a.neff).iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>(), ["sg00/DVE.bin"]);
    assert_eq!(a.counts.malformed, 0);
    assert!(!a.steps.is_empty() && a.steps.iter().all(|s| s.pass == Pass::Streams && s.what.starts_with("dropped engine stream ")), "{:?}", a.steps);
    for gone in ["sg00/PE.bin", "sg00/Activation.bin", "sg00/Pool.bin", "sg00/SP.bin"] {
        assert!(a.neff.members.iter().all(|m| m.name != gone), "{gone} is still there");
    }
    // The definition names only the stream kept; its other keys stay.
    let ex = pack::explode(&a.bytes, "out", &Limits::default())?;
    let v: serde_json::Value = serde_json::from_slice(member(&ex, "sg00/def.json")?)?;
    let keys: Vec<&str> = v.as_object().map(|o| o.keys().map(String::as_str).filter(|k| k.ends_with("_instr")).collect()).unwrap_or_default();
    assert_eq!(keys, ["dve_instr"]);
    assert_eq!(v["pe"], "PE.json", "keys that name no stream are kept");
    assert!(a.neff.notes.iter().all(|n| !n.contains("found by member name")), "{:?}", a.neff.notes);
    Ok(())
}

#[test]
fn the_bundles_pass_keeps_exactly_the_bundles_a_predicate_needs() -> R {
    let input = real(FUSION)?;
    let a = one_pass(&input, passes::bundles, |n| pe_matmuls(n) >= 3)?;
    let pe = opcodes(&a.neff).into_iter().find(|(m, _)| m == "sg00/PE.bin").ok_or("no sg00/PE.bin")?;
    assert_eq!(pe.1, [0x02; 3], "exactly three MatMuls left of 117 bundles");
    // Every other stream is down to one bundle: no bundle of theirs is needed, and ddmin never empties a stream.
    assert!(opcodes(&a.neff).iter().filter(|(m, _)| m != "sg00/PE.bin").all(|(_, ops)| ops.len() == 1), "{:?}", opcodes(&a.neff));
    assert!(a.steps.iter().all(|s| s.pass == Pass::Bundles), "{:?}", a.steps);
    assert!(a.steps.iter().any(|s| s.what.starts_with("dropped ") && s.what.contains(" of 117 bundles of sg00/PE.bin (indices ")), "{:?}", a.steps);
    // The bundles kept are the input's, byte for byte.
    let original = neff::parse(&input, "in")?;
    let (Some(was), Some(now)) =
        (original.streams.iter().find(|s| s.member == "sg00/PE.bin"), a.neff.streams.iter().find(|s| s.member == "sg00/PE.bin"))
    else {
        return Err("no PE stream".into());
    };
    assert!(now.bundles().all(|(_, _, b)| was.bundles().any(|(_, _, w)| w == b)));
    Ok(())
}

#[test]
fn the_fields_pass_zeroes_bodies_keeping_opcodes_and_what_the_predicate_needs() -> R {
    let input = real(SMALL)?;
    let before = neff::parse(&input, "in")?;
    // Anything with the same opcodes holds: every body goes to zero, header words stay.
    let ops = opcodes(&before);
    let a = one_pass(&input, passes::fields, |n| opcodes(n) == ops)?;
    for (was, now) in before.streams.iter().zip(&a.neff.streams) {
        for ((_, _, w), (_, _, b)) in was.bundles().zip(now.bundles()) {
            assert_eq!((&b[..4], b[4..].iter().all(|x| *x == 0)), (&w[..4], true), "{}", now.member);
        }
    }
    assert!(a.steps.iter().all(|s| s.what.contains(": body zeroed (header word only)")), "{:?}", a.steps);
    // A predicate that needs the 0x46 bundle's byte +0x10 non-zero: that field stays, the rest goes.
    let needs = |n: &Neff| n.streams.iter().any(|s| s.bundles().any(|(_, _, b)| b[0] == 0x46 && b[0x10] != 0));
    assert!(needs(&before));
    let a = one_pass(&input, passes::fields, needs)?;
    let dve = a.neff.streams.iter().find(|s| s.member == "sg00/DVE.bin").ok_or("no DVE stream")?;
    let (_, _, copy) = dve.bundles().find(|(_, _, b)| b[0] == 0x46).ok_or("no 0x46")?;
    let was = before.streams.iter().find(|s| s.member == "sg00/DVE.bin").and_then(|s| s.bundles().find(|(_, _, b)| b[0] == 0x46)).ok_or("no 0x46")?.2;
    let kept: Vec<usize> = (4..BUNDLE_BYTES).filter(|i| copy[*i] != 0).collect();
    assert!(kept.contains(&0x10) && kept.len() < was[4..].iter().filter(|b| **b != 0).count(), "kept {kept:x?}");
    assert!(kept.iter().all(|i| copy[*i] == was[*i]), "a byte kept is the input's");
    assert!(a.steps.iter().any(|s| s.what.contains("sg00/DVE.bin") && s.what.contains("0x46 TensorCopy: `")), "{:?}", a.steps);
    Ok(())
}

#[test]
fn a_tensor_copy_anywhere_shrinks_to_one_stream_of_one_bundle() -> R {
    let input = real(FUSION)?;
    let s = whole(&input, |n| has_opcode(n, 0x46))?;
    let n = read_back(&s.bytes);
    assert_eq!(opcodes(&n).into_iter().map(|(_, ops)| ops).collect::<Vec<_>>(), [vec![0x46]]);
    let bundle = n.streams[0].bundles().next().map(|(_, _, b)| *b).ok_or("no bundle")?;
    assert_eq!(bundle, header_only(0x46), "the body is reset: only the header word is left");
    assert_eq!(n.kelf.as_ref().map(|k| k.graphs.len()), Some(1));
    // The bytes move in whole 10240-byte records: what is left of sg00's tables and weights fills as many as before.
    assert!(s.bytes.len() <= input.len());
    // Members: sg01's 30 and sg00's four other streams went; no other kind of member is dropped.
    assert_eq!(n.members.len(), neff::parse(&input, "in")?.members.len() - 30 - 4, "{:?}", n.members);
    assert!(!s.exhausted && s.rounds >= 2, "a fixpoint: the last round accepted nothing ({} rounds)", s.rounds);
    let passes: std::collections::BTreeSet<Pass> = s.steps.iter().map(|s| s.pass).collect();
    assert_eq!(passes.into_iter().collect::<Vec<_>>(), Pass::ALL, "{:?}", s.steps);
    for w in s.steps.windows(2) {
        assert_eq!(w[0].after, w[1].before, "steps chain: {} then {}", w[0], w[1]);
    }
    assert_eq!(s.steps.last().map(|s| (s.after.bytes, s.after.bundles)), Some((s.bytes.len(), 1)));
    // Deterministic: the same input and answers, the same bytes.
    assert_eq!(whole(&input, |n| has_opcode(n, 0x46))?.bytes, s.bytes);
    Ok(())
}

#[test]
fn three_matmuls_in_the_pe_stream_stay_exactly_three() -> R {
    let input = real(FUSION)?;
    let s = whole(&input, |n| pe_matmuls(n) >= 3)?;
    let n = read_back(&s.bytes);
    assert_eq!(opcodes(&n), [("sg00/PE.bin".to_string(), vec![0x02; 3])]);
    assert!(n.streams[0].bundles().all(|(_, _, b)| *b == header_only(0x02)));
    Ok(())
}

#[test]
fn a_predicate_that_never_holds_gives_the_input_back_unchanged() -> R {
    let input = real(SMALL)?;
    let s = shrink(
        &input,
        "in",
        &Options::default(),
        |c| {
            read_back(c);
            false
        },
        |_| {},
    )?;
    assert_eq!(s.bytes, input, "byte for byte: nothing was accepted, nothing repacked");
    assert!(s.steps.is_empty() && s.rounds == 1 && !s.exhausted);
    assert!(s.counts.tests > 0);
    Ok(())
}

#[test]
fn the_budget_bounds_the_predicate_runs_and_says_so() -> R {
    let input = real(FUSION)?;
    let opts = Options { max_tests: 5, ..Options::default() };
    let mut runs = 0;
    let s = shrink(
        &input,
        "in",
        &opts,
        |c| {
            runs += 1;
            has_opcode(&read_back(c), 0x46)
        },
        |_| {},
    )?;
    assert_eq!((runs, s.counts.tests, s.exhausted), (5, 5, true));
    assert!(read_back(&s.bytes).bundles() < read_back(&input).bundles(), "what was found so far is kept");
    Ok(())
}

#[test]
fn a_predicate_error_stops_the_reduction() {
    let input = build::container(2, &[("sg00/PE.bin", &tpb_isa::bundle::header_only_stream(&[0x02, 0x02]))]).unwrap_or_default();
    let r = shrink_with(&input, "in", &Options::default(), |_| Err::<bool, &str>("cannot run"), |_| {});
    assert!(matches!(r, Err(ShrinkError::Predicate("cannot run"))), "{r:?}");
}

#[test]
fn bad_input_is_an_error_naming_it_not_a_panic() -> R {
    let e = shrink(b"not a neff", "x.neff", &Options::default(), |_| true, |_| {}).err().ok_or("accepted")?;
    assert!(e.to_string().starts_with("x.neff: ") && e.message.starts_with("not a NEFF container: "), "{e}");
    let input = real(SMALL)?;
    let e = shrink(&input[..2000], "cut.neff", &Options::default(), |_| true, |_| {}).err().ok_or("accepted")?;
    assert!(e.to_string().starts_with("cut.neff: "), "{e}");
    // A container with no bundle: no candidate could read.
    let empty = build::container(2, &[("kelf-0.json", br#"{"target":"cayman"}"#)])?;
    let e = shrink(&empty, "empty.neff", &Options::default(), |_| true, |_| {}).err().ok_or("accepted")?;
    assert!(e.message.starts_with("no bundle read"), "{e}");
    Ok(())
}

#[test]
fn a_container_without_kelf_shrinks_by_folders_and_keeps_its_packing() -> R {
    let stream = tpb_isa::bundle::header_only_stream(&[0x41, 0x46, 0x43]);
    let pe = tpb_isa::bundle::header_only_stream(&[0x02, 0x02]);
    let members: [(&str, &[u8]); 4] = [("a/DVE.bin", &stream), ("a/notes.txt", b"a"), ("b/DVE.bin", &stream), ("b/PE.bin", &pe)];
    for pkg_version in [1, 2] {
        let input = build::container(pkg_version, &members)?;
        let s = whole(&input, |n| n.streams.iter().any(|s| s.subgraph == "b" && s.bundles().any(|(_, _, b)| b[0] == 0x46)))?;
        let n = read_back(&s.bytes);
        assert_eq!(opcodes(&n), [("b/DVE.bin".to_string(), vec![0x46])], "pkg_version {pkg_version}");
        assert_eq!(n.members.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["b/DVE.bin"]);
        assert_eq!((n.header.pkg_version.get(), n.compression), (pkg_version, neff::parse(&input, "in")?.compression));
    }
    Ok(())
}

#[test]
fn streams_a_definition_names_otherwise_go_with_their_names() -> R {
    let stream = tpb_isa::bundle::header_only_stream(&[0x41, 0x46]);
    let kelf = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "target": "cayman"}"#;
    let def = br#"{"pe_instr": "pe.data", "foo_instr": ["x.data", "y.data"], "dve_instr": "dve.data"}"#;
    let members: [(&str, &[u8]); 6] = [
        ("kelf-0.json", kelf),
        ("sg00/def.json", def),
        ("sg00/pe.data", &stream),
        ("sg00/x.data", &stream),
        ("sg00/y.data", &header_only(0x46)),
        ("sg00/dve.data", &stream),
    ];
    let input = build::container(2, &members)?;
    // Keep y.data, named by a list: x.data leaves the list, the other keys go.
    let s = whole(&input, |n| n.streams.iter().any(|s| s.member == "sg00/y.data"))?;
    let n = read_back(&s.bytes);
    assert_eq!(opcodes(&n), [("sg00/y.data".to_string(), vec![0x46])]);
    let ex = pack::explode(&s.bytes, "out", &Limits::default())?;
    let v: serde_json::Value = serde_json::from_slice(member(&ex, "sg00/def.json")?)?;
    assert_eq!(v, serde_json::json!({"foo_instr": ["y.data"]}));
    Ok(())
}
