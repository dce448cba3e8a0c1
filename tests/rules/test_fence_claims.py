"""FENCE's hand-off model on the classes of issue 17: a read that runs whatever an atomic returned (the
next item after a worklist claim, `atomicMax(&stamp[v], iter) != iter` guarding only a push) does not
wait for what the atomic published; data of a work item the thread loaded for itself (`ranks[node]`)
is owner-only; a read through the read-only path (`__ldg`, ld.global.nc) reads nothing this launch
writes. Each ok_ kernel has a bad_ twin that reads another thread's data under the test.
Source: data/fence_claims.cu (`// EXPECT CODE` markers; its main() gives each launch), its PTX compiled
with nvcc 13 for sm_90."""

from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel

DATA = Path(__file__).with_name("data")
SOURCE_PATH = DATA / "fence_claims.cu"


@pytest.fixture(scope="module")
def findings():
    return findings_by_kernel(DATA / "fence_claims.sm_90.ptx", ["FENCE"])


@pytest.mark.parametrize("kernel", ["ok_claim_then_push", "bad_claim_then_read_under_test", "ok_owner_adds_its_residual",
                                    "bad_owner_reads_a_neighbours_rank", "ok_last_reads_read_only_half",
                                    "bad_last_reads_written_half"])
def test_kernel_gets_exactly_its_labelled_findings(kernel, findings):
    expected = expected_markers(SOURCE_PATH, kernel)
    assert {(d.code, d.line) for d in findings.get(kernel, [])} == expected
    assert bool(expected) == kernel.startswith("bad_")


def test_the_consumer_note_names_the_read_under_the_test(findings):
    (producer,) = [d for d in findings["bad_claim_then_read_under_test"] if d.code == "FENCE001"]
    assert any("the consumer" in n and "line 40" in n for n in producer.notes)
