"""tpb.validate gives what `tpb validate --json` prints, and raises what it refuses with its message."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any, Dict, List

import pytest

import tpb
from conftest import NEFFS, ROOT, cli, cli_error, cli_json_lines


@pytest.mark.parametrize("path", NEFFS)
def test_every_bundles_verdict_is_the_commands(path: str) -> None:
    v = tpb.validate(path, every=True)
    assert [r.to_json() for r in v.verdicts] == cli_json_lines("validate", "--json", path)
    assert v.valid and v.invalid == 0 and v.total == len(v.verdicts) == tpb.read_neff(path).bundles
    # Without `every`, the bundles with findings: what the text output lists.
    assert tpb.validate(path).verdicts == tuple(r for r in v.verdicts if r.findings)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (["--spec"], {"profile": "spec"}),
        (["--recovered"], {"recovered": True}),
        (["--arch", "v4"], {"generation": "v4"}),
        (["--spec", "--recovered", "--arch", "v2"], {"profile": "spec", "recovered": True, "generation": "v2"}),
    ],
)
def test_options_are_the_commands(args: List[str], kwargs: Dict[str, Any]) -> None:
    path = NEFFS[-1]
    v = tpb.validate(path, every=True, **kwargs)
    lines = cli_json_lines("validate", "--json", *args, path, check_codes=(0, 1))
    assert [r.to_json() for r in v.verdicts] == lines
    closing = cli("validate", "-q", *args, path, check_codes=(0, 1)).stdout.strip()
    assert str(v) == closing


def test_the_spec_alone_refuses_real_programs_and_the_errata_name_why() -> None:
    path = NEFFS[0]
    spec, amended = tpb.validate(path, profile="spec"), tpb.validate(path)
    assert not spec and spec.invalid > 0 and amended
    notes = [f for _, f in amended.findings() if f.severity == "note"]
    assert notes and all(f.erratum for f in notes)
    # Every bundle the spec refuses is one an erratum accepts: a note in the amended verdicts.
    assert {(e.member, e.offset) for e in spec.errors()} <= {(v.member, v.offset) for v in amended.verdicts}
    first = spec.errors()[0]
    assert str(first).startswith(f"{path}:{first.member}+{first.offset:#x} [{first.index}]: ") and "INVALID" in str(first)


def test_raw_bundles_in_memory_or_in_a_file_judge_alike(tmp_path: Path) -> None:
    program = tpb.read_neff(NEFFS[0])
    data = b"".join(s.data for s in program.streams)
    raw = tmp_path / "all.bin"
    raw.write_bytes(data)
    from_file = tpb.validate(str(raw), program.generation, every=True)
    from_bytes = tpb.validate(data, program.generation, every=True)
    from_array = tpb.validate(bytearray(data), program.generation, every=True)
    assert [r.to_json() for r in from_file.verdicts] == cli_json_lines("validate", "--json", "--arch", program.generation, str(raw))
    assert [(r.offset, r.findings) for r in from_bytes.verdicts] == [(r.offset, r.findings) for r in from_file.verdicts]
    assert from_bytes == from_array
    assert {r.file for r in from_bytes.verdicts} == {"<bytes>"} and {r.generation_from for r in from_bytes.verdicts} == {"arch"}
    # A raw file with no generation given is judged as v2, as the command does.
    assert {r.generation for r in tpb.validate(raw, every=True).verdicts} == {"v2"}


def test_unreadable_inputs_raise_the_commands_errors(tmp_path: Path) -> None:
    cases = {
        "missing.bin": None,
        "partial.bin": bytes(100),
        "empty.bin": b"",
        "text.bin": b"# a disassembly\n0x46:TensorCopy\n",
        # Plain text is no program, and not bundle text to assemble either.
        "README.md": b"# A title\n\nSome prose about 0x46.\n",
        "truncated.neff": (ROOT / NEFFS[0]).read_bytes()[:3000],
    }
    for name, content in cases.items():
        p = tmp_path / name
        if content is not None:
            p.write_bytes(content)
        with pytest.raises(tpb.TpbError) as e:
            tpb.validate(p)
        assert str(e.value) == cli_error("validate", str(p)), name
    with pytest.raises(tpb.TpbError, match="^<bytes>: trailing partial bundle at offset 0x40: 100 bytes is not a multiple of 64$"):
        tpb.validate(bytes(100))
    with pytest.raises(tpb.TpbError, match="^<bytes>: offset 0x0: plain text, not a program"):
        tpb.validate(b"# A title\n\nSome prose.\n")
    with pytest.raises(tpb.TpbError, match="a NEFF container: pass its path"):
        tpb.validate((ROOT / NEFFS[0]).read_bytes())
    with pytest.raises(tpb.TpbError, match="unknown profile `lenient`"):
        tpb.validate(NEFFS[0], profile="lenient")
    with pytest.raises(tpb.TpbError, match="over the cap of 1024 bytes"):
        tpb.validate(NEFFS[0], max_bytes=1024)


def test_a_guessed_generation_is_a_warning_as_the_command_says_it(tmp_path: Path) -> None:
    # A program whose target names no generation: unpacked, renamed target, packed back.
    unpacked = tmp_path / "unpacked"
    cli("neff", "unpack", NEFFS[0], str(unpacked))
    kelf = unpacked / "kelf-0.json"
    meta = json.loads(kelf.read_text())
    meta["target"] = "futurechip"
    kelf.write_text(json.dumps(meta))
    packed = tmp_path / "future.neff"
    cli("neff", "pack", str(unpacked), "-o", str(packed))
    said = [line for line in cli("validate", "-q", str(packed)).stderr.splitlines() if "maps to no known generation" in line]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = tpb.validate(packed, every=True)
    assert [f"tpb: warning: {w.message}" for w in caught if issubclass(w.category, tpb.TpbWarning)] == said != []
    assert {r.generation_from for r in v.verdicts} == {"guessed"} and {r.target for r in v.verdicts} == {"futurechip"}
    with pytest.warns(tpb.TpbWarning, match="futurechip"):
        program = tpb.read_neff(packed)
    assert program.generation_from == "guessed" and program.summary["generation_fit"]["bundles"] == program.bundles


def test_validation_of_a_copy_names_the_copy(tmp_path: Path) -> None:
    copy = tmp_path / "copy.neff"
    shutil.copy(ROOT / NEFFS[0], copy)
    assert {r.file for r in tpb.validate(copy, every=True).verdicts} == {str(copy)}
