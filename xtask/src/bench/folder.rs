//! A folder of NEFF programs, as users validate them: `tpb validate -q` on
//! every file, on every core and on one, against `gzip -dc` of the same
//! payloads (the physical floor of NEFF work is decompression) split over
//! as many processes. The baseline's own speedup on all cores is what
//! this machine allows for such work; the validator's must reach a share
//! of it. `tpb evidence` over the same files is timed too: on one thread
//! against `gzip -dc` in one process, and its speedup on every core.
//! Everything runs as child processes, interleaved.

use super::codec::scaling_target;
use super::error::{Context as _, Error, Result};
use super::external::{timed, timed_env, which, Scratch, FORCED_PORTABLE};
use super::report::{Row, Target};
use super::timing::{ms, ratio};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tpb_oracle::neff::{self, NeffHeader};

/// Validating a folder may take at most this many times the decompression of its payloads.
pub const TARGET: Target = Target::AtMost(1.5);
/// `tpb evidence` on one core may take at most this many times `gzip -dc` of the payloads on one.
pub const EVIDENCE_TARGET: Target = Target::AtMost(2.0);
const AREA: &str = "neff";

/// Every `.neff` under `dir`, sorted.
fn neffs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            neffs_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "neff") {
            out.push(p);
        }
    }
}

/// The team's real programs (`../shared/neff/`, every build), else the committed ones.
pub fn folder() -> Option<(PathBuf, Vec<PathBuf>)> {
    let root = crate::root();
    [root.join("../shared/neff"), root.join("corpus/neff/real")].into_iter().find_map(|d| {
        let mut v = Vec::new();
        neffs_under(&d, &mut v);
        v.sort();
        (!v.is_empty()).then_some((d, v))
    })
}

/// Writes each container's payload to `dir`; the payload paths and the bundles they hold.
fn payloads(files: &[PathBuf], dir: &Path) -> Result<(Vec<String>, usize)> {
    let mut out = Vec::new();
    let mut bundles = 0;
    for (i, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).context_with(|| format!("{}: cannot read", f.display()))?;
        let h = NeffHeader::read(&bytes).ok_or_else(|| Error::Message(format!("{}: shorter than a NEFF header", f.display())))?;
        let (start, len) = (usize::try_from(h.header_size.get()), usize::try_from(h.data_size.get()));
        let payload = start.ok().zip(len.ok()).and_then(|(s, l)| bytes.get(s..s.checked_add(l)?));
        let payload = payload.ok_or_else(|| Error::Message(format!("{}: payload runs past the file", f.display())))?;
        if neff::payload::sniff(payload) != Some(neff::payload::Compression::Gzip) {
            return Err(Error::Message(format!("{}: payload is not gzip: the baseline needs gzip payloads", f.display())));
        }
        bundles += neff::read_file(f).context_with(|| f.display())?.bundles();
        let p = dir.join(format!("payload-{i:04}.gz"));
        std::fs::write(&p, payload).context_with(|| format!("{}: cannot write", p.display()))?;
        out.push(p.display().to_string());
    }
    Ok((out, bundles))
}

/// A shell script running `gzip -dc` over the files in `groups` processes at once.
fn gzip_script(files: &[String], groups: usize) -> String {
    let per = files.len().div_ceil(groups.max(1)).max(1);
    let jobs: Vec<String> = files.chunks(per).map(|c| format!("gzip -dc {} >/dev/null &", c.join(" "))).collect();
    format!("{} wait", jobs.join(" "))
}

