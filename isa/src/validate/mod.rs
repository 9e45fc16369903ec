//! The validator: checks one decoded bundle against every invariant the spec
//! documents, for one generation. It never fails and never panics; it returns
//! findings, each naming its check code, field path, byte offset, section and
//! a severity derived from the confidence of the facts involved.

mod amend;
mod band;
mod broken_claims;
mod fast;
mod slots;

pub use amend::{amend, amend_with, finding_value};
pub(crate) use band::byte_values;
pub use band::{BRANCH_AP_KIND_SCALAR, POOL_MAX_SCALE, POOL_OPCODE, POOL_SUB_MODE};
pub use broken_claims::recovered_claims;
pub use fast::{Kernel, KernelEnvError, AUTO_ROUNDS, AUTO_SAMPLE_BUNDLES, ENV_HIDE, ENV_KERNEL};
pub(crate) use slots::{MX_SCALE_PARTS, MX_STEP_DIRS};

use crate::bundle::{Bundle, BUNDLE_BYTES};
use crate::checks::{self, Check};
use crate::dtype::{self, DtypeInfo};
use crate::errata::Profile;
use crate::generation::Generation;
use crate::layout::Layout;
use crate::opcode::{self, OpcodeInfo};
use crate::provenance::{Confidence, Severity};
use serde::Serialize;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check that failed ([`crate::checks::Check::code`]).
    pub code: &'static str,
    /// Field path in the body layout, e.g. `psum_dst.num[1]`.
    pub field: String,
    /// Byte offset of the field within the bundle.
    pub offset: usize,
    /// The spec section of the check.
    pub section: &'static str,
    /// The weakest confidence among the check, the field's placement and the op's body assignment.
    pub confidence: Confidence,
    /// How much it matters: an error makes the bundle invalid ([`is_valid`]).
    pub severity: Severity,
    /// What is wrong, with the values involved.
    pub message: String,
    /// The erratum that accepts what the spec refuses here (then `severity` is `note`).
    pub erratum: Option<&'static str>,
}

/// Whether findings leave a bundle valid: only errors make it invalid.
pub fn is_valid(findings: &[Finding]) -> bool {
    !findings.iter().any(|f| f.severity == Severity::Error)
}

/// Validates one bundle for one generation.
pub fn validate(bundle: &Bundle, generation: Generation) -> Vec<Finding> {
    let mut out = Vec::new();
    validate_into(bundle, generation, &mut out);
    out
}

/// Validates one bundle, appending findings to `out` (allocation-free when it is clean).
pub fn validate_into(bundle: &Bundle, generation: Generation, out: &mut Vec<Finding>) {
    validate_with(bundle, generation, out, true);
}

/// Validates one bundle under a [`Profile`]: the spec alone, or amended by the errata.
pub fn validate_as(bundle: &Bundle, generation: Generation, profile: Profile) -> Vec<Finding> {
    let mut out = Vec::new();
    validate_into_as(bundle, generation, profile, &mut out);
    out
}

/// [`validate_as`], appending to `out` (allocation-free when the bundle is clean).
pub fn validate_into_as(bundle: &Bundle, generation: Generation, profile: Profile, out: &mut Vec<Finding>) {
    let first = out.len();
    validate_with(bundle, generation, out, true);
    if profile == Profile::Amended {
        amend::amend_from(bundle, generation, out, first, true);
    }
}

/// Validates every whole bundle of a stream of wire bytes, calling
/// `found(index, finding)` for each finding, in stream order; returns how
/// many bundles it read (a trailing partial bundle is not one:
/// [`crate::bundle::stream`] names its offset). Same findings as
/// [`validate_into`] on each decoded bundle, but the fast path judges the
/// stream a batch at a time, and a bundle it proves clean is never decoded
/// to its typed form.
pub fn validate_stream(bytes: &[u8], generation: Generation, mut found: impl FnMut(usize, Finding)) -> usize {
    let mut scratch = Vec::new();
    judged(Kernel::Auto, bytes, fast::Rules::spec(generation), |i, raw, verdict| {
        if verdict != fast::Verdict::Clean {
            report(&Bundle::decode(raw), generation, &mut scratch, verdict, true);
            scratch.drain(..).for_each(|f| found(i, f));
        }
    })
}

