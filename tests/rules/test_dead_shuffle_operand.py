"""WARP001/RACE001 on a shared read whose value only a shuffle hands on: only the lanes the shuffle
takes its operand from use what they read, so a race on the other lanes' reads changes nothing
(`s[t] += __shfl_sync(mask, s[t - 1], 1)`). A source lane that reads an element its neighbour
overwrites, or a shuffle up that uses every lane's read, still fires.
Source: data/dead_shuffle_operand.cu (its main() gives each kernel's launch), PTX from nvcc 13, sm_90."""

import re
from pathlib import Path

import pytest

from ptxlint.api import CheckOptions, check_file

DATA = Path(__file__).with_name("data")
SOURCE = (DATA / "dead_shuffle_operand.cu").read_text()
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', SOURCE, re.M)


@pytest.fixture(scope="module")
def findings():
    result = check_file(str(DATA / "dead_shuffle_operand.sm_90.ptx"),
                        CheckOptions(select=["RACE", "SYNC", "WARP", "SHFL", "FENCE"], use_config=False))
    assert not result.errors
    found: dict = {}
    for d in result.diagnostics:
        found.setdefault(d.kernel, []).append(d)
    return found


def test_both_labels_occur():
    assert {k.split("_")[0] for k in KERNELS} == {"ok", "bad"}


@pytest.mark.parametrize("kernel", KERNELS)
def test_warp001_matches_the_label(kernel, findings):
    codes = [d.code for d in findings.get(kernel, [])]
    assert codes == (["WARP001"] if kernel.startswith("bad_") else []), [d.message for d in findings.get(kernel, [])]


def test_the_source_lane_pair_is_named(findings):
    (d,) = findings["bad_add_count_broadcast_from_lane_two"]
    t1, t2 = sorted(d.data["threads"])
    assert (t1 % 32, t2 % 32) == (1, 2) and t1 // 32 == t2 // 32
    assert any("only threads" in n and "shuffle" in n for n in d.notes)
