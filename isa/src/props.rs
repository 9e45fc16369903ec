//! The harness's properties as plain functions over bytes. Each fuzz target
//! calls one of these, and `cargo test` runs each over a seeded corpus, so CI
//! exercises every target without libFuzzer (as wasm-tools does).

use crate::bundle::{Bundle, Raw, BUNDLE_BYTES};
use crate::descriptor::{Indirect16b, Indirect20b, MxIndirect16b};
use crate::errata::Profile;
use crate::generation::Generation;
use crate::layout::Layout;
use crate::text::TextError;
use crate::validate::{self, Finding, Kernel};
use crate::{smith, text};
use arbitrary::Unstructured;

mod chain;
pub use chain::{
    bundles_chain, c_step, chain, codec_step, generated, generated_step, roundtrip, text_step, validator_step, validator_step_on, CView, GENERATED,
};

/// Whether a property held: `Err` carries the violation.
pub type Outcome = Result<(), Violation>;

/// A property violation, with enough context to reproduce it. Bundles are
/// kept as their 64 wire bytes (`bundle`, `before`, `after`) and shown in
/// hex, which reads back to the bytes; finding codes are
/// [`crate::checks::Check::code`]s; a `line` is a bundle's disassembly.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// A generated bundle does not decode back from its encoding.
    #[error("{generation}: generated bundle does not round-trip: {}", hex(.bundle))]
    GeneratedRoundTrip {
        /// The generation it was generated for.
        generation: Generation,
        /// Its encoding.
        bundle: Vec<u8>,
    },
    /// A generated (so valid) bundle has findings on its generation.
    #[error("{generation}: generated bundle has findings {codes:?}{}\n{line}", under(.profile))]
    GeneratedFindings {
        /// The generation it was generated for.
        generation: Generation,
        /// The codes of its findings.
        codes: Vec<&'static str>,
        /// The profile it was judged under, as the chain's step 5 names it;
        /// `None` from [`generated_holds`], which judges by the spec alone and names none.
        profile: Option<Profile>,
        /// Its disassembly.
        line: String,
    },
    /// A mutated bundle does not get exactly the check its mutation names.
    #[error("{generation}: mutation `{what}` expected only {expected}, got {codes:?}\nbefore: {before}\nafter:  {after}")]
    Mutation {
        /// The generation judged on.
        generation: Generation,
        /// What the mutation changed ([`smith::Mutation::what`]).
        what: String,
        /// The code of the check it names.
        expected: &'static str,
        /// The codes of the findings it got.
        codes: Vec<&'static str>,
        /// The valid bundle's disassembly.
        before: String,
        /// The mutated bundle's disassembly.
        after: String,
    },
    /// A value name the assembler accepts prints back as something else.
    #[error("`{key}={value}` assembles but reads back as {shown:?}:\n{edited}\n{printed}")]
    NameReadBack {
        /// The field set.
        key: String,
        /// The name it was set to.
        value: &'static str,
        /// What the disassembly shows for the field instead (`None`: no such field).
        shown: Option<String>,
        /// The line as edited.
        edited: String,
        /// Its bytes disassembled again.
        printed: String,
    },
    /// Encoding a decoded bundle gives other bytes.
    #[error("encode(decode(b)) != b for {}", hex(.bundle))]
    EncodeDecode {
        /// The bytes decoded.
        bundle: Vec<u8>,
    },
    /// Decoding an encoded bundle gives another value.
    #[error("decode(encode(x)) != x for {}", hex(.bundle))]
    DecodeEncode {
        /// The bytes first decoded.
        bundle: Vec<u8>,
    },
    /// The disassembly of a stream does not assemble.
    #[error("assembling the disassembly failed at {error}: `{line}`")]
    Assemble {
        /// The assembler's error, with its 1-based line.
        error: TextError,
        /// That line.
        line: String,
    },
    /// The disassembly of a stream assembles to another length.
    #[error("{lines} lines assembled to {bytes} bytes, not {expected}")]
    AssembledLength {
        /// The lines assembled (one per bundle).
        lines: usize,
        /// The bytes they gave.
        bytes: usize,
        /// The stream's bytes.
        expected: usize,
    },
    /// A bundle disassembled and assembled again gives other bytes.
    #[error("text round trip changed bytes:\n{}\n{}\n{line}", hex(.before), hex(.after))]
    TextBytes {
        /// The bundle.
        before: Vec<u8>,
        /// What its disassembly assembled to.
        after: Vec<u8>,
        /// Its disassembly.
        line: String,
    },
    /// A line assembled and disassembled again prints another line.
    #[error("text -> bytes -> text differs:\n{line}\n{again}")]
    TextLine {
        /// The line.
        line: String,
        /// Its bytes disassembled.
        again: String,
    },
    /// The C header's view could not read a bundle ([`CView`]); its reason as it renders it.
    #[error("{reason}")]
    CView {
        /// The view's own message.
        reason: String,
    },
    /// The C header reads a field otherwise than the Rust decoder.
    #[error("C header and Rust decoder disagree: {detail}")]
    CDisagrees {
        /// The bundle and the first line that differs
        /// ([`crate::c_header::shim::compare_dump`]).
        detail: String,
    },
    /// The stream given to the validator step has more whole bundles than the bundles given.
    #[error("the stream has {stream} bundles, the per-bundle run {bundles}")]
    StreamLonger {
        /// Whole bundles in the stream.
        stream: usize,
        /// Bundles judged one by one.
        bundles: usize,
    },
    /// The fast path's findings differ from the full checks'.
    #[error("{generation}: fast path found {fast:?}, full checks {full:?} for {}", hex(.bundle))]
    FastPath {
        /// The generation judged on.
        generation: Generation,
        /// The fast path's finding codes.
        fast: Vec<&'static str>,
        /// The full checks' finding codes.
        full: Vec<&'static str>,
        /// The bundle.
        bundle: Vec<u8>,
    },
    /// `validate_stream` finds other findings than the bundles judged one by one.
    #[error("{generation}: validate_stream found {streamed} findings, bundle by bundle {one_by_one}")]
    Stream {
        /// The generation judged on.
        generation: Generation,
        /// Findings of the stream run.
        streamed: usize,
        /// Findings of the bundles judged one by one.
        one_by_one: usize,
    },
    /// `decode_stream` on one kernel finds other findings than the bundles judged one by one.
    #[error("{generation}: decode_stream on the {} kernel found {found} findings, bundle by bundle {one_by_one}", .kernel.label())]
    Kernel {
        /// The generation judged on.
        generation: Generation,
        /// The kernel.
        kernel: Kernel,
        /// Findings of the stream run on it.
        found: usize,
        /// Findings of the bundles judged one by one.
        one_by_one: usize,
    },
    /// A finding names a field the bundle's layout has not at that offset.
    #[error("{generation}: finding {code} names `{field}` @ {offset:#x}, not a field there, for {}", hex(.bundle))]
    NotAField {
        /// The generation judged on.
        generation: Generation,
        /// The finding's code.
        code: &'static str,
        /// The field it names.
        field: String,
        /// The offset it names.
        offset: usize,
        /// The bundle.
        bundle: Vec<u8>,
    },
    /// A finding that a corrected reading adds names no field there, even
    /// where an erratum moves a slot.
    #[error("{generation}: amended finding {code} names `{field}` @ {offset:#x}, not a field there, for {}", hex(.bundle))]
    AmendedNotAField {
        /// The generation judged on.
        generation: Generation,
        /// The finding's code.
        code: &'static str,
        /// The field it names.
        field: String,
        /// The offset it names.
        offset: usize,
        /// The bundle.
        bundle: Vec<u8>,
    },
    /// Under the amended profile, the fast path differs from the full checks amended.
    #[error("{generation}: amended fast path found {fast:?}, amended full checks {full:?} for {}", hex(.bundle))]
    AmendedFastPath {
        /// The generation judged on.
        generation: Generation,
        /// The amended fast path's finding codes.
        fast: Vec<&'static str>,
        /// The amended full checks' finding codes.
        full: Vec<&'static str>,
        /// The bundle.
        bundle: Vec<u8>,
    },
    /// The errata removed findings of the spec (an erratum may only accept one as a note).
    #[error("{generation}: the errata dropped findings: spec {spec:?}, amended {amended:?} for {}", hex(.bundle))]
    ErrataDropped {
        /// The generation judged on.
        generation: Generation,
        /// The spec's finding codes.
        spec: Vec<&'static str>,
        /// The amended finding codes.
        amended: Vec<&'static str>,
        /// The bundle.
        bundle: Vec<u8>,
    },
    /// An amended finding is neither the spec's finding at its place nor a note accepting it.
    #[error(
        "{generation}: amended finding {} `{}` ({:?}, erratum {:?}) is not spec finding {} `{}` or a note accepting it, for {}",
        .amended.code, .amended.field, .amended.severity, .amended.erratum, .spec.code, .spec.field, hex(.bundle)
    )]
    AmendedChanged {
        /// The generation judged on.
        generation: Generation,
        /// The amended finding.
        amended: Box<Finding>,
        /// The spec's finding at its place.
        spec: Box<Finding>,
        /// The bundle.
        bundle: Vec<u8>,
    },
}

