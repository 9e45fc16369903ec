//! The worker with planted bugs (src/bin/planted-worker.rs): every bug is
//! found and reduced to a repro that differs from a bundle both sides agree
//! on in the planted field alone, within 60 s on 2 cores; with every bug off
//! nothing is reported.

use std::time::{Duration, Instant};
use tpb_differ::campaign::{self, Config};
use tpb_differ::group::Group;
use tpb_differ::inputs::Real;
use tpb_differ::worker::Process;
use tpb_differ::Kind;

fn run(bugs: &str) -> tpb_differ::Outcome {
    let exe = env!("CARGO_BIN_EXE_planted-worker");
    // Two workers, each on its own thread, as `tpb differ --jobs 2` runs them on 2 cores.
    let mut a = Process::from_argv(vec![exe.to_string(), bugs.to_string()], Duration::from_millis(300));
    let mut b = Process::from_argv(vec![exe.to_string(), bugs.to_string()], Duration::from_millis(300));
    let cfg = Config { count: 3_000, time: Duration::from_secs(40), ..Config::default() };
    campaign::run_pool(vec![&mut a, &mut b], &Real::default(), &cfg, &|_| {}).unwrap()
}

/// The groups of `kind` on `opcode` whose field is `field`, each reduced to that field alone.
fn reduced<'a>(o: &'a tpb_differ::Outcome, kind: Kind, opcode: Option<u8>, field: &dyn Fn(&str) -> bool) -> Vec<&'a Group> {
    o.groups
        .by_signature
        .values()
        .filter(|g| g.signature.kind == kind && opcode.is_none_or(|op| g.signature.opcode == op) && field(&g.signature.field))
        .collect()
}

fn alone(g: &Group, field: &str) {
    let r = g.repro.as_ref().unwrap_or_else(|| panic!("{:?} has no repro", g.signature));
    assert_eq!(r.fields, vec![field.to_string()], "{:?}: the repro differs from its base in {:?}", g.signature, r.fields);
    assert!(!r.bytes.is_empty() && r.bytes.len() <= 4, "{:?}", r.bytes);
    assert_ne!(r.base, r.bundle);
}

#[test]
fn every_planted_bug_is_found_and_reduced_to_its_field() {
    let t = Instant::now();
    let o = run("all");
    let took = t.elapsed();
    let text = tpb_differ::report::text(&o, &|l| l.to_string());
    assert!(took < Duration::from_secs(60), "{took:?}\n{text}");

    for (op, field) in [(0x46, "src.stride"), (0x41, "in_dtype_nibbles"), (0x02, "moving.addr")] {
        let found = reduced(&o, Kind::Decode, Some(op), &|f| f == field);
        assert!(!found.is_empty(), "{op:#04x} {field} not found:\n{text}");
        found.iter().for_each(|g| alone(g, field));
    }
    // bf16 and f16 swapped: every plain dtype field that held either.
    let swapped = |g: &Group| ["bf16", "f16"].contains(&g.disagreement.worker.as_str());
    let dtype: Vec<&Group> = o.groups.by_signature.values().filter(|g| g.signature.kind == Kind::Decode && swapped(g)).collect();
    assert!(dtype.len() >= 10 && dtype.iter().any(|g| g.signature.field == "src_dtype"), "{}", dtype.len());
    dtype.iter().for_each(|g| alone(g, &g.signature.field));
    // The missing zero-num check: a num element set to zero is called valid.
    let rule = reduced(&o, Kind::Verdict, None, &|f| f.contains(".num["));
    assert!(!rule.is_empty(), "{text}");
    for g in &rule {
        assert!(g.disagreement.worker == "valid" && g.disagreement.expected.contains("zero-num"), "{:?}", g.disagreement);
        alone(g, g.signature.field.split('[').next().unwrap_or(""));
    }
    // The crash and the hang: on one opcode each, in every generation, reduced to the opcode.
    for (kind, op) in [(Kind::Crash, 0x43), (Kind::Hang, 0x45)] {
        let found = reduced(&o, kind, Some(op), &|f| f == "decode");
        assert_eq!(found.len(), 3, "{kind} {op:#04x}:\n{text}");
        found.iter().for_each(|g| alone(g, "opcode"));
    }
    // Nothing else: every group is one of the planted bugs.
    let stray: Vec<_> = o
        .groups
        .by_signature
        .values()
        .filter(|g| !swapped(g))
        .map(|g| &g.signature)
        .filter(|s| match s.kind {
            Kind::Decode => !["src.stride", "in_dtype_nibbles", "moving.addr"].contains(&s.field.as_str()),
            Kind::Verdict => !s.field.contains(".num["),
            Kind::Crash => s.opcode != 0x43,
            Kind::Hang => s.opcode != 0x45,
            _ => true,
        })
        .collect();
    assert!(stray.is_empty(), "{stray:?}\n{text}");
    assert!(o.unreduced.is_empty(), "{:?}", o.unreduced);
    assert_eq!(o.stats.quarantined.len(), 6, "{:?}", o.stats.quarantined);
}

#[test]
fn with_every_bug_off_nothing_is_reported() {
    let o = run("");
    let text = tpb_differ::report::text(&o, &|l| l.to_string());
    assert!(o.groups.by_signature.is_empty(), "{text}");
    assert!(text.contains("no disagreement"), "{text}");
    assert!(
        o.stats.inputs.get("generated").is_some_and(|n| *n == 3_000) && o.stats.inputs.get("mutated").is_some_and(|n| *n > 2_000),
        "{:?}",
        o.stats.inputs
    );
}
