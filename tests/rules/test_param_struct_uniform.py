"""A field of a struct kernel parameter read through the parameter's address (`mov.b64 %rd, k_param_0;
ld.param [%rd+8]`, as nvcc writes it for a `__grid_constant__` struct whose address is taken) is one
value for the whole grid: a loop it bounds has the same trip count in every thread, so its barriers are
not divergent; a loop that starts at threadIdx.x still is. Source: data/param_struct.cu, nvcc 13, sm_90."""

import re
from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE = DATA / "param_struct.cu"
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', SOURCE.read_text(), re.M)


@pytest.fixture(scope="module")
def findings():
    return findings_by_kernel(DATA / "param_struct.sm_90.ptx", ["SYNC"])


def test_both_labels_occur():
    assert {k.split("_")[0] for k in KERNELS} == {"ok", "bad"}


@pytest.mark.parametrize("kernel", KERNELS)
def test_sync001_matches_the_label(kernel, findings):
    got = {(d.code, d.line) for d in findings.get(kernel, [])}
    assert got == expected_markers(SOURCE, kernel)
