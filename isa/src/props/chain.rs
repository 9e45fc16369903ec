//! The `roundtrip` target's chain: every input goes through the whole
//! harness, each step checked against the others. One target that reaches
//! everything finds what a bug in one step does to the next (a decoder bug
//! the validator reports, text that assembles to other bytes), which
//! separate targets cannot.
//!
//! An input is raw bytes, as 64-byte bundles (zero-padded), or, when its
//! first byte is [`GENERATED`], choices for the generator: one valid bundle
//! per generation, each followed by one mutation of it. Either way the
//! bundles then go through:
//!
//! 1. [`codec_step`]: decode → encode is the same bytes, decode → encode →
//!    decode the same typed value;
//! 2. [`text_step`]: the stream disassembled, the text assembled back is the
//!    same bytes, each line read back prints the same line, and a value
//!    name the assembler accepts reads back as a name;
//! 3. [`c_step`], where the C shim is built (the fuzz crate's `build.rs`):
//!    every field the generated C header reads equals the Rust decoder's;
//! 4. [`validator_step`]: on every generation, under both profiles, the
//!    fast path finds what the full checks find, the amended verdict is the
//!    spec's with errata applied (never a finding dropped), every finding
//!    names a real field at its offset, and every stream kernel, run over
//!    the bytes the text round trip gave back, finds per bundle what the
//!    per-bundle validator found on the bundles the codec round trip gave back;
//! 5. for generated bundles, [`generated_step`]: each valid bundle has no
//!    finding under either profile, and its mutation gets exactly the check
//!    the mutation names.

use super::{chunks, codes, names_real_field, Outcome, Violation};
use crate::bundle::{Bundle, Raw, BUNDLE_BYTES};
use crate::errata::{Accepts, Profile, ERRATA};
use crate::generation::Generation;
use crate::provenance::Severity;
use crate::smith::{self, Mutation};
use crate::text;
use crate::validate::{self, Finding, Kernel};
use arbitrary::Unstructured;

/// The first byte that makes an input generator choices instead of raw
/// bundles. No opcode has it (a test checks), so a raw stream that starts
/// with it only loses a bundle of an unknown opcode, which any other
/// unknown byte also reaches.
pub const GENERATED: u8 = 0xFF;

/// The C header's reading of one bundle: `tpb_dump`'s `path=value` lines
/// (see [`crate::c_header::shim`]), or why it could not be read (`E`, the
/// view's own error, which becomes [`Violation::CView`]).
pub type CView<'a, E> = &'a mut dyn FnMut(&Raw) -> Result<String, E>;

/// The profiles every bundle is judged under.
const PROFILES: [Profile; 2] = [Profile::Spec, Profile::Amended];

/// `roundtrip` without the C view (what `cargo test` replays: the C shim is
/// compiled by the fuzz crate only, so this skips step 3).
pub fn roundtrip(data: &[u8]) -> Outcome {
    chain::<std::convert::Infallible>(data, None)
}

/// The whole chain on one input; `c_view` is step 3 (`None` skips it).
pub fn chain<E: std::fmt::Display>(data: &[u8], c_view: Option<CView<'_, E>>) -> Outcome {
    let stream = match data.split_first() {
        Some((&GENERATED, choices)) => generated_step(choices)?,
        _ => chunks(data).flat_map(|raw| raw.into_iter()).collect(),
    };
    bundles_chain(&stream, c_view)
}

/// Steps 1 to 4 on a stream of whole bundles.
pub fn bundles_chain<E: std::fmt::Display>(stream: &[u8], mut c_view: Option<CView<'_, E>>) -> Outcome {
    let (raws, _) = stream.as_chunks::<BUNDLE_BYTES>();
    let mut decoded = Vec::with_capacity(raws.len());
    for raw in raws {
        decoded.push(codec_step(raw)?);
        if let Some(view) = c_view.as_mut() {
            c_step(raw, &mut **view)?;
        }
    }
    let assembled = text_step(stream)?;
    validator_step(&decoded, &assembled, &PROFILES)
}

