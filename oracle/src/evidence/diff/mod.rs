//! "The new compiler shipped: what moved?" Two sets of real programs' evidence
//! (OLD and NEW, each gathered here or read back from `tpb evidence --json`)
//! compared per generation × opcode, over every build of each side: opcodes
//! and engines that appeared or vanished, field values NEW shows that OLD
//! never did, checks that now disagree (or no longer do), contradictions new
//! in NEW (or gone), errata NEW no longer supports or newly needs, and
//! recovered-layout claims NEW breaks.
//!
//! Exit bits follow `tpb diff` (abidiff): [`BIT_ERROR`] and [`BIT_USAGE`] are
//! the command's; [`BIT_CHANGED`] when something certainly moved;
//! [`BIT_NEW_DISAGREES`] when NEW disagrees with the crate's description (the
//! spec amended by the errata, and the recovered layouts' claims) where OLD did
//! not. A value that is only *possibly* new (OLD's histogram overflowed, so it
//! may be among OLD's unlisted values) is listed but sets no bit.
//!
//! Every difference names the first bundle that shows it ([`Example`]: the
//! side, and the smallest location the evidence kept); the command resolves
//! it to a path and that bundle's disassembly ([`Diff::found`]).
//!
//! Sides that share no generation (a new target, or one whose generation was
//! guessed) are compared per opcode across their generations ([`Compare`]).

mod across;
mod render;
mod resolve;
mod summary;
#[cfg(test)]
mod tests;
mod view;

pub use across::Compare;
pub use render::{count, value_name, Options};
pub use resolve::{disasm_line, SideRoot};
pub use summary::{BuildInputs, Check, Op, Summary, Values};
pub use view::SummaryError;

use super::Loc;
use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::Generation;

/// The inputs could not be read (or are not evidence), or the output not written.
pub const BIT_ERROR: u8 = 1;
/// Bad arguments.
pub const BIT_USAGE: u8 = 2;
/// Something moved between OLD and NEW.
pub const BIT_CHANGED: u8 = 4;
/// NEW disagrees with the crate's description in a way OLD did not: a
/// contradiction new in NEW, a check NEW refuses where OLD refused nothing,
/// or a recovered claim NEW breaks where OLD broke none.
pub const BIT_NEW_DISAGREES: u8 = 8;

/// Which side a bundle is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Which {
    /// OLD, the first argument: the baseline.
    Old,
    /// NEW, the second argument: what is compared with OLD.
    New,
}

impl Which {
    /// Its name in the output (`OLD`, `NEW`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Which::Old => "OLD",
            Which::New => "NEW",
        }
    }
}

/// The first bundle (by file, member, index) that shows a difference, and its side.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Example {
    /// The side whose bundle it is.
    pub side: Which,
    /// Where the bundle is, as that side's evidence names it.
    pub loc: Loc,
}

impl Example {
    fn on(side: Which, loc: Option<&Loc>) -> Option<Example> {
        loc.map(|l| Example { side, loc: l.clone() })
    }
}

/// An example resolved by whoever can read the programs: the path to give
/// `tpb disasm`, and that bundle's line as `tpb disasm` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The path the program was read from (control characters escaped).
    pub path: String,
    /// The bundle's line as `tpb disasm` prints it, with its index and offset.
    pub line: String,
}

/// An opcode one side has and the other lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpPresence {
    /// The generation it is under.
    pub generation: Generation,
    /// The opcode byte.
    pub opcode: u8,
    /// Bundles on the side that has it.
    pub bundles: u64,
    /// Its engines there, with bundles.
    pub engines: Vec<(String, u64)>,
    /// Its first bundle on the side that has it.
    pub at: Option<Example>,
}

/// An engine an opcode (present on both sides) appeared on or vanished from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineMove {
    /// The generation it is under.
    pub generation: Generation,
    /// The opcode byte.
    pub opcode: u8,
    /// The engine's stem (`PE`, `Activation`).
    pub engine: String,
    /// True: NEW runs the opcode on it, OLD did not; false: the reverse.
    pub appeared: bool,
    /// Bundles on the side that has it.
    pub bundles: u64,
    /// The opcode's first bundle on that engine, on the side that has it.
    pub at: Option<Example>,
}

