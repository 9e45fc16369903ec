//! The property campaign: every bundle family × generation, in-process on
//! stable Rust, for a time budget. Each unit draws seeded inputs and checks
//! the properties of `tpb_isa::props` on generator output for that family
//! (round trip, text, validate-clean, single mutation → exactly its check)
//! and on raw bytes carrying the family's opcodes. A panic is caught per
//! input and reported with that input.

use super::panics;
use super::report::{Case, Section};
use super::seeds::family_name;
use arbitrary::Unstructured;
use indicatif::ProgressBar;
use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tpb_isa::bundle::{BodyKind, BUNDLE_BYTES};
use tpb_isa::opcode::{OpcodeInfo, OPCODES};
use tpb_isa::props::{self, seeded_bytes};
use tpb_isa::{smith, text, Generation};

/// Bytes behind one campaign input.
const INPUT: usize = 512;
/// Failing inputs kept per unit.
const KEEP: usize = 5;
/// Inputs every unit checks however small the budget.
const MIN_ITERS: u64 = 32;

/// One family × generation.
#[derive(Clone, Copy)]
pub struct Unit {
    pub kind: BodyKind,
    pub generation: Generation,
}

impl Unit {
    pub fn name(&self) -> String {
        format!("{}/{}", family_name(self.kind), self.generation)
    }

    pub fn all() -> Vec<Unit> {
        Generation::ALL.iter().flat_map(|&g| BodyKind::ALL.iter().map(move |&k| Unit { kind: k, generation: g })).collect()
    }
}

/// A failing input: the 64-byte bundle under test and what broke.
pub struct Failure {
    /// The fuzz target whose corpus reproduces it (`roundtrip`, `validate`, …).
    pub target: &'static str,
    pub message: String,
    pub bundle: Vec<u8>,
    pub seed: u64,
}

/// What one unit did.
pub struct UnitResult {
    pub unit: Unit,
    pub iterations: u64,
    pub mutations: u64,
    pub time: Duration,
    pub failures: Vec<Failure>,
    pub failed_inputs: u64,
}

/// Runs every unit for about `budget` of wall time on `threads` threads.
pub fn run(budget: Duration, seed: u64, threads: usize, bar: &ProgressBar) -> Vec<UnitResult> {
    let units = Unit::all();
    let threads = threads.clamp(1, units.len());
    let slice = slice_of(budget, threads, units.len());
    let total = AtomicU64::new(0);
    let _quiet = panics::Quiet::install();
    // One unit per task (each runs for its slice), results in unit order: the report's.
    crate::ahead::on_threads(threads, || {
        let each = |(i, &unit): (usize, &Unit)| {
            let r = run_unit(unit, unit_seed(seed, i), slice);
            let done = total.fetch_add(r.iterations, Ordering::Relaxed) + r.iterations;
            bar.set_message(format!("{} inputs", done));
            bar.inc(1);
            r
        };
        units.par_iter().enumerate().with_max_len(1).map(each).collect()
    })
}

/// The seed unit `i` draws its inputs from: the run's, with the unit's number
/// flipped into the high bits, so no two units draw the same inputs whatever the run's seed.
fn unit_seed(seed: u64, i: usize) -> u64 {
    seed ^ ((i as u64 + 1) << 40)
}

/// Each unit's share of `budget` when `threads` run `units` units one after another.
fn slice_of(budget: Duration, threads: usize, units: usize) -> Duration {
    budget.mul_f64(threads as f64 / units.max(1) as f64)
}

fn ops(k: BodyKind, g: Option<Generation>) -> Vec<&'static OpcodeInfo> {
    OPCODES.iter().filter(|o| o.body == k && g.is_none_or(|g| o.available(g))).collect()
}

fn run_unit(unit: Unit, seed: u64, slice: Duration) -> UnitResult {
    let gen_ops = ops(unit.kind, Some(unit.generation));
    let raw_ops = ops(unit.kind, None);
    drive(unit, seed, slice, |data, found, current| one_input(unit, &gen_ops, &raw_ops, &BYTES_PROPERTIES, data, found, current))
}

