//! `tpb conform`: the nightly conformance run. Sections, in order: the
//! built-in description's self-checks, the property campaign (every family ×
//! generation for a time budget), corpus replay, the C header, the library
//! oracle on each `--lib`, NEFF conformance on each `--neff`. Results go to
//! `reports/<YYYY-MM-DD>/` as `summary.md`, `summary.json`, `junit.xml` and `report.html`
//! plus the generated C header and per-input details. The whole folder is
//! built beside its place and swapped in when complete ([`staging`]).

pub mod campaign;
pub mod cheader;
pub mod description;
pub mod differential;
pub mod elf_seed;
pub mod hand;
pub mod junit;
pub mod neff_seed;
pub mod page;
pub mod panics;
pub mod progress;
pub mod real_seed;
pub mod replay;
pub mod report;
pub mod seeds;
pub mod staging;
pub mod summary;
pub mod targets;
pub mod vendor_lib;
pub mod vendor_neff;

use crate::error::Context as _;
use crate::out::write_atomic;
use report::Report;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to run.
pub struct Options {
    pub time: Duration,
    pub libs: Vec<PathBuf>,
    pub neffs: Vec<PathBuf>,
    /// The `--neff` arguments as given (folders unwalked): what the report's reproduce line repeats.
    pub neff_args: Vec<PathBuf>,
    /// Bundles judged per NEFF container at most (the rest is skipped, and the case says so).
    pub max_bundles: usize,
    /// Reports root; the run writes `<out>/<date>/`.
    pub out: PathBuf,
    /// Corpus root; `None` finds `corpus/` here or in the source tree.
    pub corpus: Option<PathBuf>,
    /// Campaign seed; `None` takes the clock.
    pub seed: Option<u64>,
    pub quiet: bool,
    /// A worker to fuzz against the description (`--worker-cmd`, `--worker-lib`): (command, library).
    pub worker: Option<(Option<String>, Option<PathBuf>)>,
}

/// A finished run: the report and the folder it was written to.
pub struct Outcome {
    pub report: Report,
    pub folder: PathBuf,
}

