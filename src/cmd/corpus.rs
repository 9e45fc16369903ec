//! `tpb corpus [--out DIR] [--count N] [--seed S] [--real DIR]`: regenerates the
//! seed corpus (`DIR/<target>/*.bin`) from the hand files, the generator and
//! the bundles of the real programs in `--real`, deterministically for a seed.
//! `corpus/hand/`, `corpus/regressions/` and `corpus/neff/real/` are never touched.
//! Exit 0 on success, 2 on an I/O error.

use crate::conform::seeds::{self, DEFAULT_COUNT, DEFAULT_SEED};
use crate::error::Context as _;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 written; 2 usage or I/O error.")]
pub struct Args {
    /// Corpus root; seeds go to `<out>/<target>/`.
    #[arg(long, default_value = "corpus")]
    out: PathBuf,
    /// Generated inputs per family × generation.
    #[arg(long, default_value_t = DEFAULT_COUNT)]
    count: usize,
    /// Generator seed (decimal or 0x hex); the default reproduces the checked-in corpus.
    #[arg(long, value_parser = parse_seed, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Real compiled programs (`**/*.neff`) whose bundles become seeds, one per
    /// generation × opcode. Default: `corpus/neff/real` (here, else the source tree's).
    #[arg(long)]
    real: Option<PathBuf>,
}

// A String: clap prints it as is after "invalid value '…' for '--seed <SEED>'".
pub fn parse_seed(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|e| format!("`{s}` is not a u64: {e}"))
}

pub fn run(a: Args) -> u8 {
    let real = match a.real {
        Some(dir) => dir,
        None => crate::conform::find_corpus(None).unwrap_or_else(|| PathBuf::from("corpus")).join("neff").join("real"),
    };
    // default_neffs walks `<corpus>/neff/real`; --real names that folder itself.
    let neffs = crate::conform::real_neffs(&real);
    if neffs.is_empty() {
        return super::fail(format!("{}: no .neff files (real-bundle seeds need them; pass --real DIR)", real.display()));
    }
    let files = match seeds::generate(a.count, a.seed, &neffs) {
        Ok(f) => f,
        Err(e) => return super::fail(e),
    };
    match write(&a.out, &files) {
        Ok(s) => crate::out::print(
            &format!(
                "{}: {} seed files for {} targets ({} written, {} unchanged, {} stale removed)\n",
                a.out.display(),
                files.len(),
                s.targets,
                s.written,
                files.len() - s.written,
                s.removed
            ),
            0,
        ),
        Err(e) => super::fail(e),
    }
}

struct Stats {
    targets: usize,
    written: usize,
    removed: usize,
}

/// Writes changed files atomically and removes `.bin` files the generator no longer makes.
fn write(out: &Path, files: &[seeds::SeedFile]) -> crate::error::Result<Stats> {
    let mut by_target: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for f in files {
        by_target.entry(f.target).or_default().insert(&f.name);
    }
    let (mut written, mut removed) = (0, 0);
    for (target, names) in &by_target {
        let dir = out.join(target);
        std::fs::create_dir_all(&dir).context_with(|| format!("{}: cannot create", dir.display()))?;
        let entries = std::fs::read_dir(&dir).context_with(|| format!("{}: cannot list", dir.display()))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".bin") && !names.contains(name.as_str()) {
                std::fs::remove_file(entry.path()).context_with(|| format!("{}: cannot remove", entry.path().display()))?;
                removed += 1;
            }
        }
    }
    for f in files {
        let path = out.join(f.target).join(&f.name);
        if std::fs::read(&path).is_ok_and(|old| old == f.bytes) {
            continue;
        }
        crate::out::write_atomic(&path, &f.bytes).context_with(|| format!("{}: cannot write", path.display()))?;
        written += 1;
    }
    Ok(Stats { targets: by_target.len(), written, removed })
}
