//! Self-checks of the built-in description (`tpb_isa`): every layout's leaves
//! fit its size without overlap, the tables are well formed, and the
//! hand-checked bundles validate exactly as annotated on their generation.

use super::hand;
use super::report::{Case, Section};
use std::collections::BTreeSet;
use std::time::Instant;
use tpb_isa::bundle::{BodyKind, BUNDLE_BYTES};
use tpb_isa::catalog;
use tpb_isa::checks;
use tpb_isa::layout::Leaf;
use tpb_isa::opcode::{self, OpcodeInfo, OPCODES};

fn timed(f: impl FnOnce() -> Case) -> Case {
    let start = Instant::now();
    let c = f();
    c.with_time(start.elapsed())
}

/// Leaves in offset order, inside the struct, never overlapping; bodies are 64 bytes.
fn layouts() -> Case {
    let mut failures = Vec::new();
    let all = catalog::layouts();
    for l in &all {
        failures.extend(leaf_failures(l.name, l.size, &l.leaves()));
    }
    for k in BodyKind::ALL {
        if k.layout().size != BUNDLE_BYTES {
            failures.push(format!("{}: body is {} bytes, not {BUNDLE_BYTES}", k.layout().name, k.layout().size));
        }
    }
    Case::from_failures("layouts", format!("{} described structs", all.len()), &failures).with_checked(all.len() as u64)
}

/// What is wrong with a struct's `leaves` (in offset order): one overlapping
/// the one before it, or ending past the struct's `size` bytes. A gap is fine.
fn leaf_failures(name: &str, size: usize, leaves: &[Leaf]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut end = 0usize;
    for leaf in leaves {
        if leaf.offset < end {
            failures.push(format!("{name}: `{}` at {:#x} overlaps the field before it (ends {end:#x})", leaf.path, leaf.offset));
        }
        end = leaf.offset + leaf.size();
        if end > size {
            failures.push(format!("{name}: `{}` ends at {end:#x}, past the {size}-byte struct", leaf.path));
        }
    }
    failures
}

/// Opcode bytes sorted and unique, each found by lookup, every body kind used.
fn opcode_table() -> Case {
    let failures = opcode_failures(OPCODES, opcode::lookup);
    Case::from_failures("opcode table", format!("{} opcodes", OPCODES.len()), &failures).with_checked(OPCODES.len() as u64)
}

/// What is wrong with an opcode `table` and its `lookup`: bytes out of
/// order or repeated, a row lookup does not find (or with no name), a body
/// kind no row uses.
fn opcode_failures<'a>(table: &'a [OpcodeInfo], lookup: impl Fn(u8) -> Option<&'a OpcodeInfo>) -> Vec<String> {
    let mut failures = Vec::new();
    for w in table.windows(2) {
        if w[0].byte >= w[1].byte {
            failures.push(format!("opcode table not strictly increasing at {:#04x}, {:#04x}", w[0].byte, w[1].byte));
        }
    }
    for o in table {
        if lookup(o.byte).map(|x| x.name) != Some(o.name) || o.name.is_empty() {
            failures.push(format!("{:#04x}: lookup does not return its row", o.byte));
        }
    }
    for k in BodyKind::ALL {
        if !table.iter().any(|o| o.body == *k) {
            failures.push(format!("body kind {k:?} has no opcode"));
        }
    }
    failures
}

/// Check codes unique and each with a section.
fn check_table() -> Case {
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    for c in checks::ALL {
        if !seen.insert(c.code) {
            failures.push(format!("check code `{}` appears twice", c.code));
        }
        if c.prov.section.is_empty() {
            failures.push(format!("check `{}` names no spec section", c.code));
        }
    }
    Case::from_failures("validator checks", format!("{} checks", checks::ALL.len()), &failures).with_checked(checks::ALL.len() as u64)
}

/// Every hand line validates exactly as annotated; every typed family is covered per generation.
fn hand_files() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut all = Vec::new();
    for f in hand::FILES {
        cases.push(timed(|| match hand::parse(f) {
            Err(e) => Case::fail(f.name, e),
            Ok(bundles) => {
                let failures: Vec<String> = bundles.iter().filter_map(|b| hand::check(b).err()).collect();
                let clean = bundles.iter().filter(|b| b.expect.is_empty()).count();
                let n = bundles.len();
                all.extend(bundles);
                Case::from_failures(f.name, format!("{n} hand-checked bundles on {} ({clean} clean)", f.generation), &failures).with_checked(n as u64)
            }
        }));
    }
    let missing: Vec<String> = hand::uncovered(&all).iter().map(|(k, g)| format!("no clean hand bundle of {k:?} on {g}")).collect();
    cases.push(Case::from_failures("hand coverage", "every typed family on every generation it exists on", &missing));
    cases
}

