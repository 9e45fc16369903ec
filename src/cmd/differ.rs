//! `tpb differ --cmd CMD | --lib PATH`: differential fuzzing of the user's own
//! decoder, encoder or validator against the description (tpb_differ). The
//! worker gets generated bundles of every opcode and generation, their
//! single-fault mutants and the bundles of real programs; every answer is
//! compared, disagreements grouped and each group's first input reduced.
//! Prints the report, writes `report.json` and one repro file per group
//! under `--out`. Exit bits: 4 disagreements, 8 the worker crashed or hung;
//! 0 none; 2 usage or I/O.

use crate::error::{Context as _, Error};
use crate::worker::Reproduce;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tpb_differ::campaign::{self, Config};
use tpb_differ::inputs::{Input, Real, Source};
use tpb_differ::request::{parse_hex, parse_line, Ask};
use tpb_differ::worker::{Library, Worker};
use tpb_isa::{Generation, Profile};
use tpb_oracle::text_safe::escape;

/// Exit bit: the worker disagrees with the description.
pub const EXIT_DISAGREES: u8 = 4;
/// Exit bit: the worker crashed or hung.
pub const EXIT_FAILED: u8 = 8;

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes (bits, OR-ed): 0 no disagreement; 4 the worker disagrees with the description (decode, encode, verdict or protocol); 8 the worker crashed or hung; 2 usage or I/O error (nothing compared). Protocol and ABI: docs/differential.md."
)]
#[command(group(clap::ArgGroup::new("worker").required(true).args(["cmd", "lib", "serve_lib"])))]
pub struct Args {
    /// The worker as a command: one request per line on its stdin, one answer per line on its stdout (split into words as a shell would; no expansion).
    #[arg(long, value_name = "COMMAND")]
    cmd: Option<String>,
    /// The worker as a shared library exporting tpb_worker_decode / _encode / _validate (`tpb header --worker`); run in a child process restarted after a crash.
    #[arg(long, value_name = "PATH")]
    lib: Option<PathBuf>,
    /// With --lib: call the library in this process (fastest; a crash or hang in it ends the run).
    #[arg(long, requires = "lib")]
    in_process: bool,
    /// Serve a worker library over the line protocol on stdin/stdout (what --lib runs as its child).
    #[arg(long, value_name = "PATH", hide = true)]
    serve_lib: Option<PathBuf>,
    /// The request kinds to send (comma-separated; the worker's `unsupported` drops one).
    #[arg(long, value_delimiter = ',', default_value = "decode,encode,validate")]
    asks: Vec<Ask>,
    /// Judge verdicts by the spec alone (default: amended by the errata, as real compiler output is valid).
    #[arg(long)]
    spec: bool,
    /// Real programs whose bundles are sent (NEFF files, or folders searched for *.neff; repeatable). Default: corpus/neff/real when present.
    #[arg(long = "neff", value_name = "FILE_OR_DIR")]
    neffs: Vec<PathBuf>,
    /// Send no bundle of a real program (not even the default ones).
    #[arg(long, conflicts_with = "neffs")]
    no_real: bool,
    /// Seconds inputs are fed; reducing the groups comes after.
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// The most generated inputs, and the most mutants.
    #[arg(long, default_value_t = 100_000)]
    count: u64,
    /// Seconds one answer may take; a worker that takes longer is a hang, killed and restarted.
    #[arg(long, default_value_t = 2.0)]
    timeout: f64,
    /// Seed of the generated inputs and mutants (decimal or 0x hex).
    #[arg(long, value_parser = super::corpus::parse_seed, default_value = "1")]
    seed: u64,
    /// The most requests spent reducing one group (0: report inputs unreduced).
    #[arg(long, default_value_t = 400)]
    reduce_budget: usize,
    /// Workers run at once, each on its own thread (default: one per core; with --in-process, 1: the library must be thread-safe for more).
    #[arg(long)]
    jobs: Option<usize>,
    /// Seconds reducing the groups may take in all; groups left when it is spent are reported unreduced.
    #[arg(long, default_value_t = 120.0)]
    reduce_time: f64,
    /// Inputs per batch sent to the worker.
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// Folder for report.json and the repros (default: reports/<date>/differ).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the JSON report on stdout instead of the text one.
    #[arg(long)]
    json: bool,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Ask the worker the requests of these repro files again (lines not starting with #) instead of a campaign.
    #[arg(long, value_name = "FILE")]
    replay: Vec<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    if let Some(path) = &a.serve_lib {
        return serve(path);
    }
    let seconds = [a.time, a.reduce_time].iter().all(|t| t.is_finite() && *t >= 0.0);
    if !(seconds && a.timeout.is_finite() && a.timeout > 0.0) {
        return super::fail("--time and --reduce-time must be numbers of seconds ≥ 0, and --timeout > 0");
    }
    let profile = if a.spec { Profile::Spec } else { Profile::Amended };
    let timeout = Duration::from_secs_f64(a.timeout);
    let (mut worker, reproduce) = match open_worker(&a, timeout) {
        Ok(w) => w,
        Err(e) => return super::fail(e),
    };
    if !a.replay.is_empty() {
        return replay(worker.as_mut(), &a.replay, &a.asks, profile, &reproduce);
    }
    // More workers of the same kind, each on its own thread (a worker library in-process: one, unless asked).
    let jobs = a.jobs.unwrap_or(if a.in_process { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get()) }).max(1);
    let mut more = Vec::with_capacity(jobs - 1);
    for _ in 1..jobs {
        match open_worker(&a, timeout) {
            Ok((w, _)) => more.push(w),
            Err(e) => return super::fail(e),
        }
    }
    let real = match real_inputs(&a) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let cfg = Config {
        asks: a.asks.clone(),
        profile,
        seed: a.seed,
        time: Duration::from_secs_f64(a.time),
        count: a.count,
        batch: a.batch.max(1),
        reduce_budget: a.reduce_budget,
        reduce_time: Duration::from_secs_f64(a.reduce_time),
        ..Config::default()
    };
    let show = !a.quiet && std::io::stderr().is_terminal();
    let pool: Vec<&mut dyn Worker> = std::iter::once(&mut worker).chain(more.iter_mut()).map(|w| w as &mut dyn Worker).collect();
    let outcome = campaign::run_pool(pool, &real, &cfg, &|s| {
        if show {
            let sent: u64 = s.inputs.values().sum();
            eprint!("\rtpb differ: {sent} inputs in {:.0} s  ", s.seconds);
        }
    });
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => return super::fail(e),
    };
    if show {
        eprintln!();
    }
    if outcome.asks.is_empty() {
        return super::fail(format_args!(
            "worker `{}` answers `unsupported` to every request kind asked ({})",
            escape(&outcome.worker),
            join(&a.asks)
        ));
    }
    let dir = a.out.clone().unwrap_or_else(|| Path::new("reports").join(crate::clock::Utc::now().date()).join("differ"));
    if let Err(e) = write_report(&dir, &outcome, &reproduce) {
        return super::fail(e);
    }
    let text = if a.json {
        format!("{}\n", tpb_differ::report::json(&outcome))
    } else {
        format!("{}report: {}\n", tpb_differ::report::text(&outcome, &reproduce), escape(&dir.join("report.json").display().to_string()))
    };
    let code = exit_code(outcome.disagrees(), outcome.failed());
    crate::out::print(&text, code)
}

