"""FENCE's hand-off model, one class of kernel at a time: a publication needs a producer block and a
consumer in another block of the same launch that waits on the flag (or tests the ticket) and then
reads the published data. Work-queue indices, unique ids, lock acquisitions, data read back only by
the block or thread that wrote it and flags read only by a later launch are no hand-off; the last
block of a ticket reduction and a decoupled look-back are.
Source: data/fence_handoff_model.cu (`// EXPECT CODE` markers; its main() gives each launch), its PTX
compiled with nvcc 13 for sm_90."""

import re
from pathlib import Path

import pytest

from support import expected_markers, findings_by_kernel


DATA = Path(__file__).with_name("data")
SOURCE_PATH = DATA / "fence_handoff_model.cu"
SOURCE = SOURCE_PATH.read_text().splitlines()
KERNELS = re.findall(r'^extern "C" __global__ void (\w+)\(', "\n".join(SOURCE), re.M)


def _line(text: str, kernel: str) -> int:
    """The 1-based line of `kernel`'s definition that contains `text` (once)."""
    start = next(n for n, line in enumerate(SOURCE) if f"void {kernel}(" in line)
    end = next((n for n, line in enumerate(SOURCE) if n > start and line.startswith('extern "C"')), len(SOURCE))
    (n,) = [n + 1 for n in range(start, end) if text in SOURCE[n]]
    return n


@pytest.fixture(scope="module")
def findings():
    return findings_by_kernel(DATA / "fence_handoff_model.sm_90.ptx", ["FENCE"])


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_gets_exactly_its_labelled_findings(kernel, findings):
    expected = expected_markers(SOURCE_PATH, kernel)
    assert {(d.code, d.line) for d in findings.get(kernel, [])} == expected
    assert bool(expected) == kernel.startswith("bad_")


def test_every_class_has_a_positive_and_a_near_miss():
    classes = ["work_queue", "unique_id", "lock", "own_rows|neighbours_rows", "lookback", "next_launch|flag_for"]
    for pattern in classes:
        names = [k for k in KERNELS if re.search(pattern, k)]
        assert any(k.startswith("ok_") for k in names), pattern
    assert sum(k.startswith("bad_") for k in KERNELS) >= 5


def _notes(d) -> str:
    return "\n".join(d.notes)


def test_the_finding_names_write_flag_and_consumer_read(findings):
    (d,) = [d for d in findings["bad_lookback_aggregate_not_fenced"] if d.code == "FENCE001"]
    notes = _notes(d)
    kernel = "bad_lookback_aggregate_not_fenced"
    store, flag_read = _line("aggregate[part] = s;", kernel), _line("while (flags[part - 1] == 0)", kernel)
    read = _line("prev = aggregate[part - 1];", kernel)
    assert f"the global store at line {store}" in notes
    assert f"waits on the flag read `ld.volatile.global.u32` at line {flag_read}" in notes
    assert f"reads the data at line {read}" in notes
    assert "another one of the same launch" in notes
    assert f"assumed: the launch has more than one block, and the store at line {store} and the read at line {read}" \
        in notes


def test_the_lock_release_names_the_acquire_as_the_consumer(findings):
    (d,) = findings["bad_lock_release_without_fence"]
    cas = _line("atomicCAS(lock, 0, 1)", "bad_lock_release_without_fence")
    assert "may see the flag before the data" in d.message  # a lock word set, not a ticket drawn
    assert f"retries the atomic `atom.global.cas.b32` at line {cas}" in _notes(d)


def test_the_last_finisher_is_named_by_its_ticket(findings):
    (d,) = findings["bad_work_queue_last_finisher_sums_items"]
    assert "may see the ticket before the data" in d.message
    assert f"ticket from the atomic `atom.global.add.u32` at line {d.line} passes the test" in _notes(d)
    assert f"reads the data at line {_line('s += items[k];', 'bad_work_queue_last_finisher_sums_items')}" in _notes(d)


@pytest.mark.parametrize("code", ["FENCE001", "FENCE002", "FENCE003"])
def test_the_rule_documentation_states_the_model(code):
    from support import run_cli

    shown = run_cli("rule", code)
    assert shown.returncode == 0
    text = shown.stdout
    assert "What is a hand-off" in text
    for not_a_handoff in ("work-queue index", "lock taken", "later kernel", "own block or thread"):
        assert not_a_handoff in text, not_a_handoff
