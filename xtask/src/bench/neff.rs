//! NEFF ingest against `gzip -dc | tar t` on the same container: ingest is
//! the whole read (header, digest, gunzip, untar, every engine stream
//! decoded and validated), the baseline only lists the archive. Both run as
//! child processes, so each side pays its own process start-up.

use super::error::{Context as _, Result};
use super::external::{timed, which, Scratch};
use super::report::{Row, Target};
use super::timing::{ms, ratio};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tpb_isa::workload;
use tpb_isa::{validate, Bundle};
use tpb_oracle::neff::{self, payload::Compression, NeffHeader};

/// Ingest may take at most 1.2 times the baseline.
pub const TARGET: Target = Target::AtMost(1.2);
const NAME: &str = "NEFF ingest vs gzip -dc | tar t";

pub struct Options {
    /// A container to read; default: the largest of the team's real NEFFs, else a generated one.
    pub neff: Option<PathBuf>,
    pub rounds: usize,
}

/// The whole ingest of one container; the number of bundles read. This is
/// what the child process (`xtask bench --ingest FILE`) runs.
pub fn ingest(path: &Path) -> Result<usize> {
    let n = neff::read_file(path)?;
    let mut findings = Vec::new();
    let mut bundles = 0;
    // The generation `tpb validate` judges it under (a guess by fit when its target names none).
    let g = n.choose(None).generation;
    for s in &n.streams {
        for (_, _, raw) in s.bundles() {
            findings.clear();
            validate::validate_into(&Bundle::decode(raw), g, &mut findings);
            bundles += 1;
        }
    }
    Ok(bundles)
}

pub fn run(o: &Options, scratch: &Scratch, notes: &mut Vec<String>) -> Vec<Row> {
    let skip = |why: String| vec![Row::skipped("neff", NAME, Some(TARGET), why)];
    let (path, what) = match &o.neff {
        Some(p) => (p.clone(), "given".to_string()),
        None => match super::folder::folder().and_then(|(dir, files)| Some((largest(&files)?, dir))) {
            Some((p, dir)) => (p, format!("the largest real NEFF in {}", dir.display())),
            None => match generated(&scratch.0) {
                Ok(p) => (p, "generated (no real NEFF found in ../shared/neff or corpus/neff/real)".to_string()),
                Err(e) => return skip(e.to_string()),
            },
        },
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => return skip(format!("{}: cannot read: {e}", path.display())),
    };
    let bundles = match ingest(&path) {
        Ok(n) => n,
        Err(e) => return skip(e.to_string()),
    };
    // The baseline reads the payload: the bytes the header points at.
    let Some(h) = NeffHeader::read(&bytes) else { return skip(format!("{}: shorter than a NEFF header", path.display())) };
    let (start, len) = (h.header_size.get(), h.data_size.get());
    let payload = usize::try_from(start).ok().zip(usize::try_from(len).ok()).and_then(|(s, l)| bytes.get(s..s.checked_add(l)?));
    let Some(payload) = payload else { return skip(format!("{}: payload runs past the file", path.display())) };
    let gz = neff::payload::sniff(payload) == Some(Compression::Gzip);
    let payload_path = scratch.0.join(if gz { "payload.tar.gz" } else { "payload.tar" });
    if let Err(e) = std::fs::write(&payload_path, payload) {
        return skip(format!("{}: cannot write: {e}", payload_path.display()));
    }
    let (Some(sh), Some(_), Some(_)) = (which("sh"), which("gzip"), which("tar")) else {
        return skip("sh, gzip or tar is not installed".into());
    };
    let xtask = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return skip(format!("cannot locate the xtask executable: {e}")),
    };
    notes.push(format!(
        "NEFF input: {} ({} bytes, {} payload bytes, {bundles} bundles; {what}). The baseline lists the payload \
         extracted to a file (`gzip -dc` cannot skip the 1 KiB header itself).",
        path.display(),
        bytes.len(),
        payload.len()
    ));
    let file = path.display().to_string();
    let payload_s = payload_path.display().to_string();
    let script = if gz { "gzip -dc \"$1\" | tar tf - >/dev/null" } else { "tar tf \"$1\" >/dev/null" };
    let ours = || timed(&xtask, &["bench", "--ingest", &file], &[0]);
    let base = || timed(&sh, &["-c", script, "sh", &payload_s], &[0]);
    let (mut t_ours, mut t_base) = (Duration::MAX, Duration::MAX);
    for _ in 0..=o.rounds.max(1) {
        match ours().and_then(|a| Ok((a, base()?))) {
            Ok((a, b)) => {
                t_ours = t_ours.min(a);
                t_base = t_base.min(b);
            }
            Err(e) => return skip(e.to_string()),
        }
    }
    vec![Row::measured(
        "neff",
        NAME,
        ms(t_ours),
        format!("{} {}", if gz { "gzip -dc | tar t" } else { "tar t" }, ms(t_base)),
        "time / baseline time",
        ratio(t_ours, t_base),
        Some(TARGET),
    )]
}

/// The largest of `files` (the first of equals), or `None` when none can be read.
fn largest(files: &[PathBuf]) -> Option<PathBuf> {
    let sized = files.iter().filter_map(|p| Some((std::fs::metadata(p).ok()?.len(), p)));
    sized.rev().max_by_key(|(len, _)| *len).map(|(_, p)| p.clone())
}

/// A gzip container holding 8 MiB of generated bundles as one subgraph's engine streams.
fn generated(dir: &Path) -> Result<PathBuf> {
    let stream = workload::generate(8 << 20);
    let quarter = stream.len() / 4 / 64 * 64;
    let (a, rest) = stream.split_at(quarter);
    let (b, rest) = rest.split_at(quarter);
    let (c, d) = rest.split_at(quarter);
    let members: [(&str, &[u8]); 4] = [("sg00/PE.bin", a), ("sg00/Activation.bin", b), ("sg00/DVE.bin", c), ("sg00/Pool.bin", d)];
    let bytes = neff::build::container(2, &members).context_with(|| "cannot build a NEFF")?;
    let path = dir.join("generated.neff");
    std::fs::write(&path, bytes).context_with(|| format!("{}: cannot write", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated container holds the whole 8 MiB stream in four engine
    /// streams of whole bundles, and ingest reads and counts every one.
    #[test]
    fn the_generated_container_is_read_whole_by_ingest() -> Result<(), Box<dyn std::error::Error>> {
        let scratch = Scratch::new()?;
        let path = generated(&scratch.0)?;
        let n = neff::read_file(&path)?;
        let sizes: Vec<usize> = n.streams.iter().map(|s| s.bytes.len()).collect();
        assert_eq!(sizes, [2 << 20; 4]);
        assert_eq!(ingest(&path)?, (8 << 20) / 64);
        let bytes = std::fs::read(&path)?;
        assert!(NeffHeader::read(&bytes).is_some());
        Ok(())
    }

    #[test]
    fn the_largest_file_is_chosen_and_the_first_of_equals() -> Result<(), Box<dyn std::error::Error>> {
        let scratch = Scratch::new()?;
        let files: Vec<PathBuf> = (0..4).map(|i| scratch.0.join(format!("{i}.neff"))).collect();
        for (f, n) in files.iter().zip([3usize, 9, 9, 1]) {
            std::fs::write(f, vec![0u8; n])?;
        }
        assert_eq!(largest(&files).as_deref(), Some(files[1].as_path()));
        assert_eq!(largest(&[scratch.0.join("missing.neff")]), None);
        Ok(())
    }
}
