#!/usr/bin/env python3
"""Keeps one cargo-mutants run in the repository, trimmed to what the report
and a later recheck read (ci/mutants.sh --keep).

    usage: ci/mutants_keep.py RUN_FOLDER KEPT_FOLDER

RUN_FOLDER is a folder ci/mutants.sh wrote (--out): mutants.out/ with
outcomes.json, run.json and missed.txt, and recheck.json beside it when
the run was a recheck. KEPT_FOLDER gets the same shape, without logs,
diffs or argv: a few tens of KB per shard. The whole set takes ~38 h on
a 2-core machine, so it is measured a few shards per session; the kept
runs are what `ci/mutants.sh --merge --kept reports/mutants/runs` merges
into reports/mutants.md.

Refuses to overwrite a kept run (exit 1): a run is a measurement at a
commit and is never replaced, only rechecked.
"""

import json
import sys
from pathlib import Path

MUTANT_FIELDS = ("name", "package", "file", "genre", "replacement")
PHASE_FIELDS = ("phase", "duration", "process_status")


def trim_outcome(o):
    scenario = o.get("scenario")
    if isinstance(scenario, dict) and isinstance(scenario.get("Mutant"), dict):
        m = scenario["Mutant"]
        scenario = {"Mutant": {k: m[k] for k in MUTANT_FIELDS if k in m}}
    phases = [{k: p[k] for k in PHASE_FIELDS if k in p} for p in o.get("phase_results", []) if isinstance(p, dict)]
    return {"scenario": scenario, "summary": o.get("summary"), "phase_results": phases}


def dump(outcomes):
    """outcomes.json with one outcome per line, so a diff of kept runs reads per mutant."""
    head = {k: v for k, v in outcomes.items() if k != "outcomes"}
    rows = [json.dumps(trim_outcome(o), sort_keys=True) for o in outcomes.get("outcomes", [])]
    body = ",\n  ".join(rows)
    fields = "".join(f"{json.dumps(k)}: {json.dumps(v)},\n " for k, v in sorted(head.items()))
    return "{" + fields + '"outcomes": [\n  ' + body + "\n ]\n}\n"


def main():
    if len(sys.argv) != 3:
        print("usage: ci/mutants_keep.py RUN_FOLDER KEPT_FOLDER", file=sys.stderr)
        return 2
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    out = src / "mutants.out"
    try:
        outcomes = json.loads((out / "outcomes.json").read_text())
        run = json.loads((out / "run.json").read_text())
    except (OSError, ValueError) as e:
        print(f"{src}: not a run ci/mutants.sh finished ({e})", file=sys.stderr)
        return 1
    if not isinstance(outcomes, dict) or not isinstance(outcomes.get("outcomes", []), list):
        print(f"{out / 'outcomes.json'}: no outcomes list", file=sys.stderr)
        return 1
    if dst.exists():
        print(f"{dst}: already kept (a kept run is never replaced)", file=sys.stderr)
        return 1
    kept = dst / "mutants.out"
    kept.mkdir(parents=True)
    (kept / "outcomes.json").write_text(dump(outcomes))
    (kept / "run.json").write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")
    missed = out / "missed.txt"
    (kept / "missed.txt").write_text(missed.read_text() if missed.exists() else "")
    if (src / "recheck.json").exists():
        (dst / "recheck.json").write_text((src / "recheck.json").read_text())
    n = sum(1 for o in outcomes.get("outcomes", []) if isinstance(o.get("scenario"), dict))
    print(f"kept {n} mutants' outcomes of {src} in {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
