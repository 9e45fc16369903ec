//! Evidence at fleet scale, end to end with the real binary: shards of the
//! committed programs (and ../shared/neff when there), counted by separate
//! processes and merged in any order, are byte for byte the single run; so
//! are runs on any number of threads. Merging refuses what no single run
//! writes. The recipes (`.github/workflows/evidence-shards.yml`,
//! `docs/recipes/evidence-job.yaml`) are run as written, with their paths
//! and shard numbers filled in.

use crate::support::{command, root, stderr, stdout, tpb};
use std::path::PathBuf;
use std::process::{Output, Stdio};

const REAL: &str = "corpus/neff/real";

fn ok(o: Output, what: &str) -> Vec<u8> {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
    o.stdout
}

fn sets() -> Vec<PathBuf> {
    let mut v = vec![root().join(REAL)];
    let shared = root().join("../shared/neff");
    if shared.is_dir() {
        v.push(shared);
    }
    v
}

#[test]
fn shards_counted_by_separate_processes_and_merged_in_any_order_are_the_single_run() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    for set in sets() {
        let set = set.display().to_string();
        let whole = ok(tpb(&["evidence", "--json", "--jobs", "1", &set]), "whole run");
        assert_eq!(ok(tpb(&["evidence", "--json", "--jobs", "2", &set]), "2 jobs"), whole, "{set}: 2 threads differ from 1");
        for n in [2u32, 3] {
            // N processes at once, as N machines would run them.
            let children: Vec<(PathBuf, std::process::Child)> = (1..=n)
                .map(|k| {
                    let out = dir.path().join(format!("s{k}of{n}.json"));
                    let file = std::fs::File::create(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
                    let child = command()
                        .args(["evidence", "--json", "-q", "--shard", &format!("{k}/{n}"), &set])
                        .stdout(Stdio::from(file))
                        .spawn()
                        .unwrap_or_else(|e| panic!("spawn: {e}"));
                    (out, child)
                })
                .collect();
            let mut shards = Vec::new();
            for (out, mut child) in children {
                assert!(child.wait().is_ok_and(|s| s.success()), "{set}: shard {}", out.display());
                shards.push(out.display().to_string());
            }
            // Reversed, and grouped: (last two merged first) then the rest.
            shards.reverse();
            let first = dir.path().join(format!("part{n}.json")).display().to_string();
            let mut args = vec!["evidence", "merge", "-o", first.as_str()];
            args.extend(shards[..2].iter().map(String::as_str));
            ok(tpb(&args), "merge two");
            let all = dir.path().join(format!("all{n}.json")).display().to_string();
            let mut args = vec!["evidence", "merge", "-o", all.as_str()];
            args.extend(shards[2..].iter().map(String::as_str));
            args.push(first.as_str());
            ok(tpb(&args), "merge the rest");
            let merged = std::fs::read(&all).unwrap_or_else(|e| panic!("{all}: {e}"));
            assert!(merged == whole, "{set}: {n} shards merged differ from the single run");
            // The merged file is evidence as --check, --propose and diff read it.
            ok(tpb(&["evidence", "--check", &all]), "--check of the merge");
            ok(tpb(&["evidence", "--propose", &all]), "--propose of the merge");
            let d = tpb(&["evidence", "diff", &all, &set]);
            assert_eq!(d.status.code(), Some(0), "{set}: diff of the merge with the programs: {}", stdout(&d));
        }
    }
}

