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
from .lane_values import Affine, Varying

SHARED_OPS = {"ld": "load", "ldu": "load", "st": "store", "atom": "atomic", "red": "atomic",
              "ldmatrix": "ldmatrix", "stmatrix": "stmatrix"}


@dataclass
class WarpAccess:
    warp: int
    lanes: list  # lane numbers that execute the access
    addresses: list  # byte offsets (relative to the shared symbol) of those lanes, or None
    cost: Optional[WarpCost] = None
    distinct_addresses: int = 0
    evaluations: list = field(default_factory=list)  # (lanes, addresses) of each evaluation (loop iteration)


@dataclass
class MemoryAccess:
    """One memory instruction and what it costs in each warp of the block."""

    instruction: Instruction
    space: str  # shared | const
    kind: str  # load | store | atomic | ldmatrix | stmatrix
    bits: int  # per lane
    variables: list  # names of the shared/const variables the evaluated address is based on
    warps: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    unknown_reason: Optional[str] = None  # set when the addresses could not be determined
    generic: bool = False  # a generic-space access proven to target shared memory
    matrices: int = 1
    iterations: int = 1  # evaluations summed (one per iteration of a followed loop)
    max_ways: int = 1  # worst n-way of one warp in one evaluation
    vector_group: Optional["VectorizedLoads"] = None  # set when ptxas is expected to merge it

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
        return self.max_ways


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
        variables = sorted({lanes.variable_symbols[s] for s in _symbols(addresses) if s in lanes.variable_symbols})
        access = MemoryAccess(
            instruction=ins, space=space, kind=kind, bits=access_bits(ins),
            # a constant read is named even when its index is unknown (a table lookup); shared
            # accesses look theirs up when asked (`variables_behind`): there are many more
            variables=variables or (declared_variables_behind(ctx, ins, space) if space == "const" else []),
            generic=generic, matrices=matrix_count(ins),
        )
        iterations = _followed_loop(ctx, ins)
        evaluators = iterations.evaluators if iterations else [lanes]
        all_notes = set(notes)
        for k, evaluator in enumerate(evaluators):
            if evaluator is not lanes:
                addresses, notes = evaluator.collect(evaluator.address, ins)
                all_notes |= notes
            active, active_notes = evaluator.collect(evaluator.active, ins)
            all_notes |= active_notes
            _cost_per_warp(ctx, evaluator, access, addresses, active, first=(k == 0))
        if iterations:
            access.iterations = iterations.count
            where = f" at line {iterations.line}" if iterations.line else ""
            all_notes.add(f"evaluated for each of the {iterations.count} iterations of the loop{where}")
        access.notes = sorted(all_notes | set(access.notes))  # the cost may have added one
        out.append(access)
    for group in find_vectorizable_loads(ctx, out):
        for member in group.members:
            member.vector_group = group
    return out


def variables_behind(ctx, access: MemoryAccess) -> list:
    """The variables `access` reads or writes: those its evaluated address names, else (its
    per-lane addresses are not known) those the address is computed from."""
    return access.variables or declared_variables_behind(ctx, access.instruction, access.space)


def declared_variables_behind(ctx, ins: Instruction, space: str) -> list:
    """The variables of `space` that the address of `ins` is computed from, found by following
    definitions back."""
    declared = {v.name for v in ctx.module.variables + ctx.function.variables if v.space == space}
    return sorted(n for n in ctx.address_roots.roots(ins) if n in declared)


def _followed_loop(ctx, ins: Instruction):
    """The iterations of the innermost loop around `ins` when its trip count is followed, else None."""
    from .loops import innermost_loop

    loop = innermost_loop(ctx, ctx.function.block_of(ins).id)
    return ctx.loop_iterations(*loop) if loop else None


@dataclass
class VectorizedLoads:
    """Scalar shared loads at +0, +4, +8, +12 from one base that ptxas merges into one wide load
    (measured: four `ld.shared.u32` became one LDS.128). `warps` is the cost of the merged load."""

    members: list
    bits: int
    warps: list = field(default_factory=list)  # WarpCost of each warp, summed over loop iterations
    merged: Optional[MemoryAccess] = None  # the wide load itself (per-lane addresses), for a layout fix

    @property
    def wavefronts(self) -> int:
        return sum(w.wavefronts for w in self.warps)

    @property
    def ideal(self) -> int:
        return sum(w.ideal for w in self.warps)


