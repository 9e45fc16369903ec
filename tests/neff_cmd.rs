//! `tpb neff` exit codes, run as a user runs it (its summaries go to a pipe,
//! not into `cargo test`'s output).

use std::path::{Path, PathBuf};
use std::process::Command;
use tpb_oracle::neff;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let p = dir.join(name);
    std::fs::write(&p, bytes)?;
    Ok(p)
}

fn code(args: &[&Path], json: bool) -> R<Option<i32>> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tpb"));
    c.arg("neff");
    if json {
        c.arg("--json");
    }
    let o = c.args(args).output()?;
    if json {
        // One JSON object per file that read, each on its own line.
        for line in String::from_utf8_lossy(&o.stdout).lines() {
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