/// Values of one field that NEW's histogram lists and OLD's does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewValues {
    /// The generation it is under.
    pub generation: Generation,
    /// The opcode byte.
    pub opcode: u8,
    /// The field's name, as the evidence names it (`in_dtype`, `out.num[2]`, `word_0c`).
    pub field: String,
    /// The field's byte offset in the bundle.
    pub offset: u64,
    /// Certainly new: OLD's histogram lists every value OLD saw, and not these. Most frequent first.
    pub new: Vec<(String, u64)>,
    /// Possibly seen: OLD's histogram overflowed, so these may be among its unlisted values.
    pub possibly_seen: Vec<(String, u64)>,
    /// Occurrences OLD saw of values it does not list.
    pub old_other: u64,
    /// Occurrences NEW saw of values it does not list (not compared).
    pub new_other: u64,
    /// Value (new or possibly seen) → its first bundle in NEW.
    pub at: BTreeMap<String, Example>,
}

/// How a check's verdict on one opcode moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CheckChange {
    /// NEW has bundles it disagrees on that no erratum accepts; OLD had none.
    NowRefused,
    /// NEW disagrees where OLD never did, every disagreement accepted by an erratum.
    NowDisagreesAccepted,
    /// OLD refused bundles; NEW still disagrees, but an erratum accepts every disagreement.
    NoLongerRefused,
    /// OLD disagreed; NEW does not.
    NoLongerDisagrees,
}

impl CheckChange {
    /// How the output says it (`now refused`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            CheckChange::NowRefused => "now refused",
            CheckChange::NowDisagreesAccepted => "now disagrees (accepted)",
            CheckChange::NoLongerRefused => "no longer refused",
            CheckChange::NoLongerDisagrees => "no longer disagrees",
        }
    }

    /// How the counts moved, if they did. `refused <= disagree` on each side,
    /// so a check never moves both ways at once.
    fn of(old: &Check, new: &Check) -> Option<CheckChange> {
        if old.refused == 0 && new.refused > 0 {
            Some(CheckChange::NowRefused)
        } else if old.disagree == 0 && new.disagree > 0 {
            Some(CheckChange::NowDisagreesAccepted)
        } else if old.disagree > 0 && new.disagree == 0 {
            Some(CheckChange::NoLongerDisagrees)
        } else if old.refused > 0 && new.refused == 0 {
            Some(CheckChange::NoLongerRefused)
        } else {
            None
        }
    }
}

/// A check whose verdict on one opcode (present on both sides) moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckMove {
    /// The generation it is under.
    pub generation: Generation,
    /// The opcode byte.
    pub opcode: u8,
    /// The check's code (`invalid-dtype`).
    pub check: String,
    /// How its verdict moved.
    pub change: CheckChange,
    /// Its counts in OLD.
    pub old: Check,
    /// Its counts in NEW.
    pub new: Check,
    /// The first bundle of the side whose verdict is reported (NEW's refusal or disagreement, or OLD's).
    pub at: Option<Example>,
}

/// A contradiction (a spec disagreement no erratum accepts) one side has and the other lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContradictionMove {
    /// The generation it is under.
    pub generation: Generation,
    /// The opcode byte.
    pub opcode: u8,
    /// The check's code.
    pub check: String,
    /// The field the findings are about.
    pub field: String,
    /// The side that has it: its findings' values (and their first bundles).
    pub values: Values,
    /// The side that has it.
    pub side: Which,
}

/// An erratum one side's bundles support and the other's do not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErratumMove {
    /// The erratum's id.
    pub id: String,
    /// Bundles it accepted on the side that supports it.
    pub bundles: u64,
    /// Whether the other side's errata table lists it at all (evidence written by an older `tpb` may not).
    pub listed_by_other: bool,
    /// The first bundle it accepted on the side that supports it.
    pub at: Option<Example>,
}

