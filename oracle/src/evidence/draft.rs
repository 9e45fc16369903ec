//! Drafted errata: for every contradiction no erratum accepts, an erratum in
//! `isa/src/errata.rs`'s own form, ready to review and paste, never applied
//! by itself. Each draft is the narrowest statement the evidence supports
//! (the opcodes, field and values seen), and beside it what the evidence
//! says about the rule's class: on how many opcodes the same check is
//! contradicted, and on how many it holds. A rule contradicted across
//! several opcodes is scoped wrong in the spec, and the draft says to widen
//! the scope (`Every`) rather than list what one build happened to write.

use super::Evidence;
use crate::text_safe::{escape, needs_escape};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use tpb_isa::checks;
use tpb_isa::{opcode, Generation};

/// The contradictions of one check on one field, over opcodes, builds and generations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// The check's code.
    pub check: &'static str,
    /// The field its findings are about.
    pub field: String,
    /// The opcodes it is contradicted on.
    pub opcodes: BTreeSet<u8>,
    /// The generations of those contradictions.
    pub generations: BTreeSet<Generation>,
    /// The compiler builds that wrote them.
    pub builds: BTreeSet<String>,
    /// The most frequent values of each contradiction, summed.
    pub values: BTreeMap<String, u64>,
    /// Findings whose value is not among those listed.
    pub other: u64,
    /// Findings in all (one per bundle and field).
    pub findings: u64,
    /// Opcodes on which the same check also disagrees (any field, erratum or not).
    pub contradicted_on: BTreeSet<u8>,
    /// Opcodes on which the check applied and never disagreed.
    pub holds_on: BTreeSet<u8>,
}

