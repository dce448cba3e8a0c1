"""Which block shapes a kernel is checked under, and what a finding says about them."""

import json
from collections import Counter

from support import REPO, run_cli
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.launch import BlockShape, out_of_bounds, plan_block_shapes
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file

SHAPES_PTX = REPO / "tests" / "analysis" / "data" / "shapes.sm_90.ptx"


def module():
    return parse_ptx_file(str(SHAPES_PTX))


def kernel(m, name):
    return next(f for f in m.functions if f.name == name)


def test_a_kernel_with_no_launch_is_checked_under_candidates_the_default_first():
    m = module()
    plan = plan_block_shapes(kernel(m, "_Z13oneWarpRotatePfPKf"), AnalysisOptions())
    assert not plan.known
    assert [s.dims for s in plan.shapes] == [(256, 1, 1), (128, 1, 1), (64, 1, 1), (32, 1, 1), (512, 1, 1),
                                             (1024, 1, 1)]
    assert all(s.assumed for s in plan.shapes)


def test_declared_shapes_win_over_candidates():
    m = module()
    plan = plan_block_shapes(kernel(m, "_Z13oneWarpRotatePfPKf"),
                             AnalysisOptions(block_overrides=[("oneWarp*", (32, 1, 1), "command line (--block)")]))
    assert plan.known and [s.dims for s in plan.shapes] == [(32, 1, 1)]


def test_a_shape_that_indexes_a_shared_array_out_of_bounds_is_not_admitted():
    m = module()
    f = kernel(m, "_Z13oneWarpRotatePfPKf")
    big = KernelContext(m, f, AnalysisOptions(), BlockShape((256, 1, 1), "test", True))
    why = out_of_bounds(big)
    assert why is not None and "thread 32" in why and "`_ZZ13oneWarpRotatePfPKfE1s` (128 bytes)" in why
    assert out_of_bounds(KernelContext(m, f, AnalysisOptions(), BlockShape((32, 1, 1), "test", True))) is None


def test_a_race_that_exists_only_under_a_guessed_shape_is_counted_not_reported():
    counts = Counter()
    found = check_module(module(), CheckOptions(select=["RACE", "SYNC"]), not_checked=counts)
    assert not [d for d in found if d.kernel == "_Z13oneWarpRotatePfPKf"]
    # told the real shape is larger, the same kernel does race: the rule still sees it
    big = check_module(module(), CheckOptions(select=["RACE"], analysis=AnalysisOptions(
        block_overrides=[("oneWarpRotate", (64, 1, 1), "test")])))
    assert [d.code for d in big if d.kernel == "_Z13oneWarpRotatePfPKf"] == ["RACE001"]


def test_a_finding_that_holds_for_every_admitted_candidate_of_two_warps_is_reported_and_says_so():
    found = check_module(module(), CheckOptions(select=["SYNC"]))
    (d,) = [d for d in found if d.kernel == "_Z15halfWarpBarrierPf"]
    assert d.code == "SYNC001" and d.severity == "error"
    (note,) = [n for n in d.notes if n.startswith("holds under every candidate block of 64 threads or more")]
    assert "64x1x1" in note and "1024x1x1" in note and "32x1x1" not in note and "every block shape" not in note
    assert d.data["blocks"] == ["256x1x1", "128x1x1", "64x1x1", "512x1x1", "1024x1x1"]
    assert not any(n.startswith("assumed block") for n in d.notes)


def test_one_finding_per_place_names_every_instantiation(tmp_path):
    r = run_cli("check", "--no-cache", "--isolated", "--select", "SYNC", "--format", "json", str(SHAPES_PTX))
    doc = json.loads(r.stdout)
    places = [(d["code"], d["line"]) for d in doc["diagnostics"]]
    assert places == [("SYNC001", 17), ("SYNC001", 28)]
    template = doc["diagnostics"][1]
    assert template["data"]["instances"] == ["scaled<float, 1>", "scaled<int, 2>", "scaled<double, 3>"]
    assert any(n.startswith("in 3 instantiations or kernels: scaled<float, 1>") for n in template["notes"])
    assert r.stdout.count('"code": "SYNC001"') == 2


