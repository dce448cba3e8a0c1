"""Control-flow edges that no thread of the block takes under the launch shape.

`for (int h = blockDim.x / 2; h > 0; h /= 2) { ...; __syncthreads(); }` compiles to a test before the
loop that skips it when `blockDim.x / 2 == 0`. For a launch of 128 threads no thread takes that
edge, so a path through it (one that avoids the loop's barrier) does not exist. The lane evaluator
decides each conditional edge per thread; an edge is infeasible when every thread that reaches its
branch is known to go the other way. Unknown conditions keep their edges.
"""

from __future__ import annotations

from .budget import spend
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


def reached_controls(ctx, controls: list, block_id=None) -> list:
    """The (branch block, why) controls of a block that can split the threads reaching it under the
    launch shape: a branch no thread reaches splits nothing (the copy of a grid-stride loop nvcc
    keeps for a stride of 0, `gridDim.x * blockDim.x == 0`, where a lane would spin forever), nor
    does one whose every feasible path to the kernel's end passes `block_id` (the spinning copy was
    the only way round it)."""
    lanes = ctx.lanes
    kept = []
    for control in controls:
        branch = control[0]
        if isinstance(branch, int):
            reach, _ = lanes.collect(lanes.block_active, branch)
            if not any(r is not False for r in reach):
                continue
            if block_id is not None and _on_every_feasible_path(ctx, branch, block_id):
                continue
        kept.append(control)
    return kept


def _on_every_feasible_path(ctx, start, through) -> bool:
    """Does every path from block `start` to the kernel's end, by edges some thread may take, pass
    block `through`, after the branch that ends `start`? (A walk from `start`'s successors that never
    enters `through` finds no end; `start` may be `through` itself, a loop's latch.)"""
    seen, stack = set(), [start]
    while stack:
        spend()
        node = stack.pop()
        for succ in feasible_successors(ctx, node) if isinstance(node, int) else ctx.cfg.successors(node):
            if succ == through or succ in seen:
                continue
            if not isinstance(succ, int):
                return False  # the end (or a virtual edge to it), not through the block
            seen.add(succ)
            stack.append(succ)
    return True
