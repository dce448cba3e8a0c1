"""Layout changes that remove a bank conflict, verified with the bank model.

Two candidate fixes, tried in this order on *every* access to the same shared variable (a layout
is shared by all its readers and writers, so a fix must keep them all conflict-free):

* padding: a row of R bytes becomes R + p*e bytes (`tile[32][32]` -> `tile[32][33]`), i.e. each
  address a moves to a + p*e*floor(a / R);
* XOR swizzle: the element column c of row r becomes c ^ (r % n) (same footprint, no padding).

When the source declaration is known (frontend/declarations.py: `__shared__ float As[16][16]`),
the fix is said in its own shape: R is the declared row (the innermost dimension), padded by 1, 2,
... elements up to PAD_LIMIT (`As[16][17]`, else `As[16][18]`, ...), each candidate verified; when
none helps, the swizzle of that row. A 1-D array has no row to pad: the padding goes into its index
(`sdata[i + i / 32]`), which only the user can rewrite. Without the source (a `.ptx` input,
`extern __shared__`), R is the lanes' address stride when it spans a bank line (a 2-D tile read
down a column), else the distance at which the colliding addresses repeat (their gcd).
A row that is already padded (`[32][34]`) is offered the smaller pad first (`[32][33]`).

`verified_layout(ctx, access)` is the public entry for other outputs (the HTML report's "after the
fix" grids): the fix with its `remap`, and `remapped_warps` gives the lanes' addresses under it.
"""

from __future__ import annotations

import re
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
    declaration: object = None  # frontend.declarations.SharedDeclaration, when the source was read
    shape_before: Optional[str] = None  # `As[16][16]` (the declaration's shape, when known)
    shape_after: Optional[str] = None  # `As[16][17]`
    # the source edits that make the fix: [{"path", "line", "start", "end", "old", "new"}] (columns
    # 0-based, end exclusive); empty when only the user can make it (an index expression)
    edits: list = field(default_factory=list)
    safe: bool = False  # the edits alone are certain to keep the program's meaning


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
PAD_LIMIT = 32  # elements of padding tried on a declared row (32 shifts cover every bank for 4-byte words)


def _target_widths(cols: int) -> list:
    """Row widths (in elements) to try for a row of `cols`: a row that is already padded (34) first
    gets a smaller pad over its power of two (33), then every row a larger one (35, 36, ...)."""
    base = 1 << (cols.bit_length() - 1)
    narrower = [base + p for p in PADS if base + p < cols]
    return narrower + [cols + p for p in PADS]


def suggest_layout_fix(ctx, access) -> Optional[LayoutFix]:
    """A padding or swizzle of the accessed variable that makes `access` conflict-free without
    making any other access to the same variable worse; None when none is found. Said in the
    shape of the source declaration when it can be read (see the module doc)."""
    if len(access.variables) != 1 or not access.determined:
        return None
    return _layout_fix(ctx, access, ctx.shared_declaration(access.variables[0], access.instruction))


verified_layout = suggest_layout_fix  # the name other outputs (the HTML report) use


def remapped_warps(access, fix: LayoutFix) -> list:
    """[(warp, lanes, addresses)] of the first evaluation of each warp of `access`, with every
    address moved to where `fix` puts it: what the lanes hit after the fix (byte offsets)."""
    out = []
    for warp in access.warps:
        for lanes, addresses in warp.evaluations[:1]:
            out.append((warp.warp, list(lanes), [fix.remap(a) for a in addresses]))
    return out


def _layout_fix(ctx, access, declaration) -> Optional[LayoutFix]:
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

    if declaration is not None and len(declaration.dims) >= 2:
        fix = _declared_padding(declaration, siblings, verified, mine_before) or \
            _declared_swizzle(declaration, siblings, verified, mine_before)
        if fix is not None:
            return fix
        # no change of the declared row helps: a padding of the array seen flat, in its index
    for row in rows:
        cols = row // element
        for width, remap, cost in _fitting_widths(_target_widths(cols), cols, row, element, siblings, verified):
            if declaration is not None:  # a 1-D array: the padding goes into its index
                return _index_padding(declaration, row, cols, width, element, mine_before, cost, remap,
                                      siblings()["unchecked"])
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


def _fitting_widths(widths, cols: int, row: int, element: int, siblings, verified):
    """(width, remap, cost) of each row width in `widths`, in order, that the bank model verifies:
    a narrower row only where no access touches the columns it drops."""
    used = None
    for width in widths:
        if width < cols:
            if used is None:
                used = _bytes_used_in_row(siblings()["checked"], row)
            if width * element < used:
                continue
        remap = _row_remap(row, width * element)
        cost = verified(remap)
        if cost is not None:
            yield width, remap, cost


def _bytes_used_in_row(accesses, row: int) -> int:
    """How far into a row of `row` bytes any of `accesses` reaches (the end of its widest element)."""
    return max((a % row + access.bits // 8 for access in accesses for w in access.warps
                for _, addresses in w.evaluations for a in addresses), default=0)


