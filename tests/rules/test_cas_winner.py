"""RACE003 and atomic-protected writes: only the thread whose atomicCAS on a status word wins writes the
error record (its reach hangs on an atomic's result, as RACE001 already treats it), so the record has
one writer; every thread that saw a bad input writing it is a race. The same rule keeps moderngpu's
segmented-reduce carry-out (one writer per block, chosen through values the scan read back) silent.
Source: data/cas_winner.cu (`// EXPECT CODE` markers; its main() gives each launch), its PTX compiled
with nvcc 13 for sm_90."""

from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE_PATH = DATA / "cas_winner.cu"


@pytest.fixture(scope="module")
def findings():
    return findings_by_kernel(DATA / "cas_winner.sm_90.ptx", ["RACE", "WARP"])


@pytest.mark.parametrize("kernel", ["ok_first_error_by_cas_winner", "bad_every_error_writes_the_record"])
def test_kernel_gets_exactly_its_labelled_findings(kernel, findings):
    expected = expected_markers(SOURCE_PATH, kernel)
    assert {(d.code, d.line) for d in findings.get(kernel, [])} == expected
    assert bool(expected) == kernel.startswith("bad_")
