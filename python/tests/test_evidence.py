"""tpb.evidence is `tpb evidence --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tpb
from conftest import NEFFS, REAL, cli, cli_error


def test_the_evidence_of_the_real_programs_is_the_commands() -> None:
    ours = tpb.evidence(REAL)
    assert ours == json.loads(cli("evidence", "--json", REAL).stdout)
    assert ours["contradictions"] == [] and ours["errata"]


def test_files_and_a_given_generation() -> None:
    two = NEFFS[:2]
    assert tpb.evidence(two, "v3") == json.loads(cli("evidence", "--json", "--arch", "v3", *two).stdout)


def test_unreadable_inputs_raise_the_commands_errors(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.neff")
    with pytest.raises(tpb.TpbError) as e:
        tpb.evidence([NEFFS[0], missing])
    assert str(e.value) == cli_error("evidence", "--json", NEFFS[0], missing)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(tpb.TpbError) as e:
        tpb.evidence(empty)
    assert str(e.value) == cli_error("evidence", "--json", str(empty))