/// The description section.
pub fn section() -> Section {
    let mut s = Section::new("description", "built-in description");
    s.cases.push(timed(layouts));
    s.cases.push(timed(opcode_table));
    s.cases.push(timed(check_table));
    s.cases.extend(hand_files());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::report::Status;

    #[test]
    fn leaves_may_leave_gaps_but_never_overlap_or_run_past_their_struct() {
        let l = BodyKind::ALL[0].layout();
        let leaves = l.leaves();
        assert!(leaves.len() >= 3);
        assert_eq!(leaf_failures(l.name, l.size, &leaves), Vec::<String>::new());
        // Without its second leaf the struct has a gap: still fine.
        let gap: Vec<Leaf> = leaves.iter().enumerate().filter(|(i, _)| *i != 1).map(|(_, f)| f.clone()).collect();
        assert_eq!(leaf_failures(l.name, l.size, &gap), Vec::<String>::new());
        let mut overlap = leaves.clone();
        overlap[1].offset = overlap[0].offset;
        let f = leaf_failures("S", l.size, &overlap);
        assert_eq!(f.len(), 1 + usize::from(overlap[2].offset < overlap[1].offset + overlap[1].size()), "{f:?}");
        assert!(f[0].starts_with(&format!("S: `{}` at {:#x} overlaps the field before it (ends ", overlap[1].path, overlap[0].offset)), "{f:?}");
        let last = leaves.last().expect("a leaf");
        let short = last.offset + last.size() - 1;
        assert_eq!(leaf_failures("S", short, &leaves), [format!("S: `{}` ends at {:#x}, past the {short}-byte struct", last.path, short + 1)]);
    }

    #[test]
    fn an_opcode_table_must_be_sorted_found_by_lookup_named_and_use_every_body_kind() {
        assert_eq!(opcode_failures(OPCODES, opcode::lookup), Vec::<String>::new());
        let find = |t: &'static [OpcodeInfo]| move |b: u8| t.iter().find(|o| o.byte == b);
        // Two rows of one kind: every other kind has no opcode.
        let kind = OPCODES[0].body;
        let two: &'static [OpcodeInfo] = Vec::leak(OPCODES.iter().filter(|o| o.body == kind).take(2).cloned().collect());
        let unused: Vec<String> = BodyKind::ALL.iter().filter(|k| **k != kind).map(|k| format!("body kind {k:?} has no opcode")).collect();
        assert_eq!(opcode_failures(two, find(two)), unused);
        // Out of order, and a nameless row that lookup does find.
        let mut rows = OPCODES.to_vec();
        rows.swap(0, 1);
        rows[5].name = "";
        let rows: &'static [OpcodeInfo] = Vec::leak(rows);
        let (a, b) = (rows[0].byte, rows[1].byte);
        assert_eq!(
            opcode_failures(rows, find(rows)),
            [format!("opcode table not strictly increasing at {a:#04x}, {b:#04x}"), format!("{:#04x}: lookup does not return its row", rows[5].byte)]
        );
        // A byte twice.
        let twice: &'static [OpcodeInfo] = Vec::leak([&OPCODES[..2], &OPCODES[1..]].concat());
        let b = OPCODES[1].byte;
        assert_eq!(opcode_failures(twice, find(twice)), [format!("opcode table not strictly increasing at {b:#04x}, {b:#04x}")]);
    }

    #[test]
    fn the_section_checks_the_tables_then_each_hand_file_then_their_coverage_and_passes() {
        let s = section();
        let names: Vec<&str> = s.cases.iter().map(|c| c.name.as_str()).collect();
        let mut want = vec!["layouts", "opcode table", "validator checks"];
        want.extend(hand::FILES.iter().map(|f| f.name));
        want.push("hand coverage");
        assert_eq!(names, want);
        for c in &s.cases {
            assert_eq!(c.status, Status::Pass, "{}: {}", c.name, c.detail);
        }
        let hand = hand::all().expect("hand files");
        let checked: Vec<u64> = s.cases.iter().map(|c| c.checked).collect();
        let mut want = vec![catalog::layouts().len() as u64, OPCODES.len() as u64, checks::ALL.len() as u64];
        want.extend(hand::FILES.iter().map(|f| hand.iter().filter(|b| b.generation == f.generation).count() as u64));
        want.push(0);
        assert_eq!(checked, want);
    }
}
