"""Which threads' loaded values are used: a load whose only use is a shuffle's source operand.

`s[t] += __shfl_sync(mask, s[t - 1], 1)` loads `s[t - 1]` in every lane, but `shfl.sync.idx` with
source lane 1 hands every lane lane 1's operand: what the other lanes loaded reaches nothing. A race
on such a read (lane t reads `s[t - 1]` while lane t - 1 overwrites it) cannot change any result.
The shuffle's lane operand and clamp are evaluated per thread (PTX ISA lane arithmetic, as the lane
evaluator does); where they are not known, every thread's value counts as used.
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Instruction, Register
from . import symbolic as S
from .warpops import shuffle_mode, shuffle_source


def used_by_threads(ctx, ins: Instruction) -> Optional[frozenset]:
    """For a load: the threads of the block whose loaded value may reach a result, or None when
    that may be every thread (any use but a shuffle's source operand, shuffle lanes not known, or
    no use at all)."""
    cache = ctx.__dict__.setdefault("_used_by_threads", {})
    if ins.index not in cache:
        cache[ins.index] = _used_by_threads(ctx, ins)
    return cache[ins.index]


def _readers(ctx) -> dict:
    """register name -> the instructions that read it."""
    found = ctx.__dict__.get("_register_readers")
    if found is None:
        found = {}
        for i in ctx.function.instructions:
            for r in i.sources():
                found.setdefault(r.name, []).append(i)
        ctx.__dict__["_register_readers"] = found
    return found


def _used_by_threads(ctx, ins: Instruction) -> Optional[frozenset]:
    dests = list(ins.destinations())
    if not dests:
        return None
    readers = _readers(ctx)
    shuffles = []
    for reg in dests:
        for use in readers.get(reg.name, ()):
            if use is ins or ins.index not in ctx.dataflow.definitions(use, reg):
                continue
            if not _only_shuffled(use, reg):
                return None
            shuffles.append(use)
    if not shuffles:
        return None  # an unused load (hand-written PTX, a volatile poll) is left as it is
    live: set = set()
    for shfl in shuffles:
        found = _source_threads(ctx, shfl)
        if found is None:
            return None
        live |= found
    return frozenset(live)


def _only_shuffled(use: Instruction, reg: Register) -> bool:
    """Is `reg` read by `use` only as the value a `shfl.sync` hands to other lanes?"""
    if use.op != "shfl" or len(use.operands) < 4 or shuffle_mode(use.modifiers) is None:
        return False
    if use.guard is not None and use.guard.name == reg.name:
        return False
    return use.operands[1] == reg and all(reg.name not in {r.name for r in _registers(op)} for op in use.operands[2:])


def _registers(operand) -> list:
    if isinstance(operand, Register):
        return [operand]
    return [r for r in getattr(operand, "elements", ()) if isinstance(r, Register)]


def _source_threads(ctx, shfl: Instruction) -> Optional[set]:
    """The threads whose source operand some thread executing `shfl` receives (a lane out of range
    keeps its own), or None where the lane operand or the clamp is not known."""
    lanes = ctx.lanes
    mode = shuffle_mode(shfl.modifiers)
    (b, c, active), _ = lanes.collect(lambda: (lanes.operand(shfl, shfl.operands[2]),
                                               lanes.operand(shfl, shfl.operands[3]), lanes.active(shfl)))
    out = set()
    for t, act in enumerate(active):
        if act is False:
            continue
        bt, ct = b[t], c[t]
        if not S.is_known(bt) or not S.is_known(ct):
            return None
        lane = t % 32
        j, _ = shuffle_source(mode, lane, bt[0], ct[0])
        out.add(t - lane + j)
    return out