def test_a_race_between_warps_is_reported_without_a_launch():
    # smem_race's cross-warp race holds for its declared shape (samples/.ptxlint.toml) and for every
    # candidate block of two warps or more: it is the user's bug with or without a launch
    race = REPO / "samples" / "smem_race.sm_90.ptx"
    declared = run_cli("check", "--no-cache", "--select", "RACE", str(race))
    assert declared.returncode == 1 and "RACE001" in declared.stdout and "Not checked" not in declared.stdout
    r = run_cli("check", "--no-cache", "--isolated", "--select", "RACE", str(race))
    assert r.returncode == 1 and "RACE001" in r.stdout and "Not checked" not in r.stdout
    assert "holds under every candidate block of 64 threads or more that the kernel admits" in r.stdout


def test_not_checked_counts_are_in_the_summary_and_the_json():
    # halfOfSharedRotate races under 128 threads, not under 64: it depends on the unknown shape
    r = run_cli("check", "--no-cache", "--isolated", "--select", "RACE", str(SHAPES_PTX))
    assert r.returncode == 0
    assert "Not checked: 1 findings that depend on the unknown block shape" in r.stdout
    doc = json.loads(run_cli("check", "--no-cache", "--isolated", "--select", "RACE", "--format", "json",
                             str(SHAPES_PTX)).stdout)
    assert doc["not_checked"] == {"findings that depend on the unknown block shape": 1}
    told = run_cli("check", "--no-cache", "--isolated", "--select", "RACE", "--block", "halfOfShared*=128",
                   str(SHAPES_PTX))
    assert told.returncode == 1 and "RACE001" in told.stdout


def test_a_block_glob_that_matches_no_kernel_is_an_error():
    r = run_cli("check", "--no-cache", "--isolated", "--block", "oneWarpRotat=32", str(SHAPES_PTX))
    assert r.returncode == 2
    assert "--block oneWarpRotat=32x1x1 matches no kernel of the checked files" in r.stderr  # an input error
    ok = run_cli("check", "--no-cache", "--isolated", "--select", "RACE", "--block", "oneWarp*=64", str(SHAPES_PTX))
    assert ok.returncode == 1 and "RACE001" in ok.stdout


LAUNCHED_PTX = REPO / "tests" / "analysis" / "data" / "launched.sm_90.ptx"


def _launched_findings(path):
    r = run_cli("check", "--no-cache", "--isolated", "--format", "json", str(path))
    assert r.returncode == 1, r.stdout + r.stderr
    return {d["kernel"]: d for d in json.loads(r.stdout)["diagnostics"] if d["code"] != "BANK001"}, r


def test_kernels_are_checked_under_the_launches_in_their_host_code():
    found, _ = _launched_findings(LAUNCHED_PTX)
    # shiftLeft<<<4, kThreads>>> with constexpr kThreads = 128: warp 3 reads what warp 0 wrote
    race = found.pop("_Z9shiftLeftPfPKf")
    assert race["code"] == "RACE001"
    assert "assumed block 128x1x1 (from the launch at tests/analysis/data/launched.cu:36)" in race["notes"]
    assert race["data"]["blocks"] == ["128x1x1"]
    # rotate<<<1, 32>>>: one warp, ordered by __syncwarp(); nothing else fires either
    assert found == {}
    text = run_cli("check", "--no-cache", "--isolated", "--select", "BANK", str(LAUNCHED_PTX)).stdout
    assert "assumed block 16x16x1 (from the launch at tests/analysis/data/launched.cu:38)" in text


def test_a_cu_file_is_checked_under_its_own_launches(tmp_path):
    import shutil

    import pytest

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH")
    source = tmp_path / "launched.cu"
    source.write_text((REPO / "tests" / "analysis" / "data" / "launched.cu").read_text())
    r = run_cli("check", "--no-cache", "--isolated", "--select", "RACE", "launched.cu", cwd=tmp_path)
    assert r.returncode == 1
    assert "launched.cu:20:5: RACE001" in r.stdout
    assert "assumed block 128x1x1 (from the launch at launched.cu:36)" in r.stdout