/// The exit bits for what a run found.
fn exit_code(disagrees: bool, failed: bool) -> u8 {
    (if disagrees { EXIT_DISAGREES } else { 0 }) | (if failed { EXIT_FAILED } else { 0 })
}

/// The worker a `--cmd` or `--lib` names, and how one of its requests is reproduced by hand.
fn open_worker(a: &Args, timeout: Duration) -> crate::error::Result<(Box<dyn Worker>, Reproduce)> {
    crate::worker::open(a.cmd.as_deref(), a.lib.as_deref(), a.in_process, timeout)
}

/// `--serve-lib PATH`: the library answers the protocol on stdin/stdout.
fn serve(path: &Path) -> u8 {
    let lib = match Library::load(path) {
        Ok(l) => l,
        Err(e) => return super::fail(e),
    };
    let mut input = std::io::BufReader::new(std::io::stdin().lock());
    let output = std::io::BufWriter::new(std::io::stdout().lock());
    match tpb_differ::worker::serve(&lib, &mut input, output) {
        Ok(()) => 0,
        Err(e) => crate::out::lost(&e, super::EXIT_USAGE),
    }
}

/// The distinct bundles of the real programs `--neff` names (default: the committed ones, when here).
fn real_inputs(a: &Args) -> Result<Real, u8> {
    if a.no_real {
        return Ok(Real::default());
    }
    let paths = if a.neffs.is_empty() {
        crate::conform::find_corpus(None).map(|c| c.join("neff").join("real")).filter(|p| p.is_dir()).into_iter().collect()
    } else {
        a.neffs.clone()
    };
    crate::worker::real_bundles(&paths)
}

