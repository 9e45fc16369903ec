#!/usr/bin/env python3
"""Writes reports/mutants.md from one or more cargo-mutants output folders.

    usage: ci/mutants_report.py [-o reports/mutants.md] [--recheck RECHECK_OUT --recheck-map MAP]... MUTANTS_OUT [MUTANTS_OUT...]

Exits 2 when a counted mutant was missed (excluded ones and the CPU kernels
are not counted), else 0.

Each MUTANTS_OUT is a folder cargo-mutants wrote (`outcomes.json`), plus the
`run.json` ci/mutants.sh leaves beside it (scope, commit, CPU, kernels left
out). Several folders (the nightly shards) are merged into one report.

--recheck names a later run of the mutants these runs missed (ci/mutants.sh
--recheck), made after tests were added: the report keeps the runs' own
figures and adds what became of each missed mutant (caught now, still
missed, now excluded as equivalent, or no longer generated because the code
it mutated changed) and the score with those outcomes. --recheck-map
(ci/mutants_recheck.py) says where each missed mutant's line is now. A run
given that is itself a recheck (recheck.json beside its outcomes) is looked
up by its first run's names, as the map of a recheck of it names them.

Score: caught / viable, viable = caught + missed + timeout (a timeout is not
counted as caught). The CPU-specific kernels (validate/fast/lanes/avx*.rs)
are reported apart and never counted: they only run on a CPU that has the
instructions.
"""

import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.dont_write_bytecode = True  # no ci/__pycache__ from the import below
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutants_recheck import first_names  # noqa: E402
from mutants_untested import untested  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".cargo" / "mutants.toml"
NOTES = ROOT / "ci" / "mutants_notes.md"  # hand-written: equivalence proofs, known gaps
KERNEL_FILES = re.compile(r"^isa/src/validate/fast/lanes/avx(2|512)\.rs$")
KINDS = {"CaughtMutant": "caught", "MissedMutant": "missed", "Unviable": "unviable", "Timeout": "timeout"}


def exclusions():
    """(key, pattern, reason) of every entry in the config's exclude lists;
    the reason is the comment line just above the entry."""
    out, key, reason = [], None, ""
    for line in CONFIG.read_text().splitlines():
        s = line.strip()
        m = re.match(r"^(exclude_globs|exclude_re)\s*=\s*\[", s)
        if m:
            key, reason = m.group(1), ""
        elif key and s == "]":
            key = None
        elif key and s.startswith("#"):
            reason = s.lstrip("# ")
        elif key and s:
            out.append((key, s.rstrip(",").strip("'\""), reason))
    return out


def load(folder):
    folder = Path(folder)
    if (folder / "mutants.out" / "outcomes.json").exists():
        folder = folder / "mutants.out"
    outcomes = json.loads((folder / "outcomes.json").read_text())
    run_file = folder / "run.json"
    run = json.loads(run_file.read_text()) if run_file.exists() else {}
    return outcomes, run


def kept_runs(folder):
    """(runs, rechecks) among the runs kept in `folder`, oldest first (a later
    recheck's verdict on a mutant replaces an earlier one's)."""
    if not Path(folder).is_dir():
        print(f"--kept {folder}: no such folder", file=sys.stderr)
        return [], []
    subs = []
    for sub in sorted(Path(folder).iterdir()):
        try:
            _, run = load(sub)
        except (OSError, ValueError) as e:
            print(f"skipped {sub}: {e}", file=sys.stderr)
            continue
        subs.append((run.get("date", ""), sub.name, sub))
    subs.sort()
    runs = [str(s) for _, _, s in subs if not (s / "recheck.json").exists()]
    rechecks = [str(s) for _, _, s in subs if (s / "recheck.json").exists()]
    return runs, rechecks


def newest(runs):
    """The run.json of the latest run (by its date): the code changes between
    shards, and with it the whole set's count."""
    return max((r for _, _, r in runs), key=lambda r: r.get("date", ""), default={})