/// One draft per (check, field) with a contradiction no erratum accepts, in that order.
pub fn drafts(ev: &Evidence) -> Vec<Draft> {
    let mut by: BTreeMap<(&'static str, String), Draft> = BTreeMap::new();
    for c in ev.contradictions() {
        let d = by.entry((c.check, c.field.clone())).or_insert_with(|| Draft { check: c.check, field: c.field.clone(), ..Draft::default() });
        d.opcodes.insert(c.opcode);
        d.generations.insert(c.generation);
        d.builds.insert(c.build.clone());
        for (v, n) in &c.values {
            *d.values.entry(v.clone()).or_default() += n;
        }
        d.other += c.other;
        d.findings += c.count;
    }
    for d in by.values_mut() {
        let mut disagree: BTreeSet<u8> = BTreeSet::new();
        let mut applied: BTreeSet<u8> = BTreeSet::new();
        for ops in ev.groups.values() {
            for (op, g) in ops {
                if let Some(count) = g.checks.get(d.check) {
                    applied.insert(*op);
                    if count.disagree > 0 {
                        disagree.insert(*op);
                    }
                }
            }
        }
        d.holds_on = applied.difference(&disagree).copied().collect();
        d.contradicted_on = disagree;
    }
    by.into_values().collect()
}

/// The constant `checks.rs` names a check code by (`unknown-opcode` → `UNKNOWN_OPCODE`).
pub fn check_constant(code: &str) -> String {
    code.replace('-', "_").to_ascii_uppercase()
}

fn ops_list(ops: &BTreeSet<u8>) -> String {
    ops.iter().map(|o| format!("{o:#04X}").replacen("0X", "0x", 1)).collect::<Vec<_>>().join(", ")
}

fn ops_named(ops: &BTreeSet<u8>) -> String {
    ops.iter().map(|o| format!("{o:#04x} {}", opcode::name(*o))).collect::<Vec<_>>().join(", ")
}

/// A string literal for the drafted Rust: quotes and backslashes escaped, control characters too.
fn lit(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Draft {
    fn is_opcode(&self) -> bool {
        self.check == checks::UNKNOWN_OPCODE.code
    }

    /// A stable id for the draft: the check and the opcodes (the reviewer renames it).
    fn id(&self) -> String {
        let ops: Vec<String> = self.opcodes.iter().map(|o| format!("{o:02x}")).collect();
        format!("draft-{}-{}", self.check, ops.join("-"))
    }

    fn values_text(&self) -> String {
        let mut v: Vec<String> = self.values.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
        if self.other > 0 {
            v.push(format!("other ×{}", self.other));
        }
        v.join(", ")
    }

    /// The narrowest erratum the evidence supports, in `errata!`'s form.
    pub fn narrow(&self) -> String {
        let summary = checks::by_code(self.check).map_or("", |c| c.summary);
        let gens: Vec<&str> = self.generations.iter().map(|g| g.as_str()).collect();
        let builds: Vec<String> = self.builds.iter().map(|b| escape(b)).collect();
        let seen = format!("in {} programs of build {}", gens.join("/"), builds.join(", "));
        let (accepts, observed, resolution) = if self.is_opcode() {
            (
                "Accepts::Opcode".to_string(),
                format!("opcode byte(s) {} {seen}", ops_list(&self.opcodes)),
                format!("{} are opcodes the real compiler writes (names and bodies unknown)", ops_list(&self.opcodes)),
            )
        } else {
            let values: Vec<&str> = self.values.keys().map(String::as_str).collect();
            (
                format!("Accepts::Values {{ all: &[own(&[{}])] }}", values.join(", ")),
                format!("{} holds {} on {} {seen}", self.field, self.values_text(), ops_named(&self.opcodes)),
                format!("{} also holds {} on {}", self.field, values.join(", "), ops_list(&self.opcodes)),
            )
        };
        let mut t = String::new();
        let _ = writeln!(
            t,
            "    {} {} Only(&[{}]), Only(&[{}]), EVERY_GENERATION, {accepts}, Inferred;",
            lit(&self.id()),
            check_constant(self.check),
            ops_list(&self.opcodes),
            lit(&self.field)
        );
        let _ = writeln!(t, "    claim {};", lit(summary));
        let _ = writeln!(t, "    observed {};", lit(&observed));
        let _ = writeln!(t, "    resolution {};", lit(&resolution));
        t
    }

    /// What the evidence says about the rule's class, and the broader draft when it is scoped wrong.
    pub fn class(&self) -> String {
        let mut t = String::new();
        let wide = self.contradicted_on.len() > 1;
        let _ = writeln!(
            t,
            "    // class: `{}` disagrees on {} opcode(s) of these programs ({}) and holds on {} ({}).",
            self.check,
            self.contradicted_on.len(),
            ops_list(&self.contradicted_on),
            self.holds_on.len(),
            if self.holds_on.is_empty() { "none".to_string() } else { ops_list(&self.holds_on) }
        );
        if self.field.ends_with(".addr") {
            let _ =
                writeln!(t, "    // the values are addresses: a reading (AlignedTo, SlotAt, NotMatmulDst) states this better than a list of them.");
        }
        if self.other > 0 {
            let _ = writeln!(
                t,
                "    // {} finding(s) hold values beyond the most frequent listed: `tpb evidence --json` has every group's values.",
                self.other
            );
        }
        if wide && !self.is_opcode() {
            let _ =
                writeln!(t, "    // the rule is contradicted across opcodes: it is scoped wrong in the spec. The broader statement, for the class:");
            let narrow = self.narrow();
            let broad = narrow.replacen(&format!("Only(&[{}])", ops_list(&self.opcodes)), "Every", 1);
            for line in broad.lines() {
                let _ = writeln!(t, "    // {}", line.trim_start());
            }
        } else if !self.holds_on.is_empty() {
            let _ = writeln!(
                t,
                "    // the rule holds on the other opcodes it applies to: the narrow statement stands; widen it only if the field means the same there."
            );
        }
        t
    }
}

/// Every draft as text to paste into `errata!` (after review), or a line saying there is none.
pub fn to_text(drafts: &[Draft]) -> String {
    if drafts.is_empty() {
        return "// no contradiction lacks an erratum: nothing to draft\n".to_string();
    }
    let mut t = String::from(
        "// Drafted errata (tpb evidence --propose): review each, write its resolution as the narrowest\n// statement about the encoding, then paste it into `errata!` in isa/src/errata.rs in id order.\n",
    );
    for d in drafts {
        let _ = writeln!(t, "\n    // {} finding(s) of `{}` on `{}`", d.findings, d.check, escape(&d.field));
        t.push_str(&d.class());
        t.push_str(&d.narrow());
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(op: u8, set: &[(usize, u8)]) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[0] = op;
        b[1] = 0x10;
        for &(at, v) in set {
            b[at] = v;
        }
        b
    }

    #[test]
    fn every_contradiction_gets_a_draft_in_the_errata_form_and_accepted_ones_none() {
        let mut bytes = bundle(0x8D, &[]);
        bytes.extend(bundle(0xB1, &[])); // an erratum accepts it: no draft
        bytes.extend(bundle(0xA0, &[(0x20, 0x02)])); // a comparator no table and no erratum names
        let mut ev = Evidence::new();
        ev.add_stream("f.neff", Some("9.9.9"), Generation::V2, "DVE", &bytes);
        let ds = drafts(&ev);
        let keys: Vec<(&str, &str)> = ds.iter().map(|d| (d.check, d.field.as_str())).collect();
        assert_eq!(keys, [("semaphore-cmp-op", "cmp_op"), ("unknown-opcode", "opcode")], "{ds:#?}");
        let text = to_text(&ds);
        assert!(
            text.contains(
                r#""draft-unknown-opcode-8d" UNKNOWN_OPCODE Only(&[0x8D]), Only(&["opcode"]), EVERY_GENERATION, Accepts::Opcode, Inferred;"#
            ),
            "{text}"
        );
        assert!(
            text.contains(r#"Only(&[0xA0]), Only(&["cmp_op"]), EVERY_GENERATION, Accepts::Values { all: &[own(&[0x02])] }, Inferred;"#),
            "{text}"
        );
        assert!(text.contains("observed \"cmp_op holds 0x02 ×1 on 0xa0 EventSemaphore in v2 programs of build 9.9.9\";"), "{text}");
        // 0xB1 is accepted: the class line counts it among the opcodes the check disagrees on, no draft lists it.
        assert!(text.contains("disagrees on 2 opcode(s) of these programs (0x8D, 0xB1)") && !text.contains("Only(&[0x8D, 0xB1])"), "{text}");
        // Nothing to draft says so.
        assert_eq!(to_text(&[]), "// no contradiction lacks an erratum: nothing to draft\n");
    }

    #[test]
    fn a_rule_contradicted_on_several_opcodes_is_drafted_for_its_class() {
        // The same dtype field refused on two opcodes: the class draft widens the opcodes to Every.
        let mut bytes = bundle(0x41, &[(0x21, 0x77)]);
        bytes.extend(bundle(0x43, &[(0x21, 0x77)]));
        let mut ev = Evidence::new();
        ev.add_stream("f.neff", Some("b"), Generation::V3, "DVE", &bytes);
        let ds = drafts(&ev);
        let Some(d) = ds.iter().find(|d| d.check == "invalid-dtype" && d.contradicted_on.len() > 1) else { panic!("{ds:#?}") };
        let class = d.class();
        assert!(class.contains("scoped wrong in the spec") && class.contains("INVALID_DTYPE Every,"), "{class}");
    }

    #[test]
    fn check_constants_are_the_names_checks_rs_gives() {
        let src = include_str!("../../../isa/src/checks.rs");
        for c in checks::ALL {
            assert!(src.contains(&format!("{} {:?}", check_constant(c.code), c.code)), "{}", c.code);
        }
    }

    #[test]
    fn drafted_strings_cannot_break_out_of_their_literal() {
        assert_eq!(lit("a\"b\\c\nd"), r#""a\"b\\c\u{a}d""#);
    }
}
