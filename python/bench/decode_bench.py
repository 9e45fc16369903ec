"""Decoding a 100k-bundle stream from Python against the Rust CLI doing the same work.

    python python/bench/decode_bench.py [--bundles N] [--repeat R] [--cli PATH]

Builds a stream of N real bundles (the v2 streams of corpus/neff/real/xla-2.14,
repeated), writes it to a temporary raw file, and times, best of R, each
Python call against the `tpb` command on the same file in the same run:

* text: ``tpb.disasm(bytes)`` (one line per bundle) vs ``tpb disasm FILE``;
* objects: ``tpb.decode_stream(bytes)`` (a Decoded per bundle) vs ``tpb disasm FILE``;
* verdicts: ``tpb.validate(FILE)`` and ``tpb.validate(bytes)`` vs ``tpb validate -q FILE``.

The Python side includes reading the file; the CLI side is the whole process
(start-up, reading, writing to /dev/null). The CLI is --cli, else the
workspace's target/release/tpb when built, else `tpb` on PATH (the wheel's
command, which runs the same code in a Python process). Prints a table, the
ratio (Python / CLI) per row and the CPU; target: every ratio <= 2.
Exit 0 always unless --check (then 1 when a ratio is over 2).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Tuple

import tpb

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "corpus" / "neff" / "real" / "xla-2.14"
TARGET = 2.0


def cpu() -> str:
    """`model name (family F model M)` from /proc/cpuinfo, else the platform's word."""
    fields = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
            if not line.strip():
                break
    except OSError:
        return platform.processor() or platform.machine()
    return f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')} model {fields.get('model', '?')}), {os.cpu_count()} CPUs"


def stream(bundles: int) -> bytes:
    """`bundles` real v2 bundles: the xla-2.14 programs' streams, repeated."""
    one = b"".join(s.data for p in sorted(SOURCE.glob("*.neff")) for s in tpb.read_neff(p).streams)
    if not one:
        raise SystemExit(f"no bundles under {SOURCE}")
    whole = one * (bundles * tpb.BUNDLE_BYTES // len(one) + 1)
    return whole[: bundles * tpb.BUNDLE_BYTES]


def best(f: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def command(cli: List[str], *args: str) -> Callable[[], object]:
    def run() -> object:
        p = subprocess.run([*cli, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(cli)} {' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
        return p

    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundles", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cli", help="the tpb command to compare with (default: target/release/tpb, else tpb on PATH)")
    ap.add_argument("--check", action="store_true", help=f"exit 1 when a ratio is over {TARGET}")
    a = ap.parse_args()

    built = ROOT / "target" / "release" / "tpb"
    cli_path = a.cli or (str(built) if built.exists() else shutil.which("tpb"))
    if not cli_path:
        raise SystemExit("no tpb command: build it (cargo build --release) or give --cli")
    cli = [cli_path]
    data = stream(a.bundles)
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "stream.bin")
        Path(f).write_bytes(data)
        read = lambda: Path(f).read_bytes()  # noqa: E731
        # Warm the page cache and both sides once; check they agree on the work.
        lines = tpb.disasm(read())
        assert len(lines) == len(tpb.decode_stream(read())) == a.bundles
        judged = tpb.validate(f)
        closing = subprocess.run([*cli, "validate", "-q", f], capture_output=True, text=True).stdout.strip()
        assert str(judged) == closing, (str(judged), closing)
        disasm_cli = best(command(cli, "disasm", f), a.repeat)
        validate_cli = best(command(cli, "validate", "-q", f), a.repeat)
        rows: List[Tuple[str, float, str, float]] = [
            ("tpb.disasm(bytes): text lines", best(lambda: tpb.disasm(read()), a.repeat), "tpb disasm FILE", disasm_cli),
            ("tpb.decode_stream(bytes): Decoded objects", best(lambda: tpb.decode_stream(read()), a.repeat), "tpb disasm FILE", disasm_cli),
            ("tpb.validate(FILE)", best(lambda: tpb.validate(f), a.repeat), "tpb validate -q FILE", validate_cli),
            ("tpb.validate(bytes)", best(lambda: tpb.validate(read()), a.repeat), "tpb validate -q FILE", validate_cli),
        ]
    print(f"{a.bundles} bundles ({len(data)} bytes), best of {a.repeat}; CLI: {cli_path}")
    print(f"CPU: {cpu()}; Python {platform.python_version()}; tpb {tpb.__version__}")
    print(f"{'Python':<44} {'ms':>8}   {'CLI':<22} {'ms':>8}  {'ratio':>6}")
    over = False
    for name, ours, theirs, t_cli in rows:
        ratio = ours / t_cli
        over |= ratio > TARGET
        print(f"{name:<44} {ours * 1e3:>8.1f}   {theirs:<22} {t_cli * 1e3:>8.1f}  {ratio:>6.2f}")
    print(f"target: every ratio <= {TARGET}: {'over' if over else 'met'}")
    return 1 if a.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
