//! `tpb neff` exit codes, run as a user runs it (its summaries go to a pipe,
//! not into `cargo test`'s output).

use crate::support::{command, stderr, stdout};
use std::path::{Path, PathBuf};
use tpb_oracle::neff;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let p = dir.join(name);
    std::fs::write(&p, bytes)?;
    Ok(p)
}

fn code(args: &[&Path], json: bool) -> R<Option<i32>> {
    let mut c = command();
    c.arg("neff");
    if json {
        c.arg("--json");
    }
    let o = c.args(args).output()?;
    if json {
        // One JSON object per file that read, each on its own line.
        for line in stdout(&o).lines() {
            serde_json::from_str::<serde_json::Value>(line)?;
        }
    }
    Ok(o.status.code())
}

#[test]
fn exit_codes_follow_integrity_and_malformed_input() -> R<()> {
    let dir = tempfile::tempdir()?;
    let pe: Vec<u8> = [0xB1u8, 0x10, 0, 0].iter().copied().chain([0u8; 60]).collect();
    let good = neff::build::container(2, &[("kelf-0.json", br#"{"target":"cayman"}"#), ("sg00/PE.bin", &pe)])?;
    let ok = write(dir.path(), "ok.neff", &good)?;
    let mut bad_md5 = good.clone();
    let at = neff::NeffHeader::LAYOUT.field_offset("hash").ok_or("no hash field")?;
    bad_md5[at] ^= 1;
    let bad_md5 = write(dir.path(), "md5.neff", &bad_md5)?;
    let short = write(dir.path(), "short.neff", &good[..600])?;
    assert_eq!(code(&[&ok], false)?, Some(0));
    assert_eq!(code(&[&ok], true)?, Some(0));
    assert_eq!(code(&[&ok, &bad_md5], false)?, Some(1));
    assert_eq!(code(&[&bad_md5, &short, &ok], true)?, Some(2));
    Ok(())
}

/// `tpb neff unpack` and `mutate` refuse a container over `--max-bytes`,
/// the error placed at the cap (the first byte not read), exit 2.
#[test]
fn a_container_over_the_cap_is_refused_at_the_cap() -> R<()> {
    let dir = tempfile::tempdir()?;
    let good = neff::build::container(2, &[("kelf-0.json", br#"{"target":"cayman"}"#)])?;
    let big = write(dir.path(), "big.neff", &good)?;
    let cap = good.len() as u64 - 1;
    let out = dir.path().join("out");
    let max = cap.to_string();
    let runs: [Vec<&std::ffi::OsStr>; 2] = [
        vec!["unpack".as_ref(), "--max-bytes".as_ref(), max.as_ref(), big.as_os_str(), out.as_os_str()],
        vec![
            "mutate".as_ref(),
            "--max-bytes".as_ref(),
            max.as_ref(),
            "--seed".as_ref(),
            "1".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            big.as_os_str(),
        ],
    ];
    for sub in runs {
        let o = command().arg("neff").args(&sub).output()?;
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{sub:?}: {err}");
        assert!(err.contains(&format!("big.neff: file: file offset {cap:#x}: cannot read: ")), "{sub:?}: {err}");
        assert!(err.contains("over the cap"), "{sub:?}: {err}");
    }
    Ok(())
}