def find_vectorizable_loads(ctx, accesses: list) -> list:
    """Runs of scalar shared loads in one block that ptxas can merge into one 64/128-bit load."""
    groups = []
    by_block: dict = {}
    for a in accesses:
        ins = a.instruction
        if a.space == "shared" and a.kind == "load" and ins.vector == 1 and a.bits == 32 and a.determined \
                and not ins.has("volatile") and not a.generic:
            by_block.setdefault(ctx.function.block_of(ins).id, []).append(a)
    for block_id, loads in by_block.items():
        block = ctx.function.blocks[block_id]
        barrier_positions = [i.index for i in block.instructions if i.op in ("bar", "barrier", "membar", "fence")
                             or (i.space == "shared" and i.op in ("st", "atom", "red"))]
        runs: dict = {}
        for a in loads:
            mem = a.instruction.memory_operand()
            key = (mem.base, a.instruction.guard, a.instruction.guard_negated)
            runs.setdefault(key, []).append(a)
        for (base, _, _), members in runs.items():
            members.sort(key=lambda a: a.instruction.memory_operand().offset)
            by_offset = {a.instruction.memory_operand().offset: a for a in members}
            used = set()
            for a in members:
                start = a.instruction.memory_operand().offset
                if id(a) in used:
                    continue
                for width in (4, 2):
                    run = [by_offset.get(start + 4 * k) for k in range(width)]
                    if any(r is None or id(r) in used for r in run):
                        continue
                    first, last = min(r.instruction.index for r in run), max(r.instruction.index for r in run)
                    if any(first < p < last for p in barrier_positions):
                        continue
                    merged = _merged_load_cost(ctx, run[0], 32 * width)
                    if merged is None:
                        continue
                    group = VectorizedLoads(run, 32 * width, [w.cost for w in merged.warps if w.addresses], merged)
                    used.update(id(r) for r in run)
                    groups.append(group)
                    break
    return groups


def as_executed(accesses: list):
    """Yield (access, wavefronts, ideal, merged) once per shared instruction as the SASS runs it:
    scalar loads that ptxas merges count once, as their wide load, on the group's first member."""
    seen_groups = set()
    for access in accesses:
        group = access.vector_group
        if group is None:
            yield access, access.wavefronts, access.ideal, False
        elif id(group) not in seen_groups:
            seen_groups.add(id(group))
            yield group.members[0], group.wavefronts, group.ideal, True


