//! One differential run: inputs from every source fed to the worker in
//! batches until the sources or the time run out, every answer compared,
//! disagreements grouped, each group's first input reduced.

use crate::compare::{compare, Kind};
use crate::group::Groups;
use crate::inputs::{self, Input, Real, Source};
use crate::minimise::{Minimiser, NoRepro};
use crate::reply::Reply;
use crate::request::{Ask, Request};
use crate::worker::Worker;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tpb_isa::{Generation, Profile};

/// Why no run was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CampaignError {
    #[error("worker `{worker}` answers no request: {why}")]
    NoAnswer { worker: String, why: String },
    #[error("no worker to run")]
    NoWorker,
}

/// How a run is shaped.
#[derive(Clone, Debug)]
pub struct Config {
    /// The request kinds to send (those the worker answers `unsupported` are dropped).
    pub asks: Vec<Ask>,
    pub profile: Profile,
    pub seed: u64,
    /// How long inputs are fed (reduction comes after).
    pub time: Duration,
    /// The most generated inputs, and the most mutants.
    pub count: u64,
    /// Inputs per batch.
    pub batch: usize,
    /// The most requests spent reducing one group (0: no reduction).
    pub reduce_budget: usize,
    /// How long reducing may take in all (a worker that hangs everywhere would
    /// otherwise spend its timeout on every request of every group).
    pub reduce_time: Duration,
    /// After this many crashes or hangs on one generation × opcode, its inputs are no longer sent.
    pub quarantine: u32,
    /// The most groups kept.
    pub max_groups: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            asks: Ask::ALL.to_vec(),
            profile: Profile::Amended,
            seed: 1,
            time: Duration::from_secs(60),
            count: 100_000,
            batch: 512,
            reduce_budget: 400,
            reduce_time: Duration::from_secs(120),
            quarantine: 3,
            max_groups: 10_000,
        }
    }
}

/// What a run did, for the report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// Inputs sent, per source.
    pub inputs: BTreeMap<&'static str, u64>,
    /// Requests sent, per kind.
    pub requests: BTreeMap<&'static str, u64>,
    /// Real bundles offered (duplicates included) and distinct.
    pub real_offered: u64,
    pub real_distinct: u64,
    /// Requests not sent because their generation × opcode was quarantined.
    pub skipped: u64,
    /// Generation × opcode pairs quarantined after repeated crashes or hangs.
    pub quarantined: Vec<String>,
    pub seconds: f64,
    /// Whether the time budget ended the feeding (not the sources running out).
    pub timed_out: bool,
}

/// A run's result.
#[derive(Debug)]
pub struct Outcome {
    pub worker: String,
    /// The request kinds the worker answers.
    pub asks: Vec<Ask>,
    pub stats: Stats,
    pub groups: Groups,
    /// Groups that could not be reduced, and why.
    pub unreduced: Vec<(crate::group::Signature, NoRepro)>,
}

impl Outcome {
    /// Disagreements found (decode, encode, verdict, protocol).
    pub fn disagrees(&self) -> bool {
        self.groups.by_signature.keys().any(|s| !s.kind.is_failure()) || self.groups.overflow > 0
    }

    /// The worker crashed or hung.
    pub fn failed(&self) -> bool {
        self.groups.by_signature.keys().any(|s| s.kind.is_failure())
    }
}

/// The request kinds among `wanted` that `worker` answers: each is asked
/// once on a valid bundle; `unsupported` drops it. A worker that answers
/// none of them (it cannot start, it dies or hangs at once) is an error: no
/// run can be made with it.
pub fn probe(worker: &mut dyn Worker, wanted: &[Ask]) -> Result<Vec<Ask>, CampaignError> {
    let raw = crate::reference::generated(Generation::V2, 0x46, 0);
    let reqs: Vec<Request> = wanted.iter().map(|a| Request::new(*a, Generation::V2, raw)).collect();
    let replies = crate::worker::ask_all(worker, &reqs);
    if let Some(why) = replies.iter().map(failure).collect::<Option<Vec<&str>>>().and_then(|w| w.first().copied()) {
        return Err(CampaignError::NoAnswer { worker: tpb_oracle::text_safe::escape(&worker.name()), why: why.to_string() });
    }
    Ok(wanted.iter().zip(replies).filter(|(_, r)| !matches!(r, Reply::Answer(t) if t.trim() == "unsupported")).map(|(a, _)| *a).collect())
}

