//! `cargo xtask package-check` (was `ci/package-check.sh`): the crates as
//! crates.io would get them (docs/releasing.md, docs/ci.md).
//!  1. `cargo publish --dry-run` of tpb-isa, tpb-oracle, tpb-differ and tpb in
//!     one command: each is packaged and built from its `.crate` alone, its
//!     workspace dependencies taken from the `.crate` files packaged just
//!     before it; nothing is uploaded. Then `cargo package --no-verify` keeps
//!     the `.crate` files in `<target>/package/` (release.yml attaches them).
//!  2. `cargo install` of the packaged `tpb`, unpacked into a fresh folder
//!     outside the workspace with the three libraries beside it, named by a
//!     `[patch.crates-io]` in that folder's `.cargo/config.toml`; then
//!     `tpb --version` must name the version and this commit, and
//!     `tpb layout` (which needs no source tree) must run.
//!
//! A debug build, in the workspace's target folder. Exit 0 when all of it
//! passed, 1 when the installed `tpb` is wrong, else the failing command's status.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::step::{capture, cmd, fail, mkdir, remove, run, Step};

pub const CRATES: [&str; 4] = ["tpb-isa", "tpb-oracle", "tpb-differ", "tpb"];

/// The `tpb` package's version and the target folder, from `cargo metadata`.
pub fn metadata(json: &str) -> Option<(String, PathBuf)> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let version = v["packages"].as_array()?.iter().find(|p| p["name"] == "tpb")?["version"].as_str()?.to_owned();
    Some((version, PathBuf::from(v["target_directory"].as_str()?)))
}

/// The `.cargo/config.toml` that names the unpacked libraries.
pub fn patch(work: &Path, version: &str) -> String {
    let mut s = String::from("[patch.crates-io]\n");
    for c in CRATES.iter().filter(|c| **c != "tpb") {
        s.push_str(&format!("{c} = {{ path = \"{}/{c}-{version}\" }}\n", work.display()));
    }
    s
}

/// Forgets the libraries' sources cargo unpacked from an earlier dry run's
/// scratch registry. Cargo names that registry by its path
/// (`<target>/package/tmp-registry`) and never unpacks a version it already
/// holds, so a second run at the same path and version would build `tpb`
/// against the first run's libraries. Returns the folders removed.
pub fn forget_unpacked(cargo_home: &Path, version: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut gone = Vec::new();
    let registries = match std::fs::read_dir(cargo_home.join("registry/src")) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(gone),
        Err(e) => return Err(e),
    };
    for registry in registries {
        let registry = registry?.path();
        for c in CRATES {
            let unpacked = registry.join(format!("{c}-{version}"));
            if unpacked.is_dir() {
                std::fs::remove_dir_all(&unpacked)?;
                gone.push(unpacked);
            }
        }
    }
    Ok(gone)
}

/// Where cargo keeps its registries: `CARGO_HOME`, else `~/.cargo`.
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

/// What `cargo package` says, less its per-file chatter.
fn quiet(line: &str) -> bool {
    !line.starts_with("warning: ignoring ") && !line.trim_start().starts_with("Packag")
}

