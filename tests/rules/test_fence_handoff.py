"""FENCE findings need a hand-off: the published data is read after observing the flag or ticket (in
this kernel, or in another kernel of the module through module variables). A counter that hands out
slots, a completion signal for the host and CTA-scope atomics publish nothing to other blocks.
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


def test_consumer_in_another_kernel_is_named(findings):
    (d,) = findings["bad_producer_for_other_kernel"]
    assert any("hand-off in kernel ok_consumer_of_other_kernel" in n and "line 18" in n and "line 22" in n
               for n in d.notes)


def test_an_acquire_poll_is_an_observation(findings):
    (d,) = findings["bad_publish_acquire_poll"]
    assert any("ld.acquire.gpu" in n and "read at line 35" in n for n in d.notes)


def test_without_the_consumer_kernel_the_producer_is_not_reported():
    """The same producer alone in its module: nobody waits for the flag on the device."""
    text = (DATA / "fence_handoff.sm_90.ptx").read_text()
    start = text.index(".visible .entry ok_consumer_of_other_kernel(")
    end = text.index("\n}\n", start) + 3
    alone = parse_ptx(text[:start] + text[end:], "producer_alone.ptx")
    assert [d for d in _check(alone) if d.kernel == "bad_producer_for_other_kernel"] == []
