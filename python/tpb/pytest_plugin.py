"""The tpb pytest plugin, loaded by pytest wherever the ``tpb`` wheel is
installed (entry point ``pytest11``). It adds one thing: the NEFF programs a
build produced as test cases.

A test that takes ``tpb_neff`` (the path) or ``tpb_program`` (the program
read with :func:`tpb.read_neff`) runs once per NEFF file found under the paths
the ``tpb_neff`` ini value (relative to the ini file) and ``--tpb-neff PATH``
options name; a folder is searched for ``*.neff``. With none named, such
tests are skipped::

    # pytest.ini
    [pytest]
    tpb_neff = build/neff

    # test_programs.py
    import tpb.testing

    def test_every_program_validates(tpb_neff):
        tpb.testing.assert_valid(tpb_neff)          # amended profile by default

    def test_engines(tpb_program):
        assert "Activation" in tpb_program.graphs["sg00"]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

import pytest

import tpb


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tpb", "TPB bundle programs (tpb)")
    group.addoption(
        "--tpb-neff",
        action="append",
        default=[],
        metavar="PATH",
        help="a NEFF file, or a folder searched for *.neff: one case of every test taking `tpb_neff` or `tpb_program` per file "
        "(adds to the tpb_neff ini value)",
    )
    parser.addini("tpb_neff", type="paths", default=[], help="NEFF files or folders (searched for *.neff), relative to the ini file")


def programs(config: pytest.Config) -> List[Path]:
    """The NEFF files the options name, in order (each folder's in name order), each once.
    A named file that does not exist is kept: its test fails with the reader's error."""
    given = [Path(p) for p in config.getoption("tpb_neff")] + [Path(p) for p in config.getini("tpb_neff")]
    found: List[Path] = []
    for p in given:
        if not p.is_dir():
            found.append(p)
            continue
        for folder, dirs, files in os.walk(p):
            dirs.sort()
            found.extend(Path(folder, f) for f in sorted(files) if f.lower().endswith(".neff"))
    return list(dict.fromkeys(found))


def _case_id(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "tpb_neff" in metafunc.fixturenames:
        paths = programs(metafunc.config)
        root = metafunc.config.rootpath
        metafunc.parametrize("tpb_neff", paths, ids=[_case_id(p, root) for p in paths])


def pytest_report_header(config: pytest.Config) -> List[str]:
    n = len(programs(config))
    return [f"tpb {tpb.__version__}: {n} NEFF program(s) for tpb_neff"] if n else []


@pytest.fixture
def tpb_neff() -> Path:  # pragma: no cover (parametrized directly by pytest_generate_tests)
    """The path of one NEFF program named by ``tpb_neff`` / ``--tpb-neff`` (the test runs once per program)."""
    raise pytest.UsageError("tpb_neff is parametrized by the tpb plugin")


@pytest.fixture
def tpb_program(tpb_neff: Path) -> tpb.Program:
    """One NEFF program named by ``tpb_neff`` / ``--tpb-neff``, read with :func:`tpb.read_neff`."""
    return tpb.read_neff(tpb_neff)
