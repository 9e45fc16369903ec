"""The package is typed (py.typed, stubs of the native module): mypy --strict
passes on it and on code using it as docs/python.md shows. Skipped without mypy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

USER = '''
from typing import Dict, List, Optional
import tpb, tpb.testing

program: tpb.Program = tpb.read_neff("corpus/neff/real/nki-2.23/kernel-fusion_baseline_bf16_s512.neff")
build: Optional[str] = program.build
pe: tpb.Stream = program.graphs["sg00"]["PE"]
d: tpb.Decoded = tpb.decode(next(pe.bundles()), program.generation)
op: int = d.opcode
name: str = d.name
values: Dict[str, tpb.FieldValue] = d.fields()
value: tpb.FieldValue = d["opcode"]
again: bytes = tpb.encode(d)
line: List[str] = tpb.disasm(pe.data)
back: bytes = tpb.asm(line)
v: tpb.Validation = tpb.validate(program.path, profile="amended")
codes: List[str] = [f.code for _, f in v.findings()]
errata: List[Optional[str]] = [f.erratum for r in v.verdicts for f in r.findings]
ev: Dict[str, object] = tpb.evidence(["corpus/neff/real"])
tpb.testing.assert_valid(program.path)
tpb.testing.assert_round_trips(pe.data)
try:
    tpb.decode(b"short")
except tpb.TpbError as e:
    message: str = str(e)
'''


def test_mypy_strict_passes_on_the_package_and_a_users_code(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api")
    user = tmp_path / "user.py"
    user.write_text(USER)
    for target in (["-p", "tpb"], [str(user)]):
        out, err, code = api.run(["--strict", f"--cache-dir={tmp_path / 'cache'}", *target])
        assert code == 0, out + err


def test_mypy_strict_passes_on_the_tests_and_the_docs_examples(tmp_path: Path) -> None:
    """The tests themselves, the examples a user copies (python/examples/), and every ```python
    block of docs/python.md (each a module; the names the page leaves to the reader, like
    `my_encoder`, declared as Any)."""
    api = pytest.importorskip("mypy.api")
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "python.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", page, flags=re.S | re.M)
    assert len(blocks) >= 2, "docs/python.md has lost its examples"
    examples = []
    for i, block in enumerate(blocks):
        example = tmp_path / f"python_md_example_{i}.py"
        example.write_text("from typing import Any\nmy_encoder: Any\n" + block)
        examples.append(str(example))
    tests = str(Path(__file__).resolve().parent)
    copied = str(root / "python" / "examples")
    out, err, code = api.run(["--strict", f"--cache-dir={tmp_path / 'cache'}", tests, copied, *examples])
    assert code == 0, out + err


def test_the_typed_example_runs() -> None:
    exec(compile(USER, "user.py", "exec"), {})
