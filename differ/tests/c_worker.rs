//! The independent C decoder (differ/workers/c), built only from the
//! generated header, held against the description on every real bundle
//! available and on generated and mutated bundles of every opcode and
//! generation, through both transports: not one disagreement.

mod support;

use std::time::Duration;
use tpb_differ::campaign::{self, Config};
use tpb_differ::inputs::Real;
use tpb_differ::worker::{Library, Process};
use tpb_differ::{Ask, Kind};

fn config(count: u64) -> Config {
    Config { asks: vec![Ask::Decode], count, time: Duration::from_secs(600), batch: 3000, ..Config::default() }
}

fn no_disagreement(o: &tpb_differ::Outcome) {
    let text = tpb_differ::report::text(o, &|l| l.to_string());
    assert!(o.groups.by_signature.is_empty() && o.groups.overflow == 0, "{text}");
    assert_eq!(o.asks, vec![Ask::Decode], "the C worker answers decode only");
}

#[test]
fn the_c_worker_agrees_in_process_on_every_real_bundle_and_generated_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (lib, _) = support::c_worker(dir.path());
    let mut w = Library::load(&lib).unwrap();
    assert_eq!(w.asks(), vec![Ask::Decode]);
    let (real, files) = support::real_bundles();
    assert!(files >= 11 && real.inputs.len() > 20_000, "{files} programs, {} bundles", real.inputs.len());
    let o = campaign::run(&mut w, &real, &config(30_000), &|_| {}).unwrap();
    no_disagreement(&o);
    let sent = |s: &str| o.stats.inputs.get(s).copied().unwrap_or(0);
    assert_eq!(sent("real"), real.inputs.len() as u64, "every distinct real bundle reaches the worker");
    assert!(sent("generated") == 30_000 && sent("mutated") >= 29_000, "{:?}", o.stats.inputs);
}

#[test]
fn the_c_worker_agrees_as_a_process_and_a_planted_difference_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = support::c_worker(dir.path());
    let mut p = Process::new(&exe.display().to_string(), Duration::from_secs(5)).unwrap();
    let o = campaign::run(&mut p, &Real::default(), &config(3_000), &|_| {}).unwrap();
    no_disagreement(&o);
    assert_eq!(p.starts, 1, "one process served the whole run");
    // The same worker behind a filter that corrupts one field is caught: the comparison is live.
    let sed = format!("{} | sed -u 's/ src_dtype=bf16/ src_dtype=f16/'", exe.display());
    let mut bad = Process::from_argv(vec!["sh".into(), "-c".into(), sed], Duration::from_secs(5));
    let o = campaign::run(&mut bad, &Real::default(), &config(3_000), &|_| {}).unwrap();
    assert!(o.groups.by_signature.keys().all(|s| s.kind == Kind::Decode && s.field == "src_dtype") && !o.groups.by_signature.is_empty());
}