/// Why a reply is no answer at all.
fn failure(r: &Reply) -> Option<&str> {
    match r {
        Reply::Answer(_) => None,
        Reply::Crash(w) | Reply::Hang(w) | Reply::Protocol(w) => Some(w),
    }
}

/// Runs a campaign with `worker` over generated, mutated and `real` inputs.
pub fn run(worker: &mut dyn Worker, real: &Real, cfg: &Config, progress: &(dyn Fn(&Stats) + Sync)) -> Result<Outcome, CampaignError> {
    run_pool(vec![worker], real, cfg, progress)
}

/// [`run`] with several workers (processes of the same command, say), each
/// on its own thread taking the next batch of one shared sequence of inputs,
/// then reducing its share of the groups. Threads by hand, not rayon's: one
/// per worker however many cores (each mostly waits on its process), and a
/// shard that panics is left out, not raised again.
pub fn run_pool(mut workers: Vec<&mut dyn Worker>, real: &Real, cfg: &Config, progress: &(dyn Fn(&Stats) + Sync)) -> Result<Outcome, CampaignError> {
    let t0 = Instant::now();
    let first = workers.first_mut().ok_or(CampaignError::NoWorker)?;
    let asks = probe(&mut **first, &cfg.asks)?;
    let feed = Mutex::new(Feed { cycle: inputs::opcode_cycle(), gen_i: 0, mut_i: 0, real_i: 0 });
    let failures: Mutex<HashMap<(Generation, u8), u32>> = Mutex::new(HashMap::new());
    let totals = Mutex::new(Stats::default());
    let shared = Shared { real, cfg, asks: &asks, feed: &feed, failures: &failures, totals: &totals, t0, progress };
    let shards: Vec<(Stats, Groups)> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers.iter_mut().map(|w| scope.spawn(|| shared.shard(&mut **w))).collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut stats = Stats { real_offered: real.offered, real_distinct: real.inputs.len() as u64, ..Stats::default() };
    let mut groups = Groups::new(cfg.max_groups);
    for (s, g) in shards {
        stats.add(&s);
        groups.merge(g);
    }
    let failures = failures.into_inner().unwrap_or_default();
    stats.quarantined =
        failures.iter().filter(|(_, n)| **n >= cfg.quarantine).map(|((g, op), _)| format!("{g} {op:#04x} {}", tpb_isa::opcode::name(*op))).collect();
    stats.quarantined.sort();
    let unreduced = if cfg.reduce_budget > 0 { reduce(&mut workers, cfg, &mut groups) } else { Vec::new() };
    stats.seconds = t0.elapsed().as_secs_f64();
    let name = workers.first().map(|w| w.name()).unwrap_or_default();
    Ok(Outcome { worker: name, asks, stats, groups, unreduced })
}

/// Where the one sequence of inputs stands: generated, mutated and real, by index.
struct Feed {
    cycle: Vec<(Generation, u8)>,
    gen_i: u64,
    mut_i: u64,
    real_i: usize,
}

impl Feed {
    /// The next batch: a third from each source that has inputs left; empty when all are spent.
    fn next(&mut self, real: &Real, cfg: &Config) -> Vec<Input> {
        let share = (cfg.batch / 3).max(1);
        let mut batch: Vec<Input> = Vec::with_capacity(cfg.batch);
        while self.gen_i < cfg.count && batch.len() < share {
            batch.extend(inputs::generated(&self.cycle, cfg.seed, self.gen_i));
            self.gen_i += 1;
        }
        let mut tries = 0;
        while self.mut_i < cfg.count && batch.len() < 2 * share && tries < 4 * share {
            tries += 1;
            // Alternately a generated and a real bundle is broken.
            let base = match (self.mut_i % 2, real.inputs.is_empty()) {
                (1, false) => real.inputs.get((self.mut_i / 2) as usize % real.inputs.len()).cloned(),
                _ => inputs::generated(&self.cycle, cfg.seed ^ 0x5eed, self.mut_i),
            };
            if let Some(m) = base.and_then(|b| inputs::mutated(&b, cfg.seed, self.mut_i)) {
                batch.push(m);
            }
            self.mut_i += 1;
        }
        while self.real_i < real.inputs.len() && batch.len() < cfg.batch {
            batch.extend(real.inputs.get(self.real_i).cloned());
            self.real_i += 1;
        }
        batch
    }
}