/// ` (profile)` where a violation names the profile it was judged under.
fn under(profile: &Option<Profile>) -> String {
    profile.map_or_else(String::new, |p| format!(" ({})", p.as_str()))
}

fn chunks(data: &[u8]) -> impl Iterator<Item = Raw> + '_ {
    let n = data.len().div_ceil(BUNDLE_BYTES).max(1);
    (0..n).map(move |i| {
        let mut raw = [0u8; BUNDLE_BYTES];
        let src = data.get(i * BUNDLE_BYTES..).unwrap_or(&[]);
        let k = src.len().min(BUNDLE_BYTES);
        raw[..k].copy_from_slice(&src[..k]);
        raw
    })
}

fn hex(raw: &[u8]) -> String {
    raw.iter().map(|b| format!("{b:02x}")).collect()
}

/// Typed equality as variant plus bytes. Every body field is an integer or
/// an integer array, so this is exactly the derived `==`; under libFuzzer it
/// is one `memcmp` instead of a traced comparison per field, which made
/// `roundtrip` run at a third of an empty target's exec/s.
fn same_value(a: &Bundle, b: &Bundle) -> bool {
    let (Ok(x), Ok(y)) = (<&Raw>::try_from(a.as_bytes()), <&Raw>::try_from(b.as_bytes())) else { return false };
    a.kind() == b.kind() && same_bytes(x, y)
}