/// Step 1: decode → encode gives `raw` back, decode → encode → decode the
/// same typed value; returns the bundle decoded the second time (the codec
/// round trip's product, which the validator step judges).
pub fn codec_step(raw: &Raw) -> Result<Bundle, Violation> {
    let b = Bundle::decode(raw);
    let enc = b.encode();
    if !super::same_bytes(&enc, raw) {
        return Err(Violation::EncodeDecode { bundle: raw.to_vec() });
    }
    let again = Bundle::decode(&enc);
    if !super::same_value(&again, &b) {
        return Err(Violation::DecodeEncode { bundle: raw.to_vec() });
    }
    Ok(again)
}

/// Step 2: the whole stream (whole bundles) disassembled, one line each, and
/// the text assembled back gives the same bytes; each line assembled and
/// disassembled again prints the same line; one value of each line renamed
/// reads back as a name ([`super::edited_name_reads_back`]). Returns the
/// assembled bytes (the text round trip's product).
pub fn text_step(stream: &[u8]) -> Result<Vec<u8>, Violation> {
    let (raws, _) = stream.as_chunks::<BUNDLE_BYTES>();
    let lines: Vec<String> = raws.iter().map(|raw| text::disasm(&Bundle::decode(raw))).collect();
    let assembled = text::assemble(&lines.join("\n")).map_err(|error| {
        let line = nth(&lines, error.line).to_string();
        Violation::Assemble { error, line }
    })?;
    if assembled.len() != stream.len() {
        return Err(Violation::AssembledLength { lines: lines.len(), bytes: assembled.len(), expected: stream.len() });
    }
    let (back, _) = assembled.as_chunks::<BUNDLE_BYTES>();
    for ((raw, back), line) in raws.iter().zip(back).zip(&lines) {
        if back != raw {
            return Err(Violation::TextBytes { before: raw.to_vec(), after: back.to_vec(), line: line.clone() });
        }
        let again = text::disasm(&Bundle::decode(back));
        if again != *line {
            return Err(Violation::TextLine { line: line.clone(), again });
        }
        super::edited_name_reads_back(line, [raw[2], raw[3], raw[4]])?;
    }
    Ok(assembled)
}

/// Line `n` (1-based) of `lines`, for an assembler error.
fn nth(lines: &[String], n: usize) -> &str {
    n.checked_sub(1).and_then(|i| lines.get(i)).map_or("", String::as_str)
}

/// Step 3: the C header's reading of `raw` (through `c_view`) equals the
/// Rust decoder's, field by field.
pub fn c_step<E: std::fmt::Display>(raw: &Raw, c_view: &mut dyn FnMut(&Raw) -> Result<String, E>) -> Outcome {
    let dump = c_view(raw).map_err(|e| Violation::CView { reason: e.to_string() })?;
    match crate::c_header::shim::compare_dump(raw, &dump) {
        None => Ok(()),
        Some(detail) => Err(Violation::CDisagrees { detail }),
    }
}

/// Step 4: the validator on `bundles` (each judged alone) and on `stream`
/// (the same bundles' bytes, judged a batch at a time by every kernel), on
/// every generation, under each of `profiles`:
/// - the fast path finds exactly what the full checks find;
/// - the amended profile's findings are the spec's, in order, those an
///   erratum accepts turned into notes naming it, then what a corrected
///   reading adds (an erratum never switches a check off);
/// - every finding names a real field at its real offset;
/// - every kernel finds on each bundle of `stream` what the per-bundle
///   validator found on the same bundle of `bundles` (so a round trip
///   between them left the verdict alone).
pub fn validator_step(bundles: &[Bundle], stream: &[u8], profiles: &[Profile]) -> Outcome {
    validator_step_on(bundles, stream, profiles, &Generation::ALL)
}

