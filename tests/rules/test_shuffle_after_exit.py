"""SHFL001 after an early return whose condition is a run-time bound: the finding states the condition
(`n % 32 != 0`, in the warp where the bound falls) and is a warning, since a host that keeps n a
multiple of 32 never splits a warp there; a return on loaded data stays an error.
Source: data/shuffle_after_exit.cu (`// EXPECT CODE` markers; its main() gives each launch), its PTX
compiled with nvcc 13 for sm_90."""

from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE_PATH = DATA / "shuffle_after_exit.cu"


@pytest.fixture(scope="module")
def findings():
    return findings_by_kernel(DATA / "shuffle_after_exit.sm_90.ptx", ["SHFL"])


@pytest.mark.parametrize("kernel", ["bad_exit_on_bound", "bad_exit_on_data"])
def test_kernel_gets_exactly_its_labelled_findings(kernel, findings):
    assert {(d.code, d.line) for d in findings.get(kernel, [])} == expected_markers(SOURCE_PATH, kernel)


def test_a_bound_exit_states_its_condition_and_is_not_certain(findings):
    (bound,) = findings["bad_exit_on_bound"]
    assert bound.severity == "warning"
    assert "this happens only in the warp where the bound" in bound.message and "% 32 != 0" in bound.message
    (data,) = findings["bad_exit_on_data"]
    assert data.severity == "error" and "this happens only" not in data.message
