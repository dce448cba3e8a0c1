"""Control-flow edges that no thread of the block takes under the launch shape.

`for (int h = blockDim.x / 2; h > 0; h /= 2) { ...; __syncthreads(); }` compiles to a test before the
loop that skips it when `blockDim.x / 2 == 0`. For a launch of 128 threads no thread takes that
edge, so a path through it (one that avoids the loop's barrier) does not exist. The lane evaluator
decides each conditional edge per thread; an edge is infeasible when every thread that reaches its
branch is known to go the other way. Unknown conditions keep their edges.
"""

from __future__ import annotations

from .lane_values import where_predicate


def feasible_successors(ctx, block_id) -> list:
    """The successors of `block_id` in the CFG that some thread of the block may go to."""
    cache = ctx.__dict__.setdefault("_feasible_successors", {})
    found = cache.get(block_id)
    if found is None:
        found = cache[block_id] = [s for s in ctx.cfg.successors(block_id) if _may_take(ctx, block_id, s)]
    return found


def _may_take(ctx, src, dst) -> bool:
    if not isinstance(src, int) or not isinstance(dst, int):
        return True
    cond = ctx.cfg.edge_condition(src, dst)
    if cond is None:
        return True
    reg, want = cond
    lanes = ctx.lanes
    branch = ctx.function.blocks[src].instructions[-1]
    # the notes made here explain no access: keep them out of the accesses' notes
    (reach, values), _ = lanes.collect(lambda: (lanes.block_active(src), lanes.register(branch, reg)))
    if not any(r is not False for r in reach):
        return True  # a block no thread reaches by forward edges (a loop's latch): leave it alone
    taken, _ = where_predicate(reach, values, want)
    return any(t is not False for t in taken)


def reached_controls(ctx, controls: list) -> list:
    """The (branch block, why) controls of a block that some thread of the block may reach: a
    branch no thread reaches under the launch shape splits nothing (the copy of a grid-stride loop
    nvcc keeps for a step of 0, `gridDim.x * blockDim.x == 0`, where a lane would spin forever)."""
    lanes = ctx.lanes
    kept = []
    for control in controls:
        reach, _ = lanes.collect(lanes.block_active, control[0]) if isinstance(control[0], int) else ([None], None)
        if any(r is not False for r in reach):
            kept.append(control)
    return kept
