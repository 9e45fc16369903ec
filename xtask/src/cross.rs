//! `cargo xtask cross [ARCH] [PACKAGE...]` (was `ci/cross.sh`; default
//! `aarch64 tpb-isa`): builds and tests the crates for another Linux
//! architecture, run under qemu-user: there only the portable validator
//! kernel is built, and a big-endian one (s390x) checks that nothing reads
//! the wire format in the host's byte order.
//!
//! Installs what it needs when missing and it may (root, apt-get, rustup):
//! the target's standard library, its C cross compiler and qemu-user. Tests
//! that start a child process need the kernel to run foreign binaries through
//! qemu (binfmt_misc); it registers that when it can, else says so.
//! Exit: cargo test's status; 5 when the tools cannot be had.

use std::path::Path;
use std::process::{Command, Stdio};

use clap::Args;

use crate::step::{cmd, fail, on_path, quiet_output, run, succeeds, Step};

#[derive(Args, Debug)]
pub struct Cross {
    /// The architecture (`aarch64`, `s390x`, …): its `ARCH-unknown-linux-gnu` target.
    #[arg(default_value = "aarch64")]
    arch: String,
    /// The packages to test (default: tpb-isa).
    packages: Vec<String>,
}

/// The names a cross build uses for ARCH.
#[derive(Debug, PartialEq, Eq)]
pub struct Names {
    pub triple: String,
    /// Debian's GNU triple, which names the cross compiler (`aarch64-linux-gnu-gcc`).
    pub gnu: String,
    /// `CARGO_TARGET_<TRIPLE>_`, upper case with `_`.
    pub cargo_env: String,
    /// `CC_<triple with _>`.
    pub cc_env: String,
}

pub fn names(arch: &str) -> Names {
    let triple = format!("{arch}-unknown-linux-gnu");
    Names {
        cargo_env: format!("CARGO_TARGET_{}_", triple.to_ascii_uppercase().replace('-', "_")),
        cc_env: format!("CC_{}", triple.replace('-', "_")),
        gnu: format!("{arch}-linux-gnu"),
        triple,
    }
}

fn need(msg: String) -> crate::step::Fail {
    fail(5, msg)
}

fn root_user() -> bool {
    quiet_output(Command::new("id").arg("-u")).trim() == "0"
}

pub fn run_cross(a: Cross) -> Step {
    let n = names(&a.arch);
    let packages = if a.packages.is_empty() { vec!["tpb-isa".to_owned()] } else { a.packages };
    let pkg_gcc = format!("gcc-{}", n.gnu);
    let installed = quiet_output(Command::new("rustup").args(["target", "list", "--installed"]));
    if !installed.lines().any(|l| l == n.triple) && !succeeds(Command::new("rustup").args(["target", "add", &n.triple])) {
        return Err(need(format!("cannot install the Rust target {0} (rustup target add {0})", n.triple)));
    }
    let (gcc, qemu) = (format!("{}-gcc", n.gnu), format!("qemu-{}", a.arch));
    if !on_path(&gcc) || !on_path(&qemu) {
        if root_user() && on_path("apt-get") {
            if !succeeds(cmd("apt-get install -y -q").args([pkg_gcc.as_str(), "qemu-user", "qemu-user-binfmt"])) {
                return Err(need(format!("apt-get could not install {pkg_gcc} and qemu-user")));
            }
        } else {
            return Err(need(format!("needs {gcc} and {qemu} (Debian: apt-get install {pkg_gcc} qemu-user qemu-user-binfmt)")));
        }
    }
    let sysroot = format!("/usr/{}", n.gnu);
    if !Path::new(&sysroot).is_dir() {
        return Err(need(format!("no {sysroot}: the cross C library ({pkg_gcc} brings it) is missing")));
    }
    // Child processes (tests that start a test binary or the tpb binary) are
    // foreign binaries: the kernel runs them through qemu only if registered.
    let binfmt = Path::new("/proc/sys/fs/binfmt_misc");
    if !binfmt.join(&qemu).exists() {
        if root_user() {
            if !binfmt.join("register").exists() {
                let _ = Command::new("mount").args(["-t", "binfmt_misc", "binfmt_misc"]).arg(binfmt).stderr(Stdio::null()).status();
            }
            let conf = format!("/usr/lib/binfmt.d/{qemu}.conf");
            if binfmt.join("register").exists() {
                if let Ok(line) = std::fs::read(&conf) {
                    let _ = std::fs::write(binfmt.join("register"), line);
                }
            }
        }
        if !binfmt.join(&qemu).exists() {
            eprintln!("cargo xtask cross: {} binaries are not registered with binfmt_misc: tests that start a child process will fail", a.arch);
        }
    }
    let mut test = cmd("cargo test");
    for p in &packages {
        test.args(["-p", p]);
    }
    test.args(["--target", &n.triple, "--locked"])
        .env(format!("{}LINKER", n.cargo_env), &gcc)
        .env(format!("{}RUNNER", n.cargo_env), format!("{qemu} -L {sysroot}"))
        .env(&n.cc_env, &gcc)
        // For children started through binfmt_misc.
        .env("QEMU_LD_PREFIX", &sysroot);
    println!("== cargo test -p {} --target {} (under {qemu})", packages.join(" -p "), n.triple);
    run(&mut test).map_err(|f| fail(f.code, ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct C {
        #[command(flatten)]
        c: Cross,
    }

    #[test]
    fn the_names_of_a_cross_build() {
        assert_eq!(
            names("s390x"),
            Names {
                triple: "s390x-unknown-linux-gnu".into(),
                gnu: "s390x-linux-gnu".into(),
                cargo_env: "CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_".into(),
                cc_env: "CC_s390x_unknown_linux_gnu".into(),
            }
        );
    }

    #[test]
    fn the_arguments_default_to_aarch64_and_tpb_isa() {
        let c = C::try_parse_from(["c"]).unwrap_or_else(|e| panic!("{e}")).c;
        assert_eq!((c.arch.as_str(), c.packages.len()), ("aarch64", 0));
        let c = C::try_parse_from(["c", "s390x", "tpb-isa", "tpb-oracle"]).unwrap_or_else(|e| panic!("{e}")).c;
        assert_eq!((c.arch.as_str(), c.packages), ("s390x", vec!["tpb-isa".to_owned(), "tpb-oracle".to_owned()]));
    }
}
