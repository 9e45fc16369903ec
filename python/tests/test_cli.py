"""The wheel's `tpb` command is the Rust CLI: same help, version, output and exit codes."""

from __future__ import annotations

import subprocess
import sys

import tpb
from conftest import NEFFS, ROOT, cli, cli_error, tpb_command


def test_help_lists_every_subcommand() -> None:
    out = cli("--help").stdout
    assert out.startswith("Conformance and differential-fuzzing harness")
    assert "Usage: tpb <COMMAND>" in out
    for sub in ["validate", "disasm", "asm", "layout", "neff", "evidence", "infer"]:
        assert f"\n  {sub} " in out, sub


def test_version_is_the_package_version() -> None:
    # "tpb 0.1.0 (commit 0123456789ab)": the commit the wheel was built from ("unknown" outside git).
    out = cli("--version").stdout.strip()
    assert out.startswith(f"tpb {tpb.__version__} (commit ") and out.endswith(")"), out


def test_python_dash_m_runs_the_same_command() -> None:
    p = subprocess.run([sys.executable, "-m", "tpb", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert (p.returncode, p.stdout.strip()) == (0, cli("--version").stdout.strip())


def test_exit_codes_are_the_commands() -> None:
    assert cli("validate", "-q", *NEFFS).stdout.endswith(" valid, 0 invalid\n")
    # Judged by the spec alone, the real programs break it (exit 1).
    assert "INVALID" in cli("validate", "--spec", NEFFS[0], check_codes=(1,)).stdout
    # Usage errors exit 2.
    assert "unexpected argument" in cli("validate", "--no-such-flag", "x", check_codes=(2,)).stderr
    assert cli_error("validate", "no-such-file.bin").startswith("no-such-file.bin: cannot read: ")


def test_main_runs_in_process() -> None:
    from tpb._cli import main

    assert main(["validate", "-q", NEFFS[0]]) == 0
    assert main(["validate", "-q", "no-such-file.bin"]) == 2


def test_a_reader_that_leaves_early_is_not_an_error() -> None:
    # `tpb disasm big | head -1`: EPIPE ends the output quietly, exit 0, as the binary.
    biggest = max(NEFFS, key=lambda p: (ROOT / p).stat().st_size)
    p = subprocess.Popen([*tpb_command(), "disasm", biggest], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.readline().startswith(b"# ")
    p.stdout.close()
    assert p.wait(timeout=60) == 0
    assert p.stderr.read() == b""
