//! `tpb validate` end to end on a raw file of real v2 bundles, against `cat`
//! of the same file (page cache warm): the engine streams of the folder's
//! v2 programs, repeated to the size asked for. `-q` is the verdict alone,
//! the default text mode also prints every bundle with a finding (real
//! programs carry notes the errata amend). Both run as child processes,
//! interleaved with `cat`.

use super::error::{Context as _, Error, Result};
use super::external::{timed, timed_env, which, Scratch, FORCED_PORTABLE};
use super::report::{Row, Target};
use super::timing::{ms, ratio};
use std::io::Write;
use std::path::Path;
use std::time::Duration;
use tpb_isa::Generation;
use tpb_oracle::neff;

/// `tpb validate -q` may take at most this many times `cat` of the file.
pub const TARGET: Target = Target::AtMost(3.0);
/// The file's size unless `TPB_BENCH_E2E_MIB` says otherwise.
pub const DEFAULT_MIB: usize = 256;
/// Environment variable that sets the file's size in MiB.
pub const ENV_MIB: &str = "TPB_BENCH_E2E_MIB";
const AREA: &str = "validate";

/// Writes `mib` MiB of the v2 engine streams of `files`, repeated, to `out`; the bundles written.
fn real_file(files: &[std::path::PathBuf], mib: usize, out: &Path) -> Result<usize> {
    let mut streams = Vec::new();
    for f in files {
        let n = neff::read_file(f)?;
        if n.generation() == Some(Generation::V2) {
            streams.extend(n.streams.into_iter().map(|s| s.bytes).filter(|b| tpb_isa::bundle::stream(b).is_ok()));
        }
    }
    let pool: Vec<u8> = streams.concat();
    if pool.is_empty() {
        return Err(Error::from("no v2 engine stream in the folder"));
    }
    let len = mib << 20;
    let file = std::fs::File::create(out).context_with(|| format!("{}: cannot create", out.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let mut left = len;
    while left > 0 {
        let take = left.min(pool.len());
        w.write_all(&pool[..take]).context_with(|| format!("{}: cannot write", out.display()))?;
        left -= take;
    }
    w.flush().context_with(|| format!("{}: cannot write", out.display()))?;
    Ok(len / tpb_isa::BUNDLE_BYTES)
}

pub fn run(rounds: usize, scratch: &Scratch, notes: &mut Vec<String>) -> Vec<Row> {
    let mib = tpb_isa::workload::env_mib(ENV_MIB, DEFAULT_MIB);
    let quiet = format!("tpb validate -q, {mib} MiB of real v2 bundles, vs cat");
    let text = format!("tpb validate (text to /dev/null), {mib} MiB of real v2 bundles, vs cat");
    let skip = |why: String| vec![Row::skipped(AREA, quiet.clone(), Some(TARGET), why.clone()), Row::skipped(AREA, text.clone(), None, why)];
    let Some((dir, files)) = super::folder::folder() else { return skip("no NEFF programs in ../shared/neff or corpus/neff/real".into()) };
    let Some(cat) = which("cat") else { return skip("cat is not installed".into()) };
    let tpb = match super::tpb() {
        Ok(p) => p,
        Err(e) => return skip(e),
    };
    let path = scratch.0.join("real-v2.bin");
    let bundles = match real_file(&files, mib, &path) {
        Ok(n) => n,
        Err(e) => return skip(e.to_string()),
    };
    let file = path.display().to_string();
    // Best of each, interleaved round by round; the first `cat` also warms the page cache.
    // The last is `-q` as a CPU without AVX-512 runs it (the portable kernel, the others hidden).
    let mut best = [Duration::MAX; 4];
    for _ in 0..rounds.max(1) {
        let round = [
            timed(&cat, &[&file], &[0]),
            timed(&tpb, &["validate", "-q", &file], &[0, 1]),
            timed(&tpb, &["validate", &file], &[0, 1]),
            timed_env(&tpb, &["validate", "-q", &file], &FORCED_PORTABLE, &[0, 1]),
        ];
        for (b, r) in best.iter_mut().zip(round) {
            match r {
                Ok(d) => *b = (*b).min(d),
                Err(e) => return skip(e.to_string()),
            }
        }
    }
    notes.push(format!(
        "validate end to end: {mib} MiB ({bundles} bundles) of the v2 engine streams of {} repeated, in the page cache; `cat FILE >/dev/null` is the baseline",
        dir.display()
    ));
    let [base, q, t, p] = best;
    let mut out = rows(quiet, text, bundles, [base, q, t]);
    out.push(row(format!("tpb validate -q, portable kernel forced (a CPU without AVX-512), {mib} MiB, vs cat"), bundles, base, p, Some(TARGET)));
    out
}

/// The two rows from the best times of `cat`, `validate -q` and `validate` over `bundles` bundles.
fn rows(quiet: String, text: String, bundles: usize, [base, q, t]: [Duration; 3]) -> Vec<Row> {
    vec![row(quiet, bundles, base, q, Some(TARGET)), row(text, bundles, base, t, None)]
}

/// One row: `d` over `cat`'s `base`, with the bundle rate.
fn row(name: String, bundles: usize, base: Duration, d: Duration, target: Option<Target>) -> Row {
    let rate = bundles as f64 / d.as_secs_f64().max(f64::MIN_POSITIVE) / 1e6;
    Row::measured(
        AREA,
        name,
        format!("{} ({rate:.1} M bundles/s)", ms(d)),
        format!("cat {}", ms(base)),
        "time / baseline time",
        ratio(d, base),
        target,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only v2 programs' streams are taken: a v3 program (cayman) gives none.
    #[test]
    fn a_folder_without_v2_programs_gives_no_file() -> Result<(), Box<dyn std::error::Error>> {
        let scratch = Scratch::new()?;
        let kelf: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#;
        let def: &[u8] = br#"{"pe_instr": "sg00/PE.bin"}"#;
        let stream = tpb_isa::bundle::header_only_stream(&[0xA4, 0xA4]);
        let bytes = neff::build::container(2, &[("kelf-0.json", kelf), ("sg00/def.json", def), ("sg00/PE.bin", &stream)])?;
        let v3 = scratch.0.join("v3.neff");
        std::fs::write(&v3, bytes)?;
        let n = neff::read_file(&v3)?;
        assert_eq!((n.generation(), n.bundles()), (Some(Generation::V3), 2));
        assert_eq!(real_file(&[v3], 1, &scratch.0.join("out.bin")).map_err(|e| e.to_string()), Err("no v2 engine stream in the folder".into()));
        Ok(())
    }

    #[test]
    fn the_rows_are_times_over_cat_and_bundle_rates() {
        let ms = Duration::from_millis;
        let r = rows("q".into(), "t".into(), 3_000_000, [ms(100), ms(250), ms(500)]);
        assert_eq!((r[0].name.as_str(), r[0].ratio, r[0].target), ("q", Some(2.5), Some(TARGET)));
        assert_eq!((r[1].name.as_str(), r[1].ratio, r[1].target), ("t", Some(5.0), None));
        assert_eq!((r[0].measured.as_str(), r[0].baseline.as_str()), ("250 ms (12.0 M bundles/s)", "cat 100 ms"));
        assert_eq!(r[1].measured, "500 ms (6.0 M bundles/s)");
    }

    #[test]
    fn the_real_file_is_whole_v2_bundles_of_the_size_asked() -> Result<(), Box<dyn std::error::Error>> {
        let Some((_, files)) = super::super::folder::folder() else { return Err("no NEFF programs, not even corpus/neff/real".into()) };
        let scratch = super::Scratch::new()?;
        let out = scratch.0.join("real.bin");
        let bundles = super::real_file(&files, 1, &out)?;
        let bytes = std::fs::read(&out)?;
        assert_eq!((bytes.len(), bundles), (1 << 20, (1 << 20) / 64));
        assert!(tpb_isa::bundle::stream(&bytes).is_ok());
        // Real v2 programs are valid by default.
        let mut invalid = 0;
        tpb_isa::validate::judge_stream(&bytes, tpb_isa::Generation::V2, tpb_isa::Profile::Amended, |_, valid| invalid += usize::from(!valid));
        assert_eq!(invalid, 0);
        Ok(())
    }
}