/// `a == b` for two bundles.
fn same_bytes(a: &Raw, b: &Raw) -> bool {
    a[..] == b[..]
}

/// `structured`: generated bundles encode → decode to themselves and validate
/// clean on their generation.
pub fn structured(data: &[u8]) -> Outcome {
    let mut u = Unstructured::new(data);
    for g in Generation::ALL {
        let Ok(b) = smith::bundle(&mut u, g) else { return Ok(()) };
        generated_holds(g, &b)?;
    }
    Ok(())
}

/// A bundle generated for `g` encodes → decodes to itself and validates clean on `g`.
pub fn generated_holds(g: Generation, b: &Bundle) -> Outcome {
    if Bundle::decode(&b.encode()) != *b {
        return Err(Violation::GeneratedRoundTrip { generation: g, bundle: b.encode().to_vec() });
    }
    let f = validate::validate(b, g);
    if !f.is_empty() {
        return Err(Violation::GeneratedFindings { generation: g, codes: codes(&f), profile: None, line: text::disasm(b) });
    }
    Ok(())
}

/// `validate` (arbitrary bytes): never panics, every finding names a real
/// field at its real offset, and the fast path (bundle by bundle, and a
/// batch at a time over the whole bundles of `data`, on every validator
/// kernel this CPU runs) finds exactly what the full checks find:
/// [`validator_step`] under the spec's profile (the `roundtrip` chain runs
/// it under both), on the generation [`generation_of`] `data`.
pub fn validate_any(data: &[u8]) -> Outcome {
    let bundles: Vec<Bundle> = chunks(data).map(|raw| Bundle::decode(&raw)).collect();
    validator_step_on(&bundles, data, &[crate::errata::Profile::Spec], &[generation_of(data)])
}

/// The one generation the `validate` target judges an input on, chosen by
/// its length. Judging every input on all three tripled its cost for the
/// same code: the checks differ between generations only in a few
/// comparisons, and libFuzzer varies lengths, so each generation is reached
/// (the `roundtrip` chain still runs all three on every input).
pub fn generation_of(data: &[u8]) -> Generation {
    Generation::ALL[data.len() % Generation::ALL.len()]
}

