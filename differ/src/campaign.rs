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
use std::time::{Duration, Instant};
use tpb_isa::{Generation, Profile};

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
pub fn probe(worker: &mut dyn Worker, wanted: &[Ask]) -> Result<Vec<Ask>, String> {
    let raw = crate::reference::generated(Generation::V2, 0x46, 0);
    let reqs: Vec<Request> = wanted.iter().map(|a| Request::new(*a, Generation::V2, raw)).collect();
    let replies = crate::worker::ask_all(worker, &reqs);
    if let Some(why) = replies.iter().map(failure).collect::<Option<Vec<&str>>>().and_then(|w| w.first().copied()) {
        return Err(format!("worker `{}` answers no request: {why}", tpb_oracle::text_safe::escape(&worker.name())));
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
pub fn run(worker: &mut dyn Worker, real: &Real, cfg: &Config, progress: &mut dyn FnMut(&Stats)) -> Result<Outcome, String> {
    let t0 = Instant::now();
    let asks = probe(worker, &cfg.asks)?;
    let mut stats = Stats { real_offered: real.offered, real_distinct: real.inputs.len() as u64, ..Stats::default() };
    let mut groups = Groups::new(cfg.max_groups);
    let cycle = inputs::opcode_cycle();
    let mut failures: HashMap<(Generation, u8), u32> = HashMap::new();
    let (mut gen_i, mut mut_i, mut real_i) = (0u64, 0u64, 0usize);
    let mut last_progress = Instant::now();
    while !asks.is_empty() {
        if t0.elapsed() >= cfg.time {
            stats.timed_out = true;
            break;
        }
        // A third of each batch from each source that has inputs left.
        let share = (cfg.batch / 3).max(1);
        let mut batch: Vec<Input> = Vec::with_capacity(cfg.batch);
        while gen_i < cfg.count && batch.len() < share {
            batch.extend(inputs::generated(&cycle, cfg.seed, gen_i));
            gen_i += 1;
        }
        let mut tries = 0;
        while mut_i < cfg.count && batch.len() < 2 * share && tries < 4 * share {
            tries += 1;
            // Alternately a generated and a real bundle is broken.
            let base = match (mut_i % 2, real.inputs.is_empty()) {
                (1, false) => real.inputs.get((mut_i / 2) as usize % real.inputs.len()).cloned(),
                _ => inputs::generated(&cycle, cfg.seed ^ 0x5eed, mut_i),
            };
            if let Some(m) = base.and_then(|b| inputs::mutated(&b, cfg.seed, mut_i)) {
                batch.push(m);
            }
            mut_i += 1;
        }
        while real_i < real.inputs.len() && batch.len() < cfg.batch {
            batch.extend(real.inputs.get(real_i).cloned());
            real_i += 1;
        }
        if batch.is_empty() {
            break;
        }
        let mut pending: Vec<(&Input, Request)> = Vec::with_capacity(batch.len() * asks.len());
        for input in &batch {
            if failures.get(&(input.generation, input.raw[0])).is_some_and(|n| *n >= cfg.quarantine) {
                stats.skipped += asks.len() as u64;
                continue;
            }
            *stats.inputs.entry(input.source.as_str()).or_default() += 1;
            pending.extend(asks.iter().map(|a| (input, Request::new(*a, input.generation, input.raw))));
        }
        // Sent until all are answered; after each failure the requests left
        // are sent again, but for an opcode the worker keeps failing on.
        while !pending.is_empty() {
            let before = pending.len();
            pending.retain(|(input, _)| failures.get(&(input.generation, input.raw[0])).is_none_or(|n| *n < cfg.quarantine));
            stats.skipped += (before - pending.len()) as u64;
            let reqs: Vec<Request> = pending.iter().map(|(_, r)| r.clone()).collect();
            let replies = worker.ask(&reqs);
            let answered = replies.len().clamp(1, pending.len().max(1));
            for ((input, req), reply) in pending.iter().zip(&replies) {
                *stats.requests.entry(req.ask.as_str()).or_default() += 1;
                for d in compare(req, reply, cfg.profile) {
                    if d.kind.is_failure() {
                        *failures.entry((input.generation, input.raw[0])).or_default() += 1;
                    }
                    groups.add(input, req.ask, d);
                }
            }
            pending.drain(..answered.min(pending.len()));
        }
        if last_progress.elapsed() >= Duration::from_secs(1) {
            stats.seconds = t0.elapsed().as_secs_f64();
            progress(&stats);
            last_progress = Instant::now();
        }
    }
    stats.quarantined =
        failures.iter().filter(|(_, n)| **n >= cfg.quarantine).map(|((g, op), _)| format!("{g} {op:#04x} {}", tpb_isa::opcode::name(*op))).collect();
    stats.quarantined.sort();
    let unreduced = if cfg.reduce_budget > 0 { reduce(worker, cfg, &mut groups) } else { Vec::new() };
    stats.seconds = t0.elapsed().as_secs_f64();
    Ok(Outcome { worker: worker.name(), asks, stats, groups, unreduced })
}

/// Reduces every group's first input; the groups that cannot be, and why.
fn reduce(worker: &mut dyn Worker, cfg: &Config, groups: &mut Groups) -> Vec<(crate::group::Signature, NoRepro)> {
    let mut m = Minimiser { worker, profile: cfg.profile, budget: cfg.reduce_budget, tests: 0 };
    let mut unreduced = Vec::new();
    for g in groups.by_signature.values_mut() {
        match m.reduce(&g.signature, g.ask, g.first.raw) {
            Ok(r) => g.repro = Some(r),
            Err(why) => unreduced.push((g.signature.clone(), why)),
        }
    }
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
