//! The hand-checked seed bundles, `corpus/hand/<generation>.tpb`: one bundle
//! per line in the text format, written by hand from the spec's field tables.
//! A trailing `# … expect: code, code` names the exact findings the validator
//! must give on that file's generation (none: the bundle is clean). Embedded,
//! so `tpb conform` and `tpb corpus` check them from any directory; also
//! included by `tests/corpus.rs`. Self-contained on purpose: no `crate::` paths.

use tpb_isa::bundle::{BodyKind, Bundle, Raw};
use tpb_isa::{checks, text, validate, Generation};

/// One hand file: its generation, its name and its text.
pub struct HandFile {
    pub generation: Generation,
    pub name: &'static str,
    pub text: &'static str,
}

/// Every hand file, one per generation.
pub const FILES: &[HandFile] = &[
    HandFile { generation: Generation::V2, name: "corpus/hand/v2.tpb", text: include_str!("../../corpus/hand/v2.tpb") },
    HandFile { generation: Generation::V3, name: "corpus/hand/v3.tpb", text: include_str!("../../corpus/hand/v3.tpb") },
    HandFile { generation: Generation::V4, name: "corpus/hand/v4.tpb", text: include_str!("../../corpus/hand/v4.tpb") },
];

/// One assembled hand line.
#[derive(Clone, Debug)]
pub struct HandBundle {
    pub generation: Generation,
    /// `corpus/hand/v2.tpb:12`.
    pub origin: String,
    pub raw: Raw,
    /// Expected finding codes, sorted.
    pub expect: Vec<String>,
}

impl HandBundle {
    pub fn kind(&self) -> BodyKind {
        Bundle::decode(&self.raw).kind()
    }
}

/// Assembles every line of a hand file.
pub fn parse(file: &HandFile) -> Result<Vec<HandBundle>, String> {
    let mut out = Vec::new();
    for (i, line) in file.text.lines().enumerate() {
        let origin = format!("{}:{}", file.name, i + 1);
        let raw = match text::asm_line(line) {
            Ok(Some(raw)) => raw,
            Ok(None) => continue,
            Err(e) => return Err(format!("{origin}: {e}")),
        };
        let comment = line.split_once('#').map_or("", |(_, c)| c);
        let mut expect: Vec<String> = match comment.split_once("expect:") {
            Some((_, codes)) => codes.split([',', ' ']).filter(|c| !c.is_empty()).map(str::to_string).collect(),
            None => Vec::new(),
        };
        if let Some(bad) = expect.iter().find(|c| checks::by_code(c).is_none()) {
            return Err(format!("{origin}: `expect: {bad}` names no validator check"));
        }
        expect.sort();
        out.push(HandBundle { generation: file.generation, origin, raw, expect });
    }
    Ok(out)
}

/// Every hand bundle of every file.
pub fn all() -> Result<Vec<HandBundle>, String> {
    let mut out = Vec::new();
    for f in FILES {
        out.extend(parse(f)?);
    }
    Ok(out)
}

/// The validator gives exactly the annotated findings, and the line's bytes
/// survive disassembly and reassembly.
// A String: a report's failure line, in a file tests/corpus.rs includes (so no crate:: error).
pub fn check(b: &HandBundle) -> Result<(), String> {
    let bundle = Bundle::decode(&b.raw);
    let mut got: Vec<String> = validate::validate(&bundle, b.generation).iter().map(|f| f.code.to_string()).collect();
    got.sort();
    if got != b.expect {
        return Err(format!("{}: on {} expected findings {:?}, got {:?}", b.origin, b.generation, b.expect, got));
    }
    tpb_isa::props::text_roundtrip(&b.raw).map_err(|e| format!("{}: {e}", b.origin))
}

/// Typed families (every body kind with a layout) available on `g` that no
/// clean hand bundle of `g` covers.
pub fn uncovered(bundles: &[HandBundle]) -> Vec<(BodyKind, Generation)> {
    let mut out = Vec::new();
    for g in Generation::ALL {
        for &k in BodyKind::ALL.iter().filter(|k| **k != BodyKind::Opaque) {
            let available = tpb_isa::opcode::OPCODES.iter().any(|o| o.body == k && o.available(g));
            let covered = bundles.iter().any(|b| b.generation == g && b.expect.is_empty() && b.kind() == k);
            if available && !covered {
                out.push((k, g));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_covered_on_a_generation_only_by_a_clean_hand_bundle_of_its_own() {
        let all = all().expect("the hand files parse");
        assert_eq!(uncovered(&all), []);
        // With no bundles, every typed family is missing on each generation it has an opcode on, and only there.
        let none = uncovered(&[]);
        for g in Generation::ALL {
            for &k in BodyKind::ALL.iter().filter(|k| **k != BodyKind::Opaque) {
                let exists = tpb_isa::opcode::OPCODES.iter().any(|o| o.body == k && o.available(g));
                assert_eq!(none.contains(&(k, g)), exists, "{k:?} on {g}");
            }
        }
        assert!(none.len() < Generation::ALL.len() * (BodyKind::ALL.len() - 1), "some family is absent from some generation");
        // Take away one family's clean bundles on one generation: that pair alone is uncovered,
        // though the family has clean bundles on other generations and the generation has findings-bearing ones.
        let first = all.iter().find(|b| b.expect.is_empty()).expect("a clean hand bundle");
        let (k, g) = (first.kind(), first.generation);
        assert!(all.iter().any(|b| b.kind() == k && b.generation != g && b.expect.is_empty()));
        let mut rest: Vec<HandBundle> = all.iter().filter(|b| !(b.kind() == k && b.generation == g && b.expect.is_empty())).cloned().collect();
        assert_eq!(uncovered(&rest), [(k, g)]);
        // A bundle of that family there that carries findings does not cover it.
        let mut flagged = first.clone();
        flagged.expect = vec!["some-finding".into()];
        rest.push(flagged);
        assert_eq!(uncovered(&rest), [(k, g)]);
    }
}