/// Decodes every whole bundle of a stream of wire bytes and validates it:
/// calls `each(index, bundle, findings)` once per bundle, in stream order;
/// returns how many bundles it read (see [`validate_stream`]). The findings
/// are those of [`validate_into`] on the bundle; the fast path judges the
/// stream a batch at a time.
pub fn decode_stream(bytes: &[u8], generation: Generation, each: impl FnMut(usize, &Bundle, &[Finding])) -> usize {
    decode_stream_with(Kernel::Auto, bytes, generation, each)
}

/// [`decode_stream`] on a chosen [`Kernel`] (the benchmarks time both).
pub fn decode_stream_with(kernel: Kernel, bytes: &[u8], generation: Generation, mut each: impl FnMut(usize, &Bundle, &[Finding])) -> usize {
    let mut findings = Vec::new();
    judged(kernel, bytes, fast::Rules::spec(generation), |i, raw, verdict| {
        let bundle = Bundle::decode(raw);
        // A clean bundle's findings are none: the scratch list is left alone.
        if verdict == fast::Verdict::Clean {
            each(i, &bundle, &[]);
        } else {
            report(&bundle, generation, &mut findings, verdict, true);
            each(i, &bundle, &findings);
            findings.clear();
        }
    })
}

/// [`decode_stream`] under a [`Profile`]: each bundle's findings are those
/// of [`validate_into_as`]. A bundle the fast path does not prove clean is
/// judged once by the reporting checks and its findings amended in place.
pub fn decode_stream_as(bytes: &[u8], generation: Generation, profile: Profile, mut each: impl FnMut(usize, &Bundle, &[Finding])) -> usize {
    let mut findings = Vec::new();
    judged(Kernel::Auto, bytes, fast::Rules::spec(generation), |i, raw, verdict| {
        let bundle = Bundle::decode(raw);
        if verdict == fast::Verdict::Clean {
            each(i, &bundle, &[]);
        } else {
            report(&bundle, generation, &mut findings, verdict, true);
            if profile == Profile::Amended {
                amend::amend_from(&bundle, generation, &mut findings, 0, true);
            }
            each(i, &bundle, &findings);
            findings.clear();
        }
    })
}

/// [`decode_stream_as`] when only the verdicts are wanted: calls
/// `each(index, valid)` for every whole bundle, in stream order, with
/// [`is_valid`] of the findings [`validate_into_as`] gives; returns how
/// many bundles it read. The findings are made without their messages, so
/// a bundle costs no formatting and, when clean, no allocation. The fast
/// path judges by the profile's tables: amended, a bundle whose every finding
/// an erratum amends by one byte is valid there, with no finding made.
pub fn judge_stream(bytes: &[u8], generation: Generation, profile: Profile, each: impl FnMut(usize, bool)) -> usize {
    judge_stream_with(Kernel::Auto, bytes, generation, profile, each)
}

/// [`judge_stream`] on a chosen [`Kernel`] (the tests compare them).
pub fn judge_stream_with(kernel: Kernel, bytes: &[u8], generation: Generation, profile: Profile, mut each: impl FnMut(usize, bool)) -> usize {
    let mut findings = Vec::new();
    let rules = fast::Rules { generation, profile };
    judged(kernel, bytes, rules, |i, raw, verdict| {
        if verdict == fast::Verdict::Clean {
            each(i, true);
        } else if profile == Profile::Amended && verdict == fast::Verdict::BandUnknown && amend::band_amended(raw, generation) {
            // Only band findings, each one an erratum amends (LoadStationary's group selectors, say).
            each(i, true);
        } else {
            let bundle = Bundle::decode(raw);
            report(&bundle, generation, &mut findings, verdict, false);
            if profile == Profile::Amended {
                amend::amend_from(&bundle, generation, &mut findings, 0, false);
            }
            each(i, is_valid(&findings));
            findings.clear();
        }
    })
}