def _row_remap(row: int, new_row: int) -> Callable:
    return lambda x: (x // row) * new_row + x % row


def _declared_padding(declaration, siblings, verified, before: int) -> Optional[LayoutFix]:
    """Pad the declared innermost dimension (`As[16][16]` -> `As[16][17]`, `[16][18]`, ...; an
    already padded `[32][34]` is offered `[32][33]` first) until the model says every access to
    the array is conflict-free and none is slower."""
    inner = declaration.dims[-1]
    element = declaration.element_bytes
    cols = inner.value
    row = cols * element
    widths = [w for w in _target_widths(cols) if w < cols and _resized(inner, cols, w) is not None]
    widths += [cols + p for p in range(1, PAD_LIMIT + 1)]
    for width, remap, cost in _fitting_widths(widths, cols, row, element, siblings, verified):
        new_text = _resized(inner, cols, width)
        before_text, after_text = declaration.written(), declaration.written(new_text)
        if width > cols:
            pad = width - cols
            how = f"pad each {row}-byte row by {pad} element{'s' if pad > 1 else ''}"
        else:
            how = f"make each {row}-byte row {width} elements wide"
        # the dimensions as written in the source (`[TILE_DIM][TILE_DIM + 1]`), with their values
        # when a name stands for one
        shape_of = lambda text: text[len(declaration.name):]  # noqa: E731
        text = (f"{how}: declare `{declaration.name}` as {shape_of(after_text)} instead of "
                f"{shape_of(before_text)} ({element}-byte elements)")
        if not all(d.is_literal for d in declaration.dims):
            values = "".join(f"[{d.value}]" for d in declaration.dims[:-1])
            text += f", i.e. {values}[{width}] instead of {values}[{cols}]"
        edit = {"path": declaration.path, "line": declaration.line, "start": inner.start, "end": inner.end,
                "old": inner.text, "new": new_text}
        return LayoutFix("padding", text, before, cost[0], cost[1], remap, siblings()["unchecked"], declaration,
                         f"{before_text}", f"{after_text}", [edit],
                         safe=declaration.only_indexed and not siblings()["unchecked"])
    return None


def _resized(dimension, cols: int, width: int) -> Optional[str]:
    """The text of a dimension of value `cols` made `width`: `32` -> `33`, `N` -> `N + 1`,
    `N + 2` -> `N + 1` or `N + 3` (a pad already written is changed, not added to); None when it
    cannot be written so (narrowing a dimension with no written pad)."""
    text = dimension.text.strip()
    if dimension.is_literal:
        return str(width)
    padded = re.fullmatch(r"(?P<base>.*?\S)\s*\+\s*(?P<pad>\d+)", text)
    if padded:
        pad = int(padded.group("pad")) + width - cols
        return padded.group("base") if pad == 0 else f"{padded.group('base')} + {pad}" if pad > 0 else None
    return f"{text} + {width - cols}" if width > cols else None


def _declared_swizzle(declaration, siblings, verified, before: int) -> Optional[LayoutFix]:
    """No padding of the declared row helps: an XOR swizzle of its columns, when the row is a
    power of two elements (an index change only the user can make: no edit)."""
    cols, element = declaration.dims[-1].value, declaration.element_bytes
    if cols & (cols - 1) or cols < 2:
        return None
    row = cols * element

    def swizzle(x, r=row, e=element, n=cols):
        line, offset = divmod(x, r)
        column, within = divmod(offset, e)
        return line * r + ((column ^ (line % n)) * e) + within

    cost = verified(swizzle)
    if cost is None:
        return None
    text = (f"no padding of `{declaration.written()}` up to {PAD_LIMIT} elements removes the conflict; "
            f"XOR-swizzle it instead: in every access use column `c ^ (r % {cols})` for row r; no extra memory")
    return LayoutFix("swizzle", text, before, cost[0], cost[1], swizzle, siblings()["unchecked"], declaration,
                     declaration.written(), declaration.written())


def _index_padding(declaration, row: int, cols: int, width: int, element: int, before: int, cost: tuple,
                   remap, unchecked: list) -> LayoutFix:
    """The padding of an array that lives in its index: `sdata[i]` -> `sdata[i + i / 32]` (a 1-D
    array, or one whose declared row no padding helps, seen flat with `i` its flat index)."""
    from math import prod

    pad = width - cols
    n = prod(d.value for d in declaration.dims)
    size = declaration.element_bytes
    total = n * size
    padded = (total + (total + row - 1) // row * pad * element) // size
    per = row // size
    step = f"i / {per}" if pad * element == size else \
        f"i / {per} * {pad * element // size}" if pad * element % size == 0 else None
    flat = len(declaration.dims) > 1
    name = f"{declaration.name}_flat" if flat else declaration.name
    if step is None or width <= cols:
        what = f"lay `{declaration.written()}` out with rows of {width} {element}-byte elements instead of {cols}"
    else:
        what = (f"pad `{declaration.written()}` in its index: declare `{name}[{padded}]` and index it as "
                f"`{name}[i + {step}]` wherever it is indexed with `i`")
    why = (f" (no padding of its declared row helps; `i` is the flat index of {n} elements)" if flat
           else " (a 1-D array has no row to pad)")
    return LayoutFix("index-padding", what + why, before, cost[0], cost[1], remap,
                     unchecked, declaration, declaration.written(), f"{name}[{padded}]")
