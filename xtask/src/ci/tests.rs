use super::*;

#[test]
fn the_kernels_this_cpu_runs_come_from_its_flags() {
    let avx = "processor : 0\nflags\t\t: fpu sse2 avx512f avx512vbmi avx2\nflags : none\n";
    let plain = "processor : 0\nflags\t\t: fpu sse2 avx2 avx512vbmi2\n";
    let on = |c: &str| KERNELS.iter().filter(|k| runs_kernel(k, c)).copied().collect::<Vec<_>>();
    assert_eq!(on(avx), ["portable", "avx512"]);
    assert_eq!(on(plain), ["portable"]);
    // No /proc/cpuinfo (another OS): portable only.
    assert_eq!(on(""), ["portable"]);
}

#[test]
fn the_mutation_steps_statuses() {
    assert_eq!(mutants_verdict(0, "1200", "o"), Ok(None));
    assert_eq!(mutants_verdict(124, "60", "o"), Ok(Some("mutants: the 60s cap cut the in-diff run short; untested mutants were skipped".into())));
    assert!(mutants_verdict(3, "1200", "o").is_ok_and(|n| n.is_some_and(|n| n.contains("o/mutants.out/timeout.txt"))));
    assert!(mutants_verdict(127, "1200", "o").is_ok());
    // Anything else fails CI with its status: a build failure (1), a failing baseline (4), SIGKILL after the cap (137).
    for s in [1, 2, 4, 137] {
        assert_eq!(mutants_verdict(s, "1200", "o"), Err(s));
    }
}

#[test]
fn skipped_tests_are_listed_once_each_sorted() {
    assert_eq!(skipped("b: no shared\na: no chromium\nb: no shared\n"), ["a: no chromium", "b: no shared"]);
    assert!(skipped("").is_empty());
}

#[test]
fn the_neffs_of_a_folder_tree_in_path_order() {
    let t = TempDir::new("neffs").unwrap_or_else(|f| panic!("{}", f.msg));
    for f in ["b.neff", "a/z.neff", "a/y.txt", "A.neff"] {
        let p = t.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap_or(t.path())).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&p, "").unwrap_or_else(|e| panic!("{e}"));
    }
    let got: Vec<String> = neffs(t.path()).iter().map(|p| p.strip_prefix(t.path()).unwrap_or(p).display().to_string()).collect();
    assert_eq!(got, ["A.neff", "a/z.neff", "b.neff"]);
    assert!(neffs(&t.path().join("absent")).is_empty());
}

#[test]
fn the_test_command_is_the_readmes() {
    // tests/docs.rs reads this file for the README's command; keep it one string.
    let me = std::fs::read_to_string(crate::root().join("xtask/src/ci.rs")).unwrap_or_else(|e| panic!("{e}"));
    assert!(me.contains("cmd(\"cargo test --workspace --locked\")"));
}
