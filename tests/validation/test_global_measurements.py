"""Every global-memory sector prediction against the H100 measurements (validation/global/)."""

import importlib.util
import sys

import pytest

from support import REPO

spec = importlib.util.spec_from_file_location("compare_global", REPO / "validation" / "compare_global.py")
compare_global = importlib.util.module_from_spec(spec)
sys.modules["compare_global"] = compare_global
spec.loader.exec_module(compare_global)


@pytest.fixture(scope="module")
def rows():
    return compare_global.compare()


def test_measured_suite_has_forty_patterns_and_names_its_hardware():
    data = compare_global.load_measurements()
    assert len(data["kernels"]) >= 40
    assert "H100" in data["gpu"] and data["ncu"] and data["nvcc"] and data["driver"]
    kinds = {i["kind"] for k in data["kernels"] for i in k["instructions"]}
    assert kinds == {"load", "store", "atomic"}


def test_every_determinable_prediction_is_exact(rows):
    mismatches = [r for r in rows if r.status == "mismatch"]
    assert not mismatches, "\n".join(f"{r.kernel} line {r.line} {r.kind}: measured {r.measured}, predicted "
                                     f"{r.predicted}" for r in mismatches)
    determinable = [r for r in rows if r.status in ("exact", "exact-per-request")]
    assert len(determinable) >= 140
    assert {r.kind for r in determinable} == {"load", "store", "atomic"}


def test_run_time_data_is_not_guessed(rows):
    unknown = {(r.kernel, r.kind) for r in rows if r.status == "not-determinable"}
    assert unknown == {("j01_gather_identity", "load"), ("j02_gather_permuted", "load"),
                       ("j03_scatter_permuted", "store")}
    assert all("run-time data" in r.reason for r in rows if r.status == "not-determinable")


def test_block_dependent_alignment_is_a_range_that_holds_the_measurement(rows):
    ranged = [r for r in rows if r.status == "in-range"]
    assert [(r.kernel, r.kind) for r in ranged] == [("j04_block_misaligned", "load")]
    assert "ctaid" in ranged[0].reason


def test_transpose_store_costs_eight_times_its_ideal_and_the_fix_restores_it(rows):
    by = {(r.kernel, r.kind): r for r in rows}
    naive = by[("t04_transposeNaive_const", "store")]
    fixed = by[("t05_transposeSmemPad_const", "store")]
    assert naive.predicted["sectors"] == naive.measured["sectors"] == 8 * naive.measured["ideal"]
    assert fixed.predicted["sectors"] == fixed.measured["sectors"] == fixed.measured["ideal"]