#[test]
fn merging_refuses_what_no_single_run_writes_and_never_clobbers() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let p = |name: &str| dir.path().join(name).display().to_string();
    let write = |name: &str, args: &[&str]| std::fs::write(p(name), ok(tpb(args), name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    write("s1.json", &["evidence", "--json", "--shard", "1/2", REAL]);
    write("s2.json", &["evidence", "--json", "--shard", "2/2", REAL]);
    write("v3.json", &["evidence", "--json", "--arch", "v3", "--shard", "2/2", REAL]);
    write("whole.json", &["evidence", "--json", REAL]);
    // Programs counted in this run and evidence JSON of others join as one run over both.
    let (nki, xla) = (format!("{REAL}/nki-2.23"), format!("{REAL}/xla-2.14"));
    write("xla.json", &["evidence", "--json", &xla]);
    let both = ok(tpb(&["evidence", "--json", &nki, &xla]), "both folders");
    assert_eq!(ok(tpb(&["evidence", "--json", &nki, &p("xla.json")]), "programs and JSON"), both, "programs joined with evidence JSON");
    let refused = |args: &[&str], says: &str| {
        let o = tpb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    refused(&["evidence", "merge", &p("s1.json"), &p("s1.json")], "shard 1/2 is on both sides");
    refused(&["evidence", "merge", &p("s1.json"), &p("v3.json")], "--arch");
    refused(&["evidence", "merge", &p("s1.json"), &p("whole.json")], "whole run");
    let before = std::fs::read(p("s1.json")).unwrap_or_default();
    refused(&["evidence", "merge", &p("s1.json"), &p("s2.json"), "-o", &p("s1.json")], "is an input and the output");
    assert_eq!(std::fs::read(p("s1.json")).unwrap_or_default(), before, "the input was clobbered");
    // A count edited by hand no longer reads back.
    let text = String::from_utf8_lossy(&before).replacen("\"distinct\": ", "\"distinct\": 9", 1);
    std::fs::write(p("edited.json"), text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    refused(&["evidence", "merge", &p("edited.json"), &p("s2.json")], "does not read back");
    // One shard alone is not the whole run: --check says so.
    let o = tpb(&["evidence", "--check", &p("s1.json")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("shards 1 of 2 only"));
}

/// The `tpb evidence …` commands of a recipe, in order, with `> FILE` redirections split off.
fn commands(text: &str, prefix: &str) -> Vec<(String, Option<String>)> {
    // Folded YAML (`>-`) continues a command on indented lines: join them.
    let joined: String = text.lines().map(str::trim).filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for part in joined.split(prefix).skip(1) {
        let cmd = part.split("&&").next().unwrap_or("").split(" - ").next().unwrap_or("");
        let cmd = cmd.split(" uses:").next().unwrap_or("").split(" name:").next().unwrap_or("").split(" volumeMounts:").next().unwrap_or("");
        let (args, to) = match cmd.split_once(" > ") {
            Some((a, t)) => (a, Some(t.to_string())),
            None => (cmd, None),
        };
        out.push((args.to_string(), to));
    }
    out
}

fn run_recipe(file: &str, prefix: &str, fill: &dyn Fn(&str, u32) -> String, n: u32) {
    let text = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let cmds = commands(&text, prefix);
    let words = |a: &str, k: u32| -> Vec<String> { fill(a, k).split_whitespace().map(|s| s.trim_matches('"').to_string()).collect() };
    let is_merge = |a: &str| a.starts_with("evidence merge ");
    assert!(cmds.iter().any(|(a, _)| a.contains(" --shard ")), "{file}: no shard command: {cmds:?}");
    assert!(cmds.iter().any(|(a, _)| is_merge(a)), "{file}: no merge: {cmds:?}");
    assert!(cmds.iter().any(|(a, _)| a.contains(" --check ")), "{file}: no check: {cmds:?}");
    let whole = ok(tpb(&["evidence", "--json", REAL]), "whole");
    for (args, to) in &cmds {
        let shards: Vec<u32> = if args.contains(" --shard ") { (1..=n).collect() } else { vec![1] };
        for k in shards {
            let args = words(args, k);
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = ok(tpb(&argv), &format!("{file}: tpb {args:?}"));
            if let Some(to) = to {
                let to = fill(to, k).split_whitespace().next().unwrap_or("").trim_matches('"').to_string();
                std::fs::write(&to, out).unwrap_or_else(|e| panic!("{to}: {e}"));
            }
        }
        if let Some(to) = to.as_deref().filter(|t| t.trim_end().ends_with(".part")) {
            // The pod renames its finished shard (`mv`), as the recipe does.
            for k in 1..=n {
                let part = fill(to, k).trim().to_string();
                std::fs::rename(&part, part.trim_end_matches(".part")).unwrap_or_else(|e| panic!("{part}: {e}"));
            }
        }
    }
    let merged = cmds.iter().find_map(|(a, _)| is_merge(a).then(|| words(a, 1).last().cloned())).flatten().unwrap_or_default();
    assert!(std::fs::read(&merged).unwrap_or_default() == whole, "{file}: merged {merged} is not the single run");
}

#[test]
fn the_recipes_run_as_written_and_merge_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let d = dir.path().display().to_string();
    let real = root().join(REAL).display().to_string();
    let gh = |a: &str, k: u32| {
        a.replace("${{ matrix.shard }}", &k.to_string())
            .replace("$SHARD", &k.to_string())
            .replace("$PROGRAMS", &real)
            .replace("shards/", &format!("{d}/"))
            .replace("evidence-", &format!("{d}/evidence-"))
            .replace(&format!("{d}/{d}/"), &format!("{d}/"))
            .replace("EVIDENCE.json", &format!("{d}/EVIDENCE.json"))
    };
    run_recipe(".github/workflows/evidence-shards.yml", "target/release/tpb ", &gh, 4);
    let dir2 = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let d2 = dir2.path().display().to_string();
    let k8s = |a: &str, k: u32| {
        a.replace("$((JOB_COMPLETION_INDEX+1))", &k.to_string())
            .replace("$JOB_COMPLETION_INDEX", &(k - 1).to_string())
            .replace("/data/neff", &real)
            .replace("/data/", &format!("{d2}/"))
    };
    std::fs::create_dir(dir2.path().join("shards")).unwrap_or_else(|e| panic!("{e}"));
    run_recipe("docs/recipes/evidence-job.yaml", "tpb ", &|a, k| k8s(a, k), 4);
}
