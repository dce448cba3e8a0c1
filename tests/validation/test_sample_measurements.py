"""ptxlint's shared-memory predictions for the realistic samples (samples/*.cu) against H100
measurements (validation/samples/: launch_samples.cu, measure.sh, convert.py, measurements.json).
The comparison itself is validation/samples/compare_samples.py, built like validation/compare_bank.py."""

import importlib.util
import json
import sys

import pytest

from support import REPO

spec = importlib.util.spec_from_file_location("compare_samples", REPO / "validation" / "samples" / "compare_samples.py")
compare_samples = importlib.util.module_from_spec(spec)
sys.modules["compare_samples"] = compare_samples
spec.loader.exec_module(compare_samples)

# rows whose addresses ptxlint reports as not determinable from the PTX, with the reason
EXPECTED_NOT_DETERMINABLE = {
    ("clusterHistogram", 18, "atomic"): "bin index loaded from global memory",
    ("histogramShared", 13, "atomic"): "bin index loaded from global memory",
}


@pytest.fixture(scope="module")
def data():
    return compare_samples.load_measurements()


@pytest.fixture(scope="module")
def rows():
    return compare_samples.compare()

def _rows_text(rows):
    return "\n".join(f"{r.source} {r.kernel} line {r.line} {r.kind}: measured {r.measured()} per block, "
                     f"predicted {r.predicted()}" for r in rows)


def test_measurements_name_their_hardware_and_cover_every_shared_memory_sample(data):
    assert "H100" in data["gpu"] and data["driver"] and data["nvcc"] and data["ncu"]
    assert data["arch"] == "sm_90" and data["compile_flags"] == "-arch=sm_90 -lineinfo"
    assert data["ptx_matches_committed"], "the measured binary was not built from the committed PTX"
    with_shared = {p.name for p in (REPO / "samples").glob("*.cu") if "__shared__" in p.read_text()}
    assert {k["source"] for k in data["kernels"]} == with_shared
    for k in data["kernels"]:
        assert k["instructions"], k["name"]
        # every compared instruction is placed on a line of its own sample
        for ins in compare_samples.compared_instructions(k):
            assert ins["file"] == k["source"] and ins["cu_line"], (k["name"], ins)


def test_every_comparable_row_matches_exactly(rows):
    mismatches = [r for r in rows if r.status == "mismatch"]
    assert not mismatches, "\n" + _rows_text(mismatches)
    exact = [r for r in rows if r.status == "exact"]
    assert len(exact) >= 100, f"{len(exact)} exact rows of {len(rows)}"


def test_known_differences_still_differ_and_each_copy_costs_what_was_measured(rows):
    """A model change that fixes a listed difference must take it off the list."""
    seen = {(r.kernel, r.line, r.kind): r for r in rows if r.status == "known-difference"}
    assert set(seen) == set(compare_samples.KNOWN_DIFFERENCES)
    for (kernel, line, kind), r in seen.items():
        if kernel in ("shiftSync", "pipelinedSum"):  # every static copy costs one measured execution
            assert len(r.copies) == 5 and all(c == (r.measured_wavefronts, r.measured_ideal) for c in r.copies)
        if kernel == "clusterHistogram":  # the one block that ran the line measured the prediction
            assert (r.predicted_wavefronts, r.predicted_ideal) == (sum(i["wavefronts"] for i in r.sass),
                                                                   sum(i["ideal"] for i in r.sass))


def test_rows_not_determinable_from_the_ptx_are_the_expected_ones(rows):
    unknown = {(r.kernel, r.line, r.kind) for r in rows if r.status == "not-determinable"}
    assert unknown == set(EXPECTED_NOT_DETERMINABLE)