/// What every shard of a run shares.
struct Shared<'a> {
    real: &'a Real,
    cfg: &'a Config,
    asks: &'a [Ask],
    feed: &'a Mutex<Feed>,
    /// Crashes and hangs per generation × opcode: past the quarantine, no shard sends it.
    failures: &'a Mutex<HashMap<(Generation, u8), u32>>,
    /// Every shard's counts so far, for the progress line.
    totals: &'a Mutex<Stats>,
    t0: Instant,
    progress: &'a (dyn Fn(&Stats) + Sync),
}

impl Shared<'_> {
    fn quarantined(&self, input: &Input) -> bool {
        self.failures.lock().map(|f| f.get(&(input.generation, input.raw[0])).is_some_and(|n| *n >= self.cfg.quarantine)).unwrap_or(false)
    }

    /// One worker's share: batches taken from the feed until it or the time runs out.
    fn shard(&self, worker: &mut dyn Worker) -> (Stats, Groups) {
        let (cfg, asks) = (self.cfg, self.asks);
        let mut stats = Stats::default();
        let mut groups = Groups::new(cfg.max_groups);
        let mut last_progress = Instant::now();
        while !asks.is_empty() {
            if self.t0.elapsed() >= cfg.time {
                stats.timed_out = true;
                break;
            }
            let batch = match self.feed.lock() {
                Ok(mut f) => f.next(self.real, cfg),
                Err(_) => break,
            };
            if batch.is_empty() {
                break;
            }
            let mut one = Stats::default();
            let mut pending: Vec<(&Input, Request)> = Vec::with_capacity(batch.len() * asks.len());
            for input in &batch {
                if self.quarantined(input) {
                    one.skipped += asks.len() as u64;
                    continue;
                }
                *one.inputs.entry(input.source.as_str()).or_default() += 1;
                pending.extend(asks.iter().map(|a| (input, Request::new(*a, input.generation, input.raw))));
            }
            // Sent until all are answered; after each failure the requests left
            // are sent again, but for an opcode the worker keeps failing on.
            while !pending.is_empty() {
                let before = pending.len();
                pending.retain(|(input, _)| !self.quarantined(input));
                one.skipped += (before - pending.len()) as u64;
                if pending.is_empty() {
                    break;
                }
                let reqs: Vec<Request> = pending.iter().map(|(_, r)| r.clone()).collect();
                let replies = worker.ask(&reqs);
                let answered = replies.len().clamp(1, pending.len());
                for ((input, req), reply) in pending.iter().zip(&replies) {
                    *one.requests.entry(req.ask.as_str()).or_default() += 1;
                    for d in compare(req, reply, cfg.profile) {
                        if d.kind.is_failure() {
                            if let Ok(mut f) = self.failures.lock() {
                                *f.entry((input.generation, input.raw[0])).or_default() += 1;
                            }
                        }
                        groups.add(input, req.ask, d);
                    }
                }
                pending.drain(..answered);
            }
            stats.add(&one);
            if let Ok(mut t) = self.totals.lock() {
                t.add(&one);
                if last_progress.elapsed() >= Duration::from_secs(1) {
                    t.seconds = self.t0.elapsed().as_secs_f64();
                    (self.progress)(&t);
                    last_progress = Instant::now();
                }
            }
        }
        (stats, groups)
    }
}

impl Stats {
    /// Adds another shard's (or batch's) counts.
    fn add(&mut self, o: &Stats) {
        for (k, n) in &o.inputs {
            *self.inputs.entry(k).or_default() += n;
        }
        for (k, n) in &o.requests {
            *self.requests.entry(k).or_default() += n;
        }
        self.skipped += o.skipped;
        self.timed_out |= o.timed_out;
    }
}

