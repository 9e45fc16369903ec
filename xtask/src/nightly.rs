//! `cargo xtask nightly [CAMPAIGN_SECONDS] [FUZZ_SECONDS_PER_TARGET]` (was
//! `ci/nightly.sh`; defaults 300 and 120): on a fresh clone, `tpb conform`
//! (report in `reports/<date>/`), then every cargo-fuzz target for a fixed
//! time on stable Rust (`cargo xtask fuzz`; on GitHub, ClusterFuzzLite's batch
//! job fuzzes instead). Env: TPB_LIBS / TPB_NEFFS, space-separated vendor
//! inputs for conform (default: `../shared/neff/*.neff` when present).
//! Exit 0 only when both are clean, else the first failure's status.

use std::process::Command;

use clap::Args;

use crate::step::{cmd, code, fail, glob, Step};

#[derive(Args, Debug)]
pub struct Nightly {
    /// `tpb conform --time`.
    #[arg(default_value_t = 300)]
    campaign: u64,
    /// `cargo xtask fuzz` seconds per target.
    #[arg(default_value_t = 120)]
    fuzz_secs: u64,
}

/// conform's `--lib` and `--neff` arguments.
pub fn conform_inputs(libs: &str, neffs: Option<&str>, shared: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    for l in libs.split_whitespace() {
        v.extend(["--lib".to_owned(), l.to_owned()]);
    }
    let neffs: Vec<String> = match neffs.filter(|n| !n.is_empty()) {
        Some(n) => n.split_whitespace().map(str::to_owned).collect(),
        None => shared.to_vec(),
    };
    for n in neffs {
        v.extend(["--neff".to_owned(), n]);
    }
    v
}

pub fn run_nightly(a: Nightly) -> Step {
    let shared: Vec<String> =
        glob(std::path::Path::new("../shared/neff"), |n| n.ends_with(".neff")).iter().map(|p| p.display().to_string()).collect();
    let args = conform_inputs(&std::env::var("TPB_LIBS").unwrap_or_default(), std::env::var("TPB_NEFFS").ok().as_deref(), &shared);
    let status = |c: &mut Command| c.env("CARGO_TERM_COLOR", "never").status().map_or(127, code);
    let conform = status(cmd("cargo run --release --locked -- conform --quiet --time").arg(a.campaign.to_string()).args(&args));
    let exe = std::env::current_exe().map_err(|e| fail(2, e.to_string()))?;
    let fuzz = status(Command::new(exe).arg("fuzz").arg(a.fuzz_secs.to_string()));
    match if conform != 0 { conform } else { fuzz } {
        0 => Ok(()),
        c => Err(fail(c, "")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_inputs_from_the_environment_or_shared() {
        let shared = ["../shared/neff/a.neff".to_owned()];
        assert_eq!(conform_inputs("a.so  b.so", None, &shared), ["--lib", "a.so", "--lib", "b.so", "--neff", "../shared/neff/a.neff"]);
        assert_eq!(conform_inputs("", Some("x.neff y.neff"), &shared), ["--neff", "x.neff", "--neff", "y.neff"]);
        assert_eq!(conform_inputs("", Some(""), &[]), Vec::<String>::new());
    }
}
