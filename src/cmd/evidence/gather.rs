//! The evidence of many programs on every core: each file is one unit of
//! work, taken by the next free thread and counted into that thread's own
//! evidence; the threads' evidence is then merged with the merge shards use
//! (exact for any split), so the output is the same for any `--jobs`.
//! Memory: one program per thread at a time, and per thread one evidence,
//! bounded by its histograms' caps (plus one line per input file name).

use crate::programs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::iter::{ParallelBridge, ParallelIterator};
use std::sync::atomic::{AtomicU8, Ordering};
use tpb_isa::Generation;
use tpb_oracle::evidence::Evidence;
use tpb_oracle::programs::Found;

/// The evidence of `files` on `jobs` threads, and the usage/I-O code if
/// any could not be read (each is reported, the others still counted).
/// A progress bar is drawn on stderr when it is a terminal and not `quiet`.
pub fn gather(files: &[Found], arch: Option<Generation>, max_bytes: u64, jobs: usize, quiet: bool) -> (Evidence, u8) {
    let bar = progress(files.len() as u64, quiet);
    let code = AtomicU8::new(0);
    let count = |mut ev: Evidence, f: &Found| {
        let mut warn = |w| bar.suspend(|| programs::warn(w));
        match tpb_oracle::programs::load(&f.path, max_bytes, &mut warn) {
            Ok(p) => {
                let c = p.choose(arch);
                bar.suspend(|| programs::say(&p.file, &c));
                ev.set_source(&f.shown, c.target.as_deref(), c.from);
                for s in p.streams() {
                    ev.add_member(&f.shown, s.member, s.build, c.generation, s.engine_name(), s.bytes);
                }
            }
            Err(e) => {
                code.fetch_max(bar.suspend(|| crate::out::fail(e)), Ordering::Relaxed);
            }
        }
        bar.inc(1);
        ev
    };
    let new = || Evidence::with_arch(arch);
    let merged = |mut all: Evidence, ev| {
        all.merge(ev);
        all
    };
    let jobs = jobs.clamp(1, files.len().max(1));
    // `par_bridge`: each thread takes the next file and folds it into its own evidence.
    let all = crate::ahead::on_threads(jobs, || files.iter().par_bridge().fold(new, count).reduce(new, merged));
    bar.finish_and_clear();
    (all, code.into_inner())
}

fn progress(len: u64, quiet: bool) -> ProgressBar {
    // indicatif draws to stderr only when it is a terminal.
    let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(Some(len), target);
    let style = ProgressStyle::with_template("evidence [{bar:30}] {pos}/{len} files {elapsed} (eta {eta})")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar
}