/// Calls `each(index, wire bytes, verdict)` for every whole bundle of
/// `bytes`, judged by the fast path a batch at a time; returns how many.
#[inline(always)]
fn judged(kernel: Kernel, bytes: &[u8], rules: fast::Rules, mut each: impl FnMut(usize, &[u8; BUNDLE_BYTES], fast::Verdict)) -> usize {
    let (bundles, _) = bytes.as_chunks::<BUNDLE_BYTES>();
    let (batches, tail) = bundles.as_chunks::<{ fast::BATCH }>();
    let mut work = fast::Work::default();
    for (b, batch) in batches.iter().enumerate() {
        let verdicts = fast::verdicts(batch, rules, kernel, &mut work);
        for (k, (raw, v)) in batch.iter().zip(verdicts).enumerate() {
            each(b * fast::BATCH + k, raw, v);
        }
    }
    if !tail.is_empty() {
        // The last, partial batch is judged padded with zero bytes; only its bundles are reported.
        let mut last: fast::Batch = [[0; BUNDLE_BYTES]; fast::BATCH];
        last.iter_mut().zip(tail).for_each(|(dst, src)| *dst = *src);
        let verdicts = fast::verdicts(&last, rules, kernel, &mut work);
        for (k, (raw, v)) in tail.iter().zip(verdicts).enumerate() {
            each(batches.len() * fast::BATCH + k, raw, v);
        }
    }
    bundles.len()
}

/// Whether the fast path decides anything about `bundle` on `generation`
/// (proves it clean, or its header and slots clean). Where it does not,
/// [`validate_into`] runs exactly the full checks, so a test comparing the
/// two need not run them twice.
pub fn fast_path_decides(bundle: &Bundle, generation: Generation) -> bool {
    fast::verdict(bundle, generation) != fast::Verdict::Unknown
}

/// With `fast`, whatever the [`fast`] path proves clean skips its reporting
/// checks (same findings, far fewer instructions); the tests compare both
/// settings.
pub(crate) fn validate_with(bundle: &Bundle, generation: Generation, out: &mut Vec<Finding>, fast: bool) {
    let verdict = if fast { fast::verdict(bundle, generation) } else { fast::Verdict::Unknown };
    if verdict != fast::Verdict::Clean {
        report(bundle, generation, out, verdict, true);
    }
}

/// The reporting checks, for what the fast path did not prove clean.
#[inline(never)]
fn report(bundle: &Bundle, generation: Generation, out: &mut Vec<Finding>, verdict: fast::Verdict, messages: bool) {
    let layout = bundle.layout();
    let op = opcode::lookup(bundle.opcode());
    let mut cx = Ctx { layout, body_conf: Confidence::Confirmed, generation, out, messages };
    if let (fast::Verdict::BandUnknown, Some(op)) = (verdict, op) {
        cx.body_conf = op.body_prov.confidence;
        band::band(&mut cx, bundle, op);
        return;
    }
    cx.header(bundle, op);
    if let Some(op) = op {
        cx.body_conf = op.body_prov.confidence;
        slots::body(&mut cx, bundle, op);
    }
}

pub(crate) struct Ctx<'a> {
    layout: &'static Layout,
    /// Confidence of the op → body assignment; findings in the body are no surer.
    body_conf: Confidence,
    pub(crate) generation: Generation,
    out: &'a mut Vec<Finding>,
    /// Whether findings get their message; a verdict needs none (see [`judge_stream`]).
    messages: bool,
}

