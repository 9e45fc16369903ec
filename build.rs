//! The commit `tpb --version` names (`TPB_COMMIT`), from the first of:
//! the `TPB_COMMIT` environment variable (a release build may set it); the
//! `.cargo_vcs_info.json` that `cargo package` writes into a packaged crate
//! (so `cargo install tpb` names the commit it was packaged from); `git` in
//! a checkout; else `unknown`. Never fails the build.
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=TPB_COMMIT");
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&dir);
    let commit = from_env().or_else(|| from_vcs_info(dir)).or_else(|| from_git(dir)).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=TPB_COMMIT={commit}");
}

fn from_env() -> Option<String> {
    std::env::var("TPB_COMMIT").ok().map(|c| c.trim().to_string()).filter(|c| !c.is_empty())
}

/// `{"git": {"sha1": "…"}, …}`: read by hand, so the build script needs no dependency.
fn from_vcs_info(dir: &Path) -> Option<String> {
    let path = dir.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(&path).ok()?;
    println!("cargo:rerun-if-changed={}", path.display());
    let rest = &text[text.find("\"sha1\"")? + 6..];
    let start = rest.find('"')? + 1;
    let sha: String = rest[start..].chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    (sha.len() >= 12).then(|| sha[..12].to_string())
}

fn from_git(dir: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let sha = git(&["rev-parse", "--short=12", "HEAD"])?;
    // Run again when HEAD moves: the files that say where it is (worktrees included),
    // only those that exist (a missing one would make cargo run this script every build).
    let head_ref = git(&["symbolic-ref", "-q", "HEAD"]);
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(head_ref);
    for name in watched {
        if let Some(p) = git(&["rev-parse", "--path-format=absolute", "--git-path", &name]) {
            if Path::new(&p).exists() {
                println!("cargo:rerun-if-changed={p}");
            }
        }
    }
    Some(sha)
}
