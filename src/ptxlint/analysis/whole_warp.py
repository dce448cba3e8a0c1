"""Places where the kernel's own test shows that every lane of the warp is present.

`__activemask()` is the set of lanes executing together at that point. Code that branches on
"all 32 lanes are here" takes its full-mask path only when they are:

    coalesced_group g = coalesced_threads();          // activemask.b32 %m
    if (g.size() == 32) __shfl_sync(0xffffffff, ...)  // popc(%m) == 32, or %m == -1

cooperative_groups does exactly this in `coalesced_group::shfl`, `ballot`, `match_*` and its scans,
and `labeled_partition` narrows the mask with `__match_any_sync(mask, label)`: a subset of the active
lanes, so a full subset again means every lane is present (with the same label). Under such a test
the lanes were all there when the mask was read: a branch that decided earlier whether a lane gets
there did not split the warp on this path (and where some lanes are known to have left, the path is
never taken).
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Immediate, Instruction, Register

FULL = 0xFFFFFFFF


def whole_warp_guard(ctx, block_id) -> Optional[tuple]:
    """(guard block, the `activemask` instruction, the instruction whose mask is full there) when
    `block_id` runs only on the side of a branch that holds when every lane of the warp was active
    at that `activemask`; None otherwise. The guard is the nearest such branch among the block's
    dominators."""
    cfg = ctx.cfg
    dominators = cfg.dominators
    node = dominators.get(block_id)
    while isinstance(node, int):
        found = _full_side(ctx, node)
        if found is not None:
            side, point, full = found
            if cfg.dominates(side, block_id) and all(
                    pred == node or cfg.dominates(side, pred) for pred in cfg.predecessors(side)):
                return node, point, full
        node = dominators.get(node)
    return None


def decided_by_full_mask(ctx, branch_block, full: Instruction) -> bool:
    """Does the branch ending `branch_block` test only the full mask `full` defines (`size() < 2`
    under `size() == 32`), constants and values the same in every lane of the warp? Then every
    lane of the warp takes the same way."""
    last = ctx.function.blocks[branch_block].instructions[-1]
    if last.op != "bra" or last.guard is None:
        return False
    return _only_from(ctx, last, last.guard, full, 4)


def _only_from(ctx, ins: Instruction, reg, full: Instruction, depth: int) -> bool:
    if isinstance(reg, Immediate):
        return True
    if not isinstance(reg, Register):
        return False
    if not reg.is_special and not ctx.uniformity.is_divergent(ins, reg, "warp"):
        return True  # the same in every lane of the warp already
    if depth == 0:
        return False
    d = ctx.dataflow.sole_definition(ins, reg)
    if d is None:
        return False
    if d is full:
        return True
    if d.op in ("setp", "popc", "mov", "not", "and", "or", "xor", "add", "sub", "shl", "shr", "selp") \
            and d.guard is None and len(d.operands) >= 2:
        return all(_only_from(ctx, d, r, full, depth - 1) for r in d.operands[1:])
    return False


def _full_side(ctx, block_id) -> Optional[tuple]:
    """(successor, activemask instruction, mask definition) when the block ends in a branch on
    `mask == 0xffffffff` or `popc(mask) == 32` for a mask within the active lanes; the successor is
    the side where it holds."""
    block = ctx.function.blocks[block_id]
    if not block.instructions:
        return None
    last = block.instructions[-1]
    if last.op != "bra" or last.guard is None:
        return None
    setp = ctx.dataflow.sole_definition(last, last.guard)
    if setp is None or setp.op != "setp" or len(setp.operands) != 3:
        return None
    compare = next((m for m in setp.modifiers if m in ("eq", "ne")), None)
    if compare is None:
        return None
    found = _full_operand(ctx, setp, setp.operands[1], setp.operands[2]) or \
        _full_operand(ctx, setp, setp.operands[2], setp.operands[1])
    if found is None:
        return None
    # the branch's predicate is true when the mask is full (eq) or not full (ne)
    holds_when = (compare == "eq") != last.guard_negated
    for succ in ctx.cfg.successors(block_id):
        cond = ctx.cfg.edge_condition(block_id, succ)
        if cond is None or not isinstance(succ, int):
            continue
        if cond[1] == holds_when:
            return (succ,) + found
    return None


def _full_operand(ctx, setp: Instruction, operand, other) -> Optional[tuple]:
    """(activemask, mask definition) behind `operand` when `operand == other` means every lane is active."""
    if not isinstance(other, Immediate) or not isinstance(other.value, int) or not isinstance(operand, Register):
        return None
    if other.value & FULL == FULL:
        mask = ctx.dataflow.sole_definition(setp, operand)
    elif other.value == 32:
        d = ctx.dataflow.sole_definition(setp, operand)
        if d is None or d.op != "popc" or len(d.operands) != 2 or not isinstance(d.operands[1], Register):
            return None
        mask = ctx.dataflow.sole_definition(d, d.operands[1])
    else:
        return None
    point = _within_active(ctx, mask, 4)
    return (point, mask) if point is not None else None


def _within_active(ctx, d: Optional[Instruction], depth: int) -> Optional[Instruction]:
    """The `activemask` instruction whose lanes include every lane set in the value `d` writes: the
    mask itself, `match.any.sync` under it, or an `and` with it."""
    if d is None or depth == 0:
        return None
    if d.op == "activemask":
        return d
    sources = []
    if d.op == "mov" and len(d.operands) == 2:
        sources = [d.operands[1]]
    elif d.op == "match" and "any" in d.modifiers and "sync" in d.modifiers:
        sources = [d.operands[-1]]
    elif d.op == "and" and len(d.operands) == 3:
        sources = d.operands[1:]
    for r in sources:
        if isinstance(r, Register):
            point = _within_active(ctx, ctx.dataflow.sole_definition(d, r), depth - 1)
            if point is not None:
                return point
    return None
