//! The package's integration tests as one test binary: one link per build
//! instead of one per file (a mutant of the library relinks every test
//! binary: docs/mutation-testing.md). Each file stays a module of its own.
//! `bounded` and `stdout` (slow: nextest's `mutants` profile runs them
//! last) stay binaries of their own.

mod cli;
mod conform;
mod corpus;
mod differ;
mod doc_commands;
mod docs;
mod evidence;
mod evidence_diff_where;
mod fleet;
mod folders;
mod html;
mod infer;
mod messages;
mod neff_cmd;
mod neff_pack;
mod neff_shrink;
mod neff_streams;
mod neff_target;
mod output_files;

/// Running `tpb` and reading its output, shared by the modules above.
mod support;

/// With `autotests = false`, a test file that no `[[test]]` lists and no
/// integration root names would never build or run: every `tests/*.rs` of
/// the three packages must be one or the other.
#[test]
fn every_test_file_is_built() {
    let root = support::root();
    for package in [".", "isa", "oracle"] {
        let dir = root.join(package).join("tests");
        let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let manifest = read(&root.join(package).join("Cargo.toml"));
        let suite = read(&dir.join("integration.rs"));
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut files: Vec<String> = entries.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".rs").map(str::to_owned)).collect();
        files.sort();
        assert!(files.len() > 3, "{}: too few test files: {files:?}", dir.display());
        for name in files {
            let listed = manifest.contains(&format!("path = \"tests/{name}.rs\""));
            let module = suite.lines().any(|l| l == format!("mod {name};"));
            assert!(
                listed ^ module,
                "{}/tests/{name}.rs: listed as a [[test]]: {listed}, a module of integration.rs: {module} (want exactly one)",
                package
            );
        }
    }
}
