"""Which threads' loaded values are used, following each value forward thread by thread.

`s[t] += __shfl_sync(mask, s[t - 1], 1)` loads `s[t - 1]` in every lane, but `shfl.sync.idx` with
source lane 1 hands every lane lane 1's operand: what the other lanes loaded reaches nothing. A race
on such a read (lane t reads `s[t - 1]` while lane t - 1 overwrites it) cannot change any result.
The shuffle's lane operand and clamp are evaluated per thread (PTX ISA lane arithmetic, as the lane
evaluator does); where they are not known, every thread's value counts as used. In the same way,
`if (threadIdx.x == 0 && flag)` makes nvcc load `flag` in every thread and combine its test with
`threadIdx.x != 0` in an `or.pred`: in the threads where the other operand decides, the load reaches
nothing either.
"""

from __future__ import annotations

from typing import Optional

from ..frontend.ir import Instruction, Register
from . import predicates as P
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


MAX_FOLLOWED_USES = 64  # definitions a loaded value is followed through before it counts as used


def _used_by_threads(ctx, ins: Instruction) -> Optional[frozenset]:
    """Follow the loaded value forward, thread by thread: through arithmetic and compares to what
    they compute; a `shfl.sync` hands it on only from its source lanes; an `and`/`or` of predicates
    drops it in the threads whose other operand decides the result alone (nvcc loads `flag` in every
    thread for `if (threadIdx.x == 0 && flag)`: `or.pred %p, %tid_ne_0, %flag_false`); an
    instruction a thread does not run uses nothing there. Anything else (a store, an address, a
    branch, a call) uses it in the threads that run it."""
    if not list(ins.destinations()):
        return None
    readers, dataflow, lanes = _readers(ctx), ctx.dataflow, ctx.lanes
    n = lanes.n
    used: set = set()
    work = [(ins, frozenset(range(n)))]  # (definition, the threads its value may still matter in)
    seen: dict = {}
    steps = 0
    any_use = False
    while work:
        definition, carrying = work.pop()
        for reg in definition.destinations():
            for use in readers.get(reg.name, ()):
                if use is definition or definition.index not in dataflow.definitions(use, reg):
                    continue
                any_use = True
                steps += 1
                if steps > MAX_FOLLOWED_USES:
                    return None
                active, _ = lanes.collect(lanes.active, use)
                threads = frozenset(t for t in carrying if active[t] is not False)
                if not threads:
                    continue
                if _only_shuffled(use, reg):
                    found = _source_threads(ctx, use)
                    if found is None:
                        return None
                    used |= found & carrying
                    continue
                passed = _passed_on(ctx, use, reg, threads)
                if passed is None:
                    used |= threads  # a sink: the value reaches a result in these threads
                elif passed:
                    before = seen.get(use.index, frozenset())
                    if not passed <= before:
                        seen[use.index] = before | passed
                        work.append((use, passed))
        if len(used) == n:
            return None
    if not any_use:
        return None  # an unused load (hand-written PTX, a volatile poll) is left as it is
    loaded, _ = lanes.collect(lanes.active, ins)
    if all(t in used for t, a in enumerate(loaded) if a is not False):
        return None  # every thread that loads it may use it
    return frozenset(used)


_PASS_THROUGH = frozenset(["setp", "set", "selp", "not", "cvt", "mov", "add", "sub", "mul", "mad", "and", "or",
                           "xor", "shl", "shr", "min", "max", "abs", "neg", "div", "rem", "bfe", "bfi", "prmt"])


def _passed_on(ctx, use: Instruction, reg: Register, threads: frozenset) -> Optional[frozenset]:
    """The threads in which `use` hands the value of `reg` on to its own result (a register the walk
    follows), or None when `use` is a sink (stores it, branches or addresses memory on it...)."""
    if use.op not in _PASS_THROUGH or use.guard is not None and use.guard.name == reg.name:
        return None
    if not list(use.destinations()) or use.memory_operand() is not None:
        return None
    if use.op in ("and", "or") and use.type == "pred" and len(use.operands) == 3:
        others = [op for op in use.operands[1:] if not (isinstance(op, Register) and op.name == reg.name)]
        if len(others) == 1:
            lanes = ctx.lanes
            values, _ = lanes.collect(lanes.operand, use, others[0])
            deciding = 0 if use.op == "and" else 1  # false decides an `and`, true an `or`
            return frozenset(t for t in threads if P.known_truth(values[t]) is not bool(deciding))
    return threads


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
