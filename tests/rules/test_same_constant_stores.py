"""RACE001/RACE003 and same-value stores: every thread that finds an update stores one constant to a
flag (`updated = true`), also from one loop iteration to the next, which is no write-write race; a
store of a value that differs between threads (the loop index) to the same word still is.
Source: data/same_constant_stores.cu (`// EXPECT CODE` markers; its main() gives each launch), its PTX
compiled with nvcc 13 for sm_90."""

from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE_PATH = DATA / "same_constant_stores.cu"
KERNELS = ["ok_block_flag_raised_in_loop", "bad_block_slot_written_in_loop", "ok_global_flag_raised_in_loop",
           "bad_global_slot_written_in_loop"]


@pytest.fixture(scope="module")
def findings():
    found = findings_by_kernel(DATA / "same_constant_stores.sm_90.ptx", ["RACE", "WARP"])
    return {name: ds for kernel, ds in found.items() for name in KERNELS if name in kernel}


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_gets_exactly_its_labelled_findings(kernel, findings):
    expected = expected_markers(SOURCE_PATH, kernel)
    assert {(d.code, d.line) for d in findings.get(kernel, [])} == expected
    assert bool(expected) == kernel.startswith("bad_")