def test_the_launches_command_says_where_each_shape_comes_from():
    r = run_cli("launches", str(LAUNCHED_PTX), str(SHAPES_PTX))
    assert r.returncode == 0, r.stderr
    assert "  shiftLeft: 128x1x1 (from the launch at tests/analysis/data/launched.cu:36)" in r.stdout
    assert "  tileCopy: 16x16x1 (from the launch at tests/analysis/data/launched.cu:38)" in r.stdout
    assert "  halfWarpBarrier: unknown: checked under 256x1x1, 128x1x1" in r.stdout
    doc = json.loads(run_cli("launches", "--format", "json", "--kernel", "rotate", str(LAUNCHED_PTX)).stdout)
    (plan,) = doc["files"][0]["kernels"]
    assert plan["known"] and plan["shapes"] == [{"block": [32, 1, 1], "grid": [1, 1, 1],
                                                 "source": "from the launch at tests/analysis/data/launched.cu:35"}]
    (launch,) = plan["launches"]
    assert launch["where"] == "tests/analysis/data/launched.cu:35" and launch["used"]


WARP_ROWS_PTX = REPO / "tests" / "analysis" / "data" / "warp_rows.sm_90.ptx"


def test_launch_bounds_limit_the_thread_count_not_each_dimension():
    # `__launch_bounds__(128)` is `.maxntid 128, 1, 1`; a 2-D kernel under it may run 32x4 or 8x8
    m = parse_ptx_file(str(WARP_ROWS_PTX))
    plan = plan_block_shapes(kernel(m, "_Z8warpRowsPfPKf"), AnalysisOptions())
    dims = [s.dims for s in plan.shapes]
    assert (32, 4, 1) in dims and (8, 8, 1) in dims
    assert all(x * y * z <= 128 for x, y, z in dims)


def test_a_warp_per_row_kernel_under_launch_bounds_is_not_reported_for_rows_wider_than_a_warp():
    r = run_cli("check", "--no-cache", "--isolated", "--select", "RACE,WARP", "--format", "json", str(WARP_ROWS_PTX))
    doc = json.loads(r.stdout)
    found = {d["kernel"]: d for d in doc["diagnostics"]}
    # warpRows collides only in blocks wider than 32 in x: shape-dependent, counted, not reported
    assert "_Z8warpRowsPfPKf" not in found
    assert doc["not_checked"] == {"findings that depend on the unknown block shape": 1}
    d = found["_Z15warpRowsOneSlotPfPKf"]
    assert (d["code"], d["line"], d["severity"]) == ("RACE003", 18, "error")
    assert any("32x4x1" in n for n in d["notes"] if n.startswith("holds under every candidate block"))


def test_a_race_that_needs_more_than_one_warp_in_a_kernel_written_for_one_warp_says_so():
    doc = json.loads(run_cli("check", "--no-cache", "--isolated", "--select", "RACE,WARP", "--format", "json",
                             str(WARP_ROWS_PTX)).stdout)
    found = {d["kernel"]: d for d in doc["diagnostics"]}
    # no blockDim.x, no barrier: the race exists only in blocks wider than one warp, and says so
    lanes = found["_Z12oneWarpLanesPfPKf"]
    assert (lanes["code"], lanes["line"], lanes["severity"]) == ("RACE003", 26, "warning")
    assert lanes["message"].endswith("(only when the block has more than 32 threads in x; no launch found)")
    assert lanes["data"]["condition"] == "only when the block has more than 32 threads in x"
    # the same collision where rows are blockDim.x wide: written for wide blocks, no condition
    wide = found["_Z10blockLanesPfPKf"]
    assert (wide["code"], wide["line"], wide["severity"]) == ("RACE003", 33, "error")
    assert "condition" not in wide["data"] and "more than 32 threads" not in wide["message"]
