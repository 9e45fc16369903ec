//! `tpb conform [--time SECONDS] [--lib PATH_OR_WHEEL]… [--neff FILE_OR_DIR]…`: the
//! nightly conformance run (see `crate::conform`). Writes
//! `reports/<YYYY-MM-DD>/{summary.md,summary.json,junit.xml,report.html}` and prints a
//! one-screen table. Exit 0 when no harness check failed, 1 when one did,
//! 2 on a usage or I/O error.

use crate::conform::{self, summary, Options};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 no harness check failed (spec disagreements are reported, never failed); 1 a harness check failed; 2 usage or I/O error."
)]
pub struct Args {
    /// Seconds for the property campaign (wall time, spread over every family × generation).
    #[arg(long, default_value_t = 30)]
    time: u64,
    /// A libwalrus.so or a neuronx_cc wheel to run the library oracle on (repeatable).
    #[arg(long = "lib", value_name = "PATH_OR_WHEEL")]
    libs: Vec<PathBuf>,
    /// A compiled NEFF program, or a folder searched for `*.neff`, to run every bundle of (repeatable). Default: the real programs in corpus/neff/real/.
    #[arg(long = "neff", value_name = "FILE_OR_DIR")]
    neffs: Vec<PathBuf>,
    /// Bundles judged per NEFF container at most; a container holding more is judged on its first ones and its case says so.
    #[arg(long, default_value_t = crate::conform::vendor_neff::MAX_BUNDLES)]
    max_bundles: usize,
    /// Reports root; the run writes `<out>/<YYYY-MM-DD>/`.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// Corpus root to replay (default: ./corpus, else the source tree's).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Campaign seed (decimal or 0x hex); default: the clock. The report names it.
    #[arg(long, value_parser = super::corpus::parse_seed)]
    seed: Option<u64>,
    /// Your own worker, as a command answering the differential protocol, fuzzed against the description as one more section (docs/differential.md).
    #[arg(long, value_name = "COMMAND", conflicts_with = "worker_lib")]
    worker_cmd: Option<String>,
    /// Your own worker as a shared library (`tpb header --worker`), run in a child process.
    #[arg(long, value_name = "PATH")]
    worker_lib: Option<PathBuf>,
    /// Print only the count line (the headline) instead of the table, and no progress bars (they are also off when stdout is not a terminal).
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(a: Args) -> u8 {
    // Folders are walked as every command walks them; an empty one is bad input.
    let (found, code) = crate::programs::expand(&a.neffs, false);
    if code != 0 {
        return code;
    }
    let neffs: Vec<PathBuf> = found.into_iter().map(|f| f.path).collect();
    // A path that cannot be read is bad input (exit 2), not a harness failure.
    for p in a.libs.iter().chain(&neffs) {
        if let Err(e) = super::paths::readable_file(p) {
            return super::fail(e);
        }
    }
    let quiet = a.quiet;
    let opts = Options {
        time: Duration::from_secs(a.time),
        libs: a.libs,
        neffs,
        neff_args: a.neffs,
        max_bundles: a.max_bundles,
        out: a.out,
        corpus: a.corpus,
        seed: a.seed,
        quiet: a.quiet,
        worker: (a.worker_cmd.is_some() || a.worker_lib.is_some()).then_some((a.worker_cmd, a.worker_lib)),
    };
    match conform::run(&opts) {
        Ok(o) => {
            let folder = o.folder.display().to_string();
            // -q: the count line only, as on every command.
            let text = if quiet { summary::headline(&o.report) + &format!("; reports in {folder}/\n") } else { summary::table(&o.report, &folder) };
            crate::out::print(&text, u8::from(!o.report.passed()))
        }
        Err(e) => super::fail(e),
    }
}
