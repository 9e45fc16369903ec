"""The pytest plugin and tpb.testing as a user's suite uses them (run in a pytester sandbox)."""

from __future__ import annotations

import pytest

import tpb
import tpb.testing
from conftest import NEFFS, REAL, ROOT

USER_TESTS = """
import tpb, tpb.testing

def test_every_program_validates(tpb_neff):
    tpb.testing.assert_valid(tpb_neff)

def test_engines(tpb_program):
    assert tpb_program.bundles > 0 and tpb_program.graphs
"""


def test_every_program_named_is_a_case(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest(f"--tpb-neff={ROOT / REAL}", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2 * len(NEFFS))
    result.stdout.fnmatch_lines([f"*tpb {tpb.__version__}: {len(NEFFS)} NEFF program(s) for tpb_neff*", "*test_every_program_validates*xla-2.14/MODULE_*.neff* PASSED*"])


def test_the_ini_value_names_programs_relative_to_the_ini_file(pytester: pytest.Pytester) -> None:
    pytester.makeini(f"[pytest]\ntpb_neff =\n    {ROOT / NEFFS[0]}\n    neff\n")
    (pytester.path / "neff").mkdir()
    (pytester.path / "neff" / "one.neff").write_bytes((ROOT / NEFFS[1]).read_bytes())
    pytester.makepyfile(test_user=USER_TESTS)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=4)


def test_without_programs_the_tests_are_skipped(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(skipped=2)


def test_an_invalid_program_fails_with_its_findings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_user="""
import tpb.testing

def test_spec_alone(tpb_neff):
    tpb.testing.assert_valid(tpb_neff, profile="spec")
"""
    )
    result = pytester.runpytest(f"--tpb-neff={ROOT / NEFFS[0]}", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: *.neff: * bundles, * valid, * invalid under the spec profile", "*INVALID", "*error: *"])


def test_a_missing_program_fails_with_the_readers_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest("--tpb-neff=gone.neff", "-p", "no:cacheprovider")
    # The test fails; the test whose fixture reads the program errors.
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(["*tpb.TpbError: gone.neff: cannot read: *"])
    # The CLI's words: no container part or offset for a file that is not there.
    result.stdout.no_fnmatch_line("*file offset 0x0*")


def test_round_trips_and_fields_of_an_encoders_bundles() -> None:
    program = tpb.read_neff(NEFFS[0])
    for s in program.streams:
        tpb.testing.assert_round_trips(s.data, program.generation)
    d = next(d for s in program.streams for d in s.decode() if d.known)
    # An encoder written from the fields: tpb.encode is the reference it is held to.
    mine = tpb.encode(d.fields())
    tpb.testing.assert_fields(mine, {"opcode": d.opcode, **d.fields()})
    tpb.testing.assert_fields(mine, {k: v for k, v in d.text_fields().items() if k != "opcode"})
    with pytest.raises(AssertionError, match="inst_word_len: 16, expected 17"):
        tpb.testing.assert_fields(mine, {"inst_word_len": 17})
    with pytest.raises(AssertionError, match="nope: no such field"):
        tpb.testing.assert_fields(mine, {"nope": 1})
    with pytest.raises(AssertionError, match=r"bundles: \d+ bundles, \d+ valid, [1-9]\d* invalid under the spec profile"):
        tpb.testing.assert_valid(b"".join(s.data for s in program.streams), program.generation, "spec")
