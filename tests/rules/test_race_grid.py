"""RACE003 across blocks under the launch's grid: a kernel launched `<<<1, 512>>>` has no race across
blocks, the same body launched with many blocks has; an integer grid has one block along y, a
`dim3(n, 2)` grid has two; with no launch found the finding says it needs more than one block.
Source: data/race_grid.cu (its main() launches every kernel but the last), PTX from nvcc 13, sm_90."""

import re
from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE = DATA / "race_grid.cu"
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', SOURCE.read_text(), re.M)


@pytest.fixture(scope="module")
def findings():
    return findings_by_kernel(DATA / "race_grid.sm_90.ptx", ["RACE"])


def test_both_labels_occur():
    assert {k.split("_")[0] for k in KERNELS} == {"ok", "bad"}


@pytest.mark.parametrize("kernel", KERNELS)
def test_race003_matches_the_label(kernel, findings):
    got = {(d.code, d.line) for d in findings.get(kernel, [])}
    assert got == expected_markers(SOURCE, kernel)


def test_a_one_block_launch_is_not_compared_across_blocks(findings):
    assert "ok_one_block_shifts_left" not in findings
    (d,) = findings["bad_many_blocks_shift_left"]
    assert d.data["scope"] == "grid"
    assert any("4096 blocks along blockIdx.x" in n for n in d.notes), d.notes


def test_blocks_differing_in_y_need_a_grid_with_two_rows(findings):
    assert "ok_integer_grid_scales_by_row" not in findings
    (d,) = findings["bad_two_rows_scale_by_row"]
    assert any("differ only in blockIdx.y" in n for n in d.notes)
    assert any("2 blocks along blockIdx.y" in n for n in d.notes)


def test_an_unknown_grid_is_stated_as_a_condition(findings):
    (d,) = findings["bad_unlaunched_shift_left"]
    assert d.message.endswith("(when launched with more than one block along blockIdx.x)")
    (known,) = findings["bad_many_blocks_shift_left"]
    assert "when launched" not in known.message
