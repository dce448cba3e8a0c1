"""Loops with a trip count the analysis can follow: evaluated one iteration at a time.

A loop qualifies when its loop-carried registers start from values known per thread and every
thread's decision to go round again is known in each iteration (e.g. `for (s = 1; s < blockDim.x;
s *= 2)` or `for (i = lane; i < 576; i += 32)`), up to MAX_ITERATIONS. Other loops are analysed
once, with their induction variables as uniform unknowns (lanes.py).

A followed loop that can only be left at its latch also gives the values its carried registers
have after it, per thread: nvcc splits `for (c = lane; c < n; c += 32)` into a remainder loop and
an unrolled one, and the second starts where the first left each thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..frontend.ir import Address, Register, Symbol
from . import symbolic as S
from .lane_values import Varying, where_predicate

MAX_ITERATIONS = 64


@dataclass
class LoopIterations:
    header: int
    body: frozenset
    evaluators: list  # one LaneEvaluator per iteration, in order
    line: Optional[int]
    # for the values after the loop: the carried registers, and per iteration their values at its
    # end with the threads that ran it; None when threads may leave elsewhere than at the latch
    carried: Optional[frozenset] = None
    rounds: list = field(default_factory=list)
    threads: int = 0
    _after: dict = field(default_factory=dict)  # values_after, by register name

    @property
    def count(self) -> int:
        return len(self.evaluators)

    def values_after(self, name: str) -> Optional[tuple]:
        """(ran, values): per thread, whether it ran the loop at all and, where it did, the value
        carried register `name` had when it left; None when not known."""
        if self.carried is None or name not in self.carried:
            return None
        found = self._after.get(name)
        if found is not None:
            return found
        ran = [False] * self.threads
        values = [None] * self.threads
        for after, reached in self.rounds:
            current = after[name]
            for t, r in enumerate(reached):
                if r:
                    ran[t] = True
                    values[t] = current[t]
        found = self._after[name] = (ran, values)
        return found


def innermost_loop(ctx, block_id):
    loops = ctx.cfg.loops_containing(block_id)
    return min(loops, key=lambda hb: len(hb[1])) if loops else None


def latches(cfg) -> dict:
    """header -> the blocks its back edges come from (once per CFG: a kernel may have thousands
    of loops)."""
    found = cfg.__dict__.get("_latches")
    if found is None:
        found = cfg.__dict__["_latches"] = {}
        for u, v in cfg.back_edges:
            found.setdefault(v, []).append(u)
    return found


def simulate_loop(ctx, header, body) -> Optional[LoopIterations]:
    """Per-iteration evaluators for the loop, or None when its trip count cannot be followed."""
    fn = ctx.function
    cfg = ctx.cfg
    base = ctx.lanes
    found_latches = latches(cfg).get(header, [])
    if len(found_latches) != 1 or not isinstance(header, int):
        return None
    latch = found_latches[0]
    header_first = fn.blocks[header].instructions[0] if fn.blocks[header].instructions else None
    latch_last = fn.blocks[latch].instructions[-1] if fn.blocks[latch].instructions else None
    if header_first is None or latch_last is None:
        return None
    carried = _carried_registers(ctx, body, header_first)
    if not carried:
        return None
    values = _CarriedValues(carried, base, base._join_outside)
    # Threads whose arrival is unknown (the loop sits under a branch on an unknown, e.g. inside an
    # outer loop bounded by a parameter) are assumed to arrive, as for any other access; the trip
    # count must still be known for every arriving thread.
    arrival = base.block_active(header)
    active = [a is not False for a in arrival]
    exits_at_latch = all(s in body for b in body if b != latch for s in cfg.successors(b))
    rounds = []
    evaluators = []
    cond = cfg.edge_condition(latch, header)
    for _ in range(MAX_ITERATIONS):
        if not any(a is not False for a in active):
            break
        if any(a is None for a in active):
            return None
        child = base.for_iteration(header, body, values, active, len(evaluators))
        evaluators.append(child)
        # who goes round again: threads reaching the latch and taking the back edge
        reach = child.block_active(latch)
        if cond is not None:
            taken, unknown = where_predicate(reach, child.register(latch_last, cond[0]), cond[1])
            if unknown:
                return None
        else:
            taken = reach
        if any(t is None for t in taken):
            return None
        values = _CarriedValues(carried, child, lambda reg, _, child=child: value_after(child, latch_last, reg))
        rounds.append((values, reach))
        active = taken
    else:
        return None
    line = header_first.loc.line if header_first.loc else None
    known_after = exits_at_latch and None not in arrival  # who ran it, and where each left, are known
    return LoopIterations(header, body, evaluators, line, frozenset(carried) if known_after else None, rounds,
                          base.n)


def _carried_registers(ctx, body: frozenset, header_first) -> dict:
    """name -> (register, its definitions outside the loop): the registers the loop carries from one
    iteration to the next (defined both before the loop and in its body)."""
    fn, dataflow = ctx.function, ctx.dataflow
    carried: dict = {}
    for bid in body:
        for ins in fn.blocks[bid].instructions:
            for reg in ins.destinations():
                if reg.name in carried:
                    continue
                defs = dataflow.definitions(header_first, reg)
                inside = [d for d in defs if fn.block_of(fn.instructions[d]).id in body]
                outside = [d for d in defs if d not in inside]
                if inside and outside:
                    carried[reg.name] = (reg, outside)
    return carried


def first_iteration(ctx, header, body: frozenset):
    """An evaluator of the loop's first iteration after each entry: its carried registers hold the
    values they come in with (`i = 0`), so an access under `if (owner(i) == threadIdx.x)` is made by
    the first item's owner only. None when the loop has no instructions at its header. Cached."""
    cache = ctx.__dict__.setdefault("_first_iterations", {})
    if header in cache:
        return cache[header]
    fn, base = ctx.function, ctx.lanes
    header_first = fn.blocks[header].instructions[0] if isinstance(header, int) and fn.blocks[header].instructions \
        else None
    found = None
    if header_first is not None:
        carried = _carried_registers(ctx, body, header_first)
        values = _CarriedValues(carried, base, base._join_outside)
        active = [a is not False for a in base.block_active(header)]
        found = base.for_iteration(header, body, values, active, 0)
    cache[header] = found
    return found


