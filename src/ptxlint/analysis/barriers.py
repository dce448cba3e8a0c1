"""Barrier instructions as the PTX ISA classifies them: which kind (a block's, a cluster's, a warp's),
whether one waits (`arrive` does not), how many threads it waits for, and its barrier number.

Pure functions of one instruction; the SYNC and RACE rules and the barrier intervals (intervals.py)
share them.
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Immediate, Instruction


def barrier_kind(ins: Instruction) -> Optional[str]:
    """'cta' for CTA barriers (bar/barrier sync, arrive, red), 'cluster', 'warp' (bar.warp.sync), or None."""
    if ins.op not in ("bar", "barrier"):
        return None
    mods = ins.modifiers
    if "warp" in mods:
        return "warp"
    if "cluster" in mods:
        return "cluster"
    return "cta"


def is_aligned(ins: Instruction) -> bool:
    """`bar.*` is the `.aligned` form of `barrier.*`: every thread of a warp must execute it together."""
    return ins.op == "bar" or "aligned" in ins.modifiers


def is_arrive(ins: Instruction) -> bool:
    return "arrive" in ins.modifiers


def thread_count(ins: Instruction):
    """The explicit thread-count operand of a CTA barrier, or None (the whole block)."""
    ops = ins.operands
    if "red" in ins.modifiers:
        return ops[2] if len(ops) == 4 else None
    return ops[1] if len(ops) >= 2 else None


def barrier_id(ins: Instruction) -> str:
    ops = ins.operands[1:] if "red" in ins.modifiers else ins.operands
    if ops and isinstance(ops[0], Immediate):
        return str(ops[0].value)
    return "?" if ops else "0"


def is_block_barrier(ins: Instruction) -> bool:
    """A CTA barrier that waits for the whole block (no thread count), e.g. `__syncthreads()`."""
    return barrier_kind(ins) == "cta" and thread_count(ins) is None
