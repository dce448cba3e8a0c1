"""FENCE on what a flag or ticket can hand over: the data written before it is published. A block
that reads its own partition after taking the partition's index from a counter, or reads input
after a spin timed out, consumes nothing published; sums accumulated with atomics beside the
counter in one buffer are published data (FENCE001 on the ticket, FENCE002 on the last block's read).
Source: data/fence_partitions.cu (`// EXPECT CODE` markers; its main() gives each launch), nvcc 13, sm_90."""

import re
from pathlib import Path

import pytest

from support import expected_markers

from ptxlint.api import CheckOptions, check_file

DATA = Path(__file__).with_name("data")
SOURCE_PATH = DATA / "fence_partitions.cu"
SOURCE = SOURCE_PATH.read_text().splitlines()
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', "\n".join(SOURCE), re.M)


@pytest.fixture(scope="module")
def findings():
    result = check_file(str(DATA / "fence_partitions.sm_90.ptx"),
                        CheckOptions(select=["FENCE", "RACE", "SYNC", "SHFL", "WARP"], use_config=False))
    assert not result.errors
    found: dict = {}
    for d in result.diagnostics:
        found.setdefault(d.kernel, []).append(d)
    return found


def _expected(kernel):
    return expected_markers(SOURCE_PATH, kernel)


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_gets_exactly_its_labelled_findings(kernel, findings):
    assert {(d.code, d.line) for d in findings.get(kernel, [])} == _expected(kernel)
    assert bool(_expected(kernel)) == kernel.startswith("bad_")


def test_an_atomic_accumulation_is_named_as_the_unfenced_data(findings):
    (d,) = [d for d in findings["bad_last_block_reads_atomic_sums_beside_the_counter"] if d.code == "FENCE001"]
    assert "atomic update `atom.global.add.f32`" in d.message
    assert any("the consumer: the block whose ticket" in n and "reads the data at line 84" in n for n in d.notes)