/// Runs `check` (which returns whether it checked a mutation) on seeded
/// inputs for about `slice`, catching a panic per input, counting the inputs
/// that broke a property and keeping the first [`KEEP`] of their failures.
fn drive(unit: Unit, seed: u64, slice: Duration, mut check: impl FnMut(&[u8], &mut Vec<(&'static str, String)>, &mut Vec<u8>) -> bool) -> UnitResult {
    let start = Instant::now();
    let mut r = UnitResult { unit, iterations: 0, mutations: 0, time: Duration::ZERO, failures: Vec::new(), failed_inputs: 0 };
    for n in 0u64.. {
        if n >= MIN_ITERS && n.is_multiple_of(16) && start.elapsed() >= slice {
            break;
        }
        let s = seed.wrapping_add(n);
        let data = seeded_bytes(s, INPUT);
        let mut found = Vec::new();
        let mut current = Vec::new();
        let outcome = panics::catching(|| check(&data, &mut found, &mut current));
        match outcome {
            Ok(mutated) => r.mutations += u64::from(mutated),
            Err(p) => found.push(("campaign", p)),
        }
        if !found.is_empty() {
            r.failed_inputs += 1;
            for (target, message) in found {
                if r.failures.len() < KEEP {
                    r.failures.push(Failure { target, message, bundle: current.clone(), seed: s });
                }
            }
        }
        r.iterations = n + 1;
    }
    r.time = start.elapsed();
    r
}

/// Checks one input; pushes (target, message) per broken property and leaves
/// the bundle under test in `current`. Returns whether a mutation was checked.
fn one_input(
    unit: Unit,
    gen_ops: &[&'static OpcodeInfo],
    raw_ops: &[&'static OpcodeInfo],
    properties: &[BytesProperty],
    data: &[u8],
    found: &mut Vec<(&'static str, String)>,
    current: &mut Vec<u8>,
) -> bool {
    let g = unit.generation;
    let mut mutated = false;
    let mut u = Unstructured::new(data);
    if let Ok(b) = u.choose(gen_ops).and_then(|op| smith::bundle_for(&mut u, g, op)) {
        let raw = b.encode();
        *current = raw.to_vec();
        if let Err(e) = props::generated_holds(g, &b) {
            found.push(("structured", e.to_string()));
        }
        bytes_properties(properties, &raw, found);
        match smith::mutate(&mut u, &b, g) {
            Ok(Some(m)) => {
                mutated = true;
                if let Err(e) = props::mutation_holds(g, &b, &m) {
                    found.push(("validate", e.to_string()));
                }
            }
            Ok(None) if unit.kind != BodyKind::Opaque => {
                found.push(("validate", format!("{g}: no mutation applies to a typed bundle: {}", text::disasm(&b))));
            }
            _ => {}
        }
        if !found.is_empty() {
            return mutated;
        }
    }
    if let Some(raw) = raw_bundle(raw_ops, data) {
        *current = raw.to_vec();
        bytes_properties(properties, &raw, found);
    }
    mutated
}

/// Raw bytes with one of the family's opcodes (on any generation): the
/// input's last bundle, its opcode byte the one of `raw_ops` its first byte picks.
fn raw_bundle(raw_ops: &[&'static OpcodeInfo], data: &[u8]) -> Option<[u8; BUNDLE_BYTES]> {
    let op = raw_ops.get(usize::from(*data.first()?) % raw_ops.len().max(1))?;
    let mut raw: [u8; BUNDLE_BYTES] = data.get(data.len().checked_sub(BUNDLE_BYTES)?..)?.try_into().ok()?;
    raw[0] = op.byte;
    Some(raw)
}

/// A property of any bundle's bytes, named by the fuzz target that checks it.
type BytesProperty = (&'static str, fn(&[u8]) -> props::Outcome);

/// What the bytes of every bundle the campaign draws must hold.
const BYTES_PROPERTIES: [BytesProperty; 3] = [("roundtrip", props::roundtrip), ("text", props::text_roundtrip), ("validate", props::validate_any)];

fn bytes_properties(properties: &[BytesProperty], raw: &[u8], found: &mut Vec<(&'static str, String)>) {
    for &(target, p) in properties {
        if let Err(e) = p(raw) {
            found.push((target, e.to_string()));
        }
    }
}

/// The campaign section; failing inputs are returned for the report folder.
pub fn section(results: &[UnitResult]) -> (Section, Vec<(String, &Failure)>) {
    let mut s = Section::new("campaign", "property campaign");
    let mut artifacts = Vec::new();
    for r in results {
        let name = r.unit.name();
        let gen_ops = ops(r.unit.kind, Some(r.unit.generation)).len();
        let covered = if gen_ops == 0 {
            format!("no {} opcode is encoded on {}: raw-byte properties only", family_name(r.unit.kind), r.unit.generation)
        } else {
            format!("{} generated, {} checked", crate::out::count(gen_ops as u64, "opcode"), crate::out::count(r.mutations, "single mutation"))
        };
        let case = if r.failures.is_empty() {
            Case::pass(&name, format!("{}; {covered}", crate::out::count(r.iterations, "input")))
        } else {
            let mut lines = vec![format!("{} of {} inputs broke a property; first {}:", r.failed_inputs, r.iterations, r.failures.len())];
            for (i, f) in r.failures.iter().enumerate() {
                let file = format!("failures/campaign-{}-{}-{i}.bin", family_name(r.unit.kind), r.unit.generation);
                lines.push(format!("[{}] seed {:#x}, target `{}`, bundle in {file}: {}", i, f.seed, f.target, f.message));
                artifacts.push((file, f));
            }
            Case::fail(&name, lines.join("\n"))
        };
        s.cases.push(case.with_time(r.time).with_checked(r.iterations));
    }
    (s, artifacts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::report::Status;

    #[test]
    fn every_unit_runs_and_passes_a_short_campaign() -> Result<(), Box<dyn std::error::Error>> {
        let bar = ProgressBar::hidden();
        let results = run(Duration::from_millis(300), 42, 2, &bar);
        assert_eq!(results.len(), BodyKind::ALL.len() * Generation::ALL.len());
        assert!(results.iter().all(|r| r.iterations >= MIN_ITERS));
        // In the units' own order (by generation, then family), whichever thread finished first.
        let names: Vec<String> = results.iter().map(|r| r.unit.name()).collect();
        assert_eq!(names, Unit::all().iter().map(Unit::name).collect::<Vec<_>>());
        let typed_v4 =
            results.iter().find(|r| r.unit.kind == BodyKind::MatmulMx && r.unit.generation == Generation::V4).ok_or("no MatmulMx unit on v4")?;
        assert!(typed_v4.mutations > 0);
        // A mutation is counted only where one was checked: a family with no opcode on a generation generates none.
        for r in &results {
            let generated = !ops(r.unit.kind, Some(r.unit.generation)).is_empty();
            assert_eq!(r.mutations > 0, generated, "{}: {} mutations", r.unit.name(), r.mutations);
        }
        assert!(results.iter().any(|r| ops(r.unit.kind, Some(r.unit.generation)).is_empty()), "every family has opcodes on every generation");
        let (s, artifacts) = section(&results);
        for (c, r) in s.cases.iter().zip(&results) {
            let raw_only = ops(r.unit.kind, Some(r.unit.generation)).is_empty();
            assert_eq!(c.detail.ends_with("raw-byte properties only"), raw_only, "{}: {}", c.name, c.detail);
            assert_eq!(c.detail.contains(" generated, "), !raw_only, "{}: {}", c.name, c.detail);
        }
        assert!(s.cases.iter().all(|c| c.status == Status::Pass), "{:?}", s.cases.iter().find(|c| c.status != Status::Pass));
        assert!(artifacts.is_empty());
        Ok(())
    }

    #[test]
    fn the_bar_counts_units_and_inputs() {
        // One thread, so the last message is the last count.
        let bar = ProgressBar::hidden();
        let results = run(Duration::ZERO, 7, 1, &bar);
        assert_eq!(bar.position(), Unit::all().len() as u64);
        let inputs: u64 = results.iter().map(|r| r.iterations).sum();
        assert_eq!(inputs, MIN_ITERS * Unit::all().len() as u64);
        assert_eq!(bar.message(), format!("{inputs} inputs"));
    }

    #[test]
    fn a_unit_draws_the_opcodes_of_its_family_on_its_generation() {
        for unit in Unit::all() {
            let (all, on_gen) = (ops(unit.kind, None), ops(unit.kind, Some(unit.generation)));
            let family = OPCODES.iter().filter(|o| o.body == unit.kind).count();
            assert!(family > 0 && all.len() == family, "{}", unit.name());
            assert!(all.iter().all(|o| o.body == unit.kind), "{}", unit.name());
            let available = all.iter().filter(|o| o.available(unit.generation)).count();
            assert_eq!(on_gen.len(), available, "{}", unit.name());
            assert!(on_gen.iter().all(|o| o.body == unit.kind && o.available(unit.generation)), "{}", unit.name());
        }
        // Some opcodes are missing from some generation, so the filter binds.
        assert!(Unit::all().iter().any(|u| ops(u.kind, Some(u.generation)).len() < ops(u.kind, None).len()));
    }

    #[test]
    fn the_raw_bundle_is_the_input_tail_with_a_family_opcode() {
        // The family with the most opcodes.
        let Some(ops) = BodyKind::ALL.iter().map(|&k| ops(k, None)).max_by_key(Vec::len) else { panic!("no family") };
        assert!(ops.len() > 1);
        let mut picked = std::collections::BTreeSet::new();
        for first in 0..=u8::MAX {
            let mut data = seeded_bytes(u64::from(first), INPUT);
            data[0] = first;
            let Some(raw) = raw_bundle(&ops, &data) else { panic!("input {first}: no raw bundle") };
            assert_eq!(raw[1..], data[INPUT - BUNDLE_BYTES + 1..]);
            assert_eq!(raw[0], ops[usize::from(first) % ops.len()].byte);
            picked.insert(raw[0]);
        }
        assert_eq!(picked.len(), ops.len(), "every opcode of the family is drawn");
        assert_eq!(raw_bundle(&[], &seeded_bytes(1, INPUT)), None);
        assert_eq!(raw_bundle(&ops, &[1; BUNDLE_BYTES - 1]), None);
    }

    #[test]
    fn no_two_units_draw_the_same_inputs() {
        let n = Unit::all().len();
        for seed in [0, 42, u64::MAX, 0xFFFF_FF00_0000_0000] {
            let mut seeds: Vec<u64> = (0..n).map(|i| unit_seed(seed, i)).collect();
            assert!(seeds.iter().all(|&s| s != seed), "a unit drew the run's own seed {seed:#x}");
            seeds.sort_unstable();
            seeds.dedup();
            assert_eq!(seeds.len(), n, "seed {seed:#x}");
        }
    }

    #[test]
    fn the_budget_is_shared_by_the_units_each_thread_runs() {
        assert_eq!(slice_of(Duration::from_secs(30), 2, 30), Duration::from_secs(2));
        assert_eq!(slice_of(Duration::from_secs(30), 1, 30), Duration::from_secs(1));
        assert_eq!(slice_of(Duration::from_secs(8), 4, 4), Duration::from_secs(8));
        assert_eq!(slice_of(Duration::from_secs(8), 1, 0), Duration::from_secs(8));
    }

    #[test]
    fn the_driver_counts_failed_inputs_and_keeps_the_first_failures() {
        // Every third input breaks two properties, every seventh panics; every other one checks a mutation.
        let _quiet = panics::Quiet::install();
        let unit = Unit { kind: BodyKind::Branch, generation: Generation::V3 };
        let mut n = 0u64;
        let r = drive(unit, 100, Duration::ZERO, |data, found, current| {
            n += 1;
            current.extend_from_slice(&data[..4]);
            if n.is_multiple_of(7) {
                panic!("input {n} panicked");
            }
            if n.is_multiple_of(3) {
                found.push(("text", format!("input {n}")));
                found.push(("roundtrip", format!("input {n} again")));
            }
            n.is_multiple_of(2)
        });
        // A zero slice stops at the first multiple of 16 past MIN_ITERS.
        assert_eq!(r.iterations, MIN_ITERS);
        let failed = (1..=MIN_ITERS).filter(|i| i % 3 == 0 || i % 7 == 0).count() as u64;
        assert_eq!(r.failed_inputs, failed);
        assert_eq!(r.mutations, (1..=MIN_ITERS).filter(|i| i % 2 == 0 && i % 7 != 0).count() as u64);
        assert_eq!(r.failures.len(), KEEP);
        let targets: Vec<&str> = r.failures.iter().map(|f| f.target).collect();
        assert_eq!(targets, ["text", "roundtrip", "text", "roundtrip", "campaign"]);
        // Each failure keeps its own input's seed and bundle.
        assert_eq!(r.failures[0].seed, 102);
        assert_eq!(r.failures[0].bundle, seeded_bytes(102, INPUT)[..4]);
        assert_eq!(r.failures[4].seed, 106);
        assert!(r.failures[4].message.contains("input 7 panicked"), "{}", r.failures[4].message);
    }

    #[test]
    fn each_drawn_bundle_is_held_to_the_byte_properties_and_a_broken_one_ends_the_input() {
        fn broken(_: &[u8]) -> props::Outcome {
            Err(props::Violation::TextLine { line: "broken".into(), again: String::new() })
        }
        let unit = Unit { kind: BodyKind::ALL[0], generation: Generation::V3 };
        let (gen_ops, raw_ops) = (ops(unit.kind, Some(unit.generation)), ops(unit.kind, None));
        let mut structured = 0;
        for s in 0..32 {
            let data = seeded_bytes(s, INPUT);
            let raw = raw_bundle(&raw_ops, &data).expect("an input holds a bundle").to_vec();
            let (mut found, mut current) = (Vec::new(), Vec::new());
            one_input(unit, &gen_ops, &raw_ops, &BYTES_PROPERTIES, &data, &mut found, &mut current);
            assert_eq!((found.as_slice(), &current), (&[][..], &raw), "seed {s}: a clean input ends on its raw bundle");
            // A property that always breaks: reported once, by the first bundle drawn.
            let (mut found, mut current) = (Vec::new(), Vec::new());
            one_input(unit, &gen_ops, &raw_ops, &[("text", broken)], &data, &mut found, &mut current);
            assert_eq!(found, [("text", "text -> bytes -> text differs:\nbroken\n".to_string())], "seed {s}");
            let mut u = Unstructured::new(&data);
            match u.choose(&gen_ops).and_then(|op| smith::bundle_for(&mut u, unit.generation, op)) {
                Ok(b) => {
                    structured += 1;
                    assert_eq!(current, b.encode().to_vec(), "seed {s}: the structured bundle is the one kept");
                }
                Err(_) => assert_eq!(current, raw, "seed {s}"),
            }
        }
        assert!(structured > 16, "{structured} of 32 inputs drew a structured bundle");
    }

    /// Clean inputs of every family find nothing: an opaque body, to which no
    /// mutation applies, is no finding (a typed one would be).
    #[test]
    fn clean_inputs_of_every_family_find_nothing() {
        for unit in Unit::all() {
            let (gen_ops, raw_ops) = (ops(unit.kind, Some(unit.generation)), ops(unit.kind, None));
            for s in 0..8 {
                let (mut found, mut current) = (Vec::new(), Vec::new());
                one_input(unit, &gen_ops, &raw_ops, &BYTES_PROPERTIES, &seeded_bytes(s, INPUT), &mut found, &mut current);
                assert!(found.is_empty(), "{}: seed {s}: {found:?}", unit.name());
            }
        }
    }

    #[test]
    fn the_driver_runs_until_its_slice_is_spent() {
        let unit = Unit { kind: BodyKind::Branch, generation: Generation::V3 };
        let slice = Duration::from_millis(150);
        let r = drive(unit, 1, slice, |_, _, _| false);
        assert!(r.time >= slice && r.iterations > MIN_ITERS && r.iterations.is_multiple_of(16), "{} inputs in {:?}", r.iterations, r.time);
        assert_eq!((r.mutations, r.failed_inputs), (0, 0));
    }

    #[test]
    fn a_failing_unit_is_a_failed_case_with_its_bundle() {
        let unit = Unit { kind: BodyKind::Branch, generation: Generation::V3 };
        let failure = Failure { target: "text", message: "text round trip changed bytes".into(), bundle: vec![0xA9; 64], seed: 9 };
        let r = UnitResult { unit, iterations: 10, mutations: 3, time: Duration::ZERO, failures: vec![failure], failed_inputs: 1 };
        let results = [r];
        let (s, artifacts) = section(&results);
        assert_eq!(s.cases[0].status, Status::Fail);
        assert!(s.cases[0].detail.contains("target `text`") && s.cases[0].detail.contains("seed 0x9"));
        assert_eq!(artifacts.len(), 1);
        assert_eq!(artifacts[0].0, "failures/campaign-branch-v3-0.bin");
    }
}