/// `corpus/` in the working directory, else the source tree's.
pub fn find_corpus(given: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = given {
        return Some(p.to_path_buf());
    }
    [PathBuf::from("corpus"), Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")].into_iter().find(|p| p.is_dir())
}

/// The real programs committed with the corpus (`corpus/neff/real/**/*.neff`), sorted.
pub fn default_neffs(corpus: &Path) -> Vec<PathBuf> {
    real_neffs(&corpus.join("neff").join("real"))
}

/// Every `*.neff` under `dir`, sorted.
pub fn real_neffs(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.filter_map(Result::ok) {
            let (p, Ok(t)) = (e.path(), e.file_type()) else { continue };
            if t.is_dir() {
                walk(&p, out);
            } else if t.is_file() && p.extension().is_some_and(|x| x == "neff") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

fn write(folder: &Path, rel: &str, bytes: &[u8]) -> crate::error::Result<()> {
    let path = folder.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).context_with(|| format!("{}: cannot create", dir.display()))?;
    }
    write_atomic(&path, bytes).context_with(|| format!("{}: cannot write", path.display()))
}

/// Runs every section and writes the report folder. `Err` only for I/O on the
/// report folder itself; everything else is a check in the report.
pub fn run(o: &Options) -> crate::error::Result<Outcome> {
    let started = Instant::now();
    let now = crate::clock::Utc::now();
    // Removed on any early return; swapped in over an earlier run's folder when complete.
    let staging = staging::Staging::new(&o.out, now.date())?;
    let folder = staging.dir().to_path_buf();
    let seed = o.seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()));
    let corpus = find_corpus(o.corpus.as_deref());
    let progress = progress::Progress::new(o.quiet);
    let mut sections = Vec::new();
    let mut artifacts: Vec<(String, Vec<u8>)> = Vec::new();

    // Each section with its wall time.
    let mut timed = |s: (report::Section, Vec<(String, Vec<u8>)>), t: Instant| {
        let (mut s, a) = s;
        s.wall = Some(t.elapsed());
        sections.push(s);
        artifacts.extend(a);
    };

    let t = Instant::now();
    let bar = progress.bar("built-in description", 1);
    timed((description::section(), Vec::new()), t);
    bar.finish_and_clear();

    let t = Instant::now();
    let units = campaign::Unit::all();
    let bar = progress.bar("property campaign", units.len() as u64);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results = campaign::run(o.time, seed, threads, &bar);
    bar.finish_and_clear();
    let (s, fails) = campaign::section(&results);
    timed((s, fails.into_iter().map(|(path, f)| (path, f.bundle.clone())).collect()), t);

    let t = Instant::now();
    let bar = progress.bar("corpus replay", targets::all().len() as u64);
    timed((replay::section(corpus.as_deref(), seed, &bar), Vec::new()), t);
    bar.finish_and_clear();

    let t = Instant::now();
    let bar = progress.bar("C header", 1);
    timed((cheader::section(&folder, corpus.as_deref(), seed), Vec::new()), t);
    bar.finish_and_clear();

    let t = Instant::now();
    let bar = progress.bar("library oracle", o.libs.len() as u64);
    timed(vendor_lib::section(&o.libs), t);
    bar.finish_and_clear();

    // Without --neff, the real programs committed under corpus/neff/real/.
    let neffs = if o.neffs.is_empty() { corpus.as_deref().map(default_neffs).unwrap_or_default() } else { o.neffs.clone() };
    let t = Instant::now();
    let bar = progress.bar("NEFF conformance", neffs.len() as u64);
    timed(vendor_neff::section(&neffs, o.max_bundles), t);
    bar.finish_and_clear();

    if let Some((cmd, lib)) = &o.worker {
        let t = Instant::now();
        let bar = progress.bar("your worker", 1);
        let s = match crate::worker::open(cmd.as_deref(), lib.as_deref(), false, Duration::from_secs(2)) {
            Ok((mut worker, reproduce)) => {
                let real = crate::worker::real_bundles(&neffs).unwrap_or_default();
                differential::section(differential::Fuzzed { worker: worker.as_mut(), reproduce: &reproduce }, &real, o.time, seed)
            }
            Err(e) => {
                let mut s = report::Section::new(differential::SECTION, "your worker");
                s.cases.push(report::Case::fail("worker", e.to_string()));
                (s, Vec::new())
            }
        };
        timed(s, t);
        bar.finish_and_clear();
    }

    let report = Report {
        date: now.date().to_string(),
        started: now.rfc3339().to_string(),
        tpb_version: env!("CARGO_PKG_VERSION"),
        seed,
        time_budget_secs: o.time.as_secs(),
        libs: o.libs.iter().map(|p| p.display().to_string()).collect(),
        neffs: neffs.iter().map(|p| p.display().to_string()).collect(),
        neff_args: o.neff_args.iter().map(|p| p.display().to_string()).collect(),
        sections,
        elapsed: started.elapsed(),
    };
    for (rel, bytes) in &artifacts {
        write(&folder, rel, bytes)?;
    }
    let json = serde_json::to_vec_pretty(&report).context_with(|| "cannot encode summary.json")?;
    write(&folder, "summary.json", &json)?;
    write(&folder, "junit.xml", junit::render(&report).as_bytes())?;
    write(&folder, "summary.md", summary::markdown(&report).as_bytes())?;
    // The page links the repository's fuzz and mutation reports, which live in the reports root beside the dated folders.
    let evidence = report.sections.iter().find_map(|s| s.page.as_ref());
    let page = page::conform_page(&report, evidence, &crate::html::Extra::find(&o.out, "../"));
    write(&folder, "report.html", page.as_bytes())?;
    let folder = staging.commit()?;
    Ok(Outcome { report, folder })
}
