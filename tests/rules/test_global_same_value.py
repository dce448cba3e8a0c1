"""RACE003 (global-memory races) on one store made by several threads, and on paths the launch shape
rules out. Threads that store the same value to one address (the last lane of every tile storing
the same scan total, a warp storing its reduction, every block filling one table alike) are no race;
a loop whose barrier every launched block runs leaves no barrier-free path. Different values, and
a reset with no barrier at all, still are.
Source: data/global_same_value.cu (its main() gives each kernel's launch), PTX from nvcc 13, sm_90."""

import re
from pathlib import Path

import pytest

from ptxlint.api import CheckOptions, check_file

DATA = Path(__file__).with_name("data")
SOURCE = (DATA / "global_same_value.cu").read_text()
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', SOURCE, re.M)
CORRECTNESS = ["RACE", "SYNC", "WARP", "SHFL", "FENCE"]


@pytest.fixture(scope="module")
def findings():
    result = check_file(str(DATA / "global_same_value.sm_90.ptx"), CheckOptions(select=CORRECTNESS, use_config=False))
    assert not result.errors
    found: dict = {}
    for d in result.diagnostics:
        found.setdefault(d.kernel, []).append(d)
    return found


def test_every_kernel_is_labelled_and_both_labels_occur():
    assert {k.split("_")[0] for k in KERNELS} == {"ok", "bad"}


@pytest.mark.parametrize("kernel", KERNELS)
def test_race003_matches_the_label(kernel, findings):
    codes = [d.code for d in findings.get(kernel, [])]
    if kernel.startswith("bad_"):
        assert codes == ["RACE003"], codes
    else:
        assert codes == [], [d.message for d in findings[kernel]]


def test_findings_assume_the_launch_in_main(findings):
    (d,) = findings["bad_blocks_store_their_index_in_one_place"]
    assert "across blocks" in d.message
    assert any("64x1x1" in n and "global_same_value.cu" in n for n in d.notes)


def test_different_values_in_one_store_name_two_threads_of_one_warp(findings):
    (d,) = findings["bad_pairs_of_threads_store_different_values"]
    assert d.data["scope"] == "block" and d.data["hazard"] == "WAW"
    t1, t2 = d.data["threads"]
    assert t1 // 2 == t2 // 2 and t1 != t2