pub fn run_check() -> Step {
    let meta = capture(&mut cmd("cargo metadata --format-version 1 --no-deps --locked"))?;
    let (version, target) = metadata(&meta).ok_or_else(|| fail(1, "cargo metadata names no tpb package or target folder"))?;
    let pkgs: Vec<String> = CRATES.iter().flat_map(|c| ["-p".to_owned(), (*c).to_owned()]).collect();
    println!("== cargo publish --dry-run: {} {version}", CRATES.join(" "));
    remove(&target.join("package"))?;
    if let Some(home) = cargo_home() {
        forget_unpacked(&home, &version).map_err(|e| fail(1, format!("{}: cannot forget an earlier run's unpacked crates: {e}", home.display())))?;
    }
    run(cmd("cargo publish --dry-run --locked").args(&pkgs))?;
    // The .crate files themselves (publish --dry-run keeps only its scratch copies): the
    // same packaging, already verified above. Its status is not the check's: the unpacking below is.
    if let Ok(o) = cmd("cargo package --no-verify --locked").args(&pkgs).output() {
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        for l in text.lines().filter(|l| quiet(l)) {
            println!("{l}");
        }
    }

    println!("== cargo install of the packaged tpb, outside the workspace");
    let scratch = target.join("package-install");
    remove(&scratch)?;
    // Outside the workspace: cargo finds no Cargo.toml above the unpacked crates.
    let work = crate::step::TempDir::new("package")?;
    mkdir(&work.path().join(".cargo"))?;
    for c in CRATES {
        run(Command::new("tar").arg("-xzf").arg(target.join("package").join(format!("{c}-{version}.crate"))).arg("-C").arg(work.path()))?;
    }
    let config = patch(work.path(), &version);
    std::fs::write(work.path().join(".cargo/config.toml"), &config).map_err(|e| fail(1, format!("{}: {e}", work.path().display())))?;
    print!("{config}");
    run(cmd("cargo install --debug --locked --path")
        .arg(format!("tpb-{version}"))
        .arg("--root")
        .arg(&scratch)
        .current_dir(work.path())
        .env("CARGO_TARGET_DIR", &target))?;
    let tpb = scratch.join("bin/tpb");
    let got = capture(Command::new(&tpb).arg("--version"))?.trim_end().to_owned();
    let commit = capture(&mut cmd("git rev-parse --short=12 HEAD"))?;
    let want = format!("tpb {version} (commit {})", commit.trim());
    println!("tpb --version: {got}");
    if got != want {
        return Err(fail(1, format!("expected \"{want}\"")));
    }
    // A command that needs nothing from the source tree runs from the installed binary.
    run(Command::new(&tpb).arg("layout").stdout(Stdio::null()))?;
    println!("package-check: {} packaged, verified and installed from the .crate files", CRATES.join(" "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_and_target_folder_come_from_cargo_metadata() {
        let json = r#"{"packages":[{"name":"tpb-isa","version":"9"},{"name":"tpb","version":"0.3.0"}],"target_directory":"/t"}"#;
        assert_eq!(metadata(json), Some(("0.3.0".into(), PathBuf::from("/t"))));
        assert_eq!(metadata(r#"{"packages":[],"target_directory":"/t"}"#), None);
        assert_eq!(metadata("not json"), None);
    }

    #[test]
    fn an_earlier_runs_unpacked_libraries_are_forgotten_and_nothing_else() -> std::io::Result<()> {
        let home = std::env::temp_dir().join(format!("xtask-forget-{}", std::process::id()));
        let src = home.join("registry/src");
        for dir in ["-1a/tpb-oracle-0.2.0", "-1a/tpb-oracle-0.1.0", "-2b/tpb-isa-0.2.0", "-2b/serde-0.2.0", "-2b/tpb-0.2.0"] {
            std::fs::create_dir_all(src.join(dir))?;
        }
        let mut gone = forget_unpacked(&home, "0.2.0")?;
        gone.sort();
        assert_eq!(gone, [src.join("-1a/tpb-oracle-0.2.0"), src.join("-2b/tpb-0.2.0"), src.join("-2b/tpb-isa-0.2.0")]);
        for kept in ["-1a/tpb-oracle-0.1.0", "-2b/serde-0.2.0"] {
            assert!(src.join(kept).is_dir(), "{kept}");
        }
        assert!(forget_unpacked(&home.join("none"), "0.2.0")?.is_empty());
        std::fs::remove_dir_all(&home)
    }

    #[test]
    fn the_patch_names_the_three_libraries_beside_tpb() {
        let p = patch(Path::new("/w"), "1.0.0");
        assert_eq!(p.lines().count(), 4);
        assert!(p.contains("tpb-isa = { path = \"/w/tpb-isa-1.0.0\" }"), "{p}");
        assert!(!p.contains("tpb = "), "{p}");
        assert!(!quiet("   Packaging tpb v1") && !quiet("warning: ignoring x") && quiet("warning: other"));
    }
}
