#!/usr/bin/env python3
"""Tests of ci/mutants_recheck.py and ci/mutants_report.py (standard library only).

    python3 -m unittest discover -s ci -p 'test_*.py'    (from the repo root)
    python3 ci/test_mutants_scripts.py
"""

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.dont_write_bytecode = True  # no ci/__pycache__ from loading the scripts

CI = Path(__file__).resolve().parent
RECHECK, REPORT, KEEP = CI / "mutants_recheck.py", CI / "mutants_report.py", CI / "mutants_keep.py"


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


recheck, report = load(RECHECK), load(REPORT)
UNTESTED = CI / "mutants_untested.py"
untested = load(UNTESTED)


def git_env():
    # No GIT_DIR & co. leaking in (a git hook), no user config (colour, prefixes), a committer on a bare machine.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return env


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, env=git_env(), capture_output=True, text=True, check=True).stdout


def repo_with(files):
    """A temp git repo holding `files` {path: lines} in one commit: (TemporaryDirectory, repo path, commit)."""
    tmp = tempfile.TemporaryDirectory()
    repo = Path(tmp.name)
    git(repo, "init", "-q")
    for path, lines in files.items():
        write_lines(repo / path, lines)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "earlier")
    return tmp, repo, git(repo, "rev-parse", "HEAD").strip()


