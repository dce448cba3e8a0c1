"""RACE003 against the labelled global-memory race kernels (validation/global_race/)."""

import re

import pytest

from support import REPO
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.race_global import check_global_race

HERE = REPO / "validation" / "global_race"
SOURCE = (HERE / "global_race.cu").read_text()
# the comment right above each kernel says what decides its label
LABELS = re.findall(r"((?://[^\n]*\n)+)extern \"C\" __global__ void ((?:ok|bad)_\w+)\(", SOURCE)
BLOCKS = {"ok_tiles_2d": (16, 16, 1)}


@pytest.fixture(scope="module")
def module():
    return parse_ptx_file(str(HERE / "global_race.sm_90.ptx"))


def findings(module, name):
    function = next(f for f in module.kernels if f.name == name)
    block = BLOCKS.get(name, (256, 1, 1))
    ctx = KernelContext(module, function, AnalysisOptions(block_overrides=[(None, block, "labelled launch")]))
    return list(check_global_race(ctx))


def test_at_least_fifteen_labelled_kernels_each_with_its_reason():
    assert len(LABELS) >= 15
    assert sum(name.startswith("bad_") for _, name in LABELS) >= 7
    assert sum(name.startswith("ok_") for _, name in LABELS) >= 7
    for comment, name in LABELS:
        assert comment.lstrip("/ ").startswith(name.split("_")[0] + ":"), name


@pytest.mark.parametrize("name", [n for _, n in LABELS], ids=str)
def test_race003_matches_the_label(module, name):
    found = findings(module, name)
    if name.startswith("bad_"):
        assert found, f"{name}: no RACE003"
        assert all(d.severity == "error" for d in found)
    else:
        assert not found, [d.message for d in found]


def test_the_block_boundary_race_names_neighbouring_blocks_and_its_assumptions(module):
    (finding,) = findings(module, "bad_shift_left_barrier")
    assert "across blocks" in finding.message and finding.data["scope"] == "grid"
    notes = "\n".join(finding.notes)
    assert "block blockIdx.x = b + 1" in notes or "block b + 1" in notes
    assert "do not alias" in notes and "more than one block along blockIdx.x" in notes
