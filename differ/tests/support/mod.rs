//! What the differ tests share: the C worker built from the generated
//! header, and the real programs available here.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use tpb_differ::inputs::Real;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The C worker, compiled from `differ/workers/c` against the headers
/// generated now (the format's and the worker ABI's): (shared library, executable).
pub fn c_worker(dir: &Path) -> (PathBuf, PathBuf) {
    let header = dir.join("neuron_isa_tpb.h");
    std::fs::write(&header, tpb_isa::c_header::generate()).expect("write the header");
    std::fs::write(dir.join("tpb_worker.h"), tpb_differ::abi::header()).expect("write the worker header");
    let src = root().join("differ/workers/c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let flags = ["-O2", "-Wall", "-Wextra", "-pedantic", "-std=c11", "-Werror"];
    let lib = dir.join("libtpb_worker_c.so");
    let exe = dir.join("tpb_worker_c");
    let run = |args: Vec<String>| {
        let out = Command::new(&cc).args(&args).output().unwrap_or_else(|e| panic!("no C compiler `{cc}` (set $CC): {e}"));
        assert!(out.status.success(), "{cc} {args:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    };
    let s = |p: PathBuf| p.display().to_string();
    let mut a: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    a.extend([format!("-I{}", dir.display()), "-fPIC".into(), "-shared".into(), "-o".into(), s(lib.clone()), s(src.join("tpb_worker_c.c"))]);
    run(a);
    let mut b: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    b.extend([format!("-I{}", dir.display()), "-o".into(), s(exe.clone()), s(src.join("main.c")), s(src.join("tpb_worker_c.c"))]);
    run(b);
    (lib, exe)
}

/// Every distinct real bundle of the committed programs, and of
/// `../shared/neff` when it is there (required with TPB_REQUIRE_SHARED=1).
pub fn real_bundles() -> (Real, usize) {
    let mut real = Real::default();
    let mut folders = vec![root().join("corpus/neff/real")];
    let shared = root().join("../shared/neff");
    if shared.is_dir() {
        folders.push(shared);
    } else {
        assert!(std::env::var_os("TPB_REQUIRE_SHARED").is_none(), "TPB_REQUIRE_SHARED is set but ../shared/neff is absent");
    }
    // Read the one way every command reads programs: the library's walk and loader.
    let (found, errors) = tpb_oracle::programs::list(&folders);
    assert!(errors.is_empty(), "{errors:?}");
    for f in &found {
        let p = tpb_oracle::programs::load(&f.path, tpb_oracle::neff::MAX_FILE, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
        let g = p.choose(None).generation;
        for s in p.streams() {
            real.add_stream(g, s.bytes, &format!("{}:{}", f.shown, s.member));
        }
    }
    (real, found.len())
}
