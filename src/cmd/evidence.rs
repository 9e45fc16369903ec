//! `tpb evidence [--json] [--check] [--arch v2|v3|v4] [--max-bytes N] PATH…`:
//! the evidence real compiled programs give about the format (per generation
//! × compiler build × opcode: bundles, engines, field values, every check's
//! agreement; errata with their support; contradictions no erratum accepts).
//! Deterministic, so it can be committed and diffed between compiler releases.
//! `--propose` prints a drafted erratum for each contradiction instead;
//! `--holdout` the held-out table (each build judged with the errata the
//! other builds support). Exit 0; with `--check`, 1 on a contradiction (see `evidence/check.rs`;
//! `--check-support` also fails an erratum without support here); 2 usage/I-O (an unreadable input, or a NEFF
//! from which no bundle is read, is reported, the others still read).
//!
//! `tpb evidence diff OLD NEW`: what moved between two sets of programs
//! (their exit bits are its own, see `evidence/diff.rs`).

mod check;
mod diff;
mod gather;
mod merge;

use crate::error::Error;
use crate::programs;
use crate::shard::Shard;
use std::path::{Path, PathBuf};
use tpb_isa::Generation;
use tpb_oracle::evidence::holdout::{self, Labelled};
use tpb_oracle::evidence::{draft, Evidence, Harness};

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0; with --check, 1 on a contradiction (a check real bundles disagree with and no erratum accepts, or a recovered claim a real bundle breaks; errata these programs do not exercise are listed, never failed; --check-support also fails on those); 2 usage or I/O error (an unreadable input is reported, the others still read)."
)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true, disable_help_subcommand = true)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// Pretty JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Exit 1 on a contradiction: a spec disagreement no erratum accepts, or a recovered claim a bundle breaks. Errata these programs do not exercise are listed on stderr, not failed.
    #[arg(long)]
    check: bool,
    /// With --check, also exit 1 when an erratum has no supporting bundle (the gate for the full set of real programs the errata were drawn from).
    #[arg(long, requires = "check")]
    check_support: bool,
    /// Print, for every contradiction no erratum accepts, a drafted erratum in isa/src/errata.rs's form (the narrowest statement, and the rule's class beside it), instead of the evidence. Never applied by itself.
    #[arg(long, conflicts_with_all = ["json", "holdout"])]
    propose: bool,
    /// Print the held-out table instead of the evidence: each compiler build judged with only the errata the other builds support.
    #[arg(long, conflicts_with = "json")]
    holdout: bool,
    /// Also write the evidence as one self-contained HTML page to OUT (atomically; a folder is refused).
    #[arg(long, value_name = "OUT", conflicts_with_all = ["propose", "holdout"])]
    html: Option<PathBuf>,
    /// Generation of every stream (v2, v3, v4). Default: the container's target's, else the
    /// generation its bundles fit best (said on stderr); v2 for a raw file.
    #[arg(long)]
    arch: Option<Generation>,
    /// Refuse a file larger than this many bytes (pipes and devices included).
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
    /// Count only shard K of N (1 <= K <= N) of the files: chosen by a stable hash of each file's path relative to the
    /// argument it was found under (a file given itself: its name). `tpb evidence merge` joins the shards' JSON into
    /// exactly what one run writes.
    #[arg(long, value_name = "K/N", conflicts_with = "holdout")]
    shard: Option<Shard>,
    /// Threads counting files at once (default: every core this process may use); the output is the same for any.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Print only the count line in place of the text report (as `validate -q`), and no progress bar;
    /// --json, --html, --propose and --holdout still write what they write.
    #[arg(short, long)]
    quiet: bool,
    /// NEFF containers or raw bundle files; a folder is searched for `*.neff` (symlinks not followed); evidence JSON
    /// (`*.json`, as --json or `tpb evidence merge` wrote it) is read back and joined. A file named diff or merge is given as ./diff.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

#[derive(clap::Subcommand)]
enum Action {
    /// What moved between two sets of programs (evidence JSON, folders of NEFFs, or program files), per generation × opcode:
    /// exit bits 1 error, 2 usage, 4 something moved, 8 NEW disagrees with the description where OLD did not.
    ///
    /// Lists opcodes that appeared or vanished, engines an opcode moved between, field values NEW shows that OLD never
    /// did (only "possibly seen" when OLD's histogram overflowed its list), checks that now disagree or no longer do,
    /// contradictions new in NEW or gone, errata NEW no longer supports or newly needs, and recovered claims NEW breaks.
    /// Builds are aggregated within each side. Exit bits, OR-ed: 1 an input is unreadable or not evidence, or the output
    /// cannot be written (nothing is compared); 2 usage; 4 something certainly moved (a value only possibly seen sets
    /// none); 8 NEW has a contradiction, a check it refuses, or a broken recovered claim that OLD did not have (so 12).
    Diff(diff::Args),
    /// Join evidence JSON (shards of one run, or runs over different files) into exactly what one run over all their
    /// files writes; refused across tpb versions, tables or --arch, for overlapping shards or files. Written atomically.
    Merge(merge::Args),
}

