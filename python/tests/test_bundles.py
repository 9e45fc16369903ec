"""decode / encode / disasm / asm on every real bundle of the committed programs."""

from __future__ import annotations

from typing import Dict, List

import pytest

import tpb
from conftest import NEFFS, cli, cli_error


def programs() -> List[tpb.Program]:
    return [tpb.read_neff(p) for p in NEFFS]


@pytest.mark.parametrize("path", NEFFS)
def test_every_real_bundle_round_trips_through_bytes_text_and_fields(path: str) -> None:
    program = tpb.read_neff(path)
    for s in program.streams:
        lines = tpb.disasm(s.data)
        assert tpb.asm(lines) == s.data
        decoded = tpb.decode_stream(s.data, program.generation)
        assert len(decoded) == len(s) == len(lines)
        for d, raw, line in zip(decoded, s.bundles(), lines):
            assert bytes(d) == tpb.encode(d) == raw
            assert d.disasm() == line
            assert d.generation == program.generation
            assert d.paths() == [f.path for f in tpb.fields(d.opcode)] == list(d.fields())
            # The fields as values, and as the text writes them, encode back to the same bytes.
            assert tpb.encode(d.fields()) == raw
            texts = d.text_fields()
            assert texts.pop("opcode") == line.split()[0] == f"{d.opcode:#04x}:{d.name}"
            assert tpb.encode({"opcode": d.opcode, **texts}) == raw
            assert " ".join(f"{k}={v}" for k, v in texts.items()) == line.split(" ", 1)[1]


def test_disasm_lines_are_the_commands_without_their_location_comments() -> None:
    path = NEFFS[0]
    ours = [line for s in tpb.read_neff(path).streams for line in tpb.disasm(s.data)]
    theirs = [line.split(" # ")[0] for line in cli("disasm", path).stdout.splitlines() if not line.startswith("#")]
    assert ours == theirs


def known_bundle() -> tpb.Decoded:
    for p in programs():
        for s in p.streams:
            for d in s.decode():
                if d.known and any(isinstance(v, tuple) for v in d.fields().values()):
                    return d
    raise AssertionError("no real bundle of a known opcode with an array field")


def test_a_decoded_bundle_reads_every_field_by_path() -> None:
    d = known_bundle()
    assert d.opcode == bytes(d)[0] and d.name == tpb._tpb.opcode_name(d.opcode) and d.known
    assert d["opcode"] == d.opcode and d["inst_word_len"] == 0x10 and "opcode" in d
    path, value = next((k, v) for k, v in d.fields().items() if isinstance(v, tuple))
    assert isinstance(value, tuple) and all(isinstance(x, int) for x in value)
    assert [d[f"{path}[{i}]"] for i in range(len(value))] == list(value)
    assert d.text("opcode") == f"{d.opcode:#04x}:{d.name}"
    assert repr(d) == f"Decoded({d.opcode:#04x}:{d.name}, {d.generation})"
    with pytest.raises(KeyError, match="no-such.field: no such field in "):
        d["no-such.field"]
    with pytest.raises(KeyError):
        d[f"{path}[{len(value)}]"]
    assert d.get("no-such.field") is None and d.get("no-such.field", 7) == 7 and "no-such.field" not in d


def test_decoded_is_read_only_hashable_and_compares_by_bytes_and_generation() -> None:
    d = known_bundle()
    with pytest.raises(AttributeError):
        d.opcode = 1  # type: ignore[misc]
    again = tpb.decode(bytes(d), d.generation)
    assert again == d and hash(again) == hash(d) and len({d, again}) == 1
    assert tpb.decode(bytes(d), "v4" if d.generation != "v4" else "v2") != d


def test_every_byte_pattern_decodes_and_opaque_bundles_keep_their_bytes() -> None:
    raw = bytes([0xFE, 0x10]) + bytes(range(62))
    d = tpb.decode(raw)
    assert (d.name, d.known, bytes(d)) == ("unknown", False, raw)
    assert tpb.asm(d.disasm()) == raw


def test_bundle_like_inputs_are_accepted() -> None:
    raw = bytes(known_bundle())
    assert tpb.decode(bytearray(raw)) == tpb.decode(memoryview(raw)) == tpb.decode(raw)
    np = pytest.importorskip("numpy")
    assert tpb.decode(np.frombuffer(raw, dtype=np.uint8)) == tpb.decode(raw)


def test_errors_are_tpb_errors_with_the_commands_messages(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(tpb.TpbError, match="^a bundle is 64 bytes, got 63$"):
        tpb.decode(bytes(63))
    with pytest.raises(tpb.TpbError, match=r"^unknown generation `v9` \(expected v2, v3 or v4\)$"):
        tpb.decode(bytes(64), "v9")
    with pytest.raises(tpb.TpbError, match="^bundles: trailing partial bundle at offset 0x40: 100 bytes is not a multiple of 64$"):
        tpb.decode_stream(bytes(100))
    assert issubclass(tpb.TpbError, ValueError)
    # The assembler's message is the command's, after its file name.
    text = "0x46:TensorCopy\n0x46:NotTensorCopy x=1\n"
    f = tmp_path / "bad.tpb"
    f.write_text(text)
    with pytest.raises(tpb.TpbError) as e:
        tpb.asm(text)
    assert f"{f}: {e.value}" == cli_error("asm", str(f), "-o", str(tmp_path / "out.bin"))
    d = known_bundle()
    with pytest.raises(tpb.TpbError, match=f"`no_such`: no such field in {d.layout}"):
        tpb.encode({"opcode": d.opcode, "no_such": 1})
    with pytest.raises(tpb.TpbError, match="does not fit"):
        tpb.encode({"opcode": d.opcode, "inst_word_len": 256})
    with pytest.raises(tpb.TpbError, match="has no `opcode`"):
        tpb.encode({"inst_word_len": 16})


def test_encode_from_fields_zeroes_what_is_not_given() -> None:
    d = known_bundle()
    only = tpb.decode(tpb.encode({"opcode": d.opcode}))
    assert only.opcode == d.opcode and only["inst_word_len"] == 0x10
    values: Dict[str, object] = {k: v for k, v in only.fields().items() if k not in ("opcode", "inst_word_len")}
    assert all(not v or (isinstance(v, (bytes, tuple)) and not any(v)) for v in values.values())


def test_fields_lists_the_layout() -> None:
    d = known_bundle()
    fs = tpb.fields(d.opcode)
    assert fs[0] == tpb.FieldInfo("opcode", 0, 1, "u8", None)
    assert sum(f.size for f in fs) == tpb.BUNDLE_BYTES
    assert [f.offset for f in fs] == sorted(f.offset for f in fs)
