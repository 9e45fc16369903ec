//! `tpb evidence merge A.json B.json … [-o ALL.json]`: joins evidence JSON
//! (shards of one run, or runs over different files) into the evidence of
//! all their files, byte for byte what one run over them writes. Refused,
//! with the reason: another harness (tpb version, tables, `--arch`), shards
//! of different splits or one twice, a shard with a whole run, a file on
//! two sides, an input that is the output.

use crate::error::{Context as _, Result};
use std::path::{Path, PathBuf};
use tpb_oracle::evidence::Evidence;

#[derive(clap::Args)]
pub struct Args {
    /// Evidence JSON written by `tpb evidence --json` (a shard, a whole run, or a merge).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Write the merged evidence to FILE (atomically: a temporary file renamed) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Refuse an input larger than this many bytes.
    #[arg(long, default_value_t = tpb_oracle::neff::MAX_FILE)]
    max_bytes: u64,
}

/// One evidence JSON file, read back.
pub fn load(path: &Path, max_bytes: u64) -> Result<Evidence> {
    let shown = crate::programs::shown(path);
    let bytes = tpb_oracle::programs::read_file(path, max_bytes).context_with(|| format!("{shown}: cannot read"))?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).context_with(|| format!("{shown}: not JSON"))?;
    Evidence::from_json(&v).context_with(|| format!("{shown}: not evidence written by `tpb evidence --json`"))
}

/// `into` joined with `more` (read from `path`), or why not.
pub fn join(into: Option<Evidence>, more: Evidence, path: &Path) -> Result<Evidence> {
    let Some(mut ev) = into else { return Ok(more) };
    ev.merge_checked(more).context_with(|| format!("{}: cannot merge", crate::programs::shown(path)))?;
    Ok(ev)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

pub fn run(a: Args) -> u8 {
    if let Some(out) = &a.output {
        if let Some(i) = a.inputs.iter().find(|i| same_file(i, out)) {
            return super::super::fail(format!("evidence merge: {} is an input and the output: choose another -o", crate::programs::shown(i)));
        }
    }
    let mut all: Option<Evidence> = None;
    for p in &a.inputs {
        match load(p, a.max_bytes).and_then(|ev| join(all.take(), ev, p)) {
            Ok(ev) => all = Some(ev),
            Err(e) => return super::super::fail(e.within("evidence merge")),
        }
    }
    let Some(ev) = all else { return super::super::fail("evidence merge: no inputs") };
    if let Some(s) = ev.shards() {
        eprintln!("tpb: warning: evidence merge: shards {} only: not the whole run", s.describe());
    }
    let text = match serde_json::to_string_pretty(&ev.to_json()) {
        Ok(j) => j + "\n",
        Err(e) => return super::super::fail(format!("evidence merge: cannot render JSON: {e}")),
    };
    match &a.output {
        Some(out) => match crate::out::write_atomic(out, text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => super::super::fail(format!("evidence merge: {}: cannot write: {e}", crate::programs::shown(out))),
        },
        None => crate::out::print(&text, 0),
    }
}
