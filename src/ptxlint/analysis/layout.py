"""Layout changes that remove a bank conflict, verified with the bank model.

Two candidate fixes, tried in this order on *every* access to the same shared variable (a layout
is shared by all its readers and writers, so a fix must keep them all conflict-free):

* padding: a row of R bytes becomes R + p*e bytes (`tile[32][32]` -> `tile[32][33]`), i.e. each
  address a moves to a + p*e*floor(a / R);
* XOR swizzle: the element column c of row r becomes c ^ (r % n) (same footprint, no padding).

The row length R comes from the addresses that collide: the gcd of their distances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from math import gcd
from typing import Callable, Optional

from ..frontend.demangle import demangle


@dataclass
class LayoutFix:
    kind: str  # padding | swizzle
    text: str  # what to write, e.g. "declare the tile as [32][33]"
    before: int  # wavefronts of the conflicting access
    after: int  # wavefronts after the fix, verified with the model
    ideal: int
    remap: Callable = None  # byte offset in the old layout -> byte offset in the new one
    unchecked: list = field(default_factory=list)  # accesses to the variable whose addresses are unknown


def source_name(variable: str) -> str:
    """`_ZZ9transposePfE4tile` -> `tile` (the name the user wrote)."""
    plain = demangle(variable)
    return plain.rsplit("::", 1)[-1] if "::" in plain else plain


def remapped_cost(ctx, access, remap: Callable[[int], int]) -> tuple:
    """(wavefronts, ideal) of `access`, every evaluation of it (one per loop iteration followed),
    with every lane's address moved by `remap`."""
    model = ctx.bank_model
    total = ideal = 0
    for warp in access.warps:
        for lanes, addresses in warp.evaluations:
            moved = [remap(a) for a in addresses]
            cost = model.warp_cost(list(zip(lanes, moved)), access.bits // 8, access.kind, access.matrices)
            total += cost.wavefronts
            ideal += cost.ideal
    return total, ideal


def _unchanged(x: int) -> int:
    return x


def _row_bytes(access, word_bytes: int) -> Optional[int]:
    worst = max((w.cost.worst for w in access.warps if w.cost and w.cost.worst), key=lambda c: len(c.words),
                default=None)
    if worst is None or len(worst.words) < 2:
        return None
    distances = [(b - worst.words[0]) * word_bytes for b in worst.words[1:]]
    step = reduce(gcd, distances)
    return step or None


def suggest_layout_fix(ctx, access) -> Optional[LayoutFix]:
    """A padding or swizzle of the accessed variable that makes `access` conflict-free without
    making any other access to the same variable worse; None when none is found."""
    if len(access.variables) != 1 or not access.determined:
        return None
    name = access.variables[0]
    siblings = [a for a in ctx.shared_accesses if a.variables == access.variables and a.space == "shared"]
    unchecked = [a for a in siblings if not a.determined]
    siblings = [a for a in siblings if a.determined]
    row = _row_bytes(access, ctx.bank_model.bank_bytes)
    if row is None:
        return None
    element = max(min(access.bits // 8, 16), 1)
    mine_before = (access.wavefronts, access.ideal)
    variable = ctx.lanes._variables.get(name)
    size = variable.size_bytes if variable is not None else None

    def verified(remap) -> Optional[tuple]:
        """The access's cost under `remap` if it is conflict-free and no sibling gets worse."""
        cost = remapped_cost(ctx, access, remap)
        if cost[0] > cost[1]:
            return None
        for other in siblings:
            if other is not access and remapped_cost(ctx, other, remap)[0] > remapped_cost(ctx, other, _unchanged)[0]:
                return None
        return cost

    for pad_elements in (1, 2, 4, 8, 16):
        pad = pad_elements * element
        remap = lambda x, r=row, p=pad: x + p * (x // r)  # noqa: E731
        cost = verified(remap)
        if cost is not None:
            cols = row // element
            shape = f"[{size // row}][{cols + pad_elements}]" if size and size % row == 0 else f"[...][{cols + pad_elements}]"
            was = f"[{size // row}][{cols}]" if size and size % row == 0 else f"[...][{cols}]"
            text = (f"pad each {row}-byte row by {pad_elements} element{'s' if pad_elements > 1 else ''}: declare "
                    f"`{source_name(name)}` as {shape} instead of {was} ({element}-byte elements)")
            return LayoutFix("padding", text, mine_before[0], cost[0], cost[1], remap, unchecked)
    cols = row // element
    if cols >= 2 and cols & (cols - 1) == 0:

        def swizzle(x, r=row, e=element, n=cols):
            line, offset = divmod(x, r)
            column, within = divmod(offset, e)
            return line * r + ((column ^ (line % n)) * e) + within

        cost = verified(swizzle)
        if cost is not None:
            text = (f"XOR-swizzle `{source_name(name)}`: in every access use column `c ^ (r % {cols})` for row r "
                    f"({cols} elements of {element} bytes per row); no extra memory")
            return LayoutFix("swizzle", text, mine_before[0], cost[0], cost[1], swizzle, unchecked)
    return None
