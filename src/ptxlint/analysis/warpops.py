"""Lane arithmetic of warp-level instructions (`shfl.sync`), as the PTX ISA defines it.

Kept apart from the evaluator: pure functions of lane numbers and operand values, easy to test.
"""

from __future__ import annotations

from typing import Optional

MODES = ("up", "down", "bfly", "idx")


def shuffle_mode(modifiers) -> Optional[str]:
    return next((m for m in modifiers if m in MODES), None)


def shuffle_source(mode: str, lane: int, b: int, c: int) -> tuple:
    """(source lane, in range) of `shfl.sync.mode` for `lane` with operands b and c: the lane whose
    value `lane` receives, and the predicate output (when out of range, a lane keeps its own value).

    c packs the clamp value (bits 0..4) and the segment mask (bits 8..12) of `__shfl_*_sync`'s width."""
    b &= 0x1F
    clamp = c & 0x1F
    segmask = (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (clamp & ~segmask & 0x1F)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - b
        ok = j >= max_lane
    elif mode == "down":
        j = lane + b
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ b
        ok = j <= max_lane
    else:
        j = min_lane | (b & ~segmask & 0x1F)
        ok = j <= max_lane
    return (j if ok else lane), ok


def broadcasts_per_warp(mode: Optional[str], c: Optional[int]) -> bool:
    """Does `shfl.sync.idx` with a source lane that is the same in every lane of the warp give every
    lane the same value? Yes when the shuffle has one segment (width 32: segment mask 0)."""
    return mode == "idx" and c is not None and (c >> 8) & 0x1F == 0


def is_barrier_reduction(ins) -> bool:
    """`bar.red` / `barrier.red` over the whole block (`__syncthreads_or/and/count`: no thread count):
    every thread of the block receives the same block-wide result (PTX ISA, `bar.red`)."""
    if ins.op not in ("bar", "barrier") or "red" not in ins.modifiers:
        return False
    # d, a, {!}c without a thread count b: the whole CTA takes part
    return len(ins.operands) == 3