/// [`validator_step`] on the generations `generations` only.
pub fn validator_step_on(bundles: &[Bundle], stream: &[u8], profiles: &[Profile], generations: &[Generation]) -> Outcome {
    let whole = stream.len() / BUNDLE_BYTES;
    if whole > bundles.len() {
        return Err(Violation::StreamLonger { stream: whole, bundles: bundles.len() });
    }
    let amended = profiles.contains(&Profile::Amended);
    for &g in generations {
        // The spec's findings on each bundle of the stream, in stream order: what every kernel must find.
        let mut one_by_one: Vec<(usize, Finding)> = Vec::new();
        for (i, b) in bundles.iter().enumerate() {
            let mut fast = Vec::new();
            validate::validate_into_as(b, g, Profile::Spec, &mut fast);
            // Where the fast path decides nothing it ran the full checks themselves: no second run.
            if validate::fast_path_decides(b, g) {
                let mut full = Vec::new();
                validate::validate_with(b, g, &mut full, false);
                if fast != full {
                    return Err(Violation::FastPath { generation: g, fast: codes(&fast), full: codes(&full), bundle: b.as_bytes().to_vec() });
                }
            }
            // `fast` is now what the full checks find too.
            real_fields(b, g, &fast)?;
            if amended {
                amended_agrees(b, g, &fast)?;
            }
            if i < whole {
                one_by_one.extend(fast.into_iter().map(|f| (i, f)));
            }
        }
        let mut streamed = Vec::new();
        validate::validate_stream(stream, g, |i, f| streamed.push((i, f)));
        if streamed != one_by_one {
            return Err(Violation::Stream { generation: g, streamed: streamed.len(), one_by_one: one_by_one.len() });
        }
        for kernel in decode_kernels() {
            let mut found = Vec::new();
            validate::decode_stream_with(*kernel, stream, g, |i, _, fs| found.extend(fs.iter().map(|f| (i, f.clone()))));
            if found != one_by_one {
                return Err(Violation::Kernel { generation: g, kernel: *kernel, found: found.len(), one_by_one: one_by_one.len() });
            }
        }
    }
    Ok(())
}

/// The kernels `decode_stream_with` runs on in [`validator_step`]: every
/// kernel this CPU runs but the one `validate_stream` (on [`Kernel::Auto`])
/// already ran, or that one if it is the only one. So each kernel judges
/// the stream once and both stream functions run: the kernels' verdicts
/// are what differ, and the two functions share everything else (`judged`
/// and the reporting checks), so a second run on one kernel found nothing
/// new and cost a third of the stream checks. Listed once per process.
fn decode_kernels() -> &'static [Kernel] {
    static KERNELS: std::sync::OnceLock<Vec<Kernel>> = std::sync::OnceLock::new();
    KERNELS.get_or_init(|| {
        let auto = Kernel::Auto.runs();
        let others: Vec<Kernel> = Kernel::available_kernels().into_iter().filter(|k| *k != auto).collect();
        if others.is_empty() {
            vec![auto]
        } else {
            others
        }
    })
}

/// Every finding names a field of `b`'s layout at that field's offset.
fn real_fields(b: &Bundle, g: Generation, findings: &[Finding]) -> Outcome {
    match findings.iter().find(|f| !names_real_field(b.layout(), f)) {
        None => Ok(()),
        Some(f) => Err(Violation::NotAField { generation: g, code: f.code, field: f.field.clone(), offset: f.offset, bundle: b.as_bytes().to_vec() }),
    }
}

