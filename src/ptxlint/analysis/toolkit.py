"""CUDA toolkit idioms that the analyses must recognise in inlined code.

Cooperative groups synchronises a tile of more than 32 threads (`tiled_partition<64..512>`) without
a hardware barrier: each warp's lane 0 sets its bit in a word of the toolkit's reserved shared
scratch (`atom.or.acq_rel.cta` through `cvta.shared` of `%reserved_smem_offset_1`), the last warp to
arrive clears the word, the others spin on it with `ld.acquire.cta`, and every lane then meets at a
`bar.warp.sync`. That closing `bar.warp.sync` orders the tile's shared accesses like a barrier.
"""

from __future__ import annotations

from .spaces import in_reserved_shared_window


def tile_barriers(ctx) -> frozenset:
    """Indices of the `bar.warp.sync` instructions that close a cooperative-groups multi-warp tile
    sync: first in a block with a predecessor that waits (an acquire) on the reserved shared window."""
    found = ctx.__dict__.get("_tile_barriers")
    if found is None:
        found = ctx.__dict__["_tile_barriers"] = frozenset(_find(ctx))
    return found


def _find(ctx):
    fn = ctx.function
    if not any(r.startswith("%reserved_smem") for r in _special_registers(fn)):
        return
    waiting = {b.id for b in fn.blocks if any(_waits_on_scratch(ctx, i) for i in b.instructions)}
    if not waiting:
        return
    for block in fn.blocks:
        if not block.instructions:
            continue
        first = block.instructions[0]
        if first.op == "bar" and "warp" in first.modifiers and "sync" in first.modifiers:
            if any(p in waiting for p in ctx.cfg.predecessors(block.id)):
                yield first.index


def _waits_on_scratch(ctx, ins) -> bool:
    acquires = any(m in ins.modifiers for m in ("acquire", "acq_rel"))
    return ins.op in ("ld", "atom") and acquires and ins.space in (None, "shared") \
        and in_reserved_shared_window(ctx, ins)


def _special_registers(fn):
    for ins in fn.instructions:
        for r in ins.sources():
            if r.is_special:
                yield r.name
