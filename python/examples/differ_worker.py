#!/usr/bin/env python3
"""A ``tpb differ`` worker in Python: the template to copy.

``tpb differ --cmd "python3 differ_worker.py"`` sends one request per line on stdin
and reads one answer per line on stdout (docs/differential.md):

    decode GEN HEX128            ->  path=value ...   (any subset of the fields)
    encode GEN opcode=0xNN p=v   ->  HEX128
    validate GEN HEX128          ->  valid | invalid [code ...]

GEN is v2, v3 or v4. Each function below answers one kind; replace its body
with a call into your own implementation, or return ``None`` for a kind you
do not implement (the harness then stops asking it). As written, each calls
the ``tpb`` wheel, so the template agrees with the description: ``tpb differ``
on it reports no disagreement, and any disagreement after your change is
yours to look at. Raise an exception to answer ``error TEXT``.
"""

from __future__ import annotations

import os
import sys
from typing import Dict, List, Optional

import tpb


def decode(generation: str, bundle: bytes) -> Optional[str]:
    """The fields of one 64-byte bundle as ``path=value`` tokens.

    Name only the fields your decoder knows; values may be in any base
    (``0x10``, ``16``), dtypes and enums by name or by tag, arrays as ``[a,b]``
    or element by element (``src.num[1]=4``). Unknown paths are findings."""
    d = tpb.decode(bundle, generation)
    return " ".join([f"opcode={d.opcode:#04x}"] + [f"{path}={text}" for path, text in d.text_fields().items() if path != "opcode"])


def encode(generation: str, fields: Dict[str, str]) -> Optional[bytes]:
    """The 64 bytes of the bundle the fields describe (every field is given)."""
    return tpb.encode({k: (int(v, 0) if k == "opcode" else v) for k, v in fields.items()})


def validate(generation: str, bundle: bytes) -> Optional[str]:
    """``valid``, or ``invalid`` and (optionally) the check codes that fail."""
    result = tpb.validate(bundle, generation)
    if result.valid:
        return "valid"
    codes = sorted({f.code for v in result.errors() for f in v.findings if f.severity == "error"})
    return " ".join(["invalid"] + codes)


# ---- the protocol: nothing to change below -------------------------------------


def answer(line: str) -> str:
    kind, _, rest = line.partition(" ")
    generation, _, arg = rest.partition(" ")
    try:
        if kind == "decode":
            out = decode(generation, bytes.fromhex(arg))
        elif kind == "validate":
            out = validate(generation, bytes.fromhex(arg))
        elif kind == "encode":
            fields = dict(tok.split("=", 1) for tok in arg.split())
            raw = encode(generation, fields)
            out = None if raw is None else raw.hex()
        else:
            return f"error unknown request kind {kind!r}"
    except Exception as e:  # noqa: BLE001 - any failure is this request's error answer
        return "error " + " ".join(str(e).split())
    return "unsupported" if out is None else out


def main() -> None:
    # Requests come in batches: answer every whole line read, then write the answers at once.
    pending = b""
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return
        pending += chunk
        *lines, pending = pending.split(b"\n")
        answers: List[str] = [answer(line.decode()) for line in lines]
        if answers:
            sys.stdout.write("\n".join(answers) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
