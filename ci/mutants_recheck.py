#!/usr/bin/env python3
"""Selects again the mutants an earlier cargo-mutants run missed or timed out
on, where edits have moved them since (ci/mutants.sh --recheck).

    usage: ci/mutants_recheck.py EARLIER_MUTANTS_OUT COMMIT DIFF_OUT MAP_OUT

COMMIT is the commit the earlier run mutated (its run.json). Each missed or
timed-out mutant's line is carried to the working tree through `git diff COMMIT` (a
line inside a changed hunk has no counterpart: its code changed). Writes
DIFF_OUT, a diff touching each carried line, and MAP_OUT, JSON {earlier name:
name now, or null}, and prints the `--re` arguments naming the carried
mutants, one per line: cargo-mutants 27.1 applies `--re` to every mutant
but struct-field deletions and `--in-diff` to all, so together they select
exactly these.

When the earlier run is itself a recheck (recheck.json beside its
mutants.out), MAP_OUT is keyed by the names of the run that recheck
rechecked, so a recheck of a recheck runs only what is still missed and the
report still finds each mutant by its first name.
"""

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

NAME = re.compile(r"^([^:]+):(\d+):(\d+): (.*)$")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def esc(text):
    """As regex_syntax::escape: the characters the regex crate treats as meta."""
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$#&-~" else c for c in text)


def line_mapper(hunks):
    """old line -> new line (None when the line changed), from one file's
    hunks (a, b, c, d) as in `@@ -a,b +c,d @@`."""

    def new_line(n):
        shift = 0
        for a, b, c, d in hunks:
            start = a if b else a + 1  # a pure insertion sits after line a
            if b and a <= n < a + b:
                return None
            if n >= start:
                shift += d - b
        return n + shift

    return new_line


def carry(commit, path):
    """old line -> new line (None when the line changed), for one file."""
    out = subprocess.run(["git", "diff", "-U0", commit, "--", path], capture_output=True, text=True, check=True).stdout
    hunks = []
    for line in out.splitlines():
        m = HUNK.match(line)
        if m:
            hunks.append((int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1)))
    return line_mapper(hunks)


def diff_touching(lines):
    """A diff touching each line of {path: line numbers} of the working tree,
    for cargo-mutants' --in-diff."""
    diff = []
    for path, found in sorted(lines.items()):
        text = Path(path).read_text().split("\n")
        diff += [f"--- a/{path}", f"+++ b/{path}"]
        for n in sorted(found):
            diff += [f"@@ -{n},1 +{n},1 @@", f"-{text[n - 1]}", f"+{text[n - 1]}"]
    return "\n".join(diff) + "\n" if diff else ""


def first_names(earlier):
    """{name in the earlier run: name in the run it rechecked}, or {} when it is no recheck."""
    prev = Path(earlier).parent / "recheck.json"
    if not prev.exists():
        return {}
    return {now: first for first, now in json.loads(prev.read_text()).items() if now}


def timed_out(earlier):
    """The mutants a run timed out on (hangs the tests did not stop; a test added
    since may catch them): from timeout.txt, and from outcomes.json, which a
    kept run holds without the text files."""
    names = []
    listed = Path(earlier) / "timeout.txt"
    if listed.exists():
        names += listed.read_text().splitlines()
    try:
        outcomes = json.loads((Path(earlier) / "outcomes.json").read_text()).get("outcomes", [])
    except (OSError, ValueError, AttributeError):
        outcomes = []
    for o in outcomes:
        m = o.get("scenario", {}).get("Mutant") if isinstance(o, dict) and isinstance(o.get("scenario"), dict) else None
        if o.get("summary") == "Timeout" and isinstance(m, dict) and m.get("name") not in names:
            names.append(m["name"])
    return names


def main():
    earlier, commit, diff_out, map_out = sys.argv[1:5]
    firsts = first_names(earlier)
    mapping, lines = {}, defaultdict(set)
    carriers = {}
    names = (Path(earlier) / "missed.txt").read_text().splitlines()
    names += [n for n in timed_out(earlier) if n not in names]
    for name in names:
        m = NAME.match(name)
        if not m:
            continue
        path, line, col, desc = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        if path not in carriers:
            carriers[path] = carry(commit, path) if Path(path).exists() else (lambda n: None)
        now = carriers[path](line)
        mapping[firsts.get(name, name)] = f"{path}:{now}:{col}: {desc}" if now else None
        if now:
            lines[path].add(now)
    Path(diff_out).write_text(diff_touching(lines))
    Path(map_out).write_text(json.dumps(mapping, indent=1) + "\n")
    for now in sorted(n for n in mapping.values() if n):
        print("--re")
        print(f"^{esc(now)}$")
    gone = sum(1 for n in mapping.values() if n is None)
    print(f"{len(mapping) - gone} missed or timed-out mutant(s) carried to the tree, {gone} on changed lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
