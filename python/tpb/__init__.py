"""The TPB conformance harness from Python.

The AWS Neuron TPB 64-byte instruction-bundle format, read and judged by the
same Rust crates as the ``tpb`` command (no second implementation): NEFF
programs (:func:`read_neff`), bundles (:func:`decode`, :func:`encode`,
:func:`disasm`, :func:`asm`), verdicts (:func:`validate`) and the evidence
real programs give (:func:`evidence`). Errors raise :class:`TpbError` with the
message the command prints; what the command says as a warning is a
:class:`TpbWarning`.

The pytest side is :mod:`tpb.testing` (assertions) and the plugin
:mod:`tpb.pytest_plugin` (the ``tpb_neff`` fixture), loaded by pytest
wherever this package is installed.
"""

from __future__ import annotations

import gc
import json
import os
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _tpb
from ._tpb import BUNDLE_BYTES, Decoded, TpbError

if TYPE_CHECKING:  # pragma: no cover
    import numpy
    import numpy.typing

__all__ = [
    "BUNDLE_BYTES",
    "Decoded",
    "FieldInfo",
    "FieldValue",
    "Finding",
    "Program",
    "Stream",
    "TpbError",
    "TpbWarning",
    "Validation",
    "Verdict",
    "asm",
    "decode",
    "decode_stream",
    "disasm",
    "encode",
    "evidence",
    "fields",
    "read_neff",
    "validate",
]

__version__: str = _tpb.VERSION

#: Bytes of a file the readers accept unless told otherwise (the CLI's ``--max-bytes`` default).
MAX_BYTES: int = _tpb.MAX_BYTES

#: A file path.
PathLike = Union[str, "os.PathLike[str]"]
#: Bundle bytes: ``bytes``, ``bytearray``, ``memoryview``, or anything with the buffer protocol (a NumPy array).
BytesLike = Union[bytes, bytearray, memoryview, Any]
#: A field's value: an int, ``bytes`` for a byte array, a tuple of ints for another array.
FieldValue = Union[int, bytes, Tuple[int, ...]]


class TpbWarning(UserWarning):
    """What the ``tpb`` command prints as ``tpb: warning:`` (a guessed generation, a container's notes)."""


def _warn(messages: Iterable[str]) -> None:
    for m in messages:
        warnings.warn(m, TpbWarning, stacklevel=3)


def _bytes(data: BytesLike) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return memoryview(data).tobytes()
    except TypeError:
        raise TypeError(f"expected bundle bytes (bytes, bytearray, memoryview, a NumPy array), got {type(data).__name__}") from None


# ---------------------------------------------------------------- bundles


def decode(bundle: BytesLike, generation: str = "v2") -> Decoded:
    """Decodes one 64-byte bundle: a read-only :class:`Decoded` with its opcode,
    name and every field by its path (the paths ``tpb disasm`` prints and
    ``tpb layout`` lists). Decoding never fails on 64 bytes; other lengths raise :class:`TpbError`."""
    return _tpb.decode(_bytes(bundle), generation)


def decode_stream(data: BytesLike, generation: str = "v2") -> List[Decoded]:
    """Decodes every bundle of a stream of N x 64 bytes."""
    return _bulk(_tpb.decode_stream, _bytes(data), generation)


def _bulk(make: Callable[[bytes, str], List[Decoded]], data: bytes, generation: str) -> List[Decoded]:
    """``make(data, generation)`` with the cyclic GC paused: each Decoded is a
    GC-tracked object, and collections triggered while tens of thousands are
    made (each walking every live tracked object) cost several times the decoding.
    The native call holds the interpreter throughout, so no other thread sees the pause."""
    if not gc.isenabled():
        return make(data, generation)
    gc.disable()
    try:
        return make(data, generation)
    finally:
        gc.enable()


def _field_text(path: str, value: Union[FieldValue, str, Sequence[int]]) -> str:
    if isinstance(value, bool):
        raise TypeError(f"{path}: a bool is not a field value")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, str):
        if not value or any(c.isspace() or c in "#=" for c in value):
            raise TpbError(f"`{path}={value}`: a name has no spaces, `#` or `=`")
        return value
    try:
        items = [int(v) for v in value]
    except TypeError:
        raise TypeError(f"{path}: expected an int, bytes, a sequence of ints or a name, got {type(value).__name__}") from None
    return "[" + ",".join(str(v) for v in items) + "]"


