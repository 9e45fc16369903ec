//! How well the errata carry to a compiler build they were not drawn from:
//! each build is held out in turn, and its bundles are judged with only the
//! errata that the *other* builds support. An erratum fitted to one build's
//! quirks then shows as that build's invalid bundles; one that states where
//! the spec's rule really binds is supported elsewhere too and carries.
//!
//! Support is counted per accepted value where an erratum lists values (an
//! erratum naming four unnamed opcodes carries only those the other builds
//! write), and per erratum where it states a reading (an alignment, a
//! placement, a class of writes).

use std::collections::{BTreeMap, BTreeSet};
use tpb_isa::errata::{Accepts, Erratum};
use tpb_isa::validate::{self, Finding};
use tpb_isa::{Bundle, Generation};

/// One stream of real bundles and the build that wrote it.
#[derive(Clone, Copy, Debug)]
pub struct Labelled<'a> {
    /// The compiler build that wrote it.
    pub build: &'a str,
    /// The generation it is judged under.
    pub generation: Generation,
    /// Its bytes: whole bundles.
    pub bytes: &'a [u8],
}

/// One build held out: its bundles, judged with the other builds' errata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeldOut {
    /// The build held out.
    pub build: String,
    /// Per generation: (bundles, invalid with the other builds' errata, invalid with every erratum).
    pub by_generation: BTreeMap<Generation, (u64, u64, u64)>,
    /// Errata this build alone supports (dropped whole while it is held out), in table order.
    pub dropped: Vec<&'static str>,
}

impl HeldOut {
    /// Its bundles, over every generation.
    pub fn bundles(&self) -> u64 {
        self.by_generation.values().map(|v| v.0).sum()
    }
    /// Invalid with only the errata the other builds support.
    pub fn invalid(&self) -> u64 {
        self.by_generation.values().map(|v| v.1).sum()
    }
}

/// What an erratum's support is counted by: the erratum, and the value it
/// accepted where it lists values.
type Witness = (&'static str, Option<u64>);

fn witness(e: &Erratum, value: Option<u64>) -> Witness {
    match e.accepts {
        Accepts::Values { .. } | Accepts::Opcode => (e.id, value),
        _ => (e.id, None),
    }
}

/// Calls `each(bundle, generation, spec findings)` for every bundle with a finding.
fn with_findings(s: &Labelled<'_>, mut each: impl FnMut(&Bundle, &[Finding])) -> u64 {
    validate::decode_stream(s.bytes, s.generation, |_, bundle, spec| {
        if !spec.is_empty() {
            each(bundle, spec);
        }
    }) as u64
}

/// Holds out each build of `streams` in turn (builds in name order).
pub fn hold_out_each_build(streams: &[Labelled<'_>]) -> Vec<HeldOut> {
    // Which builds support each witness (an erratum accepts a finding of one of their bundles).
    let mut support: BTreeMap<Witness, BTreeSet<&str>> = BTreeMap::new();
    let mut amended = Vec::new();
    for s in streams {
        with_findings(s, |bundle, spec| {
            amended.clear();
            amended.extend_from_slice(spec);
            validate::amend(bundle, s.generation, &mut amended);
            for f in &amended {
                if let Some(e) = f.erratum.and_then(tpb_isa::errata::by_id) {
                    support.entry(witness(e, validate::finding_value(bundle, f))).or_default().insert(s.build);
                }
            }
        });
    }
    let builds: BTreeSet<&str> = streams.iter().map(|s| s.build).collect();
    builds
        .into_iter()
        .map(|held| {
            let elsewhere = |e: &Erratum, v: Option<u64>| support.get(&witness(e, v)).is_some_and(|b| b.iter().any(|x| *x != held));
            // An erratum is dropped whole when no other build supports any of its witnesses.
            let dropped = tpb_isa::errata::ERRATA
                .iter()
                .filter(|e| {
                    let mine = support.iter().filter(|((id, _), _)| *id == e.id);
                    let (mut here, mut other) = (false, false);
                    for (_, b) in mine {
                        here |= b.contains(held);
                        other |= b.iter().any(|x| *x != held);
                    }
                    here && !other
                })
                .map(|e| e.id)
                .collect();
            let mut out = HeldOut { build: held.to_string(), dropped, ..HeldOut::default() };
            for s in streams.iter().filter(|s| s.build == held) {
                let (mut invalid, mut invalid_all) = (0u64, 0u64);
                let n = with_findings(s, |bundle, spec| {
                    let mut all = spec.to_vec();
                    validate::amend(bundle, s.generation, &mut all);
                    let mut some = spec.to_vec();
                    validate::amend_with(bundle, s.generation, &mut some, &elsewhere);
                    invalid_all += u64::from(!validate::is_valid(&all));
                    invalid += u64::from(!validate::is_valid(&some));
                });
                let e = out.by_generation.entry(s.generation).or_default();
                *e = (e.0 + n, e.1 + invalid, e.2 + invalid_all);
            }
            out
        })
        .collect()
}

/// The held-out table as Markdown: one row per build and generation.
pub fn markdown(folds: &[HeldOut]) -> String {
    use std::fmt::Write as _;
    let mut m = String::from(
        "| held-out build | generation | bundles | invalid with the other builds' errata | % | invalid with every erratum | errata only it supports |\n|---|---|---:|---:|---:|---:|---|\n",
    );
    for f in folds {
        for (g, (n, invalid, all)) in &f.by_generation {
            let pct = if *n == 0 { 0.0 } else { 100.0 * *invalid as f64 / *n as f64 };
            let dropped =
                if f.dropped.is_empty() { "none".to_string() } else { f.dropped.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ") };
            let _ = writeln!(m, "| {} | {g} | {n} | {invalid} | {pct:.3} | {all} | {dropped} |", crate::text_safe::md_cell(&f.build));
        }
    }
    m
}
