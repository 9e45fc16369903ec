"""The Python worker template (python/examples/differ_worker.py) under `tpb differ`:
as shipped it agrees with the description; a bug put into it is found and reduced."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import ROOT, cli

WORKER = ROOT / "python" / "examples" / "differ_worker.py"


def run(worker: Path, out: Path, *codes: int) -> str:
    args = ["differ", "--cmd", f"{sys.executable} {worker}", "--no-real", "--count", "150", "--time", "120", "--out", str(out)]
    return cli(*args, check_codes=codes).stdout


def test_the_template_agrees_with_the_description(tmp_path: Path) -> None:
    out = run(WORKER, tmp_path / "report", 0)
    assert "answers decode, encode, validate" in out
    assert "150 generated" in out and "no disagreement" in out
    assert (tmp_path / "report" / "report.json").is_file()


def test_a_bug_put_into_the_template_is_found_and_reduced(tmp_path: Path) -> None:
    # Strides read unsigned: the kind of change a user makes when wiring in their decoder.
    text = WORKER.read_text()
    bug = '    return " ".join([f"opcode={d.opcode:#04x}"]'
    assert bug in text
    buggy = text.replace(
        bug,
        '    if d.opcode == 0x46:\n        return f"opcode=0x46 src.stride=[{\',\'.join(str(v & 0xFFFF) for v in d[\'src.stride\'])}]"\n' + bug,
    )
    path = tmp_path / "worker.py"
    path.write_text(buggy)
    out = run(path, tmp_path / "report", 4)
    # Found on whichever generation the seeded inputs first give a negative stride.
    assert re.search(r"decode v[234] 0x46 TensorCopy src\.stride", out), out
    assert "in src.stride (bytes" in out, out