/// The amended profile on `b` against the spec's findings `spec` (the full
/// checks'): the fast path amended equals the full checks amended; the
/// first `spec.len()` findings are the spec's, each unchanged or, where an
/// erratum accepts it, a note naming the erratum; what follows (a corrected
/// reading's findings) names real fields too, a moved slot's where the
/// erratum reads it.
fn amended_agrees(b: &Bundle, g: Generation, spec: &[Finding]) -> Outcome {
    let as_amended = validate::validate_as(b, g, Profile::Amended);
    let mut full = spec.to_vec();
    validate::amend(b, g, &mut full);
    if as_amended != full {
        return Err(Violation::AmendedFastPath { generation: g, fast: codes(&as_amended), full: codes(&full), bundle: b.as_bytes().to_vec() });
    }
    if full.len() < spec.len() {
        return Err(Violation::ErrataDropped { generation: g, spec: codes(spec), amended: codes(&full), bundle: b.as_bytes().to_vec() });
    }
    for (s, a) in spec.iter().zip(&full) {
        let same_place = (s.code, &s.field, s.offset) == (a.code, &a.field, a.offset);
        let accepted = a.erratum.is_some() && a.severity == Severity::Note;
        if !same_place || (a != s && !accepted) {
            return Err(Violation::AmendedChanged {
                generation: g,
                amended: Box::new(a.clone()),
                spec: Box::new(s.clone()),
                bundle: b.as_bytes().to_vec(),
            });
        }
    }
    // What a corrected reading adds names a field of the layout, or, where an
    // erratum moves a slot, that slot's field where the erratum reads it.
    let moved: Vec<(&str, usize, usize)> = full
        .iter()
        .filter_map(|f| ERRATA.iter().find(|e| Some(e.id) == f.erratum))
        .filter_map(|e| match e.accepts {
            Accepts::SlotAt { slot, dims, offset } => Some((slot, dims, offset)),
            _ => None,
        })
        .collect();
    match full[spec.len()..].iter().find(|f| !names_real_field(b.layout(), f) && !names_moved_field(&moved, f)) {
        None => Ok(()),
        Some(f) => {
            Err(Violation::AmendedNotAField { generation: g, code: f.code, field: f.field.clone(), offset: f.offset, bundle: b.as_bytes().to_vec() })
        }
    }
}

/// Whether `f` names a field of a slot an erratum moved (`slot`, as a
/// pattern of `dims` free dims at `offset`), at its offset there.
fn names_moved_field(moved: &[(&str, usize, usize)], f: &Finding) -> bool {
    moved.iter().any(|&(slot, dims, offset)| {
        let leaf = f.field.strip_prefix(slot).and_then(|p| p.strip_prefix('.'));
        leaf.and_then(|l| crate::descriptor::pattern_layout(dims).resolve(l)).is_some_and(|(at, _)| offset + at == f.offset)
    })
}

/// Step 5 (generated inputs): one valid bundle per generation from
/// `choices`, each followed by one mutation of it where one applies. Each
/// valid bundle must have no finding on its generation under either
/// profile; each mutant exactly the check its mutation names (under the
/// spec; an erratum may accept it). Returns the bundles, valid and mutated,
/// as one stream for steps 1 to 4.
pub fn generated_step(choices: &[u8]) -> Result<Vec<u8>, Violation> {
    let mut stream = Vec::new();
    for (g, b, m) in generated(choices) {
        for p in PROFILES {
            let f = validate::validate_as(&b, g, p);
            if !f.is_empty() {
                return Err(Violation::GeneratedFindings { generation: g, codes: codes(&f), profile: Some(p), line: text::disasm(&b) });
            }
        }
        stream.extend_from_slice(&b.encode());
        let Some(m) = m else { continue };
        super::mutation_holds(g, &b, &m)?;
        stream.extend_from_slice(&m.bundle.encode());
    }
    Ok(stream)
}