/// Whether `findings` are of check `code` only, and there is at least one.
fn only(findings: &[validate::Finding], code: &str) -> bool {
    !findings.is_empty() && findings.iter().all(|x| x.code == code)
}

/// `validate` (mutations): a generated bundle with one invariant broken gets
/// exactly the named check, nothing else, on the generation [`generation_of`] `data`.
pub fn mutation(data: &[u8]) -> Outcome {
    let g = generation_of(data);
    let mut u = Unstructured::new(data);
    let Ok(b) = smith::bundle(&mut u, g) else { return Ok(()) };
    match smith::mutate(&mut u, &b, g) {
        Ok(Some(m)) => mutation_holds(g, &b, &m),
        _ => Ok(()),
    }
}

/// A mutation of the valid bundle `b` gets exactly the check it names on `g`.
pub fn mutation_holds(g: Generation, b: &Bundle, m: &smith::Mutation) -> Outcome {
    let f = validate::validate(&m.bundle, g);
    if only(&f, m.expect.code) {
        return Ok(());
    }
    Err(Violation::Mutation {
        generation: g,
        what: m.what.clone(),
        expected: m.expect.code,
        codes: codes(&f),
        before: text::disasm(b),
        after: text::disasm(&m.bundle),
    })
}

/// `text`: bytes → text → bytes is exact, and text → bytes → text too
/// ([`text_step`] on the bundles of `data`, the last one zero-padded).
pub fn text_roundtrip(data: &[u8]) -> Outcome {
    let stream: Vec<u8> = chunks(data).flat_map(|raw| raw.into_iter()).collect();
    text_step(&stream).map(drop)
}

/// Every name the text form uses for a value: each dtype, each pair of
/// dtypes (a nibble-packed field), each enum entry.
pub fn value_names() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let dtypes = crate::dtype::DTYPES.iter().map(|d| d.name);
        let pairs = dtypes.clone().flat_map(|lo| crate::dtype::DTYPES.iter().map(move |hi| format!("{lo}/{}", hi.name)));
        let enums = crate::enums::ALL.iter().flat_map(|t| t.entries.iter().map(|e| e.1.to_string()));
        dtypes.map(str::to_string).chain(pairs).chain(enums).collect()
    })
}

/// One `field=value` of `line` (chosen by `pick`) set to a value name: a
/// name the assembler accepts must read back as a name, never as raw bits
/// (a wider dtype packed into a nibble once did). Says which field it
/// edited and to which name (`None`: the line has no field), so a caller
/// can see every field and every name is reached.
pub fn edited_name_reads_back(line: &str, pick: [u8; 3]) -> Result<Option<(String, &'static str)>, Violation> {
    let mut tokens: Vec<String> = line.split('#').next().unwrap_or("").split_whitespace().map(str::to_string).collect();
    let fields: Vec<usize> = (1..tokens.len()).filter(|&i| tokens[i].contains('=')).collect();
    let Some(&i) = fields.get(usize::from(pick[0]) % fields.len().max(1)) else { return Ok(None) };
    let Some(key) = tokens[i].split_once('=').map(|(k, _)| k.to_string()) else { return Ok(None) };
    let names = value_names();
    let value = names[usize::from(u16::from_le_bytes([pick[1], pick[2]])) % names.len()].as_str();
    tokens[i] = format!("{key}={value}");
    let edited = tokens.join(" ");
    let Ok(Some(raw)) = text::asm_line(&edited) else { return Ok(Some((key, value))) };
    let printed = text::disasm(&Bundle::decode(&raw));
    match shown_name(&printed, &key) {
        Ok(_) => Ok(Some((key, value))),
        Err(shown) => {
            let shown = shown.map(str::to_string);
            Err(Violation::NameReadBack { key, value, shown, edited, printed })
        }
    }
}

/// The value a disassembled line shows for `key` if it is a name (it starts
/// with a letter); else what it shows instead (raw bits), or `None` if the
/// line has no such field.
fn shown_name<'a>(printed: &'a str, key: &str) -> Result<&'a str, Option<&'a str>> {
    let prefix = format!("{key}=");
    match printed.split_whitespace().find_map(|t| t.strip_prefix(&prefix)) {
        Some(v) if v.starts_with(|c: char| c.is_ascii_alphabetic()) => Ok(v),
        shown => Err(shown),
    }
}

