"""RACE003 across blocks under conditions the analysis cannot evaluate: an input guard lets threads of
neighbouring blocks through together (a race), a guard that singles out one block or guards that
contradict on a kernel parameter keep them apart (no finding), and the finding says what it needs.
Source: data/race_grid_guarded.cu (no launch in the file), PTX from nvcc 13, sm_90."""

import re
from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE = DATA / "race_grid_guarded.cu"
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', SOURCE.read_text(), re.M)


@pytest.fixture(scope="module")
def findings():
    return findings_by_kernel(DATA / "race_grid_guarded.sm_90.ptx", ["RACE"])


@pytest.mark.parametrize("kernel", KERNELS)
def test_race003_matches_the_label(kernel, findings):
    got = {(d.code, d.line) for d in findings.get(kernel, [])}
    assert got == expected_markers(SOURCE, kernel)


def test_a_guarded_race_across_blocks_states_its_conditions(findings):
    (d,) = findings["bad_guarded_second_element"]
    assert d.data["scope"] == "grid"
    assert any("pass the conditions" in n for n in d.notes), d.notes
    assert d.message.endswith("(when launched with more than one block along blockIdx.x)")