pub fn run(rounds: usize, scratch: &Scratch, notes: &mut Vec<String>) -> Vec<Row> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let name = format!("validate a folder of NEFFs, {cores} thread(s), vs gzip -dc of the payloads");
    let scaling = format!("validate a folder of NEFFs, {cores} vs 1 thread(s)");
    let evidence = "evidence over a folder of NEFFs, 1 thread, vs gzip -dc of the payloads in 1 process".to_string();
    let evidence_scaling = format!("evidence over a folder of NEFFs, {cores} vs 1 thread(s)");
    let evidence_portable =
        "evidence over a folder of NEFFs, 1 thread, portable kernel forced (a CPU without AVX-512), vs gzip -dc of the payloads in 1 process"
            .to_string();
    let skip = |why: String| {
        vec![
            Row::skipped(AREA, name.clone(), Some(TARGET), why.clone()),
            Row::skipped(AREA, scaling.clone(), None, why.clone()),
            Row::skipped(AREA, evidence.clone(), Some(EVIDENCE_TARGET), why.clone()),
            Row::skipped(AREA, evidence_scaling.clone(), None, why.clone()),
            Row::skipped(AREA, evidence_portable.clone(), Some(EVIDENCE_TARGET), why),
        ]
    };
    let Some((dir, files)) = folder() else { return skip("no NEFF programs in ../shared/neff or corpus/neff/real".into()) };
    let (Some(sh), Some(_)) = (which("sh"), which("gzip")) else { return skip("sh or gzip is not installed".into()) };
    let tpb = match super::tpb() {
        Ok(p) => p,
        Err(e) => return skip(e),
    };
    let (gz, bundles) = match payloads(&files, &scratch.0) {
        Ok(x) => x,
        Err(e) => return skip(e.to_string()),
    };
    let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut args = vec!["validate", "-q"];
    args.extend(paths.iter().map(String::as_str));
    let (script_all, script_one) = (gzip_script(&gz, cores), gzip_script(&gz, 1));
    let threads = cores.to_string();
    // `tpb evidence` on every core and on one, over the same files.
    let mut ev_all = vec!["evidence", "--json", "-q", "--jobs", threads.as_str()];
    ev_all.extend(paths.iter().map(String::as_str));
    let mut ev_one = ev_all.clone();
    ev_one[4] = "1";
    // Best of each, the six commands interleaved round by round.
    let mut best = [Duration::MAX; 7];
    for _ in 0..rounds.max(1) {
        let round = [
            timed_env(&tpb, &args, &[(tpb::ENV_THREADS, threads.as_str())], &[0, 1]),
            timed_env(&tpb, &args, &[(tpb::ENV_THREADS, "1")], &[0, 1]),
            timed(&sh, &["-c", &script_all], &[0]),
            timed(&sh, &["-c", &script_one], &[0]),
            timed_env(&tpb, &ev_all, &[], &[0]),
            timed_env(&tpb, &ev_one, &[], &[0]),
            timed_env(&tpb, &ev_one, &FORCED_PORTABLE, &[0]),
        ];
        for (b, r) in best.iter_mut().zip(round) {
            match r {
                Ok(d) => *b = (*b).min(d),
                Err(e) => return skip(e.to_string()),
            }
        }
    }
    notes.push(format!(
        "NEFF folder: {} ({} files, {bundles} bundles), validated by `tpb validate -q`; the baseline runs `gzip -dc` on their payloads \
         (extracted to files), split over {cores} process(es) or one",
        dir.display(),
        files.len()
    ));
    rows(&Names { validate: name, scaling, evidence, evidence_scaling, evidence_portable }, cores, (files.len(), bundles), best)
}

/// The rows' names, which say how many cores.
struct Names {
    validate: String,
    scaling: String,
    evidence: String,
    evidence_scaling: String,
    evidence_portable: String,
}

