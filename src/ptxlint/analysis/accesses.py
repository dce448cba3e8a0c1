"""Every shared- and constant-memory access of a kernel, with per-lane addresses and its cost.

Shared accesses get wavefronts from the bank model, per warp of the block; constant accesses get
the number of distinct addresses per warp (the serialization factor of the constant cache).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..frontend.ir import Instruction
from . import symbolic as S
from .bankmodel import WarpCost

SHARED_OPS = {"ld": "load", "ldu": "load", "st": "store", "atom": "atomic", "red": "atomic",
              "ldmatrix": "ldmatrix", "stmatrix": "stmatrix"}


@dataclass
class WarpAccess:
    warp: int
    lanes: list  # lane numbers that execute the access
    addresses: list  # byte offsets (relative to the shared symbol) of those lanes, or None
    cost: Optional[WarpCost] = None
    distinct_addresses: int = 0


@dataclass
class MemoryAccess:
    """One memory instruction and what it costs in each warp of the block."""

    instruction: Instruction
    space: str  # shared | const
    kind: str  # load | store | atomic | ldmatrix | stmatrix
    bits: int  # per lane
    variables: list  # names of the shared/const variables the address is based on
    warps: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    unknown_reason: Optional[str] = None  # set when the addresses could not be determined
    generic: bool = False  # a generic-space access proven to target shared memory
    matrices: int = 1

    @property
    def determined(self) -> bool:
        return self.unknown_reason is None

    @property
    def wavefronts(self) -> int:
        return sum(w.cost.wavefronts for w in self.warps if w.cost)

    @property
    def ideal(self) -> int:
        return sum(w.cost.ideal for w in self.warps if w.cost)

    @property
    def ways(self) -> int:
        return max((w.cost.ways for w in self.warps if w.cost and w.cost.active_lanes), default=1)


def access_kind(ins: Instruction) -> Optional[str]:
    return SHARED_OPS.get(ins.op)


def access_bits(ins: Instruction) -> int:
    if ins.op in ("ldmatrix", "stmatrix"):
        return 128
    return (ins.type_bits or 32) * ins.vector


def matrix_count(ins: Instruction) -> int:
    for m in ins.modifiers:
        if m in ("x1", "x2", "x4"):
            return int(m[1])
    return 1


def analyse_shared_accesses(ctx) -> list:
    """All shared (and constant) accesses of the kernel in `ctx`, in program order."""
    lanes = ctx.lanes
    out = []
    for ins in ctx.function.instructions:
        kind = access_kind(ins)
        if kind is None or ins.memory_operand() is None:
            continue
        space = ins.space
        if space not in ("shared", "const", None):
            continue
        if space is None and kind not in ("load", "store", "atomic"):
            continue
        addresses, notes = lanes.collect(lanes.address, ins)
        shared_syms = [s for s in _symbols(addresses) if s in lanes.shared_symbols]
        generic = False
        if space is None:
            # a generic access: analysed as shared when its address is built from a shared variable
            if not shared_syms:
                continue
            space, generic = "shared", True
        if space == "const" and kind != "load":
            continue
        access = MemoryAccess(
            instruction=ins, space=space, kind=kind, bits=access_bits(ins),
            variables=sorted({lanes.shared_symbols.get(s) or lanes.table.origin.get(s, s) for s in _symbols(addresses)
                              if s in lanes.shared_symbols or lanes.table.origin.get(s, "").startswith("the address of")}),
            generic=generic, matrices=matrix_count(ins),
        )
        active, active_notes = lanes.collect(lanes.active, ins)
        access.notes = sorted(set(notes) | set(active_notes))
        _cost_per_warp(ctx, access, addresses, active)
        out.append(access)
    return out


def _symbols(values) -> set:
    found = set()
    for v in values or ():
        for sym, _ in v[1]:
            found.add(sym)
    return found


def _cost_per_warp(ctx, access: MemoryAccess, addresses: list, active: list) -> None:
    lanes = ctx.lanes
    model = ctx.bank_model
    nbytes = access.bits // 8
    for w in range(ctx.launch.warps):
        start = 32 * w
        idx = [t for t in range(start, min(start + 32, lanes.n)) if active[t] is not False]
        if not idx:
            access.warps.append(WarpAccess(w, [], [], WarpCost(0, 0, 0)))
            continue
        values = [addresses[t] for t in idx]
        if not S.differences_known(values):
            access.unknown_reason = _why_unknown(lanes, values)
            access.warps.append(WarpAccess(w, [t - start for t in idx], None))
            continue
        offsets = [v[0] for v in values]
        lane_ids = [t - start for t in idx]
        warp = WarpAccess(w, lane_ids, offsets, distinct_addresses=len(set(offsets)))
        if access.space == "shared":
            uniform = all(v[1] == values[0][1] for v in values) and len(set(offsets)) == 1 and not any(
                not lanes.table.uniform.get(sym, True) for sym, _ in values[0][1])
            warp.cost = model.warp_cost(list(zip(lane_ids, offsets)), nbytes, access.kind, access.matrices,
                                        uniform_address=uniform and _provably_uniform(ctx, access.instruction))
        else:
            distinct = len(set(offsets))
            warp.cost = WarpCost(distinct, 1, len(idx))
        access.warps.append(warp)


def _provably_uniform(ctx, ins) -> bool:
    """The address is the same in every thread for any input (not just for the values assumed)."""
    return ctx.uniformity_of_address(ins) if hasattr(ctx, "uniformity_of_address") else _address_from_uniform_values(ctx, ins)


def _address_from_uniform_values(ctx, ins) -> bool:
    lanes = ctx.lanes
    addresses = lanes.address(ins)
    return addresses is not None and S.uniform_across(addresses)


def _why_unknown(lanes, values) -> str:
    """Name the unknown that makes lanes' addresses differ by an unknown amount."""
    terms = [dict(v[1]) for v in values]
    syms = set().union(*terms)
    for sym in sorted(syms):
        coefs = {t.get(sym, 0) for t in terms}
        if len(coefs) > 1:
            origin = lanes.table.origin.get(sym, sym)
            if lanes.table.uniform.get(sym, True) and origin != "a value computed from unknowns":
                return f"the address multiplies {origin} by a lane-dependent amount"
            return f"the address depends on {origin}, which differs between lanes"
    return "the addresses of the lanes differ by unknown amounts"