/// What a generated input reads as: for each generation in order, a valid
/// bundle and then a mutation of it (`None` where none applies), until the
/// choices run out. `tpb corpus` picks its seeds for generated inputs
/// through this reading.
pub fn generated(choices: &[u8]) -> Vec<(Generation, Bundle, Option<Mutation>)> {
    let mut u = Unstructured::new(choices);
    let mut out = Vec::new();
    for g in Generation::ALL {
        let Ok(b) = smith::bundle(&mut u, g) else { break };
        let m = smith::mutate(&mut u, &b, g).ok().flatten();
        out.push((g, b, m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::props::seeded_bytes;
    use std::convert::Infallible;

    /// A C view as the fuzz crate writes one: a function, not a closure, whose
    /// error type the chain takes as it is.
    fn failing_view(_: &Raw) -> Result<String, std::fmt::Error> {
        Err(std::fmt::Error)
    }

    #[test]
    fn a_violation_reads_as_the_message_it_replaces() {
        let v = Violation::AssembledLength { lines: 2, bytes: 64, expected: 128 };
        assert_eq!(v.to_string(), "2 lines assembled to 64 bytes, not 128");
        let v = Violation::GeneratedFindings {
            generation: Generation::V3,
            codes: vec!["a", "b"],
            profile: Some(Profile::Amended),
            line: "0xa4:NoOp".into(),
        };
        assert_eq!(v.to_string(), "v3: generated bundle has findings [\"a\", \"b\"] (amended)\n0xa4:NoOp");
        let v = Violation::EncodeDecode { bundle: vec![0x00, 0xab] };
        assert_eq!(v.to_string(), "encode(decode(b)) != b for 00ab");
        // A function item as the view: its error is the violation's message.
        let e = chain(&[0u8; 64], Some(&mut failing_view)).err();
        assert_eq!(e, Some(Violation::CView { reason: "an error occurred when formatting an argument".into() }));
        assert_eq!(c_step(&[0u8; 64], &mut failing_view).err(), e);
    }

    #[test]
    fn the_stream_runs_judge_with_every_kernel_this_cpu_runs() {
        let mut ran: Vec<Kernel> = decode_kernels().to_vec();
        ran.push(Kernel::Auto.runs());
        ran.sort_by_key(|k| k.label());
        ran.dedup();
        let mut all = Kernel::available_kernels();
        all.sort_by_key(|k| k.label());
        assert_eq!(ran, all);
    }

    #[test]
    fn the_generated_marker_is_no_opcode() {
        assert!(crate::opcode::lookup(GENERATED).is_none());
    }

    #[test]
    fn a_generated_input_gives_valid_bundles_and_their_mutants() {
        let mut mutants = 0;
        for seed in 0..200 {
            let data = seeded_bytes(seed, 1024);
            let read = generated(&data);
            assert_eq!(read.len(), 3, "one bundle per generation from 1 KiB of choices");
            mutants += read.iter().filter(|x| x.2.is_some()).count();
            let stream = generated_step(&data).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let n = read.len() + read.iter().filter(|x| x.2.is_some()).count();
            assert_eq!(stream.len(), n * BUNDLE_BYTES);
        }
        assert!(mutants > 400, "only {mutants} mutants in 600 bundles");
    }

    #[test]
    fn each_step_catches_what_it_checks() {
        // A validator step given bundles that are not the stream's finds the verdicts differ.
        let zero = [0u8; BUNDLE_BYTES];
        let mut other = zero;
        other[0] = crate::opcode::QUANTIZE_MX;
        let e = validator_step(&[Bundle::decode(&other)], &zero, &PROFILES).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("bundle by bundle"), "{e}");
        // More stream than bundles is refused outright.
        assert!(validator_step(&[], &zero, &PROFILES).is_err());
        // A C view that reads another value is caught, naming the field.
        let mut wrong = |raw: &Raw| Ok::<_, Infallible>(crate::c_header::shim::expected_dump(raw).replacen("opcode=0", "opcode=1", 1));
        let e = c_step(&zero, &mut wrong).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("`opcode`"), "{e}");
        // A C view that cannot read says so.
        let mut broken = |_: &Raw| Err("no shim");
        assert_eq!(c_step(&zero, &mut broken), Err(Violation::CView { reason: "no shim".to_string() }));
    }

    #[test]
    fn the_chain_runs_raw_and_generated_inputs_with_a_c_view() {
        let mut calls = 0;
        let mut view = |raw: &Raw| {
            calls += 1;
            Ok::<_, Infallible>(crate::c_header::shim::expected_dump(raw))
        };
        for seed in 0..50 {
            let mut data = seeded_bytes(seed, 300);
            chain(&data, Some(&mut view)).unwrap_or_else(|e| panic!("raw seed {seed}: {e}"));
            data[0] = GENERATED;
            chain(&data, Some(&mut view)).unwrap_or_else(|e| panic!("generated seed {seed}: {e}"));
        }
        assert!(calls >= 50 * 5, "the C view was called {calls} times");
        assert_eq!(roundtrip(&[]), Ok(()));
        assert_eq!(roundtrip(&[GENERATED]), Ok(()));
    }
}
