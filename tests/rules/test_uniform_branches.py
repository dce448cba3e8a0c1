"""SHFL001/SYNC001 on branches and loops that are the same in every lane of a warp (or in the whole
block) for the launched block shape: conditions on the warp index, loops whose trip count is the same
for every thread, barriers on both sides of a branch that splits the block at a warp boundary.

tests/rules/data/uniform_branches.cu (PTX beside it, `nvcc -ptx -lineinfo -arch=sm_90`) launches every
kernel from its main(): the shapes come from ptxlint's own launch discovery, as a user runs it. Each
`// EXPECT CODE` marker is a finding the user must see; kernels named ok_* get none.
"""

import re
from functools import lru_cache
from pathlib import Path

from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_file, check_module
from ptxlint.frontend.parser import parse_ptx_file

DATA = Path(__file__).parent / "data"
PTX = DATA / "uniform_branches.sm_90.ptx"
FAMILIES = ["RACE", "WARP", "SYNC", "SHFL"]


@lru_cache(maxsize=1)
def checked():
    """The file checked as a user checks it: shapes from the launches in its main()."""
    result = check_file(str(PTX), CheckOptions(select=FAMILIES, use_config=False))
    assert not result.errors
    return result


def discovered():
    return checked().diagnostics


def markers() -> set:
    lines = (DATA / "uniform_branches.cu").read_text().splitlines()
    return {(m.group(1), n) for n, line in enumerate(lines, 1) for m in [re.search(r"//\s*EXPECT\s+(\w+)", line)] if m}


def markers_line(text: str) -> int:
    lines = (DATA / "uniform_branches.cu").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def kernel_of(d) -> str:
    return re.sub(r"^_Z\d+", "", d.kernel)


def test_findings_under_the_launched_shapes_are_exactly_the_markers():
    found = discovered()
    assert {(d.code, d.line) for d in found} == markers()
    assert not [d for d in found if kernel_of(d).startswith("ok_")]
    # every launched kernel was checked under the shape its launch in main() gives
    launched = [d for d in found if "unlaunched" not in d.kernel]
    assert all(any("from the launch at" in n and "uniform_branches.cu:" in n for n in d.notes) for d in launched)


def test_candidate_shapes_that_fail_the_kernels_assertion_are_not_admitted():
    """Never launched: checked under candidate shapes. `assert(blockDim.y == 1)` traps in every thread
    of a 2-D candidate, so those are not admitted (and said so); `assert(blockDim.x == 4 && ...)`
    admits no candidate, and the kernel is counted as not checked rather than guessed."""
    result = checked()
    (flat,) = [d for d in result.diagnostics if "bad_unlaunched_flat_block" in d.kernel]
    (shapes,) = [n for n in flat.notes if n.startswith("holds under every candidate block of 64 threads or more")]
    line = markers_line("assert(blockDim.y == 1);")
    assert f"32x8x1 (every thread fails the assertion at line {line})" in shapes
    assert flat.data["blocks"] == ["256x1x1", "128x1x1", "64x1x1", "512x1x1", "1024x1x1"]
    assert not [d for d in result.diagnostics if "ok_unlaunched_asserted_shape" in d.kernel]
    assert result.not_checked.get("kernels with no admitted block shape") == 1


def test_a_per_warp_loop_with_a_barrier_is_still_block_divergence():
    """The rows loop is the same for the lanes of a warp (no SHFL001 on its warp_sum) but warps of one
    block may run different numbers of rows: SYNC001 says warps, not lanes."""
    rows = [d for d in discovered() if kernel_of(d).startswith("bad_barrier_in_rows_loop")]
    assert {d.code for d in rows} == {"SYNC001"}
    assert all("differs between warps of the block" in d.message for d in rows)


def test_a_lane_dependent_trip_count_names_the_lanes():
    ragged = [d for d in discovered() if kernel_of(d).startswith("bad_ragged_bound")]
    assert ragged and all("differs between lanes of a warp" in d.message for d in ragged)


def check_under(kernel: str, dims: tuple) -> list:
    module = parse_ptx_file(str(PTX))
    names = {f.name for f in module.functions if kernel in f.name}
    options = CheckOptions(select=FAMILIES, analysis=AnalysisOptions(
        block_overrides=[(name, dims, "test") for name in names]))
    return check_module(module, options, only=names)


def test_the_same_kernels_fire_under_shapes_that_split_warps():
    """What makes them uniform is the block shape: a rounded-down bound with 100 threads (not a
    multiple of 32) splits a warp, and a depth loop of blockDim.z = 6 (not a multiple of 4) runs
    some of the 4 lanes of a column one more time than the others."""
    assert {d.code for d in check_under("ok_rounded_down_bound", (100, 1, 1))} >= {"SHFL001", "SYNC001"}
    assert {d.code for d in check_under("ok_depth_loop", (4, 8, 6))} == {"SHFL001"}


def test_paired_barriers_need_whole_warps_and_the_same_barriers_on_both_sides():
    """Both sides of ok_paired_halves wait twice, in the same order, and the split at thread 128 keeps
    warps whole: no finding. bad_paired_lanes pairs one barrier with one, but odd and even lanes of
    every warp wait at different instructions; bad_unpaired_halves waits twice on one side, once on
    the other."""
    assert check_under("ok_paired_halves", (256, 1, 1)) == []
    lanes = check_under("bad_paired_lanes", (256, 1, 1))
    assert [d.code for d in lanes] == ["SYNC001"] and "differs between lanes of a warp" in lanes[0].notes[2]
    unpaired = check_under("bad_unpaired_halves", (256, 1, 1))
    assert [d.code for d in unpaired] == ["SYNC001", "SYNC001"]