/// The rows from the best times, in the order measured: `validate -q` on
/// every core and on one, `gzip -dc` over `cores` processes and one,
/// `evidence` on every core and on one, and on one with the portable kernel
/// forced; `(files, bundles)` were read.
fn rows(names: &Names, cores: usize, (files, bundles): (usize, usize), best: [Duration; 7]) -> Vec<Row> {
    let [ours, ours_one, base, base_one, ev, ev_one, ev_portable] = best;
    let rate = |d: Duration| {
        let secs = d.as_secs_f64().max(f64::MIN_POSITIVE);
        format!("{:.0} files/s, {:.2} M bundles/s", files as f64 / secs, bundles as f64 / secs / 1e6)
    };
    vec![
        Row::measured(
            AREA,
            names.validate.clone(),
            format!("{} ({})", ms(ours), rate(ours)),
            format!("gzip -dc × {cores} {}", ms(base)),
            "time / baseline time",
            ratio(ours, base),
            Some(TARGET),
        ),
        Row::measured(
            AREA,
            format!("machine: gzip -dc of the payloads, {cores} vs 1 process(es)"),
            ms(base),
            format!("1 process {}", ms(base_one)),
            "speedup over 1 process (the limit)",
            ratio(base_one, base),
            None,
        ),
        Row::measured(
            AREA,
            names.scaling.clone(),
            format!("{} ({})", ms(ours), rate(ours)),
            format!("1 thread {} ({})", ms(ours_one), rate(ours_one)),
            "speedup over 1 thread",
            ratio(ours_one, ours),
            (cores > 1).then(|| scaling_target(ratio(base_one, base), cores)),
        ),
        Row::measured(
            AREA,
            names.evidence.clone(),
            format!("{} ({})", ms(ev_one), rate(ev_one)),
            format!("gzip -dc {}", ms(base_one)),
            "time / baseline time",
            ratio(ev_one, base_one),
            Some(EVIDENCE_TARGET),
        ),
        Row::measured(
            AREA,
            names.evidence_scaling.clone(),
            format!("{} ({})", ms(ev), rate(ev)),
            format!("1 thread {}", ms(ev_one)),
            "speedup over 1 thread",
            ratio(ev_one, ev),
            None,
        ),
        Row::measured(
            AREA,
            names.evidence_portable.clone(),
            format!("{} ({})", ms(ev_portable), rate(ev_portable)),
            format!("gzip -dc {}", ms(base_one)),
            "time / baseline time",
            ratio(ev_portable, base_one),
            Some(EVIDENCE_TARGET),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `.neff` files at every depth, and nothing else.
    #[test]
    fn neffs_are_found_at_every_depth() -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        std::fs::create_dir_all(d.path().join("a/b"))?;
        for f in ["top.neff", "a/b/deep.neff", "a/not.neff.txt", "a/neff"] {
            std::fs::write(d.path().join(f), b"")?;
        }
        let mut found = Vec::new();
        neffs_under(d.path(), &mut found);
        found.sort();
        assert_eq!(found, [d.path().join("a/b/deep.neff"), d.path().join("top.neff")]);
        neffs_under(&d.path().join("missing"), &mut found);
        assert_eq!(found.len(), 2);
        // This repository always has its committed subset at least.
        let (dir, files) = folder().ok_or("no folder of NEFFs")?;
        assert!(files.len() >= 2 && files.iter().all(|f| f.starts_with(&dir) && f.extension().is_some_and(|x| x == "neff")), "{files:?}");
        assert!(files.windows(2).all(|w| w[0] < w[1]), "sorted");
        Ok(())
    }

    /// Each payload is written out whole, and the bundles are counted over all files.
    #[test]
    fn payloads_are_the_gzip_archives_and_the_bundles_all_files_hold() -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        let stream = tpb_isa::bundle::header_only_stream(&[0xA4, 0xA4, 0xA4]);
        let (one, two) = (d.path().join("1.neff"), d.path().join("2.neff"));
        std::fs::write(&one, neff::build::container(2, &[("sg00/SP.bin", &stream)])?)?;
        std::fs::write(&two, neff::build::container(2, &[("sg00/SP.bin", &stream[..128]), ("sg00/PE.bin", &stream)])?)?;
        let (gz, bundles) = payloads(&[one.clone(), two], d.path())?;
        assert_eq!(bundles, 3 + 2 + 3);
        assert_eq!(gz.len(), 2);
        let bytes = std::fs::read(&one)?;
        let h = NeffHeader::read(&bytes).ok_or("header")?;
        let start = usize::try_from(h.header_size.get())?;
        assert_eq!(std::fs::read(&gz[0])?, bytes[start..]);
        // Not gzip: the baseline cannot run on it.
        let mut plain = bytes.clone();
        plain[start] ^= 0xFF;
        let bad = d.path().join("bad.neff");
        std::fs::write(&bad, &plain)?;
        let e = payloads(&[bad], d.path()).err().ok_or("a non-gzip payload was taken")?.to_string();
        assert!(e.contains("payload is not gzip"), "{e}");
        Ok(())
    }

    #[test]
    fn the_rows_are_ratios_of_the_best_times_in_the_order_measured() {
        let s = Duration::from_secs;
        let names =
            Names { validate: "v".into(), scaling: "s".into(), evidence: "e".into(), evidence_scaling: "es".into(), evidence_portable: "ep".into() };
        // validate on 2 cores 3 s, on 1 6 s; gzip on 2 processes 2 s, on 1 4 s; evidence on 2 cores 5 s, on 1 8 s, forced portable 10 s.
        let r = rows(&names, 2, (10, 2_000_000), [s(3), s(6), s(2), s(4), s(5), s(8), s(10)]);
        let got: Vec<(&str, Option<f64>, Option<Target>)> = r.iter().map(|r| (r.name.as_str(), r.ratio, r.target)).collect();
        assert_eq!(
            got,
            [
                ("v", Some(1.5), Some(TARGET)),
                ("machine: gzip -dc of the payloads, 2 vs 1 process(es)", Some(2.0), None),
                ("s", Some(2.0), Some(scaling_target(2.0, 2))),
                ("e", Some(2.0), Some(EVIDENCE_TARGET)),
                ("es", Some(1.6), None),
                ("ep", Some(2.5), Some(EVIDENCE_TARGET)),
            ]
        );
        assert_eq!(r[0].measured, "3000 ms (3 files/s, 0.67 M bundles/s)");
        assert_eq!(r[0].baseline, "gzip -dc × 2 2000 ms");
        assert_eq!((r[1].measured.as_str(), r[1].baseline.as_str()), ("2000 ms", "1 process 4000 ms"));
        assert_eq!(r[2].baseline, "1 thread 6000 ms (2 files/s, 0.33 M bundles/s)");
        assert_eq!((r[3].measured.as_str(), r[3].baseline.as_str()), ("8000 ms (1 files/s, 0.25 M bundles/s)", "gzip -dc 4000 ms"));
        assert_eq!((r[4].measured.as_str(), r[4].baseline.as_str()), ("5000 ms (2 files/s, 0.40 M bundles/s)", "1 thread 8000 ms"));
        assert_eq!(rows(&names, 1, (1, 1), [s(1); 7])[2].target, None, "one core: nothing to scale to");
    }

    #[test]
    fn gzip_groups_cover_every_file_once() {
        let files: Vec<String> = (0..7).map(|i| format!("p{i}")).collect();
        for groups in [1, 2, 3, 7, 9] {
            let s = super::gzip_script(&files, groups);
            for f in &files {
                assert_eq!(s.matches(&format!(" {f} ")).count() + s.matches(&format!(" {f}>")).count(), 1, "{groups}: {s}");
            }
            assert!(s.matches("gzip -dc").count() <= groups && s.ends_with("wait"), "{groups}: {s}");
        }
    }
}