def _merged_load_cost(ctx, first: MemoryAccess, bits: int) -> Optional[MemoryAccess]:
    """The cost of the wide load that starts at `first`, in every evaluation of it (one per
    iteration of a followed loop); None when some lane's address is not aligned to its width
    (shared variables start 16-byte aligned), so ptxas cannot merge."""
    ins = first.instruction
    merged = MemoryAccess(instruction=ins, space="shared", kind="load", bits=bits, variables=first.variables)
    iterations = _followed_loop(ctx, ins)
    for k, evaluator in enumerate(iterations.evaluators if iterations else [ctx.lanes]):
        addresses = evaluator.address(ins)
        active = evaluator.active(ins)
        if any(v[0] % (bits // 8) for t, v in enumerate(addresses) if active[t] is not False):
            return None
        _cost_per_warp(ctx, evaluator, merged, addresses, active, first=(k == 0))
    return merged


def _symbols(values) -> set:
    if type(values) is Affine:
        return {sym for sym, _ in values.terms}
    if type(values) is Varying:
        return {values.base}
    found = set()
    for v in values or ():
        for sym, _ in v[1]:
            found.add(sym)
    return found


def _cost_per_warp(ctx, lanes, access: MemoryAccess, addresses: list, active: list, first: bool = True) -> None:
    """Add this evaluation's cost to each warp (loops add one evaluation per iteration)."""
    model = ctx.bank_model
    nbytes = access.bits // 8
    unknown_lanes = None  # threads of the last warp whose address differences are unknown
    for w in range(ctx.launch.warps):
        start = 32 * w
        end = min(start + 32, lanes.n)
        if False in active[start:end]:
            idx = [t for t in range(start, end) if active[t] is not False]
        else:
            idx = range(start, end)  # the whole warp (the common case)
        if first:
            access.warps.append(WarpAccess(w, [], [], WarpCost(0, 0, 0)))
        warp = access.warps[w]
        if not idx:
            continue
        lane_ids = [t - start for t in idx]
        if type(addresses) is Affine:
            consts = addresses.consts
            offsets = consts[start:end] if type(idx) is range else [consts[t] for t in idx]
            values = None
        else:
            if type(addresses) is Varying and len(idx) > 1:
                values = None  # a different unknown in each thread: never known differences
            else:
                values = [addresses[t] for t in idx]
            rotated = None
            if values is not None and not S.differences_known(values):
                rotated = rotated_offsets(lanes, values, access.space, nbytes)
            if values is None or rotated is None and not S.differences_known(values):
                unknown_lanes = idx
                warp.lanes, warp.addresses, warp.cost = lane_ids, None, None
                continue
            if rotated is not None:
                offsets, note = rotated
                access.notes = sorted(set(access.notes) | {note})
            else:
                offsets = [v[0] for v in values]
        if warp.cost is None:
            continue
        if access.space == "shared":
            uniform = len(set(offsets)) == 1
            cost = model.lanes_cost(tuple(lane_ids), tuple(offsets), nbytes, access.kind, access.matrices,
                                    uniform_address=uniform and _provably_uniform(ctx, access.instruction))
            if access.kind == "atomic" and "cas" in access.instruction.modifiers:
                cost.wavefronts *= 2  # measured: a compare-and-swap takes two passes
                cost.ideal *= 2
        else:
            cost = WarpCost(len(set(offsets)), 1, len(idx))
        access.max_ways = max(access.max_ways, cost.ways if cost.active_lanes else 1)
        if not warp.lanes or warp.cost.active_lanes == 0:
            warp.lanes, warp.addresses = lane_ids, offsets
            warp.distinct_addresses = len(set(offsets))
        warp.evaluations.append((lane_ids, offsets))
        warp.cost = _add_costs(warp.cost, cost)
    if unknown_lanes is not None:  # the last such warp names the reason
        access.unknown_reason = _why_unknown(lanes, [addresses[t] for t in unknown_lanes])


def rotated_offsets(lanes, values: list, space: str, nbytes: int) -> Optional[tuple]:
    """(offsets, note) when the lanes' addresses are `base + s * ((c_lane + U) mod M)` with one
    uniform unknown U (a loop counter or parameter added before a mask): the offsets for U = 0,
    whose cost is the cost for every U. Constant reads: the distinct count never changes; shared
    accesses: the banks rotate with U when M * s is a multiple of 128 bytes or at most 128.
    None when the addresses are not of that form."""
    key_of = lanes.table.key_of
    family = scale = common = None
    offsets = []
    for const, terms in values:
        rot = [(sym, c) for sym, c in terms if isinstance(key_of(sym), tuple) and key_of(sym)[0] == "rotation"]
        if len(rot) != 1:
            return None
        sym, coef = rot[0]
        key = key_of(sym)
        rest = tuple(t for t in terms if t[0] != sym)
        if family is None:
            family, scale, common = key[1:3], coef, rest
        elif key[1:3] != family or coef != scale or rest != common:
            return None
        offsets.append(const + coef * key[3])
    if family is None:
        return None
    modulus = family[1]
    span = modulus * abs(scale)
    if space == "shared" and not (span % 128 == 0 or span <= 128):
        return None
    origin = lanes.table.origin.get(next(sym for sym, _ in values[0][1]
                                         if isinstance(key_of(sym), tuple) and key_of(sym)[0] == "rotation"))
    return offsets, (f"the index is {origin}: counted with the unknown at 0; the count is the same for every "
                     "value it takes")


def _add_costs(a: WarpCost, b: WarpCost) -> WarpCost:
    worst = a.worst
    if b.worst is not None and (worst is None or len(b.worst.words) > len(worst.words)):
        worst = b.worst
    return WarpCost(a.wavefronts + b.wavefronts, a.ideal + b.ideal, max(a.active_lanes, b.active_lanes), worst,
                    a.phases + b.phases)


def _provably_uniform(ctx, ins) -> bool:
    """The address is the same in every thread for any input (not just for the values assumed)."""
    addresses = ctx.lanes.address(ins)
    return addresses is not None and S.uniform_across(addresses)


def _why_unknown(lanes, values) -> str:
    """Name the unknown that makes lanes' addresses differ by an unknown amount."""
    terms = [dict(v[1]) for v in values]
    syms = set().union(*terms)
    for sym in sorted(syms):
        coefs = {t.get(sym, 0) for t in terms}
        if len(coefs) > 1:
            origin = lanes.table.origin.get(sym, sym)
            if all(sym in t for t in terms):
                return f"the address multiplies {origin} by a lane-dependent amount"
            return f"the address depends on {origin}, which may differ between lanes"
    return "the addresses of the lanes differ by unknown amounts"