/// A recovered claim NEW breaks where OLD broke none (or the reverse).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimMove {
    /// The generation it is under.
    pub generation: Generation,
    /// The opcode byte.
    pub opcode: u8,
    /// The claimed field.
    pub field: String,
    /// OLD's bundles that break the claim.
    pub old_broken: u64,
    /// NEW's bundles that break it.
    pub new_broken: u64,
    /// The first breaking bundle of the side that breaks it.
    pub at: Option<Example>,
}

/// Everything that moved from OLD to NEW.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// Each side's builds (generations, files, bundles), for the header.
    pub old: Side,
    /// NEW's header, as `old` is OLD's.
    pub new: Side,
    /// Opcodes NEW has and OLD lacks.
    pub appeared: Vec<OpPresence>,
    /// Opcodes OLD has and NEW lacks.
    pub vanished: Vec<OpPresence>,
    /// Engines an opcode of both sides appeared on or vanished from.
    pub engines: Vec<EngineMove>,
    /// Field values NEW lists and OLD does not.
    pub values: Vec<NewValues>,
    /// Checks whose verdict on an opcode of both sides moved.
    pub checks: Vec<CheckMove>,
    /// Contradictions NEW has and OLD lacks.
    pub contradictions_new: Vec<ContradictionMove>,
    /// Contradictions OLD has and NEW lacks.
    pub contradictions_gone: Vec<ContradictionMove>,
    /// Errata OLD's bundles support and NEW's do not.
    pub errata_unsupported: Vec<ErratumMove>,
    /// Errata NEW's bundles support and OLD's do not.
    pub errata_needed: Vec<ErratumMove>,
    /// Claims NEW breaks, OLD did not.
    pub claims_broken: Vec<ClaimMove>,
    /// Claims OLD broke, NEW (which has the opcode) does not.
    pub claims_mended: Vec<ClaimMove>,
    /// [`BIT_CHANGED`] | [`BIT_NEW_DISAGREES`], as they apply.
    pub exit: u8,
    /// Set when the sides were compared per opcode across generations: OLD's and NEW's generations.
    pub across: Option<across::Generations>,
    /// Each example resolved to a path and its disassembly, where the programs could be read ([`Diff::examples`]).
    pub found: BTreeMap<Example, Found>,
    /// Examples whose programs could not be read, and why (said once each in the output).
    pub unfound: BTreeMap<Example, String>,
}

/// One side's header: its builds and totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// Compiler build → what it contributed.
    pub builds: std::collections::BTreeMap<String, BuildInputs>,
    /// Bundles of every build.
    pub bundles: u64,
    /// Files of every build.
    pub files: usize,
}

impl Side {
    fn of(s: &Summary) -> Side {
        Side { builds: s.builds.clone(), bundles: s.bundles, files: s.files() }
    }
}

impl Diff {
    /// Whether nothing certainly moved (possibly-seen values aside).
    pub fn is_empty(&self) -> bool {
        self.exit == 0
    }

    /// Every example a difference names, each once.
    pub fn examples(&self) -> BTreeSet<Example> {
        let mut out = BTreeSet::new();
        let one = |out: &mut BTreeSet<Example>, e: &Option<Example>| out.extend(e.iter().cloned());
        for p in self.appeared.iter().chain(&self.vanished) {
            one(&mut out, &p.at);
        }
        for e in &self.engines {
            one(&mut out, &e.at);
        }
        for v in &self.values {
            out.extend(v.at.values().cloned());
        }
        for c in &self.checks {
            one(&mut out, &c.at);
        }
        for c in self.contradictions_new.iter().chain(&self.contradictions_gone) {
            out.extend(c.values.first.values().map(|l| Example { side: c.side, loc: l.clone() }));
        }
        for e in self.errata_unsupported.iter().chain(&self.errata_needed) {
            one(&mut out, &e.at);
        }
        for c in self.claims_broken.iter().chain(&self.claims_mended) {
            one(&mut out, &c.at);
        }
        out
    }

    /// The generation a key's difference is shown under: its own, or `v2→v3` when compared across.
    pub fn generation_label(&self, g: Generation) -> String {
        match &self.across {
            None => g.to_string(),
            Some((old, new)) => {
                let list = |s: &BTreeSet<Generation>| s.iter().map(|g| g.as_str()).collect::<Vec<_>>().join("+");
                format!("{}→{}", list(old), list(new))
            }
        }
    }
}

