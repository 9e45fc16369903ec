//! `tpb check` on a library-sized ELF against the generic tools a person
//! would reach for on the same file: `nm -DC` (demangled dynamic symbols)
//! plus `strings`. All three run as processes, interleaved, best of N each;
//! and the peak RSS of `tpb check` against the file's size.

use super::error::{Context as _, Result};
use super::external::{peak_rss_kib, timed, which, Scratch};
use super::report::{Row, Target};
use super::timing::{ms, ratio};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tpb_oracle::fixture::Fixture;

/// `tpb check` must take at most half the time of `nm -DC` + `strings`.
pub const TARGET: Target = Target::AtMost(0.5);
/// Exit codes of a `tpb check` that ran to the end (all facts hold / a fact differs).
const CHECK_RAN: [i32; 2] = [0, 4];

pub struct Options {
    /// An ELF to check; default: the oracle's full-size synthetic fixture.
    pub elf: Option<PathBuf>,
    pub rounds: usize,
}

pub fn run(o: &Options, scratch: &Scratch, notes: &mut Vec<String>) -> Vec<Row> {
    let name = "tpb check vs nm -DC + strings";
    let skip = |why: String| {
        vec![Row::skipped("check", name, Some(TARGET), why), Row::skipped("check", "tpb check peak RSS / file size", None, "see above")]
    };
    let elf = match &o.elf {
        Some(p) => p.clone(),
        None => match fixture(&scratch.0) {
            Ok(p) => p,
            Err(e) => return skip(e.to_string()),
        },
    };
    let size = match std::fs::metadata(&elf) {
        Ok(m) => m.len(),
        Err(e) => return skip(format!("{}: cannot read: {e}", elf.display())),
    };
    let (Some(nm), Some(strings)) = (which("nm"), which("strings")) else {
        return skip("nm or strings (binutils) is not installed".into());
    };
    let tpb = match super::tpb() {
        Ok(p) => p,
        Err(e) => return skip(e),
    };
    let file = elf.display().to_string();
    notes.push(match &o.elf {
        Some(_) => format!("check input: {file} ({size} bytes)"),
        None => format!("check input: the oracle's full-size synthetic libwalrus.so fixture ({size} bytes, `Fixture::known_full_size`)"),
    });
    let check = |args: &[&str]| timed(&tpb, args, &CHECK_RAN);
    let mut rows = Vec::new();
    // One untimed pass of each puts the file in the page cache for all three alike.
    let warm = check(&["check", &file]).and(timed(&nm, &["-DC", &file], &[0])).and(timed(&strings, &[&file], &[0]));
    if let Err(e) = warm {
        return skip(e.to_string());
    }
    let (mut t_tpb, mut t_nm, mut t_str) = (Duration::MAX, Duration::MAX, Duration::MAX);
    for _ in 0..o.rounds.max(1) {
        let round = check(&["check", &file]).and_then(|a| Ok((a, timed(&nm, &["-DC", &file], &[0])?, timed(&strings, &[&file], &[0])?)));
        match round {
            Ok((a, b, c)) => {
                t_tpb = t_tpb.min(a);
                t_nm = t_nm.min(b);
                t_str = t_str.min(c);
            }
            Err(e) => return skip(e.to_string()),
        }
    }
    rows.push(time_row(name, t_tpb, t_nm, t_str));
    rows.push(rss_row(peak_rss_kib(&tpb, &["check", &file], &CHECK_RAN, &scratch.0), size));
    rows
}

/// `tpb check`'s best time against the sum of the tools' best times.
fn time_row(name: &str, t_tpb: Duration, t_nm: Duration, t_str: Duration) -> Row {
    let base = t_nm + t_str;
    Row::measured(
        "check",
        name,
        ms(t_tpb),
        format!("nm -DC {} + strings {} = {}", ms(t_nm), ms(t_str), ms(base)),
        "time / baseline time",
        ratio(t_tpb, base),
        Some(TARGET),
    )
}

/// `tpb check`'s peak resident memory (KiB, or why it was not measured) against the file's size in bytes.
fn rss_row(kib: Result<u64>, size: u64) -> Row {
    let name = "tpb check peak RSS / file size";
    match kib {
        Ok(kib) => Row::measured(
            "check",
            name,
            format!("{:.1} MiB", kib as f64 / 1024.0),
            format!("file {:.1} MiB", size as f64 / f64::from(1u32 << 20)),
            "peak RSS / file size",
            (kib * 1024) as f64 / size.max(1) as f64,
            None,
        ),
        Err(e) => Row::skipped("check", name, None, e.to_string()),
    }
}

/// Writes the oracle's full-size fixture (the real library's size) into `dir`.
fn fixture(dir: &Path) -> Result<PathBuf> {
    let bytes = Fixture::known_full_size().and_then(|f| f.build())?;
    let path = dir.join("libwalrus-fixture.so");
    std::fs::write(&path, bytes).context_with(|| format!("{}: cannot write", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::report::Verdict;

    #[test]
    fn the_rows_compare_with_the_tools_sum_and_the_file_size() {
        let ms = Duration::from_millis;
        let r = time_row("x", ms(100), ms(150), ms(50));
        assert_eq!((r.ratio, r.verdict.clone()), (Some(0.5), Verdict::Pass));
        assert_eq!((r.measured.as_str(), r.baseline.as_str()), ("100 ms", "nm -DC 150 ms + strings 50.0 ms = 200 ms"));
        assert_eq!(time_row("x", ms(300), ms(150), ms(50)).verdict, Verdict::Miss);
        let r = rss_row(Ok(3 << 10), 3 << 19);
        assert_eq!((r.ratio, r.measured.as_str(), r.baseline.as_str()), (Some(2.0), "3.0 MiB", "file 1.5 MiB"));
        assert_eq!(rss_row(Ok(1), 0).ratio, Some(1024.0));
        assert_eq!(rss_row(Err(crate::bench::error::Error::from("no GNU time")), 1).verdict, Verdict::Skipped("no GNU time".into()));
    }

    /// The stand-in library is the oracle's full-size fixture, as a file `tpb check` can read.
    #[test]
    fn the_fixture_is_the_full_size_synthetic_library() -> Result<(), Box<dyn std::error::Error>> {
        let scratch = super::Scratch::new()?;
        let path = super::fixture(&scratch.0)?;
        assert_eq!(path, scratch.0.join("libwalrus-fixture.so"));
        let bytes = std::fs::read(&path)?;
        let want = super::Fixture::known_full_size().and_then(|f| f.build())?;
        assert!(bytes == want && bytes.starts_with(b"\x7fELF"));
        Ok(())
    }
}
