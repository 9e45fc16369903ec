"""Assertions for a test suite (pytest or any other): each raises
``AssertionError`` with the bundles and findings at fault, as ``tpb validate``
prints them.

    import tpb.testing

    def test_my_program_validates(tpb_neff):        # the pytest plugin's fixture
        tpb.testing.assert_valid(tpb_neff)

    def test_my_encoder_round_trips():
        tpb.testing.assert_round_trips(my_encoder.emit(), generation="v3")
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Sequence, Union

import tpb

#: How many bundles an assertion message shows before it says how many more there are.
SHOWN = 20


def assert_valid(
    source: Union[tpb.PathLike, tpb.BytesLike],
    generation: Optional[str] = None,
    profile: str = "amended",
    *,
    recovered: bool = False,
) -> tpb.Validation:
    """Asserts that no bundle of ``source`` (a NEFF program, a raw bundle file, or
    bundle bytes) is invalid under ``profile`` (default: the spec amended by the
    errata); returns the :class:`tpb.Validation` for further checks."""
    v = tpb.validate(source, generation, profile, recovered=recovered)
    if not v.valid:
        errors = v.errors()
        shown = "\n".join(str(e) for e in errors[:SHOWN])
        more = f"\n… and {len(errors) - SHOWN} more invalid bundles" if len(errors) > SHOWN else ""
        name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "bundles"
        raise AssertionError(f"{name}: {v} under the {profile} profile\n{shown}{more}")
    return v


def assert_round_trips(data: tpb.BytesLike, generation: str = "v2") -> None:
    """Asserts that every bundle of ``data`` (N x 64 bytes, as an encoder wrote
    them) survives the format's round trips: decode then encode gives the same
    64 bytes, and the text form (``tpb disasm``) assembles back to them."""
    raw = tpb._bytes(data)
    lines = tpb.disasm(raw)
    bad = []
    for i, d in enumerate(tpb.decode_stream(raw, generation)):
        at = i * tpb.BUNDLE_BYTES
        want = raw[at : at + tpb.BUNDLE_BYTES]
        if tpb.encode(d) != want:
            bad.append(f"[{i}] +{at:#x}: decode/encode changed {want.hex()} to {tpb.encode(d).hex()}")
            continue
        back = tpb.asm(lines[i])
        if back != want:
            bad.append(f"[{i}] +{at:#x}: text {lines[i]!r} assembles to {back.hex()}, not {want.hex()}")
    if bad:
        more = f"\n… and {len(bad) - SHOWN} more" if len(bad) > SHOWN else ""
        raise AssertionError(f"{len(bad)} of {len(raw) // tpb.BUNDLE_BYTES} bundles do not round-trip:\n" + "\n".join(bad[:SHOWN]) + more)


def assert_fields(bundle: Union[tpb.BytesLike, tpb.Decoded], expected: Mapping[str, Any], generation: str = "v2") -> None:
    """Asserts that ``bundle`` holds ``expected`` (field path to value, as
    :meth:`tpb.Decoded.fields` gives it, or as the disassembly writes it, e.g. a dtype name)."""
    d = bundle if isinstance(bundle, tpb.Decoded) else tpb.decode(bundle, generation)
    wrong = []
    for path, want in expected.items():
        if path not in d and not path.endswith("]"):
            wrong.append(f"{path}: no such field in {d.layout} ({d.opcode:#04x}:{d.name})")
            continue
        got: Any = d.text(path) if isinstance(want, str) else d[path]
        if isinstance(want, Sequence) and not isinstance(want, (str, bytes)):
            want = tuple(want)
        if got != want:
            wrong.append(f"{path}: {got!r}, expected {want!r}")
    if wrong:
        raise AssertionError(f"{d.disasm()}\n" + "\n".join(wrong))