def encode(bundle: Union[Decoded, Mapping[str, Union[FieldValue, str, Sequence[int]]]]) -> bytes:
    """The 64 wire bytes of a bundle.

    ``bundle`` is a :class:`Decoded` (its exact bytes) or a mapping of field
    paths to values with an ``opcode`` entry: ints (negative for signed
    fields), ``bytes`` for byte arrays, sequences of ints for other arrays, or
    names as the disassembly writes them (``fp32``). Fields not given are zero;
    the header's ``inst_word_len`` is the format's. The mapping is encoded by
    the text assembler (``tpb asm``), so it takes what that takes and refuses
    what it refuses (an unknown path, a value that does not fit), as :class:`TpbError`.
    """
    if isinstance(bundle, Decoded):
        return bytes(bundle)
    if "opcode" not in bundle:
        raise TpbError("encode: the mapping has no `opcode`")
    op = bundle["opcode"]
    if isinstance(op, bool) or not isinstance(op, int) or not 0 <= op <= 0xFF:
        raise TpbError(f"encode: opcode {op!r} is not a byte")
    parts = [f"{op:#04x}:{_tpb.opcode_name(op)}"]
    parts.extend(f"{path}={_field_text(path, v)}" for path, v in bundle.items() if path != "opcode")
    return _tpb.asm_line(" ".join(parts))


def disasm(data: BytesLike, generation: Optional[str] = None) -> List[str]:
    """One text line per bundle (``0xNN:Name path=value ...``), what :func:`asm`
    reads back. The text form is the same for every generation; ``generation``,
    when given, must name one."""
    if generation is not None:
        _tpb.decode(bytes(BUNDLE_BYTES), generation)
    return _tpb.disasm(_bytes(data))


def asm(text: Union[str, Iterable[str]]) -> bytes:
    """Assembles text lines (``tpb disasm``'s form, ``#`` comments and blank lines allowed) into bundles."""
    if not isinstance(text, str):
        text = "\n".join(text)
    return _tpb.asm(text)


@dataclass(frozen=True)
class FieldInfo:
    """One field of a body layout, as ``tpb layout`` lists it."""

    path: str
    offset: int
    size: int
    type: str
    #: Elements of an array field, None for a scalar.
    len: Optional[int]


def fields(opcode: int) -> List[FieldInfo]:
    """The fields of the layout ``opcode`` selects, in offset order."""
    return [FieldInfo(*f) for f in _tpb.fields(opcode)]


# ---------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Finding:
    """One broken invariant, as ``tpb validate --json`` gives it."""

    code: str
    #: Field path in the body layout (``psum_dst.num[1]``).
    field: str
    #: Byte offset of the field within the bundle.
    offset: int
    section: str
    confidence: str
    #: ``error`` (invalid), ``warning``, ``note`` (the spec refuses it, an erratum accepts it) or ``info``.
    severity: str
    message: str
    #: The erratum that accepts what the spec refuses here.
    erratum: Optional[str]

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Finding:
        # Past the frozen __init__ (one object.__setattr__ per field): verdicts come by the tens of thousands.
        f = object.__new__(cls)
        f.__dict__.update(d)
        return f

    def to_json(self) -> Dict[str, Any]:
        return {
            "code": self.code,
            "field": self.field,
            "offset": self.offset,
            "section": self.section,
            "confidence": self.confidence,
            "severity": self.severity,
            "message": self.message,
            "erratum": self.erratum,
        }


@dataclass(frozen=True)
class Verdict:
    """One bundle judged: the object ``tpb validate --json`` prints for it."""

    file: str
    #: The container's stream (``sg00/PE.bin``), empty for raw bundles.
    member: str
    #: Byte offset in its stream.
    offset: int
    index: int
    #: The generation it was judged under (``arch`` in the JSON).
    generation: str
    target: Optional[str]
    #: How the generation was chosen: ``arch`` (given), ``target``, ``guessed``, ``default``.
    generation_from: str
    build: Optional[str]
    profile: str
    #: The opcode byte (the JSON gives it as a string, ``"0x46"``, as every JSON output of tpb does).
    opcode: int
    name: str
    valid: bool
    findings: Tuple[Finding, ...]

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Verdict:
        v = object.__new__(cls)
        v.__dict__.update(d)
        del v.__dict__["arch"]
        v.__dict__["generation"] = d["arch"]
        # The JSON gives the byte as a string ("0x46"); the attribute is the byte.
        v.__dict__["opcode"] = int(d["opcode"], 16)
        v.__dict__["findings"] = tuple(Finding.from_json(f) for f in d["findings"])
        return v

    def to_json(self) -> Dict[str, Any]:
        """The object ``tpb validate --json`` prints for this bundle."""
        return {
            "file": self.file,
            "member": self.member,
            "offset": self.offset,
            "index": self.index,
            "arch": self.generation,
            "target": self.target,
            "generation_from": self.generation_from,
            "build": self.build,
            "profile": self.profile,
            "opcode": f"{self.opcode:#04x}",
            "name": self.name,
            "valid": self.valid,
            "findings": [f.to_json() for f in self.findings],
        }

    def __str__(self) -> str:
        where = f"{self.file}:{self.member}+{self.offset:#x} [{self.index}]" if self.member else f"{self.file}+{self.offset:#x}"
        lines = [f"{where}: {self.opcode:#04x}:{self.name} {'valid' if self.valid else 'INVALID'}"]
        for f in self.findings:
            erratum = f" (erratum {f.erratum})" if f.erratum else ""
            lines.append(f"  {f.severity}: {f.code} [{f.field} @ {f.offset:#04x}, §{f.section}] {f.message}{erratum}")
        return "\n".join(lines)