def whole_by_name(whole_list, runs, rechecks):
    """(the tree's mutants, its commit, those no run or recheck tested), or
    None without a list."""
    if not whole_list:
        return None
    whole = [line.strip() for line in Path(whole_list).read_text().splitlines() if line.strip()]
    tested = [(o, r.get("commit", "")) for _, o, r in runs]
    for folder in rechecks:
        try:
            o, r = load(folder)
        except (OSError, ValueError):
            continue
        tested.append((o, r.get("commit", "")))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
    return whole, head, untested(whole, [(o, c) for o, c in tested if c])


def coverage(runs):
    """What share of the whole set the runs tested, when they are round-robin
    shards of one count: a line for the report, or None."""
    shards = [re.search(r"shard (\d+)/(\d+) \(round-robin\)", r.get("scope", "")) for _, _, r in runs]
    if not shards or None in shards or len({m.group(2) for m in shards}) != 1:
        return None
    of = int(shards[0].group(2))
    done = sorted({int(m.group(1)) for m in shards})
    tested = sum(1 for _, o, _ in runs for x in o.get("outcomes", []) if isinstance(x.get("scenario"), dict))
    whole = newest(runs).get("all_mutants", 0)
    share = f" ({100.0 * tested / whole:.1f}% of the whole set's {whole})" if whole else ""
    if len(done) == of and whole:
        # Shards at one commit partition its list; at several, each edit moves
        # later mutants between shards, so equal counts prove nothing.
        one_commit = len({r.get("commit") for _, _, r in runs}) == 1
        share = " (the whole set)" if one_commit else f" (every shard, but each at its own commit, so they need not add up to the whole set of {whole} at the latest: see coverage by name)"
    return f"- **coverage**: {len(done)} of {of} shards ({', '.join(map(str, done))}): {tested} mutants{share}"


TIERS = {
    "full": "the whole workspace's per mutant (`test_workspace = true`), under nextest's `mutants` profile",
    "quick": "the quick tier (the whole workspace's but the CLI's bounded, bench and stdout binaries; each miss is rechecked with every test)",
}


def tiers(runs):
    """Which tests the runs ran (runs from before the tiers ran every test)."""
    return "; ".join(sorted({TIERS.get(str(r.get("tests", "full")), f"`{r.get('tests')}`") for _, _, r in runs}))


def score(c):
    viable = c["caught"] + c["missed"] + c["timeout"]
    return f"{100.0 * c['caught'] / viable:.1f}%" if viable else "–"


def row(name, c):
    return f"| {name} | {c['caught']} | {c['missed']} | {c['unviable']} | {c['timeout']} | {score(c)} |"


