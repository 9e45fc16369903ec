"""Shared helpers of the tpb package's own tests. They test the installed
package (the wheel, in CI a fresh venv) on the committed real programs in
corpus/neff/real/, and compare it with the `tpb` command installed beside it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import tpb

ROOT = Path(__file__).resolve().parents[2]
#: The committed real programs, named as the CLI names them from the repository root.
REAL = "corpus/neff/real"
NEFFS: List[str] = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / REAL).rglob("*.neff"))

pytest_plugins = ["pytester"]


def tpb_command() -> List[str]:
    """The wheel's `tpb` command: beside this interpreter (a venv's bin/), else on PATH, else `python -m tpb`."""
    beside = Path(sys.executable).parent / "tpb"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("tpb")
    return [found] if found else [sys.executable, "-m", "tpb"]


def cli(*args: str, check_codes: Tuple[int, ...] = (0,)) -> "subprocess.CompletedProcess[str]":
    """Runs `tpb ARGS` from the repository root; its exit code must be one of `check_codes`."""
    p = subprocess.run([*tpb_command(), *args], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode in check_codes, f"tpb {' '.join(args)}: exit {p.returncode}\n{p.stderr}"
    return p


def cli_error(*args: str) -> str:
    """The one error line `tpb ARGS` prints (exit 2), without its `tpb: error: ` prefix."""
    p = cli(*args, check_codes=(2,))
    errors = [line for line in p.stderr.splitlines() if line.startswith("tpb: error: ")]
    assert len(errors) == 1, p.stderr
    return errors[0][len("tpb: error: ") :]


def cli_json_lines(*args: str, check_codes: Tuple[int, ...] = (0,)) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in cli(*args, check_codes=check_codes).stdout.splitlines() if line]


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs from the repository root, so paths read as the CLI's output names them."""
    monkeypatch.chdir(ROOT)


def pytest_report_header() -> List[str]:
    return [f"tpb {tpb.__version__} from {Path(tpb.__file__).parent}; command: {' '.join(tpb_command())}"]
