"""A device function checked on its own takes its parameters to be alike in every thread of the block:
a branch on the gate it is handed splits no block, a branch on threadIdx it makes itself does
(data/device_function_arguments.cu, whose `bad_`/`ok_` roles are its device functions, not kernels)."""

from pathlib import Path

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE = DATA / "device_function_arguments.cu"


def _found() -> dict:
    return findings_by_kernel(DATA / "device_function_arguments.sm_90.ptx", ["SYNC", "SHFL", "RACE", "WARP"])


def test_a_branch_on_the_arguments_splits_no_block():
    assert _found().get("apply_gate", []) == []


def test_a_split_the_function_makes_itself_is_reported():
    found = _found()
    assert {(d.code, d.line) for d in found.get("apply_partial", [])} == expected_markers(SOURCE, "apply_partial")
    assert all("%tid.x" in d.message or "threadIdx.x" in d.message for d in found["apply_partial"])


def test_the_kernel_that_calls_them_alike_gets_nothing():
    assert _found().get("run_gates", []) == []