HEAD = "| | caught | missed | unviable | timeout | caught / viable |\n|---|---:|---:|---:|---:|---:|"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", default=str(ROOT / "reports" / "mutants.md"))
    ap.add_argument("--recheck", action="append", default=[])
    ap.add_argument("--recheck-map", action="append", default=[], help="JSON {earlier name: name now or null} (ci/mutants_recheck.py); one per recheck")
    ap.add_argument("--kept", action="append", default=[], help="a folder of runs kept by ci/mutants_keep.py: each run is merged, each recheck (a run with recheck.json) applied")
    ap.add_argument("--whole-list", help="the tree's whole set (`cargo mutants --list`): coverage is then counted by name")
    ap.add_argument("folders", nargs="*")
    args = ap.parse_args()
    for kept in args.kept:
        runs_kept, rechecks_kept = kept_runs(kept)
        args.folders += runs_kept
        for r in rechecks_kept:
            args.recheck.append(r)
            args.recheck_map.append(str(Path(r) / "recheck.json"))

    zero = lambda: {"caught": 0, "missed": 0, "unviable": 0, "timeout": 0}
    by_crate, by_file, kernels = defaultdict(zero), defaultdict(zero), defaultdict(zero)
    total = zero()
    missed, timeouts, runs, excluded, kernel_missed = [], [], [], [], []
    firsts = {}  # a reported recheck's names: the names of the run it rechecked
    # cargo-mutants 27.1 tests struct-field deletions whatever exclude_re
    # says; the config's word stands, so they are reported as excluded.
    exclude_re = [re.compile(p) for k, p, _ in exclusions() if k == "exclude_re"]
    test_secs, build_secs, mutants_timed = 0.0, 0.0, 0
    for folder in args.folders:
        try:
            outcomes, run = load(folder)
        except (OSError, ValueError) as e:
            print(f"skipped {folder}: {e}", file=sys.stderr)  # a shard that wrote nothing
            continue
        runs.append((folder, outcomes, run))
        out = Path(folder) / "mutants.out" if (Path(folder) / "mutants.out").is_dir() else Path(folder)
        firsts.update(first_names(out))
        for o in outcomes.get("outcomes", []):
            scenario = o.get("scenario")
            if not isinstance(scenario, dict) or "Mutant" not in scenario:
                continue  # the baseline
            m = scenario["Mutant"]
            kind = KINDS.get(o.get("summary"))
            if kind is None:
                continue
            for p in o.get("phase_results", []):
                if p.get("phase") == "Test":
                    test_secs += p.get("duration", 0.0)
                elif p.get("phase") == "Build":
                    build_secs += p.get("duration", 0.0)
            mutants_timed += 1
            if any(r.search(m["name"]) for r in exclude_re):
                excluded.append((m["name"], kind))
                continue
            if KERNEL_FILES.match(m["file"]):
                kernels[m["file"]][kind] += 1
                if kind == "missed":
                    kernel_missed.append(m["name"])
                continue
            by_crate[m["package"]][kind] += 1
            by_file[(m["package"], m["file"])][kind] += 1
            total[kind] += 1
            if kind == "missed":
                missed.append(m["name"])
            elif kind == "timeout":
                timeouts.append(m["name"])

    if not runs:
        print("no outcomes.json in any folder given", file=sys.stderr)
        return 1
    first = runs[0][2]
    dates = sorted(r.get("date", "?") for _, _, r in runs)  # merged runs: the first and the last
    # By their numbers where they have some (shard 9 before shard 10).
    scopes = sorted({r.get("scope", "unknown") for _, _, r in runs}, key=lambda x: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", x)])
    shards = {re.search(r"shard (\d+)/(\d+)", x) for x in scopes}
    by_name = whole_by_name(args.whole_list, runs, args.recheck)
    # Round-robin shards add up to the whole set only when they mutated one
    # commit; else the names must say so (shards at other commits miss some).
    one_commit = len({r.get("commit") for _, _, r in runs}) == 1
    shard_count = None
    if len(runs) > 1 and None not in shards and not any("stopped" in x or "in-diff" in x for x in scopes):
        n = {int(m.group(2)) for m in shards}
        if len(n) == 1 and {int(m.group(1)) for m in shards} == set(range(min(n))):
            shard_count = min(n)
    if by_name is not None and not by_name[2]:
        scopes = [f"whole set ({shard_count} shards merged)" if shard_count else f"whole set (every mutant of the tree named by the {len(runs)} runs merged)"]
    elif by_name is None and shard_count and one_commit:
        scopes = [f"whole set ({shard_count} shards merged)"]
    commits = sorted({r.get("commit", "unknown") for _, _, r in runs})
    cpus = sorted({r.get("cpu", "unknown") for _, _, r in runs})
    wall = sum(r.get("seconds", 0) for _, _, r in runs)
    left_out = sorted({k for _, _, r in runs for k in r.get("kernels_left_out", [])})
    versions = sorted({o.get("cargo_mutants_version", "?") for _, o, _ in runs})

    lines = [
        "# Mutation testing",
        "",
        "Written by `ci/mutants.sh` (`ci/mutants_report.py`); regenerate it, do not edit it.",
        "",
        f"- **scope**: {'; '.join(scopes)}",
        f"- **packages mutated**: {first.get('packages', '?')}",
        f"- **date**: {' to '.join(sorted({dates[0], dates[-1]}))}",
        f"- **commit**: {', '.join(commits)}",
        f"- **CPU**: {', '.join(cpus)}",
        f"- **cargo-mutants**: {', '.join(versions)}; tests: {tiers(runs)}",
        f"- **runs merged**: {len(runs)}; wall time {wall / 60:.1f} min",
    ]
    covered = coverage(runs)
    if covered:
        lines.append(covered)
    if by_name is not None:
        whole, at, left = by_name
        lines.append(
            f"- **coverage by name**: {len(whole) - len(left)} of the {len(whole)} mutants of the tree at {at} were tested by a merged run "
            f"on a line unchanged since; {len(left)} were not"
            + (" (`ci/mutants.sh --untested` runs them; per file below)" if left else "")
        )
    if mutants_timed:
        per = (test_secs + build_secs) / mutants_timed
        lines.append(
            f"- **time per mutant**: {per:.0f} s (build {build_secs / mutants_timed:.0f} s + test {test_secs / mutants_timed:.0f} s)"
        )
    latest = newest(runs)
    if latest.get("all_mutants"):
        n = latest["all_mutants"]
        lines.append(f"- **mutants in the whole set** (same filters, at {latest.get('commit', '?')}, the latest run's commit): {n}")
        if mutants_timed:
            hours = n * per / 3600
            need = int(hours / 5.5) + 1  # shards that keep each under GitHub's 6 h job limit
            lines.append(
                f"- **projected whole run**: {hours:.1f} h on this machine, one job; {hours / 8:.1f} h per shard of 8"
                + (" (over GitHub's 6 h job limit)" if hours / 8 > 6 else "")
                + f"; {need} shards keep each under 5.5 h (plus a clean build each)"
            )
    lines += ["", "## Totals", "", HEAD, row("**all (kernels apart)**", total), ""]
    totals_at = len(lines) - 1
    lines += ["## Per crate", "", HEAD] + [row(f"`{k}`", v) for k, v in sorted(by_crate.items())] + [""]
    lines += ["## Per file", "", HEAD] + [row(f"`{f}`", v) for (_, f), v in sorted(by_file.items())] + [""]
    if by_name is not None and by_name[2]:
        per = defaultdict(int)
        for n in by_name[2]:
            per[n.split(":", 1)[0]] += 1
        lines += ["## Untested by any merged run, per file", "", "| file | untested |", "|---|---:|"]
        lines += [f"| `{f}` | {k} |" for f, k in sorted(per.items())] + [""]

    # What the rechecks made of each missed mutant: by the name it had when it ran again.
    now, moved, ungenerated = {}, {}, set()
    for i, folder in enumerate(args.recheck):
        try:
            outcomes, run = load(folder)
        except (OSError, ValueError):
            outcomes, run = {}, {}  # nothing was carried, so nothing ran again
        tested = set()
        for o in outcomes.get("outcomes", []):
            scenario = o.get("scenario")
            m = scenario.get("Mutant") if isinstance(scenario, dict) else None
            if m:
                tested.add(m["name"])
            if m and KINDS.get(o.get("summary")):
                now[m["name"]] = (KINDS[o["summary"]], run.get("commit", "?"))
        # A recheck that tested every mutant it selected (cargo-mutants' total)
        # did not select a carried name because no such mutant exists any more:
        # its line kept its place but its text changed (a new signature, say).
        selected = outcomes.get("total_mutants")
        complete = isinstance(selected, int) and len(tested) >= selected
        if i < len(args.recheck_map):
            mapping = json.loads(Path(args.recheck_map[i]).read_text())
            moved.update(mapping)
            if complete:
                ungenerated |= {v for v in mapping.values() if v and v not in tested}

    def recheck_verdict(n, was="missed"):
        """(text, kind the recheck gave or None, still as it was) of a missed or timed-out mutant's first name."""
        key = n if n in moved else firsts.get(n, n)
        kind, commit = now.get(moved[key] if key in moved else key, (None, None))
        still = "still missed" if was == "missed" else "still a timeout"
        if kind is not None:
            return f"{kind} at {commit}", kind, kind == was
        if key not in moved:
            # No recheck named it (its run was not rechecked).
            return f"not rechecked yet: {still}", None, True
        if moved[key] and moved[key] not in ungenerated:
            # Carried to the tree but never run again (a recheck its budget stopped).
            return f"not run again (the recheck stopped before it): {still}", None, True
        return "no longer generated: the code it mutated changed", None, False

    lines += ["## CPU-specific kernels (apart, never counted)", ""]
    if kernels:
        lines += [HEAD] + [row(f"`{f}`", v) for f, v in sorted(kernels.items())]
    if kernel_missed:
        lines += ["", "Missed in the kernels" + (", and what the recheck made of each:" if args.recheck else ":"), ""]
        lines += [f"- `{n}`" + (f": {recheck_verdict(n)[0]}" if args.recheck else "") for n in sorted(kernel_missed)]
    if left_out:
        lines += ["", "Left out of this run (the CPU lacks their instructions): " + ", ".join(f"`{f}`" for f in left_out)]
    if not kernels and not left_out:
        lines.append("This CPU runs both kernels: their mutants are in the set (none fell in this run).")
    lines.append("")

    cell = lambda t: t.replace("|", "\\|")  # a pipe inside a table cell must be escaped
    lines += ["## Missed", ""]
    lines += [f"- `{n}`" for n in sorted(missed)] or ["None."]
    still_missed = len(missed)
    if args.recheck:
        after = dict(total)
        lines += ["", "## Missed, then rechecked", ""]
        lines += ["Each mutant missed above, run again after the tests were added (`ci/mutants.sh --recheck`):", ""]
        lines += ["| mutant | now |", "|---|---|"]
        still_missed = 0
        timeout_rows = []
        for n, was in sorted([(n, "missed") for n in missed] + [(n, "timeout") for n in timeouts]):
            verdict, kind, still = recheck_verdict(n, was)
            if was == "missed":
                still_missed += still
            if kind is not None:
                after[was] -= 1
                after[kind] += 1
            elif not still:
                after[was] -= 1
            (lines if was == "missed" else timeout_rows).append(f"| `{cell(n)}` | {verdict} |")
        if timeout_rows:
            lines += ["", "Each timeout below (a hang the tests did not stop), run again the same way:", ""]
            lines += ["| mutant | now |", "|---|---|"] + timeout_rows
        lines += ["", "After the recheck:", "", HEAD, row("**all (kernels apart)**", after)]
        lines.insert(totals_at, row("**after the recheck** (missed ones and timeouts run again: below)", after))
    lines += ["", "## Timeouts", ""]
    lines += [f"- `{n}`" for n in sorted(timeouts)] or ["None."]
    if excluded:
        lines += ["", "## Tested though excluded (not counted)", ""]
        lines += [f"- `{n}`: {kind}" for n, kind in sorted(excluded)]
    lines += ["", "## Exclusions (`.cargo/mutants.toml`)", "", "| kind | pattern | reason |", "|---|---|---|"]
    lines += [f"| {k} | `{cell(p)}` | {cell(r)} |" for k, p, r in exclusions()]
    if NOTES.exists():
        lines += ["", NOTES.read_text().strip()]
    Path(args.output).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.output}: caught {total['caught']}, missed {total['missed']}, unviable {total['unviable']}, timeout {total['timeout']} ({score(total)})")
    # 2 when a counted mutant was missed (and, with --recheck, is still), as cargo-mutants exits.
    return 2 if still_missed else 0


if __name__ == "__main__":
    sys.exit(main())