def write_lines(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{t}\n" for t in lines))


OLD = [f"let v{n} = {n};" for n in range(1, 21)]


class Carry(unittest.TestCase):
    def carry(self, new_lines, old=OLD):
        tmp, repo, commit = repo_with({"f.rs": old})
        self.addCleanup(tmp.cleanup)
        write_lines(repo / "f.rs", new_lines)
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(repo)  # carry runs git in the current directory
        with mock.patch.dict(os.environ, git_env(), clear=True):
            new_line = recheck.carry(commit, "f.rs")
        return {n: new_line(n) for n in range(1, len(old) + 1)}

    def test_lines_follow_inserts_deletes_changes_and_appends(self):
        new = OLD[:4] + ["// a", "// b"] + OLD[4:9] + OLD[10:14] + ["let v15 = 99;"] + OLD[15:] + ["// end"]
        got = self.carry(new)
        want = {n: n for n in range(1, 5)}  # before any hunk
        want.update({n: n + 2 for n in range(5, 10)})  # below the insertion (@@ -4,0 +5,2 @@)
        want.update({10: None, 15: None})  # deleted, changed
        want.update({n: n + 1 for n in [11, 12, 13, 14, 16, 17, 18, 19, 20]})
        self.assertEqual(got, want)
        for n, now in got.items():
            if now is not None:
                self.assertEqual(new[now - 1], OLD[n - 1], f"old line {n}")

    def test_pure_insertion_at_the_top_shifts_every_line(self):
        self.assertEqual(self.carry(["// 1", "// 2"] + OLD), {n: n + 2 for n in range(1, 21)})

    def test_pure_insertion_after_a_line_leaves_that_line(self):
        got = self.carry(OLD[:7] + ["// x"] + OLD[7:])  # @@ -7,0 +8 @@
        self.assertEqual(got, {n: n if n <= 7 else n + 1 for n in range(1, 21)})

    def test_a_hunk_of_two_lines_made_three(self):
        got = self.carry(OLD[:5] + ["a", "b", "c"] + OLD[7:])  # @@ -6,2 +6,3 @@
        self.assertEqual(got, {n: None if n in (6, 7) else n if n < 6 else n + 1 for n in range(1, 21)})

    def test_an_untouched_file_maps_to_itself(self):
        self.assertEqual(self.carry(OLD), {n: n for n in range(1, 21)})


class Esc(unittest.TestCase):
    META = "\\.+*?()|[]{}^$#&-~"  # regex_syntax::is_meta_character

    def test_every_meta_character_is_escaped_and_nothing_else(self):
        for c in self.META:
            self.assertEqual(recheck.esc(c), "\\" + c)
        plain = "abcXYZ019 _/:<>,'\"!=@%;`"
        self.assertEqual(recheck.esc(plain), plain)

    def test_the_escaped_name_matches_itself_only(self):
        names = [
            "isa/src/x.rs:3:5: replace | with ^ in f<T>::g -> Option<(u8, &str)>",
            "a.rs:1:1: replace f -> Result<[u8; 4], ()> with Ok([0; 4]) {x} $y #z ~w a-b c+d e*f g?h \\n",
        ]
        for name in names:
            pattern = f"^{recheck.esc(name)}$"
            self.assertTrue(re.search(pattern, name), pattern)
            # Unescaped, `.` would match any character and `|` would split the pattern in two.
            for other in {"x" + name, name + "x", name.replace(".", "_"), name.split("|")[0]} - {name}:
                self.assertIsNone(re.search(pattern, other), other)


class RecheckMain(unittest.TestCase):
    def recheck_in(self, repo, earlier, commit):
        """ci/mutants_recheck.py on `earlier` in `repo`: (its stdout lines, the map it wrote to m.json)."""
        run = subprocess.run(
            [sys.executable, str(RECHECK), earlier, commit, "d.diff", "m.json"], cwd=repo, env=git_env(), capture_output=True, text=True
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.stdout.splitlines(), json.loads((repo / "m.json").read_text())

    def test_missed_names_are_carried_to_the_tree(self):
        tmp, repo, commit = repo_with({"src/a.rs": OLD, "src/gone.rs": ["fn g() {}"] * 3})
        self.addCleanup(tmp.cleanup)
        write_lines(repo / "src/a.rs", OLD[:4] + ["// a", "// b"] + OLD[4:14] + ["let v15 = 99;"] + OLD[15:])
        (repo / "src/gone.rs").unlink()
        earlier = Path(tmp.name) / "earlier"  # untracked: only the named files are diffed
        moved, changed = "src/a.rs:7:9: replace + with - in f", "src/a.rs:15:5: replace f -> u8 with 0"
        before, gone = "src/a.rs:2:3: replace | with ^ in h", "src/gone.rs:3:1: delete ! in g"
        never = "src/never.rs:1:1: delete ! in n"  # a path git never knew: an empty diff, yet no line
        write_lines(earlier / "missed.txt", [moved, changed, "not a mutant name", before, gone, never])
        diff, map_file = Path(tmp.name) / "recheck.diff", Path(tmp.name) / "recheck.json"
        run = subprocess.run(
            [sys.executable, str(RECHECK), str(earlier), commit, str(diff), str(map_file)],
            cwd=repo, env=git_env(), capture_output=True, text=True,
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(
            json.loads(map_file.read_text()),
            {moved: "src/a.rs:9:9: replace + with - in f", changed: None, before: before, gone: None, never: None},
        )
        self.assertEqual(
            diff.read_text(),
            "--- a/src/a.rs\n+++ b/src/a.rs\n"
            "@@ -2,1 +2,1 @@\n-let v2 = 2;\n+let v2 = 2;\n"
            "@@ -9,1 +9,1 @@\n-let v7 = 7;\n+let v7 = 7;\n",
        )
        self.assertEqual(
            run.stdout.splitlines(),
            ["--re", r"^src/a\.rs:2:3: replace \| with \^ in h$", "--re", r"^src/a\.rs:9:9: replace \+ with \- in f$"],
        )
        self.assertIn("2 missed or timed-out mutant(s) carried to the tree, 3 on changed lines", run.stderr)

    def test_a_recheck_of_a_recheck_keys_its_map_by_the_first_names(self):
        tmp, repo, commit = repo_with({"src/a.rs": OLD})
        self.addCleanup(tmp.cleanup)
        write_lines(repo / "src/a.rs", ["// new"] + OLD)
        first, between = "src/a.rs:3:1: delete ! in f", "src/a.rs:5:1: delete ! in f"
        other = "src/a.rs:9:1: replace + with - in g"  # in the earlier recheck's list only: kept as it is
        write_lines(repo / "out/mutants.out/missed.txt", [between, other])
        (repo / "out/recheck.json").write_text(json.dumps({first: between, "src/a.rs:1:1: caught then": "src/a.rs:2:1: caught then"}))
        _, moved = self.recheck_in(repo, "out/mutants.out", commit)
        self.assertEqual(moved, {first: "src/a.rs:6:1: delete ! in f", other: "src/a.rs:10:1: replace + with - in g"})

    def test_timed_out_names_are_carried_with_the_missed_ones(self):
        # A timeout is a hang the tests did not stop; a test added since may catch it.
        tmp, repo, commit = repo_with({"src/a.rs": OLD})
        self.addCleanup(tmp.cleanup)
        write_lines(repo / "src/a.rs", ["// new"] + OLD)
        missed, hung = "src/a.rs:3:1: delete ! in f", "src/a.rs:8:5: replace + with - in g"
        write_lines(repo / "out/missed.txt", [missed])
        write_lines(repo / "out/timeout.txt", [hung])
        both = {missed: "src/a.rs:4:1: delete ! in f", hung: "src/a.rs:9:5: replace + with - in g"}
        out, moved = self.recheck_in(repo, "out", commit)
        self.assertEqual(moved, both)
        self.assertEqual(out, ["--re", r"^src/a\.rs:4:1: delete ! in f$", "--re", r"^src/a\.rs:9:5: replace \+ with \- in g$"])
        # A kept run has no timeout.txt: its outcomes.json says which timed out.
        (repo / "out/timeout.txt").unlink()
        (repo / "out/outcomes.json").write_text(json.dumps({"outcomes": [outcome(hung, "Timeout"), outcome("src/a.rs:1:1: delete ! in e", "CaughtMutant")]}))
        self.assertEqual(self.recheck_in(repo, "out", commit)[1], both)

    def test_nothing_carried_prints_nothing(self):
        # ci/mutants.sh takes an empty stdout for "none of them is generated now".
        tmp, repo, commit = repo_with({"src/a.rs": OLD})
        self.addCleanup(tmp.cleanup)
        write_lines(repo / "src/a.rs", OLD[:14] + ["changed"] + OLD[15:])
        write_lines(repo / "out/missed.txt", ["src/a.rs:15:5: replace f -> u8 with 0"])
        run = subprocess.run(
            [sys.executable, str(RECHECK), "out", commit, "d.diff", "m.json"], cwd=repo, env=git_env(), capture_output=True, text=True
        )
        self.assertEqual((run.returncode, run.stdout), (0, ""), run.stderr)
        self.assertEqual((repo / "d.diff").read_text(), "")
        self.assertEqual(json.loads((repo / "m.json").read_text()), {"src/a.rs:15:5: replace f -> u8 with 0": None})


def outcome(name, summary, package="tpb-isa"):
    file = name.split(":")[0]
    mutant = {"name": name, "file": file, "package": package}
    phases = [{"phase": "Build", "duration": 1.0}, {"phase": "Test", "duration": 2.0}]
    return {"scenario": {"Mutant": mutant}, "summary": summary, "phase_results": phases}


def cargo_mutants_out(folder, outcomes, total=None, **run):
    """A folder as ci/mutants.sh leaves it: FOLDER/mutants.out/{outcomes,run}.json.
    `total` is cargo-mutants' count of the mutants the run selected."""
    out = Path(folder) / "mutants.out"
    out.mkdir(parents=True)
    baseline = {"scenario": "Baseline", "summary": "Success", "phase_results": [{"phase": "Build", "duration": 50.0}]}
    counts = {} if total is None else {"total_mutants": total}
    (out / "outcomes.json").write_text(json.dumps({"outcomes": [baseline] + outcomes, "cargo_mutants_version": "27.1.0", **counts}))
    fields = {"scope": "whole set", "commit": "abc1234", "cpu": "test cpu", "packages": "tpb-isa tpb-oracle", "date": "2026-01-01 00:00 UTC", "seconds": 60}
    (out / "run.json").write_text(json.dumps({**fields, **run}))
    return str(folder)


M1 = "isa/src/a.rs:10:5: replace | with ^ in f"  # moves to line 12 before the recheck
M1_NOW = "isa/src/a.rs:12:5: replace | with ^ in f"
M2 = "oracle/src/b.rs:4:9: replace == with != in g"  # its line changes before the recheck
KERNEL = "isa/src/validate/fast/lanes/avx2.rs:7:9: replace + with - in k"
EXCLUDED = "isa/src/text.rs:12:20: replace | with ^ in parse_scalar"

EARLIER = [outcome(f"isa/src/a.rs:{n}:1: replace f -> u8 with 0", "CaughtMutant") for n in (1, 2, 3)] + [
    outcome(M1, "MissedMutant"),
    outcome("isa/src/a.rs:20:1: replace g -> u8 with 1", "Unviable"),
    outcome("isa/src/a.rs:30:1: replace h -> u8 with 1", "Timeout"),
    outcome("oracle/src/b.rs:1:1: replace g -> bool with true", "CaughtMutant", "tpb-oracle"),
    outcome("oracle/src/b.rs:2:1: replace g -> bool with false", "CaughtMutant", "tpb-oracle"),
    outcome(M2, "MissedMutant", "tpb-oracle"),
    outcome(KERNEL, "MissedMutant"),
]


class Report(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def report(self, *args):
        out = self.dir / "report.md"  # never reports/mutants.md
        run = subprocess.run([sys.executable, str(REPORT), "-o", str(out), *args], cwd=self.dir, capture_output=True, text=True)
        self.assertIn(run.returncode, (0, 2), run.stderr)
        return run.returncode, out.read_text().splitlines()

    def earlier(self):
        return cargo_mutants_out(self.dir / "earlier", EARLIER)

    def recheck(self, summary):
        return cargo_mutants_out(self.dir / "recheck", [outcome(M1_NOW, summary)], commit="def5678", scope="recheck")

    def moved_map(self):
        path = self.dir / "recheck.json"
        path.write_text(json.dumps({M1: M1_NOW, M2: None}))
        return str(path)

    def test_totals_crates_and_kernels(self):
        code, lines = self.report(self.earlier())
        self.assertEqual(code, 2)  # a counted mutant was missed
        self.assertIn("| **all (kernels apart)** | 5 | 2 | 1 | 1 | 62.5% |", lines)  # 5 / (5 + 2 + 1)
        self.assertIn("| `tpb-isa` | 3 | 1 | 1 | 1 | 60.0% |", lines)
        self.assertIn("| `tpb-oracle` | 2 | 1 | 0 | 0 | 66.7% |", lines)
        self.assertIn("| `isa/src/validate/fast/lanes/avx2.rs` | 0 | 1 | 0 | 0 | 0.0% |", lines)
        kernels = lines.index("## CPU-specific kernels (apart, never counted)")
        self.assertEqual([n for n, line in enumerate(lines) if "avx2.rs" in line and "|" in line], [kernels + 4])  # under the section's table head
        missed = lines[lines.index("## Missed") + 2 : lines.index("## Timeouts") - 1]
        self.assertEqual(missed, [f"- `{M1}`", f"- `{M2}`"])
        self.assertIn("- **time per mutant**: 3 s (build 1 s + test 2 s)", lines)  # the baseline left out
        self.assertIn("- **scope**: whole set", lines)

    def test_the_tests_each_run_ran_are_named(self):
        quick = cargo_mutants_out(self.dir / "q", [outcome("isa/src/a.rs:1:1: f", "CaughtMutant")], tests="quick")
        _, lines = self.report(quick)
        tests = [line for line in lines if line.startswith("- **cargo-mutants**")]
        self.assertEqual(len(tests), 1)
        self.assertIn("tests: the quick tier (", tests[0])
        self.assertNotIn("under nextest", tests[0])
        _, lines = self.report(quick, self.earlier())  # a run from before the tiers ran every test
        tests = next(line for line in lines if line.startswith("- **cargo-mutants**"))
        self.assertIn("the quick tier (", tests)
        self.assertIn("; the whole workspace's per mutant", tests)

    def test_an_excluded_mutant_is_not_counted(self):
        if not any(re.search(p, EXCLUDED) for k, p, _ in report.exclusions() if k == "exclude_re"):
            self.skipTest("the parse_scalar exclusion left .cargo/mutants.toml")
        folder = cargo_mutants_out(self.dir / "x", [outcome(EXCLUDED, "MissedMutant"), outcome("isa/src/a.rs:1:1: f", "CaughtMutant")])
        code, lines = self.report(folder)
        self.assertEqual(code, 0)
        self.assertIn("| **all (kernels apart)** | 1 | 0 | 0 | 0 | 100.0% |", lines)
        self.assertIn(f"- `{EXCLUDED}`: missed", lines)

    def test_recheck_caught_under_its_new_name(self):
        code, lines = self.report("--recheck", self.recheck("CaughtMutant"), "--recheck-map", self.moved_map(), self.earlier())
        self.assertEqual(code, 0)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | caught at def5678 |", lines)
        self.assertIn(f"| `{M2}` | no longer generated: the code it mutated changed |", lines)
        after = "| **after the recheck** (missed ones and timeouts run again: below) | 6 | 0 | 1 | 1 | 85.7% |"
        self.assertEqual(lines[lines.index("| **all (kernels apart)** | 5 | 2 | 1 | 1 | 62.5% |") + 1], after)
        self.assertEqual(lines[lines.index("After the recheck:") + 4], "| **all (kernels apart)** | 6 | 0 | 1 | 1 | 85.7% |")

    def test_a_missed_kernel_mutant_is_named_with_its_recheck_apart_from_the_counts(self):
        earlier = self.earlier()
        _, lines = self.report(earlier)
        kernels = lines.index("## CPU-specific kernels (apart, never counted)")
        self.assertIn(f"- `{KERNEL}`", lines[kernels : lines.index("## Missed")])
        self.assertNotIn(f"- `{KERNEL}`", lines[lines.index("## Missed") :])
        rechecked = cargo_mutants_out(self.dir / "recheck", [outcome(M1_NOW, "CaughtMutant"), outcome(KERNEL, "CaughtMutant")], commit="def5678", scope="recheck")
        code, lines = self.report("--recheck", rechecked, "--recheck-map", self.moved_map(), earlier)
        self.assertEqual(code, 0)
        section = lines[lines.index("## CPU-specific kernels (apart, never counted)") : lines.index("## Missed")]
        self.assertIn(f"- `{KERNEL}`: caught at def5678", section)
        # Never counted: the totals after the recheck are those without it.
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 6 | 0 | 1 | 1 | 85.7% |", lines)

    def test_a_timeout_caught_by_its_recheck_counts_as_caught(self):
        hung, hung_now = "isa/src/a.rs:30:1: replace h -> u8 with 1", "isa/src/a.rs:31:1: replace h -> u8 with 1"
        path = self.dir / "t.json"
        path.write_text(json.dumps({M1: M1_NOW, M2: None, hung: hung_now}))
        again = cargo_mutants_out(self.dir / "rt", [outcome(M1_NOW, "CaughtMutant"), outcome(hung_now, "CaughtMutant")], commit="def5678", scope="recheck")
        earlier = self.earlier()
        code, lines = self.report("--recheck", again, "--recheck-map", str(path), earlier)
        self.assertEqual(code, 0)
        timeouts = lines.index("Each timeout below (a hang the tests did not stop), run again the same way:")
        self.assertEqual(lines[timeouts + 4], f"| `{hung}` | caught at def5678 |")
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 7 | 0 | 1 | 0 | 100.0% |", lines)
        # Not in the map: still a timeout, and counted as one.
        code, lines = self.report("--recheck", again, "--recheck-map", self.moved_map(), earlier)
        self.assertIn(f"| `{hung}` | not rechecked yet: still a timeout |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 6 | 0 | 1 | 1 | 85.7% |", lines)

    def test_recheck_still_missed(self):
        code, lines = self.report("--recheck", self.recheck("MissedMutant"), "--recheck-map", self.moved_map(), self.earlier())
        self.assertEqual(code, 2)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | missed at def5678 |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 5 | 1 | 1 | 1 | 71.4% |", lines)

    def test_a_changed_mutant_never_takes_the_verdict_of_one_moved_onto_its_old_name(self):
        # A's line changed (null), B moved onto A's old name: only B was run again.
        a, b = "isa/src/f.rs:10:5: replace + with - in g", "isa/src/f.rs:8:5: replace + with - in g"
        earlier = cargo_mutants_out(self.dir / "e2", [outcome(a, "MissedMutant"), outcome(b, "MissedMutant")])
        again = cargo_mutants_out(self.dir / "r2", [outcome(a, "CaughtMutant")], commit="def5678", scope="recheck")
        moves = self.dir / "moves.json"
        moves.write_text(json.dumps({a: None, b: a}))
        code, lines = self.report("--recheck", again, "--recheck-map", str(moves), earlier)
        self.assertEqual(code, 0)
        self.assertIn(f"| `{a}` | no longer generated: the code it mutated changed |", lines)
        self.assertIn(f"| `{b}` | caught at def5678 |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 1 | 0 | 0 | 0 | 100.0% |", lines)

    def test_a_recheck_reported_with_its_own_recheck_finds_each_mutant_by_its_first_name(self):
        # r1 rechecked a run and still missed M2 (at a new line); r2 rechecked r1, its map keyed by M2.
        m2_between, m2_now = "oracle/src/b.rs:5:9: replace == with != in g", "oracle/src/b.rs:7:9: replace == with != in g"
        r1 = cargo_mutants_out(self.dir / "r1", [outcome(m2_between, "MissedMutant", "tpb-oracle")], scope="recheck")
        (Path(r1) / "recheck.json").write_text(json.dumps({M2: m2_between}))
        r2 = cargo_mutants_out(self.dir / "r2", [outcome(m2_now, "CaughtMutant", "tpb-oracle")], commit="0a1b2c3", scope="recheck")
        moves = self.dir / "r2" / "recheck.json"
        moves.write_text(json.dumps({M2: m2_now}))
        code, lines = self.report("--recheck", r2, "--recheck-map", str(moves), r1)
        self.assertEqual(code, 0)
        self.assertIn(f"| `{m2_between}` | caught at 0a1b2c3 |", lines)

    def test_a_carried_mutant_the_recheck_never_reached_stays_missed(self):
        # The recheck's budget ran out before M1 (carried to M1_NOW): nothing says it is caught.
        again = cargo_mutants_out(self.dir / "r3", [], commit="def5678", scope="recheck, stopped by the 60s budget")
        code, lines = self.report("--recheck", again, "--recheck-map", self.moved_map(), self.earlier())
        self.assertEqual(code, 2)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | not run again (the recheck stopped before it): still missed |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 5 | 1 | 1 | 1 | 71.4% |", lines)

    def test_a_carried_mutant_a_finished_recheck_never_selected_is_no_longer_generated(self):
        # Carried to the same line, but its text changed (say, the function's return type):
        # the recheck tested all it selected, and M1_NOW was not among them.
        other = "isa/src/a.rs:40:1: replace k -> u8 with 0"
        again = cargo_mutants_out(self.dir / "r4", [outcome(other, "CaughtMutant")], total=1, commit="def5678", scope="recheck")
        path = self.dir / "r4.json"
        path.write_text(json.dumps({M1: M1_NOW, M2: other}))
        earlier = self.earlier()
        code, lines = self.report("--recheck", again, "--recheck-map", str(path), earlier)
        self.assertEqual(code, 0)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | no longer generated: the code it mutated changed |", lines)
        self.assertIn(f"| `{M2}` | caught at def5678 |", lines)
        # The same run stopped by its budget (two selected, one tested): M1 is still missed.
        stopped = cargo_mutants_out(self.dir / "r5", [outcome(other, "CaughtMutant")], total=2, commit="def5678", scope="recheck")
        code, lines = self.report("--recheck", stopped, "--recheck-map", str(path), earlier)
        self.assertEqual(code, 2)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | not run again (the recheck stopped before it): still missed |", lines)

    def test_two_runs_rechecked_apart_merge_with_both_maps(self):
        a, b = "isa/src/f.rs:10:5: replace + with - in g", "oracle/src/h.rs:3:1: replace k -> bool with true"
        run_a = cargo_mutants_out(self.dir / "ra", [outcome(a, "MissedMutant"), outcome("isa/src/f.rs:1:1: f", "CaughtMutant")], scope="sample: shard 2/40 (round-robin)")
        run_b = cargo_mutants_out(self.dir / "rb", [outcome(b, "MissedMutant", "tpb-oracle")], scope="sample: shard 3/40 (round-robin)")
        again_a = cargo_mutants_out(self.dir / "aa", [outcome("isa/src/f.rs:12:5: replace + with - in g", "CaughtMutant")], commit="def5678", scope="recheck")
        map_a, map_b = self.dir / "ma.json", self.dir / "mb.json"
        map_a.write_text(json.dumps({a: "isa/src/f.rs:12:5: replace + with - in g"}))
        map_b.write_text(json.dumps({b: None}))
        # b's recheck carried nothing: its folder holds no outcomes.
        code, lines = self.report("--recheck", again_a, "--recheck-map", str(map_a), "--recheck", str(self.dir / "absent"), "--recheck-map", str(map_b), run_a, run_b)
        self.assertEqual(code, 0)
        self.assertIn(f"| `{a}` | caught at def5678 |", lines)
        self.assertIn(f"| `{b}` | no longer generated: the code it mutated changed |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 2 | 0 | 0 | 0 | 100.0% |", lines)

    def test_recheck_without_the_map_finds_no_moved_mutant(self):
        # Without the map nothing says where M1 went: it is not taken for gone, it stays missed.
        code, lines = self.report("--recheck", self.recheck("MissedMutant"), self.earlier())
        self.assertEqual(code, 2)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | not rechecked yet: still missed |", lines)

    def test_a_run_no_recheck_covers_keeps_its_misses_beside_one_that_was_rechecked(self):
        # Two shards merged; only the first was rechecked: the second's miss stays missed.
        first = cargo_mutants_out(self.dir / "s0", [outcome(M1, "MissedMutant")], scope="sample: shard 0/4 (round-robin)")
        second = cargo_mutants_out(self.dir / "s1", [outcome(M2, "MissedMutant", "tpb-oracle")], scope="sample: shard 1/4 (round-robin)")
        code, lines = self.report("--recheck", self.recheck("CaughtMutant"), "--recheck-map", self.moved_map_of_m1(), first, second)
        self.assertEqual(code, 2)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | caught at def5678 |", lines)
        self.assertIn(f"| `{M2}` | not rechecked yet: still missed |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 1 | 1 | 0 | 0 | 50.0% |", lines)

    def moved_map_of_m1(self):
        path = self.dir / "m1.json"
        path.write_text(json.dumps({M1: M1_NOW}))
        return str(path)

    def shards(self, *scopes):
        base = Path(tempfile.mkdtemp(dir=self.dir))
        folders = [
            cargo_mutants_out(base / f"s{i}", [outcome(f"isa/src/a.rs:{i}:1: f", "CaughtMutant")], scope=s, seconds=60 * (i + 1))
            for i, s in enumerate(scopes)
        ]
        code, lines = self.report(*folders)
        self.assertEqual(code, 0)
        self.assertIn(f"- **runs merged**: {len(scopes)}; wall time {sum(range(1, len(scopes) + 1)):.1f} min", lines)
        self.assertIn(f"| **all (kernels apart)** | {len(scopes)} | 0 | 0 | 0 | 100.0% |", lines)
        return next(line for line in lines if line.startswith("- **scope**: "))

    def test_all_shards_merge_into_the_whole_set(self):
        # cargo-mutants numbers shards from 0 (--shard K/N, 0 <= K < N), as ci/mutants.sh and the workflow pass them.
        self.assertEqual(self.shards("sample: shard 0/2 (round-robin)", "sample: shard 1/2 (round-robin)"), "- **scope**: whole set (2 shards merged)")

    def test_scopes_are_listed_by_their_shard_numbers(self):
        folders = [cargo_mutants_out(self.dir / f"s{k}", [outcome(f"isa/src/a.rs:{k}:1: f", "CaughtMutant")], scope=f"sample: shard {k}/40 (round-robin)") for k in (10, 9, 12)]
        _, lines = self.report(*folders)
        scope = "- **scope**: " + "; ".join(f"sample: shard {k}/40 (round-robin)" for k in (9, 10, 12))
        self.assertIn(scope, lines)

    def test_shards_that_are_not_the_whole_set_keep_their_scopes(self):
        cases = [
            ("sample: shard 0/3 (round-robin)", "sample: shard 1/3 (round-robin)"),  # shard 2/3 missing
            ("sample: shard 1/2 (round-robin)", "sample: shard 2/2 (round-robin)"),  # 1-based: not cargo-mutants' numbering
            ("sample: shard 0/2 (round-robin)", "sample: shard 1/2 (round-robin), stopped by the 60s budget"),
            ("in-diff: d.diff, shard 0/2", "in-diff: d.diff, shard 1/2"),
        ]
        for scopes in cases:
            with self.subTest(scopes=scopes):
                self.assertEqual(self.shards(*scopes), "- **scope**: " + "; ".join(sorted(scopes)))


class Kept(unittest.TestCase):
    """ci/mutants_keep.py, and reports merged from the runs it kept (--kept)."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def keep(self, src, name):
        run = subprocess.run([sys.executable, str(KEEP), str(src), str(self.dir / "kept" / name)], capture_output=True, text=True)
        return run.returncode, run.stderr

    def shard(self, name, k, outcomes, of=4, **run):
        folder = cargo_mutants_out(self.dir / name, outcomes, scope=f"sample: shard {k}/{of} (round-robin)", **{"all_mutants": 40, **run})
        missed = [o["scenario"]["Mutant"]["name"] for o in outcomes if o["summary"] == "MissedMutant"]
        write_lines(Path(folder) / "mutants.out" / "missed.txt", missed)
        return folder

    def keep_recheck(self, name, outcomes, moves, commit, date):
        """A recheck run (its outcomes and its map, recheck.json) kept as `name`."""
        folder = cargo_mutants_out(self.dir / name, outcomes, commit=commit, scope="recheck", date=date)
        (Path(folder) / "recheck.json").write_text(json.dumps(moves))
        self.keep(folder, name)

    def merged_kept(self):
        """reports from every kept run (--kept), which must exit 0: its lines."""
        out = self.dir / "r.md"
        run = subprocess.run([sys.executable, str(REPORT), "-o", str(out), "--kept", str(self.dir / "kept")], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        return out.read_text().splitlines()

    def test_a_kept_run_holds_what_the_report_reads_and_nothing_else(self):
        noisy = outcome(M1, "MissedMutant")
        noisy["log_path"] = "log/a.log"
        noisy["scenario"]["Mutant"]["span"] = {"start": {"line": 10}}
        for p in noisy["phase_results"]:
            p["argv"] = ["cargo", "nextest", "run"]
        src = self.shard("s0", 0, [noisy, outcome("isa/src/a.rs:1:1: f", "CaughtMutant")], date="2026-01-01 00:00 UTC")
        self.assertEqual(self.keep(src, "shard-0")[0], 0)
        out = self.dir / "kept" / "shard-0" / "mutants.out"
        kept = json.loads((out / "outcomes.json").read_text())
        self.assertEqual(kept["cargo_mutants_version"], "27.1.0")
        m = kept["outcomes"][1]
        self.assertEqual(m["scenario"], {"Mutant": {"name": M1, "file": "isa/src/a.rs", "package": "tpb-isa"}})
        self.assertNotIn("log_path", m)
        self.assertEqual(m["phase_results"], [{"phase": "Build", "duration": 1.0}, {"phase": "Test", "duration": 2.0}])
        self.assertEqual((out / "missed.txt").read_text(), f"{M1}\n")
        self.assertEqual(json.loads((out / "run.json").read_text())["scope"], "sample: shard 0/4 (round-robin)")
        # The report reads the kept run as it read the original.
        original, kept_report = self.dir / "a.md", self.dir / "b.md"
        for folder, md in ((src, original), (str(self.dir / "kept" / "shard-0"), kept_report)):
            subprocess.run([sys.executable, str(REPORT), "-o", str(md), folder], capture_output=True, check=False)
        self.assertEqual(original.read_text(), kept_report.read_text())

    def test_a_kept_run_is_never_replaced(self):
        src = self.shard("s0", 0, [outcome("isa/src/a.rs:1:1: f", "CaughtMutant")])
        self.assertEqual(self.keep(src, "shard-0")[0], 0)
        before = (self.dir / "kept" / "shard-0" / "mutants.out" / "outcomes.json").read_text()
        other = self.shard("s1", 1, [outcome("isa/src/b.rs:1:1: g", "MissedMutant")])
        code, err = self.keep(other, "shard-0")
        self.assertEqual(code, 1)
        self.assertIn("already kept", err)
        self.assertEqual((self.dir / "kept" / "shard-0" / "mutants.out" / "outcomes.json").read_text(), before)

    def test_a_folder_that_is_no_finished_run_is_refused(self):
        (self.dir / "empty").mkdir()
        code, err = self.keep(self.dir / "empty", "x")
        self.assertEqual(code, 1)
        self.assertIn("not a run ci/mutants.sh finished", err)
        self.assertFalse((self.dir / "kept" / "x").exists())

    def test_the_whole_set_is_counted_at_the_latest_run(self):
        # The code changed between the shards: the newer run's count of the whole set stands.
        self.keep(self.shard("s0", 0, [outcome("isa/src/a.rs:1:1: f", "CaughtMutant")], date="2026-01-02 00:00 UTC", commit="new1234", all_mutants=38), "shard-0")
        self.keep(self.shard("s1", 1, [outcome("isa/src/a.rs:2:1: f", "CaughtMutant")], date="2026-01-01 00:00 UTC", commit="old1234", all_mutants=40), "shard-1")
        lines = self.merged_kept()
        self.assertIn("- **mutants in the whole set** (same filters, at new1234, the latest run's commit): 38", lines)
        self.assertIn("- **coverage**: 2 of 4 shards (0, 1): 2 mutants (5.3% of the whole set's 38)", lines)

    def test_every_shard_kept_reads_as_the_whole_set(self):
        self.keep(self.shard("s0", 0, [outcome("isa/src/a.rs:1:1: f", "CaughtMutant")], of=2, all_mutants=2), "shard-0")
        self.keep(self.shard("s1", 1, [outcome("isa/src/a.rs:2:1: f", "CaughtMutant")], of=2, all_mutants=2), "shard-1")
        self.assertIn("- **coverage**: 2 of 2 shards (0, 1): 2 mutants (the whole set)", self.merged_kept())

    def test_every_shard_at_its_own_commit_is_not_read_as_a_share_over_the_whole(self):
        # The set grew by one between the shards: 3 tested, 2 at the latest commit.
        self.keep(self.shard("s0", 0, [outcome("isa/src/a.rs:1:1: f", "CaughtMutant"), outcome("isa/src/a.rs:3:1: f", "CaughtMutant")], of=2, all_mutants=3), "shard-0")
        self.keep(self.shard("s1", 1, [outcome("isa/src/a.rs:2:1: f", "CaughtMutant")], of=2, date="2026-01-02 00:00 UTC", commit="new1234", all_mutants=2), "shard-1")
        self.assertIn("- **coverage**: 2 of 2 shards (0, 1): 3 mutants (every shard, but each at its own commit, so they need not add up to the whole set of 2 at the latest: see coverage by name)", self.merged_kept())

    def test_kept_runs_and_rechecks_merge_with_their_coverage(self):
        self.keep(self.shard("s0", 0, [outcome(M1, "MissedMutant"), outcome("isa/src/a.rs:1:1: f", "CaughtMutant")], date="2026-01-01 00:00 UTC"), "shard-0")
        self.keep(self.shard("s2", 2, [outcome("oracle/src/b.rs:1:1: g", "CaughtMutant", "tpb-oracle")], date="2026-01-02 00:00 UTC"), "shard-2")
        self.keep_recheck("shard-0.recheck-1", [outcome(M1_NOW, "CaughtMutant")], {M1: M1_NOW}, "def5678", "2026-01-03 00:00 UTC")
        lines = self.merged_kept()
        self.assertIn("- **runs merged**: 2; wall time 2.0 min", lines)  # the recheck is applied, not merged
        self.assertIn("- **date**: 2026-01-01 00:00 UTC to 2026-01-02 00:00 UTC", lines)  # the runs', not the recheck's
        self.assertIn("- **coverage**: 2 of 4 shards (0, 2): 3 mutants (7.5% of the whole set's 40)", lines)
        self.assertIn("| **all (kernels apart)** | 2 | 1 | 0 | 0 | 66.7% |", lines)
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | caught at def5678 |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 3 | 0 | 0 | 0 | 100.0% |", lines)

    def test_a_recheck_of_a_recheck_applies_over_the_first(self):
        # The first recheck catches M1 and still misses M2 (at a new line); the
        # second, a recheck of the first whose map names the first run's M2, catches it.
        m2_between, m2_now = "oracle/src/b.rs:5:9: replace == with != in g", "oracle/src/b.rs:7:9: replace == with != in g"
        self.keep(self.shard("s0", 0, [outcome(M1, "MissedMutant"), outcome(M2, "MissedMutant", "tpb-oracle")], date="2026-01-01 00:00 UTC"), "shard-0")
        first = [outcome(M1_NOW, "CaughtMutant"), outcome(m2_between, "MissedMutant", "tpb-oracle")]
        self.keep_recheck("shard-0.recheck-1", first, {M1: M1_NOW, M2: m2_between}, "def5678", "2026-01-02 00:00 UTC")
        self.keep_recheck("shard-0.recheck-2", [outcome(m2_now, "CaughtMutant", "tpb-oracle")], {M2: m2_now}, "0a1b2c3", "2026-01-03 00:00 UTC")
        lines = self.merged_kept()
        self.assertIn(r"| `isa/src/a.rs:10:5: replace \| with ^ in f` | caught at def5678 |", lines)
        self.assertIn("| `oracle/src/b.rs:4:9: replace == with != in g` | caught at 0a1b2c3 |", lines)
        self.assertIn("| **after the recheck** (missed ones and timeouts run again: below) | 2 | 0 | 0 | 0 | 100.0% |", lines)

    def test_a_kept_folder_that_does_not_exist_is_named(self):
        run = subprocess.run([sys.executable, str(REPORT), "-o", str(self.dir / "r.md"), "--kept", str(self.dir / "nope")], capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn("nope: no such folder", run.stderr)
        self.assertFalse((self.dir / "r.md").exists())

    def test_no_coverage_line_for_runs_that_are_not_shards_of_one_count(self):
        runs = [({}, {"outcomes": []}, {"scope": "whole set"})]
        self.assertIsNone(report.coverage(runs))
        mixed = [({}, {"outcomes": []}, {"scope": "sample: shard 0/4 (round-robin)"}), ({}, {"outcomes": []}, {"scope": "sample: shard 1/8 (round-robin)"})]
        self.assertIsNone(report.coverage(mixed))



class Untested(unittest.TestCase):
    """ci/mutants_untested.py, and the report's coverage by name (--whole-list)."""

    A3, A15 = "src/a.rs:3:5: replace + with - in f", "src/a.rs:15:5: replace + with - in f"

    def setUp(self):
        tmp, self.repo, self.commit = repo_with({"src/a.rs": OLD})
        self.addCleanup(tmp.cleanup)
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.repo)  # the script runs git in the current directory
        env = mock.patch.dict(os.environ, git_env(), clear=True)
        env.start()
        self.addCleanup(env.stop)
        # Since the run: two lines inserted at the top, and old line 15 changed.
        write_lines(self.repo / "src/a.rs", ["// 1", "// 2"] + OLD[:14] + ["let v15 = 99;"] + OLD[15:])
        self.whole = [
            "src/a.rs:5:5: replace + with - in f",  # old line 3, carried: tested
            "src/a.rs:17:5: replace + with - in f",  # old line 15 changed: its code is new
            "src/a.rs:5:9: replace + with * in f",  # on a carried line, but never named
            "src/a.rs:3:5: replace + with - in f",  # the old name, where another line is now
        ]

    def keep(self, name, commit, *names, scope="sample: shard 0/2 (round-robin)", date="2026-01-01 00:00 UTC"):
        cargo_mutants_out(self.repo / "kept" / name, [outcome(n, "CaughtMutant") for n in names], commit=commit, scope=scope, date=date)

    def test_a_mutant_is_tested_only_when_a_run_named_it_on_a_line_unchanged_since(self):
        runs = [({"outcomes": [outcome(self.A3, "CaughtMutant"), outcome(self.A15, "MissedMutant")]}, self.commit)]
        self.assertEqual(untested.untested(self.whole, runs), self.whole[1:])

    def test_a_run_at_a_commit_git_does_not_know_is_not_carried(self):
        runs = [({"outcomes": [outcome(self.A3, "CaughtMutant")]}, "0" * 40)]
        with mock.patch("sys.stderr", new_callable=io.StringIO) as err:
            self.assertEqual(untested.untested(self.whole, runs), self.whole)
        self.assertIn("not carried", err.getvalue())

    def test_parts_are_round_robin_and_numbered_from_zero(self):
        names = [f"n{i}" for i in range(7)]
        self.assertEqual(untested.part(names, "0/3"), ["n0", "n3", "n6"])
        self.assertEqual(untested.part(names, "2/3"), ["n2", "n5"])
        with self.assertRaises(ValueError):
            untested.part(names, "3/3")

    def script(self, *args):
        write_lines(self.repo / "whole.list", self.whole)
        run = subprocess.run([sys.executable, str(UNTESTED), "whole.list", "kept", *args], capture_output=True, text=True)
        return run.returncode, run.stdout, run.stderr

    def test_the_script_names_a_part_of_the_untested_and_writes_a_diff_of_their_lines(self):
        self.keep("shard-0", self.commit, self.A3)
        self.assertEqual(json.loads(self.script("--summary")[1]), {"whole": 4, "tested": 1, "untested": 3})
        code, out, err = self.script("--part", "1/2", "--diff", "d.diff")
        self.assertEqual(code, 0, err)
        # Untested: whole[1], whole[2], whole[3]; part 1 of 2 is the second of them.
        self.assertEqual(out.splitlines(), ["--re", f"^{recheck.esc(self.whole[2])}$"])
        self.assertEqual((self.repo / "d.diff").read_text(), "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -5,1 +5,1 @@\n-let v3 = 3;\n+let v3 = 3;\n")
        self.assertIn("3 of 4 mutants untested by the kept runs; 1 chosen", err)
        self.assertEqual(self.script("--part", "2/2")[0], 1)

    def report(self):
        write_lines(self.repo / "whole.list", self.whole)
        out = self.repo / "r.md"
        run = subprocess.run([sys.executable, str(REPORT), "-o", str(out), "--whole-list", "whole.list", "--kept", "kept"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        return out.read_text().splitlines()

    def test_shards_at_two_commits_are_no_whole_set_while_a_mutant_is_untested(self):
        later = git(self.repo, "rev-parse", "--short", "HEAD").strip()
        self.keep("shard-0", self.commit, self.A3)
        self.keep("shard-1", later, "src/a.rs:16:5: replace + with - in f", scope="sample: shard 1/2 (round-robin)", date="2026-01-02 00:00 UTC")
        lines = self.report()
        self.assertFalse(any(line.startswith("- **scope**: whole set") for line in lines), lines[:6])
        self.assertIn(f"- **coverage by name**: 1 of the 4 mutants of the tree at {later} were tested by a merged run on a line unchanged since; "
                      "3 were not (`ci/mutants.sh --untested` runs them; per file below)", lines)
        self.assertIn("| `src/a.rs` | 3 |", lines)

    def test_shards_at_two_commits_that_name_every_mutant_are_the_whole_set(self):
        self.whole = self.whole[:1]
        self.keep("shard-0", self.commit, self.A3)
        self.keep("shard-1", "0" * 7, "src/b.rs:1:1: replace g with ()", scope="sample: shard 1/2 (round-robin)", date="2026-01-02 00:00 UTC")
        lines = self.report()
        self.assertIn("- **scope**: whole set (2 shards merged)", lines)
        self.assertFalse(any(line.startswith("## Untested") for line in lines))

    def test_a_shard_and_an_untested_part_that_name_every_mutant_are_the_whole_set(self):
        self.whole = self.whole[:1]
        self.keep("shard-0", "0" * 7, "src/b.rs:1:1: replace g with ()")
        self.keep("untested-0", self.commit, self.A3, scope="untested by the kept runs, part 0/1", date="2026-01-02 00:00 UTC")
        self.assertIn("- **scope**: whole set (every mutant of the tree named by the 2 runs merged)", self.report())


if __name__ == "__main__":
    unittest.main()