class Validation:
    """What ``tpb validate`` judged: the counts at once, and on first use a
    :class:`Verdict` for every bundle with findings (for every bundle with
    ``every=True``, as ``--json``). Truthy when no bundle is invalid."""

    __slots__ = ("_report", "_verdicts")

    def __init__(self, report: _tpb.Report) -> None:
        self._report = report
        self._verdicts: Optional[Tuple[Verdict, ...]] = None

    @property
    def total(self) -> int:
        """Bundles judged."""
        return self._report.total

    @property
    def invalid(self) -> int:
        """Bundles with an ``error`` finding."""
        return self._report.invalid

    @property
    def valid(self) -> bool:
        """No bundle is invalid (the command's exit 0)."""
        return self._report.invalid == 0

    @property
    def warnings(self) -> Tuple[str, ...]:
        """What the command would print as warnings (also issued as :class:`TpbWarning`)."""
        return tuple(self._report.warnings)

    @property
    def verdicts(self) -> Tuple[Verdict, ...]:
        """The judged bundles' verdicts, in stream order."""
        if self._verdicts is None:
            self._verdicts = tuple(Verdict.from_json(r) for r in json.loads(self._report.to_json()))
        return self._verdicts

    def errors(self) -> List[Verdict]:
        """The verdicts of the invalid bundles."""
        if self._verdicts is not None:
            return [v for v in self._verdicts if not v.valid]
        return [Verdict.from_json(r) for r in json.loads(self._report.to_json(invalid_only=True))]

    def findings(self) -> Iterator[Tuple[Verdict, Finding]]:
        """Every finding with the bundle it is about."""
        for v in self.verdicts:
            for f in v.findings:
                yield v, f

    def __bool__(self) -> bool:
        return self.valid

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Validation):
            return NotImplemented
        return (self.total, self.invalid, self.verdicts) == (other.total, other.invalid, other.verdicts)

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        """The command's closing line: ``N bundles, V valid, I invalid``."""
        return f"{self.total} bundles, {self.total - self.invalid} valid, {self.invalid} invalid"

    def __repr__(self) -> str:
        return f"<Validation: {self}>"


def validate(
    source: Union[PathLike, BytesLike],
    generation: Optional[str] = None,
    profile: str = "amended",
    *,
    recovered: bool = False,
    every: bool = False,
    max_bytes: int = MAX_BYTES,
) -> Validation:
    """Judges bundles as ``tpb validate`` does.

    ``source`` is a path (raw N x 64-byte bundles or a NEFF container: every
    engine stream) or raw bundle bytes. ``generation`` defaults to the
    container's target's, else the one its bundles fit best (a
    :class:`TpbWarning` says so), v2 for raw bundles. ``profile`` is
    ``amended`` (the spec amended by the errata real programs establish) or
    ``spec`` (``--spec``); ``recovered`` adds the recovered layer's ``info``
    findings (``--recovered``). The verdicts hold the same content as
    ``tpb validate --json``: every bundle with ``every=True``, else those with findings.
    """
    if isinstance(source, (str, os.PathLike)):
        report = _tpb.validate_path(os.fspath(source), generation, profile, recovered, every, max_bytes)
    else:
        report = _tpb.validate_bytes(_bytes(source), "<bytes>", generation, profile, recovered, every)
    _warn(report.warnings)
    return Validation(report)


# ---------------------------------------------------------------- programs


