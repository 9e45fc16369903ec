"""tpb.read_neff: the facts `tpb neff --json` gives, and every stream's bundles."""

from __future__ import annotations

from pathlib import Path

import pytest

import tpb
from conftest import NEFFS, REAL, ROOT, cli_error, cli_json_lines

# corpus/neff/real/README.md: compiler build, target, generation, bundles.
BUILDS = {"nki-2.23": ("2.23.6484.0+3b612583", "cayman", "v3"), "xla-2.14": ("2.14.227.0+2d4f85be", "sunda", "v2")}
BUNDLES = {
    "nki-2.23/kernel-fusion_baseline_bf16_s512.neff": 186,
    "nki-2.23/moe-megakernel_attn_v6.neff": 1971,
    "nki-2.23/moe-megakernel_moe_v6b.neff": 3279,
    "xla-2.14/MODULE_7191749739040703445.neff": 31824,
}


@pytest.mark.parametrize("path", NEFFS)
def test_a_program_holds_the_commands_facts_and_its_streams(path: str) -> None:
    p = tpb.read_neff(path)
    [summary] = cli_json_lines("neff", "--json", path)
    assert p.summary == summary
    name = path[len(REAL) + 1 :]
    build, target, generation = BUILDS[name.split("/")[0]]
    assert (p.build, p.target, p.generation, p.generation_from) == (build, target, generation, "target")
    assert p.bundles == summary["bundles"] == BUNDLES.get(name, p.bundles)
    assert p.header["pkg_version"] in (1, 2) and p.header["header_size"] == 1024 and p.integrity["matched"]
    assert [(s.member, s.subgraph, s.engine, len(s)) for s in p.streams] == [
        (s["member"], s["subgraph"], s["engine"], s["bundles"]) for s in summary["streams"]
    ]
    for sub, engines in p.graphs.items():
        for engine, s in engines.items():
            assert p.stream(sub, engine) is s and s.member.startswith(sub) and len(s.data) == 64 * len(s)
    assert sorted(p.graphs) == summary["subgraphs"]


def test_the_generation_can_be_given() -> None:
    p = tpb.read_neff(NEFFS[0], "v4")
    assert (p.generation, p.generation_from) == ("v4", "arch")
    assert {d.generation for d in p.streams[0].decode()} == {"v4"}


def test_streams_as_numpy_arrays() -> None:
    np = pytest.importorskip("numpy")
    p = tpb.read_neff(NEFFS[0])
    for s in p.streams:
        a = s.array()
        assert a.shape == (len(s), 64) and a.dtype == np.uint8 and not a.flags.writeable
        assert [row.tobytes() for row in a] == list(s.bundles())
        assert [tpb.decode(row, p.generation) for row in a] == s.decode()


def test_what_the_command_refuses_raises_its_message(tmp_path: Path) -> None:
    raw = tmp_path / "raw.neff"
    raw.write_bytes(bytes(64 * 20))
    truncated = tmp_path / "truncated.neff"
    truncated.write_bytes((ROOT / NEFFS[0]).read_bytes()[:-10])
    for path in [raw, truncated, tmp_path / "missing.neff"]:
        with pytest.raises(tpb.TpbError) as e:
            tpb.read_neff(path)
        assert str(e.value) == cli_error("neff", str(path))
    with pytest.raises(KeyError, match="no XYZ stream in sg00"):
        tpb.read_neff(NEFFS[0]).stream("sg00", "XYZ")
