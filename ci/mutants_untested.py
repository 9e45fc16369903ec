#!/usr/bin/env python3
"""Which mutants of the tree no kept run has tested (ci/mutants.sh --untested,
and the coverage line of a report merged from kept runs).

    usage: ci/mutants_untested.py LIST KEPT_DIR [--part K/N] [--diff OUT]
           ci/mutants_untested.py LIST KEPT_DIR --summary

LIST is the tree's whole set (`cargo mutants --list`, one name per line).
Round-robin shards taken at different commits do not add up to the whole
set: a shard picks every Nth mutant of the list *at its commit*, and each
edit before a mutant in the list moves it to another shard. So coverage is
counted by name: every outcome of every kept run is carried to the working
tree through `git diff` from the commit its run mutated (as a recheck
carries a missed mutant), and a mutant of LIST is tested when some outcome
lands on its exact name. One whose line changed since is not: its code did.

Prints the `--re` arguments naming the untested mutants (part K of N of
them, round-robin, with --part) and writes a diff touching their lines to
OUT, as ci/mutants_recheck.py does; with --summary, one JSON object
{"whole": N, "tested": T, "untested": U}.
"""

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutants_recheck import HUNK, NAME, diff_touching, esc, line_mapper  # noqa: E402


def file_hunks(commit):
    """{path at `commit`: its hunks against the working tree}; a file absent
    from the diff is unchanged. No rename detection: a moved file's old path
    reads as deleted, so nothing of it is carried."""
    out = subprocess.run(["git", "diff", "-U0", "--no-renames", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", commit, "--"], capture_output=True, text=True, check=True).stdout
    hunks, path = defaultdict(list), None
    for line in out.splitlines():
        if line.startswith("--- "):
            path = line[6:] if line.startswith("--- a/") else None
        elif path is not None and (m := HUNK.match(line)):
            hunks[path].append((int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1)))
    return hunks


def tested_names(runs):
    """The names now of every mutant some run tested: `runs` is [(outcomes, commit)]."""
    by_commit = defaultdict(set)
    for outcomes, commit in runs:
        for o in outcomes.get("outcomes", []):
            scenario = o.get("scenario") if isinstance(o, dict) else None
            if isinstance(scenario, dict) and isinstance(scenario.get("Mutant"), dict) and o.get("summary"):
                by_commit[commit].add(scenario["Mutant"].get("name", ""))
    now = set()
    for commit, names in by_commit.items():
        try:
            hunks = file_hunks(commit)
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"commit {commit!r}: no diff to the tree ({e}); its runs' outcomes are not carried", file=sys.stderr)
            continue
        mappers = {}
        for name in names:
            m = NAME.match(name)
            if not m:
                continue
            path = m.group(1)
            if path not in mappers:
                mappers[path] = line_mapper(hunks.get(path, []))
            line = mappers[path](int(m.group(2)))
            if line is not None:
                now.add(f"{path}:{line}:{m.group(3)}: {m.group(4)}")
    return now


def kept_outcomes(kept):
    """[(outcomes, commit)] of every run kept under `kept` (rechecks too: they tested what they ran)."""
    runs = []
    for out in sorted(Path(kept).glob("*/mutants.out")):
        try:
            outcomes = json.loads((out / "outcomes.json").read_text())
            commit = json.loads((out / "run.json").read_text())["commit"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"skipped {out}: {e}", file=sys.stderr)
            continue
        runs.append((outcomes, commit))
    return runs


def untested(whole, runs):
    """The names of `whole` (in its order) that no run of `runs` tested."""
    done = tested_names(runs)
    return [n for n in whole if n not in done]


def part(names, spec):
    """Part K of N (from 0), round-robin, as cargo-mutants numbers shards."""
    k, n = (int(x) for x in spec.split("/"))
    if not 0 <= k < n:
        raise ValueError(f"--part {spec}: K must be 0..N-1")
    return names[k::n]


def diff_of(names):
    """A diff touching each named mutant's line (cargo-mutants' --in-diff)."""
    lines = defaultdict(set)
    for name in names:
        m = NAME.match(name)
        if m:
            lines[m.group(1)].add(int(m.group(2)))
    return diff_touching(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("list")
    ap.add_argument("kept")
    ap.add_argument("--part")
    ap.add_argument("--diff")
    ap.add_argument("--summary", action="store_true")
    args = ap.parse_args()
    whole = [line.strip() for line in Path(args.list).read_text().splitlines() if line.strip()]
    left = untested(whole, kept_outcomes(args.kept))
    if args.summary:
        print(json.dumps({"whole": len(whole), "tested": len(whole) - len(left), "untested": len(left)}))
        return 0
    try:
        chosen = part(left, args.part) if args.part else left
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    if args.diff:
        Path(args.diff).write_text(diff_of(chosen))
    for name in chosen:
        print("--re")
        print(f"^{esc(name)}$")
    print(f"{len(left)} of {len(whole)} mutants untested by the kept runs; {len(chosen)} chosen", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