def test_every_bank001_expectation_is_a_measured_conflict(rows):
    expected = json.loads((REPO / "samples" / "EXPECTED.json").read_text())
    by_entry = {}
    for r in rows:
        by_entry.setdefault((r.source, r.entry, r.line), []).append(r)
    checked = 0
    for source, entries in expected.items():
        for e in entries:
            if e["code"] != "BANK001":
                continue
            found = by_entry.get((source, e["entry"], e["line"]))
            assert found, f"{source}:{e['line']} {e['entry']} was not measured"
            assert sum(r.measured_wavefronts for r in found) > sum(r.measured_ideal for r in found), \
                f"{source}:{e['line']} {e['entry']}: expected BANK001 but measured no conflict"
            checked += 1
    assert checked >= 11


def test_no_line_predicted_conflict_free_is_measured_with_a_conflict(rows):
    free = [r for r in rows if r.status != "not-determinable" and r.predicted_wavefronts is not None
            and r.predicted_wavefronts == r.predicted_ideal]
    assert free
    conflicted = [r for r in free if r.measured_wavefronts > r.measured_ideal]
    assert not conflicted, "\n" + _rows_text(conflicted)


def test_predicted_conflicts_are_measured_conflicts(rows):
    conflicts = [r for r in rows if r.predicted_wavefronts is not None and r.status != "not-determinable"
                 and r.predicted_wavefronts > r.predicted_ideal]
    assert len(conflicts) >= 11
    assert all(r.measured_wavefronts > r.measured_ideal for r in conflicts), _rows_text(conflicts)


# A conflicting access and the same access in the sample's padded twin kernel: (kernel, line) of
# each. The twin is what the fix hint tells the user to write.
PADDED_TWINS = {
    ("setRowReadCol", 25): ("setRowReadColPad", 14, "[32][33] instead of [32][32]"),
    ("setColReadCol", 36): ("setColReadColPad", 25, "[32][33] instead of [32][32]"),
    ("setRowReadColPad2", 36): ("setRowReadColPad", 14, "[32][33] instead of [32][34]"),
    ("setRowReadColDyn", 14): ("setRowReadColDynPad", 27, "[...][33] instead of [...][32]"),
    ("transposeSmem", 30): ("transposeSmemPad", 46, "[32][33] instead of [32][32]"),
    ("mmaTile<64>", 29): ("mmaTile<72>", 29, "[16][72] instead of [16][64]"),
    ("mmaTile<64>", 30): ("mmaTile<72>", 30, "[8][72] instead of [8][64]"),
}


def test_fix_hints_predict_what_the_padded_twin_measured(data, rows):
    """The wavefronts a BANK001 fix hint promises are what the H100 measured for the kernel written
    the way the hint says (the sample's padded twin), launched with the same shape."""
    from ptxlint.analysis.context import AnalysisOptions
    from ptxlint.api import CheckOptions, check_module
    from ptxlint.frontend.parser import parse_ptx_file

    measured = {(r.kernel, r.line, r.kind): r for r in rows}
    checked = 0
    for k in data["kernels"]:
        lines = {line for (launch, line) in PADDED_TWINS if launch == k["launch"]}
        if not lines:
            continue
        module = parse_ptx_file(str(REPO / "samples" / k["ptx"]))
        options = CheckOptions(select=["BANK001"], analysis=AnalysisOptions(
            block_overrides=[(k["name"], tuple(k["block"]), "measured launch")]))
        for d in check_module(module, options):
            if d.kernel != k["name"] or d.line not in lines:
                continue
            twin_launch, twin_line, declaration = PADDED_TWINS[(k["launch"], d.line)]
            assert declaration in d.fix, d.fix
            twin = measured[(twin_launch, twin_line, d.data["kind"])]
            assert d.data["fixed_wavefronts"] == twin.measured_wavefronts, (k["launch"], d.line, d.fix)
            checked += 1
    assert checked == len(PADDED_TWINS)


def test_a_loop_split_by_nvcc_is_followed_through_its_remainder_loop(rows):
    """nvcc turns `for (c = lane; c < 128; c += 32)` into a remainder loop and a 4x unrolled loop
    that starts where the remainder loop left each thread: the stores of both are predicted."""
    split = [r for r in rows if r.kernel.startswith("mmaTile") and r.line == 17]
    assert len(split) == 2 and all(r.status == "exact" for r in split), split