/// Most frequent first, then by value.
fn by_count(mut v: Vec<(String, u64)>) -> Vec<(String, u64)> {
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

fn presence(key: (Generation, u8), op: &Op, side: Which) -> OpPresence {
    OpPresence {
        generation: key.0,
        opcode: key.1,
        bundles: op.bundles,
        engines: op.engines.iter().map(|(e, n)| (e.clone(), *n)).collect(),
        at: Example::on(side, op.first.as_ref()),
    }
}

/// The values NEW lists for one field that OLD does not, split by what can be claimed.
fn new_values(key: (Generation, u8), field: &(u64, String), old: Option<&Values>, new: &Values) -> Option<NewValues> {
    // A field OLD's evidence does not name (written by another description): nothing seen there.
    let empty = Values::default();
    let old = old.unwrap_or(&empty);
    let unlisted: Vec<(String, u64)> = new.listed.iter().filter(|(v, _)| !old.listed.contains_key(*v)).map(|(v, n)| (v.clone(), *n)).collect();
    if unlisted.is_empty() {
        return None;
    }
    let at = unlisted.iter().filter_map(|(v, _)| Some((v.clone(), Example::on(Which::New, new.first.get(v))?))).collect();
    let (new_v, possibly) = if old.complete() { (unlisted, Vec::new()) } else { (Vec::new(), unlisted) };
    Some(NewValues {
        generation: key.0,
        opcode: key.1,
        field: field.1.clone(),
        offset: field.0,
        new: by_count(new_v),
        possibly_seen: by_count(possibly),
        old_other: old.other,
        new_other: new.other,
        at,
    })
}

/// What moved from `old` to `new`, per generation unless they share none ([`Compare::Auto`]).
pub fn diff(old: &Summary, new: &Summary) -> Diff {
    diff_by(old, new, Compare::Auto)
}

/// What moved from `old` to `new`, compared as `how` says.
pub fn diff_by(old: &Summary, new: &Summary, how: Compare) -> Diff {
    match across::generations(old, new, how) {
        None => diff_keyed(old, new),
        Some((gens, g)) => {
            let mut d = diff_keyed(&old.across(g), &new.across(g));
            d.across = Some(gens);
            d
        }
    }
}

fn diff_keyed(old: &Summary, new: &Summary) -> Diff {
    let mut d = Diff {
        old: Side::of(old),
        new: Side::of(new),
        appeared: Vec::new(),
        vanished: Vec::new(),
        engines: Vec::new(),
        values: Vec::new(),
        checks: Vec::new(),
        contradictions_new: Vec::new(),
        contradictions_gone: Vec::new(),
        errata_unsupported: Vec::new(),
        errata_needed: Vec::new(),
        claims_broken: Vec::new(),
        claims_mended: Vec::new(),
        exit: 0,
        across: None,
        found: BTreeMap::new(),
        unfound: BTreeMap::new(),
    };
    for (key, o) in &old.ops {
        if !new.ops.contains_key(key) {
            d.vanished.push(presence(*key, o, Which::Old));
        }
    }
    for (key, n) in &new.ops {
        let Some(o) = old.ops.get(key) else {
            d.appeared.push(presence(*key, n, Which::New));
            // Every value, check and claim of a new opcode is new: its contradictions and broken claims are still listed below.
            for (field, broken) in &n.claims {
                if *broken > 0 {
                    let at = Example::on(Which::New, n.claims_first.get(field));
                    d.claims_broken.push(ClaimMove {
                        generation: key.0,
                        opcode: key.1,
                        field: field.clone(),
                        old_broken: 0,
                        new_broken: *broken,
                        at,
                    });
                }
            }
            continue;
        };
        let engines: BTreeSet<&String> = o.engines.keys().chain(n.engines.keys()).collect();
        for e in engines {
            let (was, is) = (o.engines.get(e), n.engines.get(e));
            if let Some(bundles) = is.xor(was) {
                let at = if is.is_some() { Example::on(Which::New, n.engines_first.get(e)) } else { Example::on(Which::Old, o.engines_first.get(e)) };
                d.engines.push(EngineMove { generation: key.0, opcode: key.1, engine: e.clone(), appeared: is.is_some(), bundles: *bundles, at });
            }
        }
        for (field, values) in &n.fields {
            d.values.extend(new_values(*key, field, o.fields.get(field), values));
        }
        let checks: BTreeSet<&String> = o.checks.keys().chain(n.checks.keys()).collect();
        let none = Check::default();
        for c in checks {
            let (was, is) = (o.checks.get(c).unwrap_or(&none), n.checks.get(c).unwrap_or(&none));
            if let Some(change) = CheckChange::of(was, is) {
                let at = match change {
                    CheckChange::NowRefused => Example::on(Which::New, is.first_refused.as_ref()),
                    CheckChange::NowDisagreesAccepted => Example::on(Which::New, is.first_disagree.as_ref()),
                    CheckChange::NoLongerRefused => Example::on(Which::Old, was.first_refused.as_ref()),
                    CheckChange::NoLongerDisagrees => Example::on(Which::Old, was.first_disagree.as_ref()),
                };
                d.checks.push(CheckMove { generation: key.0, opcode: key.1, check: c.clone(), change, old: was.clone(), new: is.clone(), at });
            }
        }
        let claims: BTreeSet<&String> = o.claims.keys().chain(n.claims.keys()).collect();
        for field in claims {
            let (was, is) = (o.claims.get(field).copied().unwrap_or(0), n.claims.get(field).copied().unwrap_or(0));
            let m = |at| ClaimMove { generation: key.0, opcode: key.1, field: field.clone(), old_broken: was, new_broken: is, at };
            match (was, is) {
                (0, 1..) => d.claims_broken.push(m(Example::on(Which::New, n.claims_first.get(field)))),
                (1.., 0) => d.claims_mended.push(m(Example::on(Which::Old, o.claims_first.get(field)))),
                _ => {}
            }
        }
    }
    let contradiction = |side: Which| {
        move |(k, v): (&(Generation, u8, String, String), &Values)| ContradictionMove {
            generation: k.0,
            opcode: k.1,
            check: k.2.clone(),
            field: k.3.clone(),
            values: v.clone(),
            side,
        }
    };
    let present = |s: &Summary, k| s.contradictions.get(k).is_some_and(|v| v.total() > 0);
    d.contradictions_new = new.contradictions.iter().filter(|(k, v)| v.total() > 0 && !present(old, k)).map(contradiction(Which::New)).collect();
    d.contradictions_gone = old.contradictions.iter().filter(|(k, v)| v.total() > 0 && !present(new, k)).map(contradiction(Which::Old)).collect();
    let ids: BTreeSet<&String> = old.errata.keys().chain(new.errata.keys()).collect();
    for id in ids {
        let (was, is) = (old.errata.get(id), new.errata.get(id));
        match (was.copied().unwrap_or(0), is.copied().unwrap_or(0)) {
            (b @ 1.., 0) => d.errata_unsupported.push(ErratumMove {
                id: id.clone(),
                bundles: b,
                listed_by_other: is.is_some(),
                at: Example::on(Which::Old, old.errata_first.get(id)),
            }),
            (0, b @ 1..) => d.errata_needed.push(ErratumMove {
                id: id.clone(),
                bundles: b,
                listed_by_other: was.is_some(),
                at: Example::on(Which::New, new.errata_first.get(id)),
            }),
            _ => {}
        }
    }
    let disagrees = !d.contradictions_new.is_empty() || !d.claims_broken.is_empty() || d.checks.iter().any(|c| c.change == CheckChange::NowRefused);
    let changed = disagrees
        || !d.appeared.is_empty()
        || !d.vanished.is_empty()
        || !d.engines.is_empty()
        || d.values.iter().any(|v| !v.new.is_empty())
        || !d.checks.is_empty()
        || !d.contradictions_gone.is_empty()
        || !d.errata_unsupported.is_empty()
        || !d.errata_needed.is_empty()
        || !d.claims_mended.is_empty();
    if changed {
        d.exit |= BIT_CHANGED;
    }
    if disagrees {
        d.exit |= BIT_NEW_DISAGREES;
    }
    d
}
