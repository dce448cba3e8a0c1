"""FENCE findings need a hand-off: the published data is read after observing the flag or ticket by
another block of the same launch. A later kernel that reads the flag (through module variables) is
ordered by the launch boundary; a counter that hands out slots, a completion signal for the host and
CTA-scope atomics publish nothing to other blocks.
Source: data/fence_handoff.cu (`// EXPECT CODE` markers), its PTX compiled with nvcc 13 for sm_90."""

import re
from pathlib import Path

import pytest

from support import expected_markers

from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx, parse_ptx_file

DATA = Path(__file__).with_name("data")
SOURCE_PATH = DATA / "fence_handoff.cu"
SOURCE = SOURCE_PATH.read_text().splitlines()
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', "\n".join(SOURCE), re.M)


def _check(module):
    options = CheckOptions(select=["FENCE", "RACE", "SYNC", "SHFL", "WARP"],
                           analysis=AnalysisOptions(block_overrides=[(None, (128, 1, 1), "test")]))
    return check_module(module, options)


@pytest.fixture(scope="module")
def findings():
    found: dict = {}
    for d in _check(parse_ptx_file(str(DATA / "fence_handoff.sm_90.ptx"))):
        found.setdefault(d.kernel, []).append(d)
    return found


def _expected(kernel):
    return expected_markers(SOURCE_PATH, kernel)


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_gets_exactly_its_labelled_findings(kernel, findings):
    assert {(d.code, d.line) for d in findings.get(kernel, [])} == _expected(kernel)
    assert bool(_expected(kernel)) == kernel.startswith("bad_")


def test_an_acquire_poll_is_an_observation(findings):
    (d,) = findings["bad_publish_acquire_poll"]
    assert any("waits on the flag read `ld.acquire.gpu" in n and "reads the data at line 36" in n for n in d.notes)