class _CarriedValues(dict):
    """Loop-carried register name -> its per-thread value at the start of an iteration, each worked
    out when first asked for: most carried registers of a loop (accumulators, loaded data) are never
    asked for; the trip count and the addresses need a few. The notes made while working one out
    are dropped, as they were when every value was worked out before the iteration."""

    def __init__(self, carried: dict, evaluator, compute) -> None:
        super().__init__()
        self._carried = carried  # name -> (register, definitions outside the loop)
        self._evaluator = evaluator
        self._compute = compute

    def __contains__(self, name) -> bool:
        return name in self._carried

    def __getitem__(self, name):
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        reg, outside = self._carried[name]
        value, _ = self._evaluator.collect(self._compute, reg, outside)
        dict.__setitem__(self, name, value)
        return value


def value_after(evaluator, last_ins, reg):
    """The value `reg` holds after the instruction `last_ins` (its own definition where it writes it)."""
    if any(d.name == reg.name for d in last_ins.destinations()):
        return evaluator._definition(last_ins.index, reg)
    return evaluator.register(last_ins, reg)


def trip_bound_parameters(ctx) -> dict:
    """{integer kernel parameter position: source line of a loop} for the loops that hold a store
    and whose exit test compares values that are the same in every thread and that one integer
    kernel parameter decides (`for (j = 0; j < m; j++)`, also as nvcc counts it down from `m & ~3`
    and `m & 3`), when that loop is not followed per iteration: its trip count is that parameter's,
    unknown here. A race that needs one thread's last iteration against another's first (a row
    overrun) is seen only with the trip count known (kernel_check.py tries a few values)."""
    fn, cfg, lanes = ctx.function, ctx.cfg, ctx.lanes
    if not fn.is_kernel:
        return {}
    pointers = _pointer_parameters(fn)
    positions = {p.name: i for i, p in enumerate(fn.params)
                 if p.type and p.type[0] in "us" and not p.array_dims and p.name not in pointers}
    found: dict = {}
    for latch, header in cfg.back_edges:
        if not isinstance(latch, int) or not isinstance(header, int) or not fn.blocks[latch].instructions:
            continue
        last = fn.blocks[latch].instructions[-1]
        body = next((b for h, b in cfg.loops if h == header), frozenset())
        if last.op != "bra" or last.guard is None or not _stores_in(fn, body):
            continue
        if ctx.loop_iterations(header, body) is not None:
            continue  # followed per iteration: its trip count is known
        defs = ctx.dataflow.definitions(last, last.guard)
        if len(defs) != 1 or fn.instructions[defs[0]].op != "setp":
            continue
        compare = fn.instructions[defs[0]]
        named = set()
        for operand in compare.operands[1:3]:
            if not isinstance(operand, Register):
                continue
            values = lanes.register(compare, operand)
            if type(values) is Varying or not S.uniform_across(values):
                named = set()
                break
            named |= _parameters_named(lanes.table, values[0], positions)
        if len(named) == 1:
            position = named.pop()
            first = fn.blocks[header].instructions[0] if fn.blocks[header].instructions else last
            found.setdefault(position, first.loc.line if first.loc else 0)
    return found


