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
    assert len(determinable) >= 139
    assert {r.kind for r in determinable} == {"load", "store", "atomic"}


def test_run_time_data_is_not_guessed(rows):
    unknown = {(r.kernel, r.kind) for r in rows if r.status == "not-determinable"}
    assert unknown == {("j01_gather_identity", "load"), ("j02_gather_permuted", "load"),
                       ("j03_scatter_permuted", "store")}
    assert all("run-time data" in r.reason for r in rows if r.status == "not-determinable")


def test_block_dependent_alignment_is_a_range_that_holds_the_measurement(rows):
    ranged = {(r.kernel, r.kind): r for r in rows if r.status == "in-range"}
    assert set(ranged) == {("j04_block_misaligned", "load"), ("d05_soa_x", "load")}
    assert "ctaid" in ranged[("j04_block_misaligned", "load")].reason


def test_a_run_time_offset_is_a_range_from_best_to_worst_alignment(rows):
    """`in[n + i]` with n a kernel parameter: the kernel cannot know where n puts the warp's 128
    bytes in a sector, so the count is a range; its ends are the measured aligned float load
    (a01_f32_s1, n = 0 here too: 65536) and the measured load offset by one float (a07_f32_off1)."""
    by_kernel = {(r.kernel, r.kind): r for r in rows}
    offset = by_kernel[("d05_soa_x", "load")]
    assert "d05_soa_x_param_3" in offset.reason
    low, high = offset.predicted["sectors"]
    assert low == by_kernel[("a01_f32_s1", "load")].measured["sectors"]
    assert high == by_kernel[("a07_f32_off1", "load")].measured["sectors"]


def test_transpose_store_costs_eight_times_its_ideal_and_the_fix_restores_it(rows):
    by = {(r.kernel, r.kind): r for r in rows}
    naive = by[("t04_transposeNaive_const", "store")]
    fixed = by[("t05_transposeSmemPad_const", "store")]
    assert naive.predicted["sectors"] == naive.measured["sectors"] == 8 * naive.measured["ideal"]
    assert fixed.predicted["sectors"] == fixed.measured["sectors"] == fixed.measured["ideal"]


def _coal(kernel_name):
    from ptxlint.frontend.parser import parse_ptx_file
    from ptxlint.rules.coal import check_uncoalesced

    data = compare_global.load_measurements()
    module = parse_ptx_file(str(compare_global.GLOBAL / data["ptx"]))
    kernel = next(k for k in data["kernels"] if k["name"] == kernel_name)
    ctx, _ = compare_global.predictions(module, kernel)
    return kernel, list(check_uncoalesced(ctx))


def _measured_per_block(kernel, line, kind):
    blocks = kernel["grid"][0] * kernel["grid"][1]
    return sum(i["sectors"] for i in kernel["instructions"] if i["cu_line"] == line and i["kind"] == kind) // blocks


# (uncoalesced kernel, its fixed twin measured on the GPU, the fix COAL001 must print, kind)
TWINS = [
    ("t04_transposeNaive_const", "t05_transposeSmemPad_const", "shared-tile", "store"),
    ("t01_transposeNaive", "t03_transposeSmemPad", "shared-tile", "store"),
    ("d01_aos3_x", "d05_soa_x", "soa", "load"),
    ("c06_f32x4_scalar", "c07_f32x4_vector", "vector", "load"),
    ("t06_rowsum_per_thread", "t07_rowsum_smem_staged", "shared-tile", "load"),
]


@pytest.mark.parametrize("bad,fixed,fix,kind", TWINS, ids=[t[0] for t in TWINS])
def test_the_printed_fix_applied_gives_the_sectors_it_promised(bad, fixed, fix, kind):
    kernel, findings = _coal(bad)
    assert findings, f"COAL001 is silent on {bad}"
    finding = findings[0]
    assert finding.data["fix"] == fix and "verified with the sector model" in finding.fix
    twin, twin_findings = _coal(fixed)
    assert not twin_findings, [f.message for f in twin_findings]
    lines = sorted({i["cu_line"] for i in twin["instructions"] if i["kind"] == kind})
    measured = sum(_measured_per_block(twin, line, kind) for line in lines)
    assert finding.data["fix_sectors"] == measured
    assert finding.data["sectors"] == sum(_measured_per_block(kernel, line, kind) for line in finding.data["lines"])


def test_coal_states_the_alignment_and_pitch_assumptions():
    _, findings = _coal("t01_transposeNaive")
    notes = "\n".join(findings[0].notes)
    assert "256-byte aligned" in notes and "assumed large enough" in notes
    assert "4*kernel parameter 3" in notes  # the lanes' offsets, symbolic in the row pitch


def test_coal_is_silent_where_the_sectors_are_ideal_or_unknown():
    for name in ("a01_f32_s1", "a07_f32_off1", "c02_f4_s1", "e03_2d_16x16_row", "j02_gather_permuted",
                 "t02_transposeSmem", "f05_grid_stride", "a02_f32_s2"):
        assert not _coal(name)[1], name