@dataclass(frozen=True)
class Stream:
    """One engine stream of a program: the bundles one engine of one graph (subgraph) runs."""

    member: str
    subgraph: str
    engine: str
    #: The bundles, N x 64 bytes.
    data: bytes = field(repr=False)
    #: The generation the program is judged under.
    generation: str = "v2"

    def __len__(self) -> int:
        return len(self.data) // BUNDLE_BYTES

    def bundles(self) -> Iterator[bytes]:
        """Each bundle's 64 bytes."""
        for at in range(0, len(self.data), BUNDLE_BYTES):
            yield self.data[at : at + BUNDLE_BYTES]

    def array(self) -> numpy.typing.NDArray[numpy.uint8]:
        """The bundles as a read-only NumPy array of shape (n, 64), dtype uint8 (needs NumPy)."""
        try:
            import numpy
        except ImportError:
            raise ImportError("Stream.array() needs NumPy: pip install numpy") from None
        return numpy.frombuffer(self.data, dtype=numpy.uint8).reshape(-1, BUNDLE_BYTES)

    def decode(self) -> List[Decoded]:
        """Every bundle decoded (:func:`decode_stream`)."""
        return _bulk(_tpb.decode_stream, self.data, self.generation)

    def disasm(self) -> List[str]:
        return _tpb.disasm(self.data)


@dataclass(frozen=True)
class Program:
    """A NEFF program as ``tpb neff --json`` summarises it, with its streams' bytes."""

    path: str
    #: The 1024-byte container header's fields (``pkg_version``, ``name``, ``uuid``, …).
    header: Dict[str, Any]
    #: The compiler build that wrote it (``info.json`` ``tool_version``).
    build: Optional[str]
    #: The target ``kelf-0.json`` names (``sunda``, ``cayman``).
    target: Optional[str]
    #: The generation its bundles are judged under.
    generation: str
    #: How it was chosen: ``arch`` (given), ``target``, or ``guessed`` (see ``summary["generation_fit"]``).
    generation_from: str
    streams: Tuple[Stream, ...]
    #: Everything ``tpb neff --json`` prints for the file.
    summary: Dict[str, Any] = field(repr=False)

    @property
    def graphs(self) -> Dict[str, Dict[str, Stream]]:
        """The streams by subgraph, then engine."""
        out: Dict[str, Dict[str, Stream]] = {}
        for s in self.streams:
            out.setdefault(s.subgraph, {})[s.engine] = s
        return out

    @property
    def bundles(self) -> int:
        return sum(len(s) for s in self.streams)

    @property
    def integrity(self) -> Dict[str, Any]:
        """The payload digest check."""
        return dict(self.summary["integrity"])

    @property
    def notes(self) -> List[str]:
        return list(self.summary["notes"])

    def stream(self, subgraph: str, engine: str) -> Stream:
        try:
            return self.graphs[subgraph][engine]
        except KeyError:
            raise KeyError(f"{self.path}: no {engine} stream in {subgraph}") from None

    def validate(self, profile: str = "amended", *, recovered: bool = False, every: bool = False) -> Validation:
        """:func:`validate` of this file under its generation."""
        return validate(self.path, self.generation, profile, recovered=recovered, every=every)


def read_neff(path: PathLike, generation: Optional[str] = None, *, max_bytes: int = MAX_BYTES) -> Program:
    """Reads a NEFF container: header facts, compiler build, target, generation
    (and how it was chosen), and the bundles of every engine stream of every graph.
    A container from which no bundle is read raises :class:`TpbError`, as every command refuses it."""
    p = os.fspath(path)
    summary_text, streams, warned = _tpb.read_neff(p, generation, max_bytes)
    _warn(warned)
    s = json.loads(summary_text)
    g = s["generation"]
    return Program(
        path=p,
        header=s["header"],
        build=s["tool_version"],
        target=s["target"],
        generation=g,
        generation_from=s["generation_from"],
        streams=tuple(Stream(member, subgraph, engine, data, g) for member, subgraph, engine, data in streams),
        summary=s,
    )


def evidence(paths: Union[PathLike, Iterable[PathLike]], generation: Optional[str] = None, *, max_bytes: int = MAX_BYTES) -> Dict[str, Any]:
    """The evidence real programs give about the format, as ``tpb evidence --json``
    prints it: per generation x compiler build x opcode, field values, engines,
    every check's agreement; errata with their support. ``paths``: NEFF
    containers or raw bundle files; a folder is searched for ``*.neff``."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    text, warned = _tpb.evidence([os.fspath(p) for p in paths], generation, max_bytes)
    _warn(warned)
    result: Dict[str, Any] = json.loads(text)
    return result