/// Reduces every group's first input, the groups dealt out to the workers
/// (each on its own thread); the groups that cannot be, and why, in group order.
fn reduce(workers: &mut [&mut dyn Worker], cfg: &Config, groups: &mut Groups) -> Vec<(crate::group::Signature, NoRepro)> {
    let n = workers.len().max(1);
    let deadline = Instant::now() + cfg.reduce_time;
    let mut hands: Vec<Vec<&mut crate::group::Group>> = (0..n).map(|_| Vec::new()).collect();
    for (i, g) in groups.by_signature.values_mut().enumerate() {
        if let Some(h) = hands.get_mut(i % n) {
            h.push(g);
        }
    }
    let mut unreduced: Vec<(crate::group::Signature, NoRepro)> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter_mut()
            .zip(hands)
            .map(|(w, hand)| {
                scope.spawn(move || {
                    let mut m = Minimiser { worker: &mut **w, profile: cfg.profile, budget: cfg.reduce_budget, tests: 0, deadline };
                    let mut failed = Vec::new();
                    for g in hand {
                        if Instant::now() >= deadline {
                            failed.push((g.signature.clone(), NoRepro::OutOfTime));
                            continue;
                        }
                        match m.reduce(&g.signature, g.ask, g.first.raw) {
                            Ok(r) => g.repro = Some(r),
                            Err(why) => failed.push((g.signature.clone(), why)),
                        }
                    }
                    failed
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).flatten().collect()
    });
    unreduced.sort_by(|a, b| a.0.cmp(&b.0));
    unreduced
}

/// Asks `worker` about given inputs (libFuzzer's, or a repro file's) and
/// groups what it disagrees on, without reduction.
pub fn judge(worker: &mut dyn Worker, asks: &[Ask], profile: Profile, given: &[Input]) -> Groups {
    let mut groups = Groups::new(usize::MAX);
    let reqs: Vec<(usize, Request)> =
        given.iter().enumerate().flat_map(|(i, inp)| asks.iter().map(move |a| (i, Request::new(*a, inp.generation, inp.raw)))).collect();
    let plain: Vec<Request> = reqs.iter().map(|(_, r)| r.clone()).collect();
    let replies = crate::worker::ask_all(worker, &plain);
    for ((i, req), reply) in reqs.iter().zip(&replies) {
        if let Some(input) = given.get(*i) {
            compare(req, reply, profile).into_iter().for_each(|d| groups.add(input, req.ask, d));
        }
    }
    groups
}

/// How many inputs of each source a run sent, in the report's order.
pub fn sources(stats: &Stats) -> Vec<(Source, u64)> {
    [Source::Generated, Source::Mutated, Source::Real].into_iter().map(|s| (s, stats.inputs.get(s.as_str()).copied().unwrap_or(0))).collect()
}

/// Disagreements counted per kind, in the report's order.
pub fn per_kind(groups: &Groups) -> Vec<(Kind, u64, usize)> {
    Kind::ALL.into_iter().map(|k| (k, groups.count(k), groups.by_signature.keys().filter(|s| s.kind == k).count())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;
    use crate::reply::Reply;
    use crate::worker::Reference;

    /// The description, but decoding TensorCopy (0x46) as 0x47.
    struct OffByOne(Reference);

    impl Worker for OffByOne {
        fn name(&self) -> String {
            "off by one".into()
        }
        fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
            let mut replies = self.0.ask(requests);
            for (r, a) in requests.iter().zip(replies.iter_mut()) {
                if r.ask == Ask::Decode && r.raw[0] == 0x46 {
                    *a = Reply::Answer("opcode=0x47".into());
                }
            }
            replies
        }
    }

    fn worker() -> OffByOne {
        OffByOne(Reference { profile: Profile::Amended, asks: vec![Ask::Decode, Ask::Validate] })
    }

    #[test]
    fn a_run_groups_by_generation_and_reduces_to_the_field() {
        let cfg = Config { count: 600, ..Config::default() };
        let mut real = Real::default();
        real.add_stream(Generation::V2, &reference::generated(Generation::V2, 0x46, 9), "p.neff:sg00/DVE.bin");
        let o = run(&mut worker(), &real, &cfg, &|_| {}).unwrap();
        assert_eq!(o.asks, vec![Ask::Decode, Ask::Validate], "encode answered unsupported, so dropped");
        let sigs: Vec<(Kind, Generation, u8, &str)> =
            o.groups.by_signature.keys().map(|s| (s.kind, s.generation, s.opcode, s.field.as_str())).collect();
        assert_eq!(sigs, Generation::ALL.map(|g| (Kind::Decode, g, 0x46, "opcode")).to_vec());
        for g in o.groups.by_signature.values() {
            let r = g.repro.as_ref().expect("reduced");
            assert_eq!((r.fields.as_slice(), r.bytes.as_slice()), (&["opcode".to_string()][..], &[0usize][..]));
            assert_ne!(r.base[0], 0x46, "the base is another opcode of the body kind");
        }
        assert_eq!(sources(&o.stats), vec![(Source::Generated, 600), (Source::Mutated, o.stats.inputs["mutated"]), (Source::Real, 1)]);
        assert!(o.disagrees() && !o.failed());
        assert_eq!(o.stats.requests["decode"], o.stats.requests["validate"]);
        assert_eq!((o.stats.real_offered, o.stats.real_distinct), (1, 1));
        let sent: u64 = o.stats.inputs.values().sum();
        assert_eq!(o.stats.requests["decode"], sent, "one decode request per input");
        assert!(!o.stats.timed_out, "the sources ran out first");
    }

    #[test]
    fn a_run_stops_at_its_time_and_says_so() {
        let (mut a, mut b) = (worker(), worker());
        let cfg = Config { time: Duration::ZERO, ..Config::default() };
        let o = run_pool(vec![&mut a, &mut b], &Real::default(), &cfg, &|_| {}).unwrap();
        assert!(o.stats.timed_out && o.stats.inputs.is_empty());
    }

    #[test]
    fn given_inputs_are_judged_without_reduction() {
        let ok =
            Input { source: Source::Given, generation: Generation::V2, raw: reference::generated(Generation::V2, 0x47, 1), origin: "a:1".into() };
        let bad = Input { raw: reference::generated(Generation::V2, 0x46, 1), origin: "a:2".into(), ..ok.clone() };
        let groups = judge(&mut worker(), &[Ask::Decode, Ask::Validate], Profile::Amended, &[ok, bad]);
        let sigs: Vec<_> = groups.by_signature.values().map(|g| (g.signature.describe(), g.first.origin.as_str(), g.repro.is_none())).collect();
        assert_eq!(sigs, [("decode v2 0x46 TensorCopy opcode".to_string(), "a:2", true)]);
    }

    #[test]
    fn reduction_stops_at_its_time_and_says_so() {
        let cfg = Config { count: 600, reduce_time: Duration::ZERO, ..Config::default() };
        let o = run(&mut worker(), &Real::default(), &cfg, &|_| {}).unwrap();
        assert_eq!(o.unreduced.len(), 3);
        assert!(o.unreduced.iter().all(|(_, why)| *why == NoRepro::OutOfTime));
        assert!(o.groups.by_signature.values().all(|g| g.repro.is_none()));
    }

    #[test]
    fn a_pool_shares_the_inputs_and_finds_what_one_worker_finds() {
        let cfg = Config { count: 900, ..Config::default() };
        let (mut a, mut b) = (worker(), worker());
        let o = run_pool(vec![&mut a, &mut b], &Real::default(), &cfg, &|_| {}).unwrap();
        assert_eq!(o.stats.inputs["generated"], 900, "every input once, over both workers");
        assert_eq!(o.groups.by_signature.len(), 3);
        assert!(o.groups.by_signature.values().all(|g| g.repro.is_some()));
    }

    /// The description, but dying on every request about TensorScalar (0x43).
    struct DiesOn43(Reference);

    impl Worker for DiesOn43 {
        fn name(&self) -> String {
            "dies".into()
        }
        fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
            let upto = requests.iter().position(|r| r.raw[0] == 0x43).map_or(requests.len(), |i| i + 1);
            let mut replies = self.0.ask(&requests[..upto]);
            if let (Some(last), Some(r)) = (replies.last_mut(), requests.get(upto - 1)) {
                if r.raw[0] == 0x43 {
                    *last = Reply::Crash("signal 11".into());
                }
            }
            replies
        }
    }

    #[test]
    fn crashes_are_failures_and_quarantine_their_opcode() {
        let cfg = Config { count: 3000, quarantine: 2, ..Config::default() };
        let mut w = DiesOn43(Reference { profile: Profile::Amended, asks: vec![Ask::Decode] });
        let o = run(&mut w, &Real::default(), &cfg, &|_| {}).unwrap();
        assert!(o.failed() && !o.disagrees(), "{:?}", o.groups.by_signature.keys().collect::<Vec<_>>());
        assert_eq!(o.stats.quarantined, ["v2 0x43 TensorScalar", "v3 0x43 TensorScalar", "v4 0x43 TensorScalar"]);
        assert!(o.stats.skipped > 0);
        assert!(o.groups.by_signature.values().all(|g| g.count == 2 && g.repro.as_ref().is_some_and(|r| r.fields == ["opcode"])));
    }

    #[test]
    fn a_batch_takes_a_third_from_each_source_and_breaks_real_bundles_too() {
        let mut real = Real::default();
        let stream: Vec<u8> = (0..50u64).flat_map(|i| reference::generated(Generation::V3, 0x46, i)).collect();
        real.add_stream(Generation::V3, &stream, "p.neff:sg00/DVE.bin");
        let cfg = Config { batch: 30, count: 1000, ..Config::default() };
        let mut feed = Feed { cycle: inputs::opcode_cycle(), gen_i: 0, mut_i: 0, real_i: 0 };
        let batch = feed.next(&real, &cfg);
        let count = |src: Source| batch.iter().filter(|i| i.source == src).count();
        assert_eq!((count(Source::Generated), count(Source::Mutated), count(Source::Real)), (10, 10, 10));
        assert!(batch.iter().any(|i| i.source == Source::Mutated && i.origin.starts_with("p.neff:sg00/DVE.bin")), "real bundles are broken too");
        assert!(batch.iter().any(|i| i.source == Source::Mutated && i.origin.starts_with("seed ")), "and generated ones");
        // The sources run out one by one, and then the batches are empty.
        let mut left = 1;
        while left > 0 {
            left = feed.next(&real, &Config { count: 40, ..cfg.clone() }).len();
        }
        assert_eq!((feed.gen_i, feed.real_i), (40, 50));
    }

    #[test]
    fn disagreements_past_the_group_cap_still_count_as_disagreeing() {
        let mut groups = Groups::new(0);
        let input = Input { source: Source::Generated, generation: Generation::V2, raw: reference::header_only(0x46), origin: "t".into() };
        groups.add(
            &input,
            Ask::Decode,
            crate::compare::Disagreement { kind: Kind::Decode, field: "x".into(), expected: "1".into(), worker: "2".into() },
        );
        assert_eq!((groups.by_signature.len(), groups.overflow), (0, 1));
        let o = Outcome { worker: "w".into(), asks: vec![Ask::Decode], stats: Stats::default(), groups, unreduced: Vec::new() };
        assert!(o.disagrees() && !o.failed());
    }

    #[test]
    fn a_worker_that_answers_nothing_is_an_error_not_a_run() {
        struct Dead;
        impl Worker for Dead {
            fn name(&self) -> String {
                "dead".into()
            }
            fn ask(&mut self, requests: &[Request]) -> Vec<Reply> {
                requests.iter().map(|_| Reply::Crash("gone".into())).collect()
            }
        }
        let e = run(&mut Dead, &Real::default(), &Config::default(), &|_| {}).unwrap_err();
        assert_eq!(e, CampaignError::NoAnswer { worker: "dead".into(), why: "gone".into() });
        assert_eq!(e.to_string(), "worker `dead` answers no request: gone");
    }
}