fn codes(f: &[Finding]) -> Vec<&'static str> {
    f.iter().map(|x| x.code).collect()
}

/// A finding's path resolves to its offset in the body layout, or in the
/// gather view of the slot it names.
fn names_real_field(layout: &Layout, f: &Finding) -> bool {
    if f.offset >= BUNDLE_BYTES {
        return false;
    }
    if layout.resolve(&f.field).is_some_and(|(off, _)| off == f.offset) {
        return true;
    }
    // A byte scan, not `split_once`: `str`'s char searcher, traced by the
    // fuzzer, was a large part of the `validate` target's time.
    let Some(dot) = f.field.bytes().position(|b| b == b'.') else { return false };
    let (slot, leaf) = (&f.field[..dot], &f.field[dot + 1..]);
    let Some(base) = layout.field_offset(slot) else { return false };
    [&Indirect16b::LAYOUT, &Indirect20b::LAYOUT, &MxIndirect16b::LAYOUT]
        .iter()
        .any(|v| v.resolve(leaf).is_some_and(|(off, _)| base + off == f.offset))
}

/// A deterministic byte source for seeded smoke runs: splitmix64's outputs,
/// little-endian, cut to `len`.
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed;
    let next = move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    std::iter::repeat_with(next).flat_map(u64::to_le_bytes).take(len).collect()
}

#[cfg(test)]
mod tests {
    use super::{hex, names_real_field, only, same_bytes, same_value, seeded_bytes, shown_name};
    use crate::provenance::{Confidence, Severity};
    use crate::validate::Finding;

    /// The mutations of generated bundles pass; the same mutation said to
    /// raise another check fails, naming both checks.
    #[test]
    fn mutation_holds_only_for_the_check_the_mutation_names() {
        use crate::{smith, Generation};
        let data = seeded_bytes(11, 1 << 16);
        let mut u = arbitrary::Unstructured::new(&data);
        let mut checked = 0;
        for g in Generation::ALL.iter().copied().cycle().take(60) {
            let Ok(b) = smith::bundle(&mut u, g) else { break };
            let Ok(Some(mut m)) = smith::mutate(&mut u, &b, g) else { continue };
            assert_eq!(super::mutation_holds(g, &b, &m), Ok(()), "{}", m.what);
            let Some(other) = crate::checks::ALL.iter().find(|c| c.code != m.expect.code) else { panic!("one check only") };
            let said = m.expect.code;
            m.expect = other;
            let Err(e) = super::mutation_holds(g, &b, &m) else { panic!("{}: passed as {}", m.what, other.code) };
            let super::Violation::Mutation { expected, codes, .. } = &e else { panic!("{e:?}") };
            assert!(*expected == other.code && codes.contains(&said), "{e}");
            let shown = e.to_string();
            assert!(shown.contains(other.code) && shown.contains(said), "{shown}");
            checked += 1;
        }
        assert!(checked > 20, "{checked} mutations checked");
    }