/// `--replay FILE…`: every request line of the files asked again; the disagreements printed.
fn replay(worker: &mut dyn Worker, files: &[PathBuf], asks: &[Ask], profile: Profile, reproduce: &Reproduce) -> u8 {
    let mut given: Vec<(Ask, Input)> = Vec::new();
    for f in files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => return super::fail(format_args!("{}: cannot read: {e}", escape(&f.display().to_string()))),
        };
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match request_input(line) {
                Ok((ask, g, raw)) if asks.contains(&ask) => {
                    let origin = format!("{}:{}", f.display(), i + 1);
                    given.push((ask, Input { source: Source::Given, generation: g, raw, origin }));
                }
                Ok(_) => {}
                Err(e) => return super::fail(format_args!("{}: line {}: {}", escape(&f.display().to_string()), i + 1, escape(&e.to_string()))),
            }
        }
    }
    if given.is_empty() {
        return super::fail("--replay: no request line of the asked kinds in the files");
    }
    let mut groups = tpb_differ::group::Groups::new(usize::MAX);
    for (ask, input) in &given {
        let g = campaign::judge(worker, &[*ask], profile, std::slice::from_ref(input));
        groups.merge(g);
    }
    let outcome = campaign::Outcome { worker: worker.name(), asks: asks.to_vec(), stats: Default::default(), groups, unreduced: Vec::new() };
    let mut text = tpb_differ::report::text(&outcome, reproduce);
    text.push_str(&format!("replayed: {} request(s)\n", given.len()));
    crate::out::print(&text, exit_code(outcome.disagrees(), outcome.failed()))
}

/// A request line's kind, generation and bundle (an encode line's fields assembled).
fn request_input(line: &str) -> crate::error::Result<(Ask, Generation, tpb_isa::Raw)> {
    let (ask, g, rest) = parse_line(line)?;
    let raw = match ask {
        Ask::Decode | Ask::Validate => parse_hex(&rest)?,
        Ask::Encode => {
            let op = rest
                .split_whitespace()
                .next()
                .and_then(|t| t.strip_prefix("opcode="))
                .and_then(tpb_differ::value::integer)
                .and_then(|v| u8::try_from(v).ok());
            let op = op.ok_or("an encode line starts with opcode=0xNN")?;
            let fields = rest.split_once(' ').map_or("", |r| r.1);
            tpb_isa::text::asm_line(&format!("{} {fields}", tpb_isa::text::mnemonic(op)))?.ok_or("no fields")?
        }
    };
    Ok((ask, g, raw))
}

/// report.json and `repros/NNN-….txt` under `dir` (each written atomically).
fn write_report(dir: &Path, o: &campaign::Outcome, reproduce: &Reproduce) -> crate::error::Result<()> {
    let repros = dir.join("repros");
    std::fs::create_dir_all(&repros).context_with(|| format!("{}: cannot create", escape(&repros.display().to_string())))?;
    let json = serde_json::to_string_pretty(&tpb_differ::report::json(o)).map_err(|e| Error::Message(e.to_string()))?;
    let path = dir.join("report.json");
    crate::out::write_atomic(&path, format!("{json}\n").as_bytes())
        .context_with(|| format!("{}: cannot write", escape(&path.display().to_string())))?;
    for (i, g) in o.groups.by_signature.values().enumerate() {
        let path = repros.join(tpb_differ::report::repro_name(i + 1, g));
        crate::out::write_atomic(&path, tpb_differ::report::repro_file(g, reproduce).as_bytes())
            .context_with(|| format!("{}: cannot write", escape(&path.display().to_string())))?;
    }
    Ok(())
}

fn join(asks: &[Ask]) -> String {
    asks.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_bits_say_what_was_found() {
        assert_eq!(exit_code(false, false), 0);
        assert_eq!(exit_code(true, false), 4);
        assert_eq!(exit_code(false, true), 8);
        assert_eq!(exit_code(true, true), 12);
    }

    #[test]
    fn request_lines_read_back_to_their_bundle() {
        let raw = tpb_differ::reference::generated(Generation::V3, 0x46, 3);
        for ask in Ask::ALL {
            let line = tpb_differ::Request::new(ask, Generation::V3, raw).line();
            assert_eq!(request_input(&line).ok(), Some((ask, Generation::V3, raw)), "{line}");
        }
        assert!(request_input("encode v2 src.addr=1").is_err_and(|e| e.to_string().contains("opcode=")));
    }
}