def _stores_in(fn, body) -> bool:
    return any(ins.op in ("st", "atom", "red") and getattr(ins, "space", None) in ("global", "shared", None)
               for b in body for ins in fn.blocks[b].instructions)


def _parameters_named(table, value, positions: dict) -> set:
    """The integer kernel parameters a value is computed from, through the unknowns it holds."""
    return {positions[item[1]] for item in S.key_tuples(table, [sym for sym, _ in value[1]])
            if len(item) >= 2 and item[0] == "param" and isinstance(item[1], str) and item[1] in positions}


def _pointer_parameters(fn) -> set:
    """Parameters whose loaded value nvcc converts to a global address (`cvta.to.global`): pointers,
    which a 64-bit integer parameter otherwise looks like."""
    loaded = {}  # register -> the parameter loaded into it
    for ins in fn.instructions:
        if ins.op == "ld" and ins.space == "param" and len(ins.operands) == 2 \
                and isinstance(ins.operands[0], Register) and isinstance(ins.operands[1], Address) \
                and isinstance(ins.operands[1].base, Symbol):
            loaded[ins.operands[0].name] = ins.operands[1].base.name
    return {loaded[o.name] for ins in fn.instructions if ins.op == "cvta"
            for o in ins.operands[1:] if isinstance(o, Register) and o.name in loaded}


_EFFECTS = ("st", "atom", "red", "bar", "barrier", "call", "cp", "sust", "mbarrier")


def polled_in_loop(ctx, ins, wait_only: bool = False) -> bool:
    """Is the value `ins` loads tested by a branch of the innermost loop around it (`while (flag[w]
    == 0);`)? The loop waits for another thread's store: whichever order the lanes run in, it ends.
    With `wait_only`, the loop must do nothing else (no store, atomic, barrier or call): a work loop
    whose test reads a shared counter (`while (chunk < n) { ...; if (t == 0) chunk = next; }`) is no
    spin-wait."""
    loop = innermost_loop(ctx, ctx.function.block_of(ins).id)
    if loop is None:
        return False
    blocks = sorted(loop[1])
    if wait_only and any(other.op in _EFFECTS for b in blocks for other in ctx.function.blocks[b].instructions):
        return False
    tainted = set(ins.destinations())
    for _ in range(2):  # values carried around the loop once are enough for a flag test
        for block_id in blocks:
            for other in ctx.function.blocks[block_id].instructions:
                if other.is_branch and other.guard in tainted:
                    return True
                if any(r in tainted for r in other.sources()):
                    tainted.update(other.destinations())
    return False
