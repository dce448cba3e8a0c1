"""Layout changes that remove a bank conflict, verified with the bank model.

Two candidate fixes, tried in this order on *every* access to the same shared variable (a layout
is shared by all its readers and writers, so a fix must keep them all conflict-free):

* padding: a row of R bytes becomes R + p*e bytes (`tile[32][32]` -> `tile[32][33]`), i.e. each
  address a moves to a + p*e*floor(a / R);
* XOR swizzle: the element column c of row r becomes c ^ (r % n) (same footprint, no padding).

The row length R is the lanes' address stride when it spans a bank line (a 2-D tile read down a
column: the declared row), else the distance at which the colliding addresses repeat (their gcd).
A row that is already padded (`[32][34]`) is offered the smaller pad first (`[32][33]`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from math import gcd
from typing import Callable, Optional

from ..frontend.demangle import demangle
from .accesses import variables_behind


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


def _collision_row(access, word_bytes: int) -> Optional[int]:
    """The row length the colliding addresses repeat at: the gcd of their distances."""
    worst = max((w.cost.worst for w in access.warps if w.cost and w.cost.worst), key=lambda c: len(c.words),
                default=None)
    if worst is None or len(worst.words) < 2:
        return None
    distances = [(b - worst.words[0]) * word_bytes for b in worst.words[1:]]
    step = reduce(gcd, distances)
    return step or None


def _lane_stride(access) -> Optional[int]:
    """The most common distance between the addresses of neighbouring lanes: the declared row length
    of a tile read down a column (`tile[threadIdx.x][c]` of an int tile[32][34]: 136 bytes)."""
    steps: dict = {}
    for warp in access.warps:
        for lanes, addresses in warp.evaluations[:1]:
            for (l1, a1), (l2, a2) in zip(zip(lanes, addresses), zip(lanes[1:], addresses[1:])):
                if l2 == l1 + 1 and a2 > a1:
                    steps[a2 - a1] = steps.get(a2 - a1, 0) + 1
    return max(steps, key=lambda d: (steps[d], -d)) if steps else None


def _candidate_rows(access, element: int, model) -> list:
    """Row lengths to pad: the lanes' stride when it spans a whole bank line (a column read of a
    2-D tile: the declared row), then the distance the colliding addresses repeat at."""
    stride = _lane_stride(access)
    rows = []
    for row in (stride if stride and stride >= model.banks * model.bank_bytes else None,
                _collision_row(access, model.bank_bytes)):
        if row and row % element == 0 and row // element >= 2 and row not in rows:
            rows.append(row)
    return rows


PADS = (1, 2, 4, 8, 16)


def _target_widths(cols: int) -> list:
    """Row widths (in elements) to try for a row of `cols`: a row that is already padded (34) first
    gets a smaller pad over its power of two (33), then every row a larger one (35, 36, ...)."""
    base = 1 << (cols.bit_length() - 1)
    narrower = [base + p for p in PADS if base + p < cols]
    return narrower + [cols + p for p in PADS]


def suggest_layout_fix(ctx, access) -> Optional[LayoutFix]:
    """A padding or swizzle of the accessed variable that makes `access` conflict-free without
    making any other access to the same variable worse; None when none is found."""
    if len(access.variables) != 1 or not access.determined:
        return None
    name = access.variables[0]
    element = max(min(access.bits // 8, 16), 1)
    rows = _candidate_rows(access, element, ctx.bank_model)
    mine_before = access.wavefronts
    variable = ctx.lanes._variables.get(name)
    size = variable.size_bytes if variable is not None else None

    same_variable: dict = {}

    def siblings() -> dict:
        """The accesses to the variable: "checked" (addresses known), "unchecked", and "others"
        (checked ones but `access`, with their wavefronts now). Found when a remap first fixes
        `access`: most conflicts have no fix, and naming unknown addresses' variables is not free."""
        if not same_variable:
            same = [a for a in ctx.shared_accesses if a.space == "shared" and variables_behind(ctx, a) == access.variables]
            same_variable["checked"] = [a for a in same if a.determined]
            same_variable["unchecked"] = [a for a in same if not a.determined]
            same_variable["others"] = [(other, remapped_cost(ctx, other, _unchanged)[0])
                                       for other in same_variable["checked"] if other is not access]
        return same_variable

    def verified(remap) -> Optional[tuple]:
        """The access's cost under `remap` if it is conflict-free and no sibling gets worse."""
        cost = remapped_cost(ctx, access, remap)
        if cost[0] > cost[1]:
            return None
        if any(remapped_cost(ctx, other, remap)[0] > now for other, now in siblings()["others"]):
            return None
        return cost

    def shape(row: int, cols: int) -> str:
        return f"[{size // row}][{cols}]" if size and size % row == 0 else f"[...][{cols}]"

    for row in rows:
        cols = row // element
        used = None
        for width in _target_widths(cols):
            if width < cols:  # a narrower row only fits when no access touches the columns it drops
                if used is None:
                    used = max((a % row + other.bits // 8 for other in siblings()["checked"] for w in other.warps
                                for _, addresses in w.evaluations for a in addresses), default=0)
                if width * element < used:
                    continue
            remap = lambda x, r=row, n=width * element: (x // r) * n + x % r  # noqa: E731
            cost = verified(remap)
            if cost is None:
                continue
            declare = f"declare `{source_name(name)}` as {shape(row, width)} instead of {shape(row, cols)}"
            if width > cols:
                pad = width - cols
                text = f"pad each {row}-byte row by {pad} element{'s' if pad > 1 else ''}: {declare}"
            else:
                text = f"make each {row}-byte row {width} elements wide: {declare}"
            return LayoutFix("padding", text + f" ({element}-byte elements)", mine_before, cost[0], cost[1], remap,
                             siblings()["unchecked"])
    for row in rows:
        cols = row // element
        if cols & (cols - 1):
            continue

        def swizzle(x, r=row, e=element, n=cols):
            line, offset = divmod(x, r)
            column, within = divmod(offset, e)
            return line * r + ((column ^ (line % n)) * e) + within

        cost = verified(swizzle)
        if cost is not None:
            text = (f"XOR-swizzle `{source_name(name)}`: in every access use column `c ^ (r % {cols})` for row r "
                    f"({cols} elements of {element} bytes per row); no extra memory")
            return LayoutFix("swizzle", text, mine_before, cost[0], cost[1], swizzle, siblings()["unchecked"])
    return None