impl Ctx<'_> {
    /// Reports `check` on a field of the body layout.
    #[cold]
    pub(crate) fn report(&mut self, check: &'static Check, field: &str, message: impl FnOnce() -> String) {
        let (offset, conf) = resolve(self.layout, field).unwrap_or((0, Confidence::Inferred));
        self.push(check, field.to_string(), offset, conf, message);
    }

    /// Reports `check` on a field of a view (an indirect reading of a slot).
    #[cold]
    pub(crate) fn report_view(
        &mut self,
        check: &'static Check,
        slot: &str,
        base: usize,
        view: &Layout,
        leaf: &str,
        message: impl FnOnce() -> String,
    ) {
        let (offset, conf) = resolve(view, leaf).unwrap_or((0, Confidence::Inferred));
        self.push(check, format!("{slot}.{leaf}"), base + offset, conf, message);
    }

    fn push(&mut self, check: &'static Check, field: String, offset: usize, field_conf: Confidence, message: impl FnOnce() -> String) {
        let confidence = check.prov.confidence.max(field_conf).max(self.body_conf);
        let message = if self.messages { message() } else { String::new() };
        self.out.push(Finding {
            code: check.code,
            field,
            offset,
            section: check.prov.section,
            confidence,
            severity: confidence.severity(),
            message,
            erratum: None,
        });
    }

    /// Checks a dtype field; `Some` when the tag is valid and available here.
    #[inline]
    pub(crate) fn dtype(&mut self, field: &str, tag: u8) -> Option<&'static DtypeInfo> {
        match dtype::info(tag) {
            None => {
                self.report(&checks::INVALID_DTYPE, field, || format!("dtype tag {tag:#04x} is not a wire tag 1..=16"));
                None
            }
            Some(d) if d.since > self.generation => {
                self.report(&checks::DTYPE_UNAVAILABLE, field, || format!("dtype {} (tag {}) does not exist before {}", d.name, d.tag, d.since));
                None
            }
            Some(d) => Some(d),
        }
    }

    fn header(&mut self, bundle: &Bundle, op: Option<&OpcodeInfo>) {
        let h = bundle.header();
        let saturate_ok = h.opcode == opcode::QUANTIZE_MX && h.inst_word_len == crate::bundle::header::INST_WORD_LEN_SATURATE;
        if h.inst_word_len != crate::bundle::INST_WORD_LEN && !saturate_ok {
            self.report(&checks::INST_WORD_LEN, "inst_word_len", || format!("inst_word_len is {:#04x}, not 0x10", h.inst_word_len));
        }
        if h.reserved.get() != 0 {
            self.report(&checks::HEADER_RESERVED, "reserved", || format!("reserved half-word is {:#06x}", h.reserved.get()));
        }
        match op {
            None => self.report(&checks::UNKNOWN_OPCODE, "opcode", || format!("opcode {:#04x} is not in the opcode table", h.opcode)),
            Some(o) if !o.available(self.generation) => {
                let g = self.generation;
                self.report(&checks::OPCODE_UNAVAILABLE, "opcode", || format!("{} ({:#04x}) is not encoded on {g}", o.name, o.byte))
            }
            Some(_) => {}
        }
    }
}

/// Offset and confidence of a field path in a layout.
fn resolve(layout: &Layout, path: &str) -> Option<(usize, Confidence)> {
    // One walk of the description for both; building `leaves()` per finding
    // dominated real-stream validation, and two walks with `str` searches
    // were most of the `validate` fuzz target's time.
    layout.resolve_leaf(path).map(|(offset, prov)| (offset, prov.confidence))
}

#[cfg(test)]
mod tests {
    use crate::catalog;
    use crate::layout::Layout;

    /// The leaf list's confidence, the way `resolve` read it before `leaf_prov`.
    fn by_leaves(layout: &Layout, base: &str) -> Option<crate::provenance::Confidence> {
        layout.leaves().into_iter().find(|l| l.path == base).map(|l| l.prov.confidence)
    }

    #[test]
    fn leaf_prov_agrees_with_the_leaf_list() {
        let mut checked = 0;
        for layout in catalog::layouts() {
            let mut paths: Vec<String> = layout.leaves().into_iter().map(|l| l.path).collect();
            // Non-leaf and unknown paths must be refused alike.
            paths.extend(layout.fields.iter().map(|f| f.name.to_string()));
            paths.extend(["nope".to_string(), "addr.x".to_string(), String::new()]);
            for p in &paths {
                assert_eq!(layout.leaf_prov(p).map(|x| x.confidence), by_leaves(layout, p), "{}: `{p}`", layout.name);
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} paths");
    }
}