/// Evidence JSON is told apart by name, as `evidence diff` does; a folder is programs.
fn is_json(path: &Path) -> bool {
    !path.is_dir() && path.extension().is_some_and(|x| x.eq_ignore_ascii_case("json"))
}

pub fn run(a: Args) -> u8 {
    match a.action {
        Some(Action::Diff(d)) => return diff::run(d),
        Some(Action::Merge(m)) => return merge::run(m),
        None => {}
    }
    let (json, paths): (Vec<PathBuf>, Vec<PathBuf>) = a.paths.iter().cloned().partition(|p| is_json(p));
    if a.holdout && !json.is_empty() {
        return super::fail("evidence: --holdout judges the bundles again: give programs, not evidence JSON");
    }
    // Held out, every stream is kept (two passes); otherwise each is counted and dropped.
    let mut kept: Vec<(String, Generation, Vec<u8>)> = Vec::new();
    let (mut ev, mut code) = if a.holdout {
        let mut ev = Evidence::with_arch(a.arch);
        let code = programs::each_program(&paths, a.arch, a.max_bytes, |shown, p, c| {
            ev.set_source(shown, c.target.as_deref(), c.from);
            for s in p.streams() {
                ev.add_member(shown, s.member, s.build, c.generation, s.engine_name(), s.bytes);
                kept.push((s.build.unwrap_or(tpb_oracle::evidence::UNKNOWN_BUILD).to_string(), c.generation, s.bytes.to_vec()));
            }
        });
        (ev, code)
    } else {
        let (mut files, code) = programs::expand(&paths, false);
        if let Some(s) = a.shard {
            files.retain(|f| s.takes(&f.relative));
        }
        let jobs = a.jobs.map_or_else(crate::ahead::threads, usize::from);
        let (mut ev, c) = gather::gather(&files, a.arch, a.max_bytes, jobs, a.quiet);
        if let Some(s) = a.shard {
            ev.set_shard(s.k, s.n);
        }
        (ev, code.max(c))
    };
    if !json.is_empty() {
        let here = Harness::current(a.arch);
        let mut joined = (ev.bundles() > 0 || ev.shards().is_some()).then_some(ev);
        for p in &json {
            let read = merge::load(p, a.max_bytes).and_then(|e| match e.harness().mismatch(&here) {
                Some(why) => Err(Error::Message(format!("{}: evidence of another harness than this run's: {why}", crate::programs::shown(p)))),
                None => Ok(e),
            });
            match read.and_then(|e| merge::join(joined.take(), e, p)) {
                Ok(e) => joined = Some(e),
                Err(e) => {
                    code = super::fail(e.within("evidence"));
                    break;
                }
            }
        }
        ev = joined.unwrap_or_else(|| Evidence::with_arch(a.arch));
    }
    // A shard may hold no file (more shards than files): its evidence is still one to merge.
    if ev.bundles() == 0 && ev.shards().is_none() {
        // Each input that gave nothing has been named already; one line says why when none was.
        return if code == 0 { super::fail("evidence: no bundles in the inputs") } else { code };
    }
    if a.holdout {
        let streams: Vec<Labelled> = kept.iter().map(|(b, g, bytes)| Labelled { build: b, generation: *g, bytes }).collect();
        let text = holdout::markdown(&holdout::hold_out_each_build(&streams));
        return crate::out::print(&text, code);
    }
    if a.propose {
        return crate::out::print(&draft::to_text(&draft::drafts(&ev)), code);
    }
    let json = ev.to_json();
    if let Some(out) = &a.html {
        let page = crate::html::evidence_page(&json, &crate::html::Extra::beside_cwd());
        if let Err(e) = crate::out::write_atomic(out, page.as_bytes()) {
            return super::fail(format!("evidence: {}: cannot write the HTML page: {e}", crate::programs::shown(out)));
        }
    }
    let text = if a.json {
        match serde_json::to_string_pretty(&json) {
            Ok(j) => j + "\n",
            Err(e) => return super::fail(format!("evidence: cannot render JSON: {e}")),
        }
    } else if a.quiet {
        ev.count_line() + "\n"
    } else {
        ev.to_text()
    };
    let mut gate = if a.check { check::judge(&ev, a.check_support) } else { check::Verdict::default() };
    if a.check {
        if let Some(s) = ev.shards() {
            gate.failures.insert(0, format!("shards {} only: checked evidence must be of the whole run", s.describe()));
        }
    }
    let verdict = code.max(u8::from(!gate.failures.is_empty()));
    let code = crate::out::print(&text, verdict);
    for r in &gate.failures {
        eprintln!("tpb: evidence: {r}");
    }
    for n in &gate.notes {
        eprintln!("tpb: evidence: note: {n}");
    }
    code
}
