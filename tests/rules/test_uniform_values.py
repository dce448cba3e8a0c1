"""SHFL001/SYNC001/SYNC002 on values that are the same in every lane of a warp (or every thread of a
block) although computed from the thread index: a signed `gid / 32`, a count rounded up to whole warps
(also as nvcc unrolls the loop over it: a remainder loop, then steps of 4 from where each warp left it),
a bound rounded to a multiple of the grid's stride or of the block with `%`, `blockIdx < gridDim`,
a warp-aggregated atomic (`__ffs(ballot) - 1` as the leader, its result broadcast, `__popc(ballot)`),
and a count read at `counts[threadIdx.y]`: one address per warp with 32x8 blocks, two with 16x16
(a warp then spans two rows: the same code is a true positive there).

tests/rules/data/uniform_values.cu (PTX beside it, `nvcc -ptx -lineinfo -arch=sm_90 -std=c++17`)
launches every kernel from its main(), so the shapes come from ptxlint's own launch discovery. Each
`// EXPECT CODE` marker is a finding the user must see; kernels named ok_* get none.
"""

import re
from functools import lru_cache
from pathlib import Path

from support import expected_markers

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.api import CheckOptions, check_file
from ptxlint.frontend.parser import parse_ptx_file

DATA = Path(__file__).parent / "data"
PTX = DATA / "uniform_values.sm_90.ptx"
FAMILIES = ["RACE", "WARP", "SYNC", "SHFL"]


@lru_cache(maxsize=1)
def checked():
    result = check_file(str(PTX), CheckOptions(select=FAMILIES, use_config=False))
    assert not result.errors
    return result.diagnostics


def kernel_of(d) -> str:
    return re.sub(r"^_Z\d+", "", d.kernel)


def test_findings_under_the_launched_shapes_are_exactly_the_markers():
    found = checked()
    assert {(d.code, d.line) for d in found} == expected_markers(DATA / "uniform_values.cu")
    assert not [d for d in found if kernel_of(d).startswith("ok_")]


def test_each_true_positive_names_the_lanes_or_warps_that_disagree():
    """The twins still say why: half-warp rows split lanes, a ragged grid-stride bound splits the
    block in its last iteration, the last thread of the grid returns before the barrier."""
    by_kernel = {kernel_of(d): d for d in checked()}
    assert "depends on %tid.x" in by_kernel["bad_row_per_half_warpPKiPKfPfi"].message
    ragged = by_kernel["bad_grid_stride_raggedPKfPfi"]
    assert ragged.code == "SYNC001" and "inside a loop whose trip count differs" in ragged.message
    assert by_kernel["bad_last_thread_returnsPKfPf"].code == "SYNC002"
    rows = by_kernel["bad_count_per_row_16x16PKiPKfPf"]
    assert rows.code == "SHFL001" and any("16x16x1" in n for n in rows.notes)


def _context(kernel: str, block: tuple) -> KernelContext:
    module = parse_ptx_file(str(PTX))
    function = next(f for f in module.functions if kernel in f.name)
    return KernelContext(module, function, AnalysisOptions(block_overrides=[(None, block, "test")]))


def _branch_levels(ctx) -> list:
    u = ctx.uniformity
    return [u.branch_level(b) for b in sorted(u._branches)]


def test_the_signed_warp_index_is_uniform_per_warp_and_the_assumption_is_said():
    """`gid / 32` with gid = blockIdx.x * blockDim.x + threadIdx.x: the row test is one value per warp
    (level BLOCK: warps differ, lanes do not), under the stated assumption that gid fits in an int."""
    ctx = _context("ok_row_per_warp_signed", (256, 1, 1))
    u = ctx.uniformity
    first = min(u._branches, key=lambda b: u._branches[b].index)
    values, notes = ctx.lanes.collect(ctx.lanes.register, u._branches[first], u._branches[first].guard)
    assert all(values[w * 32] == values[w * 32 + k] for w in range(8) for k in range(32))
    assert len({values[w * 32] for w in range(8)}) == 8  # one unknown per warp, not one for the block
    assert any("assumed not to overflow" in n for n in notes)


def test_a_block_index_at_or_past_the_grid_is_ruled_out():
    """`idx >= gridDim.x * blockDim.x` is false in every thread; with 96 threads (warps not a power of
    two apart) only `blockIdx < gridDim` decides it."""
    ctx = _context("ok_index_below_grid", (96, 1, 1))
    branch = next(iter(ctx.uniformity._branches.values()))
    values = ctx.lanes.register(branch, branch.guard)
    assert all(v == (0, ()) for v in values)
    # one less than the grid's threads: thread 95 of each block is undecided, the others are known below
    ctx = _context("bad_last_thread_returns", (96, 1, 1))
    branch = next(iter(ctx.uniformity._branches.values()))
    values = ctx.lanes.register(branch, branch.guard)
    assert all(v == (0, ()) for v in values[:95]) and values[95][1]