    #[test]
    fn a_mutation_must_get_its_check_and_nothing_else() {
        let finding = |code: &'static str| Finding {
            code,
            field: "f".into(),
            offset: 0,
            section: "2.1",
            confidence: Confidence::Confirmed,
            severity: Severity::Error,
            message: String::new(),
            erratum: None,
        };
        assert!(only(&[finding("A")], "A"));
        assert!(only(&[finding("A"), finding("A")], "A"));
        assert!(!only(&[], "A"), "no finding at all");
        assert!(!only(&[finding("B")], "A"));
        assert!(!only(&[finding("A"), finding("B")], "A"), "another check too");
    }
    use crate::bundle::{Bundle, BUNDLE_BYTES};

    #[test]
    fn seeded_bytes_are_splitmix64_little_endian_cut_to_length() {
        // splitmix64's published first outputs for seed 0.
        let first = [0xE220_A839_7B1D_CDAFu64, 0x6E78_9E6A_A1B9_65F4];
        let want: Vec<u8> = first.iter().flat_map(|w| w.to_le_bytes()).collect();
        for len in [0, 1, 7, 8, 9, 16] {
            assert_eq!(seeded_bytes(0, len), want[..len], "{len} bytes");
        }
        assert_eq!(seeded_bytes(7, 3), [0xD7, 0x0D, 0x32]);
        assert_eq!(seeded_bytes(3, 1000).len(), 1000);
    }

    #[test]
    fn a_failing_property_names_the_finding_codes() {
        // A header with length 0 and reserved bits set: the findings, named in order.
        let mut raw = [0u8; BUNDLE_BYTES];
        raw[0] = crate::opcode::QUANTIZE_MX;
        raw[2] = 0xFF;
        let f = crate::validate::validate(&Bundle::decode(&raw), crate::generation::Generation::V4);
        assert_eq!(super::codes(&f), ["inst-word-len", "header-reserved"]);
    }

    #[test]
    fn a_violation_names_its_bundle_in_hex_that_reads_back_to_the_bytes() {
        // A fuzz failure's message is what reproduces it: every byte, two lowercase digits each, in order.
        let raw: Vec<u8> = (0..=255u8).collect();
        let h = hex(&raw);
        assert_eq!(&h[..8], "00010203");
        assert_eq!(&h[h.len() - 4..], "feff");
        let back: Vec<u8> = (0..h.len()).step_by(2).filter_map(|i| u8::from_str_radix(&h[i..i + 2], 16).ok()).collect();
        assert_eq!(back, raw);
    }

    #[test]
    fn same_value_is_the_derived_equality() {
        let bytes = seeded_bytes(7, 4000 * BUNDLE_BYTES);
        let mut differing = 0;
        for raw in bytes.chunks_exact(BUNDLE_BYTES) {
            let Some(a) = Bundle::decode_slice(raw) else { continue };
            // The same bytes, one byte changed, and the opcode changed (a different body).
            for (at, v) in [(0, raw[0]), (usize::from(raw[1]) % BUNDLE_BYTES, raw[2] ^ 1), (0, raw[0].wrapping_add(1))] {
                let mut other = a.encode();
                other[at] = v;
                let b = Bundle::decode(&other);
                assert_eq!(same_value(&a, &b), a == b, "{:02x?} vs {:02x?}", a.as_bytes(), b.as_bytes());
                assert_eq!(same_bytes(&a.encode(), &other), a.encode() == other);
                differing += usize::from(a != b);
            }
        }
        assert!(differing > 4000, "too few unequal pairs: {differing}");
    }

    #[test]
    fn a_finding_names_a_real_field_only_at_that_fields_offset() {
        // Every finding on random bundles names its field's offset; moved one byte, or
        // given a field the layout lacks, or an offset outside the bundle, it does not.
        let bytes = seeded_bytes(11, 2000 * BUNDLE_BYTES);
        let mut seen = 0;
        for raw in bytes.chunks_exact(BUNDLE_BYTES) {
            let Some(b) = Bundle::decode_slice(raw) else { continue };
            for f in crate::validate::validate(&b, crate::Generation::V3) {
                assert!(names_real_field(b.layout(), &f), "{} names `{}` @ {:#x}", f.code, f.field, f.offset);
                let moved = crate::validate::Finding { offset: f.offset ^ 1, ..f.clone() };
                assert!(!names_real_field(b.layout(), &moved), "`{}` @ {:#x} accepted", moved.field, moved.offset);
                let unknown = crate::validate::Finding { field: format!("{}_not_a_field", f.field), ..f.clone() };
                assert!(!names_real_field(b.layout(), &unknown), "`{}` accepted", unknown.field);
                let outside = crate::validate::Finding { offset: BUNDLE_BYTES, ..f.clone() };
                assert!(!names_real_field(b.layout(), &outside));
                seen += 1;
            }
        }
        assert!(seen > 100, "only {seen} findings on random bundles");
    }

    #[test]
    fn a_value_shown_as_raw_bits_is_not_a_name() {
        // What `edited_name_reads_back` fails on: the edited field printed as bits.
        let line = "0x41:TensorTensor dtype=0x3 in0.dtype=fp32 op=add";
        assert_eq!(shown_name(line, "in0.dtype"), Ok("fp32"));
        assert_eq!(shown_name(line, "op"), Ok("add"));
        assert_eq!(shown_name(line, "dtype"), Err(Some("0x3")));
        assert_eq!(shown_name(line, "dst.dtype"), Err(None));
        // The key is matched whole: `dtype=` is not found inside `in0.dtype=`.
        assert_eq!(shown_name("0x41:X in0.dtype=fp32", "dtype"), Err(None));
    }
}
