"""RACE: two threads of a block touch the same shared-memory bytes, one of them writing, with no
barrier between. Also the engine behind WARP001 (the same question inside one warp)."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cached_property
from math import gcd
from typing import Optional

from ..analysis import symbolic as S
from ..analysis.accesses import access_bits
from ..analysis.barriers import barrier_kind, is_arrive
from ..analysis.budget import spend
from ..analysis.feasible import feasible_successors
from ..analysis.guard_origin import guard_origins
from ..analysis.live_lanes import used_by_threads
from ..analysis.layout import source_name
from ..analysis.lane_values import Affine, Varying, equal_per_thread
from ..analysis.predicates import contradict, held_equalities
from ..analysis.uniformity import BLOCK, WARP
from ..analysis.value_flow import value_flow
from ..analysis.loops import first_iteration, innermost_loop, polled_in_loop
from ..analysis.thread_bits import LoopCarriedBits
from ..analysis.toolkit import tile_barriers
from ..frontend.ir import Immediate, Instruction, Register, VectorOperand
from .registry import RuleDoc, register
from .sync import call_targets, callee_name, diagnostic, where

# not-checked counts: pairs of accesses that meet only in threads whose reach is undecided
UNDECIDED_REACH = {code: f"{code}-undecided-reach" for code in ("RACE001", "WARP001")}
MAX_PAIRS = 4000  # access pairs compared per kernel; beyond that the rest is skipped with a note
_KIND = {"load": "read", "ldmatrix": "read", "store": "write", "stmatrix": "write", "atomic": "atomic"}


@dataclass
class Evaluation:
    """One evaluation of an access: the whole block, or one iteration of the loop around it."""

    loop: Optional[int]  # loop header followed per iteration, else None
    iteration: int
    # unknown terms -> first byte -> threads accessing there (grouped by terms: they hash slowly)
    threads_at: dict
    nbytes: int
    sorted_starts: dict = field(default_factory=dict)  # unknown terms -> sorted first bytes, made on use
    evaluator: object = None  # the LaneEvaluator of this evaluation
    instruction: Optional[Instruction] = None
    unsure: frozenset = frozenset()  # threads that may or may not execute the access (unknown condition)
    # some active threads' addresses differ by an unknown amount: (across warps, inside a warp)
    unknown_addresses: tuple = (False, False)
    # loop depth -> the equalities on its induction unknown each thread needs (race._induction_pins)
    induction_pins: dict = field(default_factory=dict)

    @cached_property
    def conditions(self) -> list:
        """Per thread, the literals under which it executes the access (predicates.py)."""
        return self.evaluator.reach_conditions(self.instruction)

    @cached_property
    def undecided(self) -> frozenset:
        """Unsure threads whose reach hangs on a condition ptxlint cannot decide for them: a value
        the kernel itself produced (read back from shared memory, an atomic's result), unknown per
        thread (analysis/guard_origin.py). They are no race witnesses: such guards are how kernels
        keep the colliding threads out (`tid - head >= offset` in a segmented scan)."""
        if not self.unsure:
            return frozenset()
        return guard_origins(self.evaluator.ctx).undecided(self.evaluator, self.instruction, self.unsure,
                                                           self.conditions)

    @cached_property
    def aligned(self) -> bool:
        """Every access starts at a multiple of its width."""
        return all(c % self.nbytes == 0 for at in self.threads_at.values() for c in at)

    def span(self, terms) -> Optional[tuple]:
        """(lowest byte, highest byte + 1) touched at these unknown terms: a cheap overlap test."""
        starts = self.starts(terms)
        return (starts[0], starts[-1] + self.nbytes) if starts else None

    def starts(self, terms) -> list:
        found = self.sorted_starts.get(terms)
        if found is None:
            found = self.sorted_starts[terms] = sorted(self.threads_at.get(terms, ()))
        return found

    def starts_between(self, terms, low: int, high: int) -> list:
        """First bytes of this evaluation's accesses with these unknown terms, in [low, high)."""
        starts = self.starts(terms)
        return starts[bisect_left(starts, low):bisect_left(starts, high)]


class SharedSite:
    """A shared-memory access and its per-thread byte sets (computed on first use)."""

    def __init__(self, ctx, access) -> None:
        self.ctx = ctx
        self.access = access
        self.instruction = access.instruction
        self.kind = _KIND[access.kind]
        self.notes: list = []
        self.volatile = False  # a `volatile` global access (race_global.py compares it in a warp only)
        self._evaluations: Optional[list] = None

    @property
    def evaluations(self) -> list:
        if self._evaluations is None:
            self._evaluations = self._evaluate()
        return self._evaluations

    def _evaluate(self) -> list:
        ctx, ins = self.ctx, self.instruction
        loop = innermost_loop(ctx, ctx.function.block_of(ins).id)
        iterations = ctx.loop_iterations(*loop) if loop else None
        evaluators = iterations.evaluators if iterations else [ctx.lanes]
        out = []
        notes = set()
        if self._used_by is not None:
            notes.add(f"only threads {_thread_list(self._used_by)} use the value read at {where(ins)}; in the "
                      "others it reaches no result (a shuffle takes it from other lanes, or the test it feeds is "
                      "decided by another operand: `threadIdx.x == 0 && flag`)")
        for k, ev in enumerate(evaluators):
            evaluation, found = self._evaluation(ev, k, iterations.header if iterations else None)
            notes |= found
            out.append(evaluation)
        self.notes = sorted(notes)
        return out

    @cached_property
    def _used_by(self) -> Optional[frozenset]:
        """The threads whose value of a read reaches a result (live_lanes.used_by_threads: a shuffle
        takes it from other lanes, a test another operand decides); None: every thread that makes it."""
        return used_by_threads(self.ctx, self.instruction) if self.kind == "read" else None

    def first_iteration_evaluation(self, header, body) -> Optional["Evaluation"]:
        """The access as the first iteration of the loop at `header` makes it (loops.first_iteration),
        for a pair with an access before the loop that no barrier separates from that iteration only.
        None when that iteration cannot be evaluated."""
        cache = self.__dict__.setdefault("_first", {})
        if header not in cache:
            ev = first_iteration(self.ctx, header, body)
            cache[header] = self._evaluation(ev, 0, None)[0] if ev is not None else None
        return cache[header]

    def _evaluation(self, ev, k: int, header) -> tuple:
        """(Evaluation, notes) of the access under one evaluator (the whole kernel's, or a loop
        iteration's)."""
        ins = self.instruction
        nbytes = max(1, self.access.bits // 8)
        used = self._used_by
        addresses, n1 = ev.collect(ev.address, ins)
        active, n2 = ev.collect(ev.active, ins)
        if used is not None:
            active = [a if t in used else False for t, a in enumerate(active)]
        threads_at: dict = {}
        unknown = (False, False)
        if type(addresses) is Varying:
            # each thread's address is its own unknown: no two threads provably meet, nor are known apart
            unknown = _unknown_pairs(active)
        elif type(addresses) is Affine:
            running = [(t, c) for t, (c, act) in enumerate(zip(addresses.consts, active)) if act is not False]
            if running:
                if len({c for _, c in running}) == len(running):  # the common case: one thread per address
                    at = {c: [t] for t, c in running}
                else:
                    at = {}
                    for t, c in running:
                        at.setdefault(c, []).append(t)
                threads_at[addresses.terms] = at
        else:
            for t, (addr, act) in enumerate(zip(addresses, active)):
                if act is not False:
                    c, terms = addr
                    threads_at.setdefault(terms, {}).setdefault(c, []).append(t)
            if len(threads_at) > 1:
                unknown = _unknown_pairs(active, threads_at)
        unsure = frozenset(t for t, act in enumerate(active) if act is None)
        return (Evaluation(header, k, threads_at, nbytes, evaluator=ev, instruction=ins, unsure=unsure,
                           unknown_addresses=unknown), n1 | n2)


def _thread_list(threads) -> str:
    ordered = sorted(threads)
    shown = ", ".join(map(str, ordered[:8]))
    return shown + (f" ... ({len(ordered)} in all)" if len(ordered) > 8 else "")


def _unknown_pairs(active: list, threads_at: Optional[dict] = None) -> tuple:
    """(across warps, inside a warp): do two active threads have addresses whose difference is
    unknown? With `threads_at` (unknown terms -> first byte -> threads), threads in different groups
    are such pairs; without it every pair of active threads is."""
    group_of = {}
    if threads_at is None:
        group_of = {t: t for t, act in enumerate(active) if act is not False}
    else:
        for g, at in enumerate(threads_at.values()):
            for ts in at.values():
                for t in ts:
                    group_of[t] = g
    groups_by_warp: dict = {}
    for t, g in group_of.items():
        groups_by_warp.setdefault(t // 32, set()).add(g)
    inside = any(len(g) > 1 for g in groups_by_warp.values())
    across = len(groups_by_warp) > 1 and len(set().union(*groups_by_warp.values())) > 1
    return across, inside


@dataclass
class Conflict:
    """`first` then `second` (program order along a barrier-free path) collide in `threads`."""

    first: SharedSite
    second: SharedSite
    threads: tuple  # (thread of first, thread of second)
    offset: tuple  # (terms, byte)
    crossed_loop: bool
    same_warp: bool
    values: Optional[tuple] = None  # one store's two threads: the different values they write

    @property
    def hazard(self) -> str:
        a, b = self.first.kind, self.second.kind
        if a == "read":
            return "WAR"
        if b == "read":
            return "RAW"
        return "WAW"


def is_wait_barrier(ins: Instruction, warp_level: bool) -> bool:
    """Does `ins` order the shared accesses before it with those after (for the block, or a warp)?"""
    kind = barrier_kind(ins)
    if kind == "cta" and not is_arrive(ins):
        return True
    if kind == "cluster" and "wait" in ins.modifiers:
        return True
    if ins.op == "mbarrier" and any(m in ins.modifiers for m in ("try_wait", "test_wait")):
        return True  # the phase completes once the expected arrivals are in (assumed: the whole block)
    return warp_level and kind == "warp"


def _barrier_wrappers(ctx) -> dict:
    """Device functions called by this kernel that consist of one unconditional barrier and nothing
    that branches or calls: name -> that barrier. nvcc -G emits `__syncwarp()` as a call to such a
    function (`bar.warp.sync %r1; ret;`); the call orders memory exactly as the barrier does."""
    found = ctx.__dict__.get("_barrier_wrappers")
    if found is None:
        found = {}
        called = {callee_name(i) for i in ctx.function.instructions if i.op == "call"} - {None}
        if called:
            for fn in ctx.module.functions:
                if fn.name not in called or fn.is_kernel or not fn.has_body:
                    continue
                barriers = [i for i in fn.instructions if barrier_kind(i) or i.op == "mbarrier"]
                if len(barriers) != 1 or barriers[0].guard is not None:
                    continue
                if any(i.op in ("bra", "brx", "call", "exit", "trap") for i in fn.instructions):
                    continue
                found[fn.name] = barriers[0]
        ctx.__dict__["_barrier_wrappers"] = found
    return found


def _orders_shared_accesses(ctx, ins: Instruction, warp_level: bool) -> bool:
    """`is_wait_barrier`, also through an unguarded call to a function that is only that barrier."""
    if ins.op == "call":
        barrier = _barrier_wrappers(ctx).get(callee_name(ins)) if ins.guard is None else None
        return barrier is not None and is_wait_barrier(barrier, warp_level)
    # a cooperative-groups multi-warp tile sync (analysis/toolkit.py) orders the tile like a barrier;
    # taken as block-wide: a race between two tiles across it is not reported (precision first)
    return is_wait_barrier(ins, warp_level) or ins.index in tile_barriers(ctx)


def shared_conflicts(ctx) -> dict:
    """{'block': [Conflict], 'warp': [Conflict], 'notes': [...]}: cached per kernel."""
    found = ctx.__dict__.get("_shared_conflicts")
    if found is None:
        found = ctx.__dict__["_shared_conflicts"] = _find_conflicts(ctx)
    return found


def outside_focus(ctx, site) -> bool:
    """In a run that confirms findings of another block shape (`KernelContext.focus`), is `site`'s
    instruction at none of the places asked about? A pair whose second access (where its race is
    reported) is there can confirm nothing, so it is not compared (it still counts toward MAX_PAIRS,
    which then stops at the same pair as a full run)."""
    focus = getattr(ctx, "focus", None)
    if focus is None:
        return False
    ins = site.instruction
    ptx_lines, places = focus
    return ins.ptx_line not in ptx_lines and ctx.position(ins)[:2] not in places


def _sites(ctx) -> list:
    """The shared accesses compared: all but a `volatile` load that a loop doing nothing else polls
    (`while (s->ready == 0);`, one warp waiting for another's store): a spin-wait ends whichever order
    the threads run in, as RACE003 treats one on global memory."""
    return [SharedSite(ctx, a) for a in ctx.shared_accesses if a.space == "shared" and a.kind in _KIND
            and not (a.kind == "load" and "volatile" in a.instruction.modifiers
                    and polled_in_loop(ctx, a.instruction, wait_only=True))]


def _reachable(ctx, sites: list, warp_level: bool) -> dict:
    """site index -> {(site index, crossed)} reachable without a barrier. `crossed` is False when the
    walk went round no loop, else the nesting depth (1: outermost) of the outermost loop whose back
    edge it crossed: the loops nested deeper than that one start again on the way, the ones around
    it do not move (`_advances_each_iteration`). Per site, only the least depth is kept beside
    False: going round an outer loop claims less than going round an inner one."""
    fn = ctx.function
    cfg = ctx.cfg
    by_block: dict = {}
    for n, site in enumerate(sites):
        by_block.setdefault(fn.block_of(site.instruction).id, []).append(n)
    # a call whose targets are not known (a function pointer, a virtual call) may wait at a
    # barrier: no race is claimed across it (the walk stops there, as at a barrier)
    stops = {b.id: [i.index for i in b.instructions if _orders_shared_accesses(ctx, i, warp_level)
                    or (i.op == "call" and call_targets(fn, i) is None)]
             for b in fn.blocks}
    index_of = {site.instruction.index: n for n, site in enumerate(sites)}

    scanned: dict = {}  # (block, start) -> what scan found: every walk enters blocks at their start

    def scan(block_id, start):
        """Sites in block from instruction index `start` up to the first barrier; and whether one was hit."""
        found = scanned.get((block_id, start))
        if found is None:
            block = fn.blocks[block_id]
            stop = next((s for s in stops[block_id] if s >= start), None)
            end = stop if stop is not None else block.instructions[-1].index + 1
            found = scanned[(block_id, start)] = ([index_of[i] for i in range(start, end) if i in index_of],
                                                  stop is not None)
        return found

    back = _back_edge_depths(cfg)
    beyond = _reach_from_block_starts(ctx, scan, back)
    out = {}
    for n, site in enumerate(sites):
        spend()
        ins = site.instruction
        block_id = fn.block_of(ins).id
        found, blocked = scan(block_id, ins.index + 1)
        reached = {(m, False) for m in found}
        if not blocked:
            # edges no thread takes under the launch shape (a loop skipped only by a 1-thread block) are no path
            for succ in feasible_successors(ctx, block_id):
                if isinstance(succ, int):
                    reached |= beyond[(succ, back.get((block_id, succ), False))]
        out[n] = _least_depths(reached)
    _add_same_interval(ctx, sites, out, stops, scan, warp_level)
    return out


def reaches(reached: set, b: int, crossed) -> bool:
    """Is site `b` in `reached` (a `_reachable` set) going round no loop (crossed False), or going
    round some loop (crossed a depth: at whichever depth that set keeps)?"""
    if crossed is False:
        return (b, False) in reached
    return any(m == b and c is not False for m, c in reached)


def _back_edge_depths(cfg) -> dict:
    """(latch, header) -> the nesting depth of the header's loop (1: no loop around it)."""
    return {(u, h): len(cfg.loops_containing(h)) for u, h in cfg.back_edges}


def _crossing(crossed, depth):
    """`crossed` (False, or the least depth of a back edge crossed) after crossing one of `depth`."""
    return depth if crossed is False or depth < crossed else crossed


def _least_depths(reached: set) -> set:
    """Of the (site, depth) pairs of one site, the one of least depth (and the one with False)."""
    least: dict = {}
    for m, crossed in reached:
        if crossed is not False and (m not in least or crossed < least[m]):
            least[m] = crossed
    return {(m, c) for m, c in reached if c is False} | {(m, c) for m, c in least.items()}


def _reach_from_block_starts(ctx, scan, back: dict) -> dict:
    """(block, crossed) -> {(site, crossed')}: the sites a walk entering the block at its start
    reaches before a barrier, `crossed'` the least nesting depth of a loop it went round to get
    there (False: none; entering with `crossed` a depth, every site is reached at most that deep).
    One closure over the graph of (block, crossed) states, by strongly connected components,
    instead of a walk per site."""
    fn = ctx.function
    edges: dict = {}
    own: dict = {}
    depths = (False,) + tuple(sorted(set(back.values())))
    for block in fn.blocks:
        spend()
        if block.instructions:
            found, blocked = scan(block.id, block.instructions[0].index)
        else:
            found, blocked = (), False
        succs = [] if blocked else [s for s in feasible_successors(ctx, block.id) if isinstance(s, int)]
        for crossed in depths:
            own[(block.id, crossed)] = frozenset((m, crossed) for m in found)
            edges[(block.id, crossed)] = [(s, _crossing(crossed, back[(block.id, s)]) if (block.id, s) in back
                                           else crossed) for s in succs]
    return _closure(edges, own)


def _closure(edges: dict, own: dict) -> dict:
    """node -> the union of `own` over the nodes it reaches by `edges` (itself included): by strongly
    connected components, sinks first, so each node's set is built once from its successors'."""
    reach: dict = {}
    for component in _components_sinks_first(edges):
        spend()
        inside = set(component)
        parts = [own[n] for n in component] + [reach[t] for n in component for t in edges[n] if t not in inside]
        nonempty = {id(p): p for p in parts if p}
        value = frozenset().union(*nonempty.values()) if len(nonempty) > 1 else \
            next(iter(nonempty.values()), frozenset())
        for n in component:
            reach[n] = value
    return reach


def _components_sinks_first(edges: dict) -> list:
    """The strongly connected components of a graph {node: [successors]}, each after every
    component it reaches (Tarjan's algorithm, with an explicit stack)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: list = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(edges[succ])))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(component)
    return out


def _add_same_interval(ctx, sites: list, out: dict, stops: dict, scan, warp_level: bool) -> None:
    """Pairs that neither reaches the other but that run at the same time in different threads: the
    two sides of a branch that splits the block (for warp-level pairs: a warp), `if (t == 0) flag = x;
    else y = flag;`, up to the next barrier on each side (within one loop iteration). A branch that
    every thread takes the same way (block-uniform) separates its sides: no pair across it."""
    fn = ctx.function
    cfg = ctx.cfg
    back = cfg.back_edges
    level = WARP if warp_level else BLOCK
    related = {(a, b) for a, reached in out.items() for b, _ in reached}

    sides_from: Optional[dict] = None  # block -> the sites a walk from its start reaches (`side`)

    def side(start) -> frozenset:
        """The sites a walk from the start of block `start` reaches before a barrier, going round
        no loop: one closure over the forward edges for every block, computed on first use."""
        nonlocal sides_from
        if sides_from is None:
            sides_from = _forward_reach(ctx, scan, back)
        return sides_from.get(start, frozenset()) if isinstance(start, int) else frozenset()

    u = ctx.uniformity
    for block in fn.blocks:
        if u.branch_instruction(block.id) is None or u.branch_level(block.id) < level:
            continue
        sides = [side(succ) for succ in feasible_successors(ctx, block.id) if (block.id, succ) not in back]
        for i, one in enumerate(sides):
            for other in sides[i + 1:]:
                for a in one - other:
                    for b in other - one:
                        if (a, b) in related or (b, a) in related:
                            continue
                        first, second = sorted((a, b), key=lambda k: _source_order(ctx, sites[k]))
                        out[first].add((second, False))
                        related.add((first, second))


def _forward_reach(ctx, scan, back: set) -> dict:
    """block -> the sites a walk entering it at its start reaches before a barrier without taking a
    loop's back edge; by strongly connected components (without back edges only an irreducible
    loop has more than one block), `_closure`, so each block's set is built once from its successors'
    (a walk per start block made kernels of thousands of blocks quadratic)."""
    fn = ctx.function
    edges: dict = {}
    own: dict = {}
    for block in fn.blocks:
        spend()
        found, blocked = scan(block.id, block.instructions[0].index) if block.instructions else ((), False)
        own[block.id] = frozenset(found)
        edges[block.id] = [] if blocked else [s for s in feasible_successors(ctx, block.id)
                                              if isinstance(s, int) and (block.id, s) not in back]
    return _closure(edges, own)


def _source_order(ctx, site: SharedSite) -> tuple:
    _, line, column = ctx.position(site.instruction)
    return (line or 0, column or 0, site.instruction.index)


def _stored_value_uniform(ctx, ins: Instruction) -> bool:
    """A store whose value is the same in every thread: concurrent copies of it are benign."""
    return _stored_value_same_across(ctx, ins, "block")


def _stored_value_per_warp(ctx, ins: Instruction) -> bool:
    """A store whose value is the same in every lane of a warp (it may differ between warps)."""
    return _stored_value_same_across(ctx, ins, "warp")


def stored_value_kept_bits(ctx, ins: Instruction) -> frozenset:
    """The bits of the thread index the value a plain store writes does not depend on, loops and
    texture fetches followed (thread_bits.LoopCarriedBits): threads t and u with t ^ u among them
    store one value. Worked out once per store, where two threads were found writing one address."""
    found = ctx.__dict__.setdefault("_stored_value_kept_bits", {})
    if ins.index not in found:
        value = ins.operands[1] if ins.op == "st" and len(ins.operands) >= 2 else None
        elements = value.elements if isinstance(value, VectorOperand) else (value,)
        walk = LoopCarriedBits(ctx.uniformity)
        bits = walk.all_bits
        for element in elements:
            if isinstance(element, Immediate):
                continue
            if not isinstance(element, Register) or element.is_special:
                bits = frozenset()
                break
            bits &= walk.kept(ins, element)
        found[ins.index] = bits
    return found[ins.index]


def _stored_value_same_across(ctx, ins: Instruction, level: str) -> bool:
    """Is the value a plain store writes one value across the threads of `level` (warp, block)?"""
    if ins.op != "st" or len(ins.operands) < 2:
        return False
    value = ins.operands[1]
    if isinstance(value, Immediate):
        return True
    if isinstance(value, Register):
        return not ctx.uniformity.is_divergent(ins, value, level)
    return False


def _stored_constant(ctx, ins: Instruction):
    """The known constant a plain store writes in every thread (an immediate, or a register whose every
    reaching definition moves that immediate: nvcc's `mov.u16 %rs1, 1; st.shared.u8 [f], %rs1`), or None."""
    if ins.op != "st" or len(ins.operands) < 2:
        return None
    value = ins.operands[1]
    if isinstance(value, Immediate):
        return value.value
    if not isinstance(value, Register) or value.is_special:
        return None
    found = set()
    for d in ctx.dataflow.definitions(ins, value):
        definition = ctx.function.instructions[d]
        if definition.op != "mov" or definition.guard is not None or len(definition.operands) != 2 \
                or not isinstance(definition.operands[1], Immediate):
            return None
        found.add(definition.operands[1].value)
    return found.pop() if len(found) == 1 else None


def same_constant_stores(ctx, a: Instruction, b: Instruction) -> bool:
    """Two plain stores of one known constant of one width (`updated = true` by many threads, also
    from one loop iteration to the next): whichever lands last, the bytes hold that constant, so the
    pair is no race (the CUDA model's benign same-value store; a reader is still paired with them)."""
    if access_bits(a) != access_bits(b):
        return False
    ca = _stored_constant(ctx, a)
    return ca is not None and ca == _stored_constant(ctx, b)


def rereads_own_block_uniform_store(ctx, store: Instruction, read: Instruction) -> bool:
    """Does every thread that reads with `read` first store there itself, with `store`, in the same
    pass, a value that is the same in every thread of the block (`scale = block_sum(x)` by all
    threads, then `... * scale`)? Then another thread's copy of that store, racing with the read,
    writes the bytes the reader already put there: whichever it sees, it reads the same value. The
    store must run before the read on every path (it dominates the read, unpredicated) at the same
    address in each thread, with the same width; a copy from another pass of a loop is a separate
    pair (the caller asks only for pairs that cross no back edge)."""
    if store.op != "st" or read.op != "ld" or store.guard is not None or access_bits(store) != access_bits(read):
        return False
    if not _stored_value_uniform(ctx, store):
        return False
    if not ctx.cfg.runs_before(store, read):
        return False
    lanes = ctx.lanes
    try:
        return equal_per_thread(lanes.address(store), lanes.address(read))
    except RecursionError:  # pragma: no cover - a pathological kernel
        return False


def rereads_block_uniform_store(ctx, a: Instruction, b: Instruction, crossed) -> bool:
    """rereads_own_block_uniform_store for a pair in either order, found going round no loop, or
    round loops when the store is in none (it runs once: every pair is with its one pass)."""
    for store, read in ((a, b), (b, a)):
        if store.op != "st":
            continue
        if crossed is not False and ctx.cfg.loops_containing(ctx.function.block_of(store).id):
            continue
        if rereads_own_block_uniform_store(ctx, store, read):
            return True
    return False


_GRANULE = 4  # bytes: two threads can only share a byte if they touch a common 4-byte word


def read_steers_atomic(ctx, a: Instruction, b: Instruction) -> bool:
    """Is one of `a`, `b` a plain load whose value only steers atomics on its own word, and the
    other such an atomic? Two idioms: the expected value of an `atom.cas` retry loop (`old = *p;
    do { ... } while (atomicCAS(p, old, new) != old)`, the programming guide's atomic max or double
    add: a stale value makes the CAS fail and the loop read again), and the pre-check of an atomic
    min or max (`if (v < *p) atomicMin(p, v)`: the word moves one way, so a stale value only costs
    an atomic that changes nothing). Either way the load is no race with those atomics."""
    for read, other in ((a, b), (b, a)):
        if read.op != "ld" or other.op != "atom":
            continue
        if not _same_address(ctx, read, other):
            continue
        if read.index in _cas_expected_reads(ctx) or _is_min_max(other) and read.index in _min_max_prechecks(ctx):
            return True
        if only_guesses(ctx, read):
            return True
    return False


_WRITES = ("st", "atom", "red")
_COLLECTIVES = ("shfl", "vote", "redux", "match")


def read_skips_same_store(ctx, a: Instruction, b: Instruction) -> bool:
    """Is one of `a`, `b` a plain load whose value only decides whether its thread stores a constant
    to the word it read (`if (!mark[i]) mark[i] = 1;`), and the other a store of that constant, where
    every write the kernel may make to that word stores it? Whatever the load sees, the word ends up
    holding the constant: a stale value only costs or skips a store that changes nothing. A test
    that decides anything else (another address, a queue slot, what runs after it) is acted on."""
    for read, store in ((a, b), (b, a)):
        if read.op != "ld" or store.op != "st":
            continue
        constant = _stored_constant(ctx, store)
        if constant is None or access_bits(read) != access_bits(store):
            continue
        answers = ctx.__dict__.setdefault("_skips_same_store", {})
        key = (read.index, constant)
        if key not in answers:
            answers[key] = _only_skips_store_of(ctx, read, constant)
        if answers[key]:
            return True
    return False


def _only_skips_store_of(ctx, read: Instruction, constant) -> bool:
    """read_skips_same_store's test of one read against one constant: the writes beside it, and what
    the value it returns reaches (branches only, whose controlled blocks do nothing but store the
    constant to the word read)."""
    function, cfg = ctx.function, ctx.cfg

    def stores_constant(w: Instruction) -> bool:
        return w.op == "st" and access_bits(w) == access_bits(read) and _stored_constant(ctx, w) == constant

    def stores_constant_here(w: Instruction) -> bool:
        return stores_constant(w) and _same_address(ctx, read, w)

    # every write that may touch the word (one into the same variables, or through an address of
    # unknown origin) while the read runs stores the constant: the word only changes to it then. In
    # shared memory those are the writes between the same two barriers; in global memory other
    # blocks may run any of the kernel's writes.
    roots = set(ctx.address_roots.roots(read))
    concurrent = None
    if read.space == "shared":
        concurrent = ctx.intervals.interval_of(read)
    for w in function.instructions:
        if w.op in _WRITES and w.space != "local" and (concurrent is None or w.index in concurrent):
            other = set(ctx.address_roots.roots(w))
            if (not roots or not other or roots & other) and not stores_constant(w):
                return False
    flow = value_flow(ctx, read)
    if flow.shared or flow.shared_slots:
        return False
    deciding = set()
    for ins, uses, guarded in _reached_by_value(function, read, flow):
        if ins.is_branch:
            deciding.add(function.block_of(ins).id)
        elif uses and ins.op in _WRITES + ("ld", "ldu", "call", "ret") + _COLLECTIVES:
            return False  # the value becomes an address or data
        elif guarded and not stores_constant_here(ins) and not ins.destinations():
            return False  # a predicated effect other than the store
        elif guarded and ins.destinations() and not all(r.name in flow.registers for r in ins.destinations()):
            return False
    for block in function.blocks:
        if not cfg.controlling_branches(block.id) & deciding:
            continue
        for ins in block.instructions:
            if ins.op in _WRITES + ("call", "ret", "exit", "bar", "barrier") + _COLLECTIVES \
                    and not stores_constant_here(ins):
                return False  # the test decides more than the store: what runs after it
    return True


def read_handed_on_before(ctx, read: Instruction, write: Instruction) -> bool:
    """Does every path from `read` to `write` (also round a loop) pass a full-mask warp collective
    that takes the value `read` returned (`v = s[lane + 1]; v = __shfl_sync(~0u, v, 0)`, a WarpScan of
    it)? A lane then writes only after every lane has executed that collective, which needs the
    value its read returned: the read is over before the write, so the pair is no race between
    lanes of one warp (a write-after-read ordered as by `__syncwarp()`)."""
    if read.op != "ld" or write.op not in _WRITES:
        return False
    answers = ctx.__dict__.setdefault("_read_handed_on", {})
    key = (read.index, write.index)
    found = answers.get(key)
    if found is None:
        found = answers[key] = _read_handed_on_before(ctx, read, write)
    return found


def _full_mask(ctx, ins: Instruction) -> bool:
    """Is the collective's member mask (its last operand) 0xffffffff in every thread?"""
    mask = ins.operands[-1] if ins.operands else None
    if isinstance(mask, Immediate):
        return mask.value in (-1, 0xFFFFFFFF)
    if not isinstance(mask, Register) or mask.is_special:
        return False
    values = ctx.lanes.register(ins, mask)
    return type(values) is not Varying and all(not v[1] and v[0] in (-1, 0xFFFFFFFF) for v in values)


def _read_handed_on_before(ctx, read: Instruction, write: Instruction) -> bool:
    return any(not _path_avoiding(ctx, read, write, c) for c in _collectives_taking(ctx).get(read.index, ()))


def _collectives_taking(ctx) -> dict:
    """{load index: the unguarded full-mask warp collectives whose data operands are computed from
    the value it returned (through registers)}, found once per kernel by following each
    collective's operands back to the loads they come from."""
    found = ctx.__dict__.get("_collectives_taking")
    if found is not None:
        return found
    found = ctx.__dict__["_collectives_taking"] = {}
    fn, dataflow = ctx.function, ctx.dataflow
    for c in fn.instructions:
        if c.op not in _COLLECTIVES or c.guard is not None or not _full_mask(ctx, c):
            continue
        stack = [(c, r) for r in c.sources()]
        seen = set()
        while stack:
            at, reg = stack.pop()
            if reg.is_special:
                continue
            for d in dataflow.definitions(at, reg):
                if d in seen:
                    continue
                seen.add(d)
                source = fn.instructions[d]
                if source.op in ("ld", "ldu"):
                    found.setdefault(d, []).append(c)
                elif source.memory_operand() is None and source.op not in ("call",) + _COLLECTIVES:
                    stack.extend((source, r) for r in source.sources())
    return found


def _path_avoiding(ctx, start: Instruction, end: Instruction, stop: Instruction) -> bool:
    """Is there a path from `start` to `end` (either may come first in a loop) that does not run
    `stop`?"""
    fn, cfg = ctx.function, ctx.cfg

    def scan(block_id: int, first: int) -> Optional[bool]:
        """True: `end` is met before `stop` in the block from `first`; False: `stop` is; None: neither."""
        for ins in fn.blocks[block_id].instructions:
            if ins.index < first:
                continue
            if ins.index == stop.index:
                return False
            if ins.index == end.index:
                return True
        return None

    block = fn.block_of(start).id
    met = scan(block, start.index + 1)
    if met is not None:
        return met
    seen, stack = set(), [block]
    while stack:
        for succ in cfg.successors(stack.pop()):
            if not isinstance(succ, int) or succ in seen:
                continue
            seen.add(succ)
            met = scan(succ, 0)
            if met:
                return True
            if met is None:
                stack.append(succ)
    return False


def only_guesses(ctx, read: Instruction) -> bool:
    """Is the plain load `read` only a guess that atomics on its own word check: an optimistic read
    (`if (sem.count() >= n) { old = atomicAdd(&sem.value, -n); if (old < n) atomicAdd(&sem.value, n); }`)
    or a poll that only decides when a thread goes on (`while (sem.count() < n) __nanosleep(t);`)?

    Its value (through registers) only decides branches and feeds atomics on the same word, never
    an address, a store, another atomic or a call; and every memory write that a branch it decides
    controls is an atomic on the word whose result its thread tests, or lies under such a test. A
    stale value then only costs a retry or a wait: every change of the word and of anything else is
    decided by what an atomic returned. A pre-check that leads to an unchecked write (`if (count <
    cap) atomicAdd(&count, 1)`, `if (!*done) ...; atomicExch(done, 1)`) is not a guess: the write
    acts on the stale value."""
    answers = ctx.__dict__.setdefault("_only_guesses", {})
    found = answers.get(read.index)
    if found is None:
        found = answers[read.index] = _only_guesses(ctx, read)
    return found


def _only_guesses(ctx, read: Instruction) -> bool:
    if read.op != "ld" or read.space == "local":
        return False
    function, cfg = ctx.function, ctx.cfg
    flow = value_flow(ctx, read)
    if flow.shared or flow.shared_slots:
        return False  # handed to other threads through shared memory: no longer this thread's guess
    on_word = {a.index: a for a in function.instructions
               if a.op == "atom" and _same_address(ctx, read, a)}
    if not on_word:
        return False
    checked = {}  # atomics on the word whose result decides control -> the branches it decides
    for index, atomic in on_word.items():
        decided = value_flow(ctx, atomic).guards()
        if decided:
            checked[index] = {function.block_of(g).id for g in decided if g.is_branch}
    checking_branches = set().union(*checked.values()) if checked else set()

    def checked_update(w: Instruction) -> bool:
        """An atomic on the word whose result its thread tests, or a compare-and-swap on it."""
        return w.index in checked or (w.index in on_word and "cas" in w.modifiers)

    deciding = set()
    for ins, uses, guarded in _reached_by_value(function, read, flow):
        if ins.is_branch:
            deciding.add(function.block_of(ins).id)
        elif ins.op in _WRITES or ins.op in ("ld", "ldu", "call", "ret"):
            if not checked_update(ins):
                return False  # the value becomes an address, data, or an unchecked update
        elif guarded:
            return False  # a predicated computation: the value decides data, not only a path
    if not deciding:
        return True  # the value only feeds atomics on the word that check it
    for block in function.blocks:
        writes = [i for i in block.instructions if i.op in _WRITES and i.space != "local"]
        if not writes:
            continue
        controlling = cfg.controlling_branches(block.id)
        if not controlling & deciding:
            continue
        if controlling & checking_branches:
            continue  # under the test of what an atomic on the word returned: decided afresh
        if not all(checked_update(w) for w in writes):
            return False
    return True


def _reached_by_value(function, read: Instruction, flow):
    """(instruction, whether it reads the value, whether the value guards it) for every instruction
    of the function other than `read` that the value `read` returned reaches (flow: its ValueFlow)."""
    for ins in function.instructions:
        if ins.index == read.index:
            continue
        uses = any(r.name in flow.registers for r in ins.sources() if r is not ins.guard)
        guarded = ins.guard is not None and ins.guard.name in flow.registers
        if uses or guarded:
            yield ins, uses, guarded


def _is_min_max(ins: Instruction) -> bool:
    return "min" in ins.modifiers or "max" in ins.modifiers


def _min_max_prechecks(ctx) -> set:
    """Indices of the plain loads whose value only decides, through comparisons, whether a thread
    issues an atomic min or max on the load's own address (`if (v < box.lo) atomicMin(&box.lo,
    v)`): a stale value can only cause an atomic that changes nothing or skip one that would
    change nothing (a word that only atomic min or max change moves one way), so the read is no
    race with those atomics. Uses go through `setp` only, and the predicates only guard branches or
    the atomics."""
    found = ctx.__dict__.get("_min_max_prechecks")
    if found is not None:
        return found
    found = ctx.__dict__["_min_max_prechecks"] = set()
    function = ctx.function
    atomics = [i for i in function.instructions if i.op == "atom" and _is_min_max(i)]
    if not atomics:
        return found
    readers: dict = {}  # register name -> instructions that read it
    for ins in function.instructions:
        for r in ins.sources():
            readers.setdefault(r.name, []).append(ins)
        if ins.guard is not None:
            readers.setdefault(ins.guard.name, []).append(ins)
    for load in function.instructions:
        if load.op != "ld" or load.guard is not None or len(load.destinations()) != 1:
            continue
        uses = readers.get(load.destinations()[0].name, [])
        if not uses or any(u.op != "setp" for u in uses):
            continue
        decided = [w for u in uses for p in u.destinations() for w in readers.get(p.name, [])]
        if not all(w.is_branch or (w.op == "atom" and _is_min_max(w)) for w in decided):
            continue
        if any(_same_address(ctx, load, a) for a in atomics):
            found.add(load.index)
    return found


def _cas_expected_reads(ctx) -> set:
    """Indices of the plain loads whose value reaches only the compare operands of `atom.cas` on
    the load's own address (through moves and conversions; the CAS's own result may also feed
    them, as a retry loop's next expected value)."""
    found = ctx.__dict__.get("_cas_expected_reads")
    if found is not None:
        return found
    found = ctx.__dict__["_cas_expected_reads"] = set()
    function, dataflow = ctx.function, ctx.dataflow
    for cas in function.instructions:
        if cas.op != "atom" or "cas" not in cas.modifiers or len(cas.operands) < 4 \
                or not isinstance(cas.operands[2], Register):
            continue
        loads, ok = set(), True
        stack, seen = [(cas, cas.operands[2])], set()
        while stack and ok:
            at, reg = stack.pop()
            for d in dataflow.definitions(at, reg):
                if d in seen:
                    continue
                seen.add(d)
                source = function.instructions[d]
                if source.op == "ld" and source.guard is None:
                    loads.add(d)
                elif source.op == "atom" and "cas" in source.modifiers and _same_address(ctx, source, cas):
                    pass  # the previous attempt's result: the loop's next expected value
                elif source.op in ("mov", "cvt") and len(source.operands) == 2 and \
                        isinstance(source.operands[1], Register):
                    stack.append((source, source.operands[1]))
                else:
                    ok = False
                    break
        if ok:
            found.update(d for d in loads if _same_address(ctx, function.instructions[d], cas))
    return found


def _same_address(ctx, a: Instruction, b: Instruction) -> bool:
    """Do `a` and `b` access the same address in every thread (as the lane evaluator writes it)?"""
    lanes = ctx.lanes
    (xa, xb), _ = lanes.collect(lambda: (lanes.address(a), lanes.address(b)))
    return xa is not None and xb is not None and type(xa) is not Varying and equal_per_thread(xa, xb)


def _contested_sites(sites: list) -> list:
    """The sites that touch a word some other thread also touches (in any evaluation of any site):
    only they can be part of a race. One pass over every access instead of one per pair of sites:
    a kernel of thousands of shared stores, each thread at its own word, compares nothing."""
    first_thread: dict = {}  # unknown terms -> word -> the one thread seen there, or -1 for several
    touched = []
    for site in sites:
        words = []  # (the word map of some terms, words of this site there)
        for ev in site.evaluations:
            spend()
            extra = ev.nbytes - 1
            for terms, at in ev.threads_at.items():
                seen = first_thread.setdefault(terms, {})
                mine = []
                for c, threads in at.items():
                    for w in range(c // _GRANULE, (c + extra) // _GRANULE + 1):
                        mine.append(w)
                        for t in threads:
                            if seen.setdefault(w, t) != t:
                                seen[w] = -1
                words.append((seen, mine))
        touched.append(words)
    # a site whose addresses some pair of threads cannot be compared at stays: it is counted as not checked
    return [site for site, words in zip(sites, touched)
            if any(seen[w] == -1 for seen, mine in words for w in mine)
            or any(e.unknown_addresses[0] or e.unknown_addresses[1] for e in site.evaluations)]


# From this many shared accesses in a kernel on, sites no two threads meet at are dropped before
# the pairwise comparison, unless their accesses are many (loops followed per iteration, as in
# CUB's sorts): then the pass costs more than the pairs it saves (MAX_PAIRS bounds those).
CONTESTED_PASS_MIN_SITES = 256
CONTESTED_PASS_MAX_ACCESSES_PER_SITE = 1024


def _find_conflicts(ctx) -> dict:
    """{'block': cross-warp conflicts (RACE001), 'warp': same-warp ones (WARP001), 'lanes': lanes of
    one warp storing different values in one store (RACE001), 'notes': [...], 'not_checked': {rule
    code: accesses whose addresses some pair of threads could not be compared at}}."""
    sites = _sites(ctx)
    if len(sites) >= CONTESTED_PASS_MIN_SITES:
        accesses = sum(len(at) for s in sites for ev in s.evaluations for at in ev.threads_at.values())
        if accesses <= CONTESTED_PASS_MAX_ACCESSES_PER_SITE * len(sites):
            sites = _contested_sites(sites)
    result = {"block": [], "warp": [], "lanes": [], "notes": [],
              "not_checked": {"RACE001": 0, "WARP001": 0, **{key: 0 for key in UNDECIDED_REACH.values()}}}
    if not sites:
        return result
    block_reach = _reachable(ctx, sites, warp_level=False)
    warp_reach = _reachable(ctx, sites, warp_level=True)
    compared = 0
    in_block_pairs: set = set()
    in_warp_pairs: set = set()
    undecided_pairs = {"RACE001": 0, "WARP001": 0}
    try:
        for a in range(len(sites)):
            pairs = sorted(block_reach[a])
            if sites[a].instruction.op == "st" and not _stored_value_uniform(ctx, sites[a].instruction):
                pairs.append((a, None))  # two threads in one execution of the same store
            for b, crossed in pairs:
                first, second = sites[a], sites[b]
                if first.kind == "read" and second.kind == "read":
                    continue
                if first.kind == "atomic" and second.kind == "atomic":
                    continue
                if same_constant_stores(ctx, first.instruction, second.instruction) or \
                        read_skips_same_store(ctx, first.instruction, second.instruction):
                    continue
                if rereads_block_uniform_store(ctx, first.instruction, second.instruction, crossed):
                    continue
                if read_steers_atomic(ctx, first.instruction, second.instruction):
                    continue
                compared += 1
                spend()
                if compared > MAX_PAIRS:
                    result["notes"].append(f"stopped after {MAX_PAIRS} pairs of shared accesses")
                    return result
                if outside_focus(ctx, second):
                    continue
                in_block_pairs |= {a, b}
                if crossed is None:
                    in_warp_pairs.add(a)
                    rejected: set = set()
                    cross, inside = _same_store(first, rejected)
                    if cross is None and inside is None and rejected:
                        undecided_pairs["RACE001"] += 1
                    if cross is not None:
                        result["block"].append(cross)
                    elif inside is not None:
                        result["lanes"].append(inside)
                    continue
                # one comparison answers both questions; the warp-level one needs no __syncwarp between
                in_warp = reaches(warp_reach[a], b, crossed) and not read_handed_on_before(
                    ctx, first.instruction, second.instruction)
                if in_warp:
                    in_warp_pairs |= {a, b}
                rejected: set = set()
                cross, inside = _collide(first, second, crossed, want_inside=in_warp, rejected=rejected)
                if cross is None and True in rejected:
                    undecided_pairs["RACE001"] += 1
                if inside is None and in_warp and False in rejected:
                    undecided_pairs["WARP001"] += 1
                if cross is not None:
                    result["block"].append(cross)
                elif inside is not None:
                    result["warp"].append(inside)
    finally:
        counts = result["not_checked"]
        counts["RACE001"] = sum(any(e.unknown_addresses[0] for e in sites[k].evaluations) for k in in_block_pairs)
        counts["WARP001"] = sum(any(e.unknown_addresses[1] for e in sites[k].evaluations) for k in in_warp_pairs)
        for code, n in undecided_pairs.items():
            counts[UNDECIDED_REACH[code]] = n
    return result


def _stored_values(ev: Evaluation) -> Optional[list]:
    """Per thread, the value a `st` writes (a tuple of values for a vector store), or None."""
    ins = ev.instruction
    if len(ins.operands) < 2:
        return None
    operand = ins.operands[1]
    elements = operand.elements if isinstance(operand, VectorOperand) else (operand,)
    vectors = [ev.evaluator.operand(ins, e) for e in elements]
    return list(zip(*vectors))


def _same_store(site: SharedSite, rejected: Optional[set] = None) -> tuple:
    """(cross-warp conflict, same-warp conflict) inside one execution of one store: two threads
    writing the same bytes with values known to differ. Equal values are benign; values from
    run-time data are not known to differ, so they are not reported. Threads whose reach is
    undecided (`Evaluation.undecided`) take no part; `rejected` gets True when that left a store's
    bytes with fewer than two writers."""
    cross = inside = None
    for ev in site.evaluations:
        if not ev.aligned:
            continue
        values = None
        undecided = ev.undecided
        for terms, at in ev.threads_at.items():
            for c, threads in at.items():
                if len(threads) < 2:
                    continue
                if undecided:
                    threads = [t for t in threads if t not in undecided]
                    if len(threads) < 2:
                        if rejected is not None:
                            rejected.add(True)
                        continue
                if values is None:
                    values = _stored_values(ev)
                    if values is None:
                        return None, None
                pair = _different_writers(threads, values)
                if pair is None:
                    continue
                t1, t2 = pair
                conflict = Conflict(site, site, pair, (terms, c), False, same_warp=t1 // 32 == t2 // 32,
                                    values=(values[t1], values[t2]))
                if not conflict.same_warp:
                    return conflict, None
                if inside is None:
                    inside = conflict
    return cross, inside


def _different_writers(threads: list, values: list) -> Optional[tuple]:
    """Two of `threads` whose values are known to differ (same unknown terms, different constants
    in some element), of different warps where there are such; None if no two are."""
    found = None
    by_terms: dict = {}
    for t in threads:
        v = values[t]
        by_terms.setdefault(tuple(e[1] for e in v), []).append((tuple(e[0] for e in v), t))
    for group in by_terms.values():
        consts = {c for c, _ in group}
        if len(consts) < 2:
            continue
        c1, t1 = group[0]
        # a thread of another warp with another value; else every other warp holds c1 and a thread of
        # t1's warp holds another value: that one and any thread of another warp
        other = next((t for c, t in group if c != c1 and t // 32 != t1 // 32), None)
        if other is None:
            t_diff = next(t for c, t in group if c != c1)
            other_warp = next((t for c, t in group if t // 32 != t1 // 32), None)
            if other_warp is not None:
                t1, other = t_diff, other_warp
            else:
                other = t_diff
        pair = (min(t1, other), max(t1, other))
        if pair[0] // 32 != pair[1] // 32:
            return pair
        found = found or pair
    return found


def _evaluation_pairs(first: SharedSite, second: SharedSite, crossed):
    same_instance = crossed is None
    fa, sb = first.evaluations, second.evaluations
    loop_a = fa[0].loop if fa else None
    if loop_a is not None and sb and sb[0].loop == loop_a:
        if same_instance or not crossed:
            return [(fa[k], sb[k]) for k in range(min(len(fa), len(sb)))]
        return [(fa[k], sb[k + 1]) for k in range(min(len(fa), len(sb) - 1))]
    if same_instance:
        return [(e, e) for e in fa]
    if crossed is False:
        entered = _loop_entered_between(first, second)
        if entered is not None:
            # reached from before its loop without a barrier and without going round: the access
            # in the loop's first iteration only (later ones come after the loop's barrier)
            only = second.first_iteration_evaluation(*entered)
            if only is not None:
                return [(x, only) for x in fa]
    return [(x, y) for x in fa for y in sb]


def _loop_entered_between(first: SharedSite, second: SharedSite) -> Optional[tuple]:
    """(header, body) of the one loop that holds `second` and not `first`, when `second`'s
    evaluation covers every iteration of it at once (a loop whose trip count is not followed);
    None otherwise."""
    cfg, fn = first.ctx.cfg, first.ctx.function
    outer = set(cfg.loops_containing(fn.block_of(first.instruction).id))
    entered = [hb for hb in cfg.loops_containing(fn.block_of(second.instruction).id) if hb not in outer]
    if len(entered) != 1 or not second.evaluations or second.evaluations[0].loop is not None:
        return None
    return entered[0]


def _collide(first: SharedSite, second: SharedSite, crossed, want_inside: bool,
             rejected: Optional[set] = None, want_cross: bool = True) -> tuple:
    """(cross-warp conflict, same-warp conflict): pairs of different threads that touch a common byte,
    each None when the analysis cannot prove one (or is not asked to look: `want_cross`,
    `want_inside`). Pairs left out because a thread's reach is undecided put whether they were
    cross-warp (True) or same-warp (False) in `rejected`."""
    cross = inside = None
    for ea, eb in _evaluation_pairs(first, second, crossed):
        same_grid = ea.nbytes == eb.nbytes and ea.aligned and eb.aligned
        possible = _possible_pair(ea, eb, crossed, rejected)
        for terms, at_a in ea.threads_at.items():
            at_b = eb.threads_at.get(terms)
            if at_b is None:
                continue
            if crossed and _unfollowed_across_iterations(ea, terms):
                continue
            # in a later iteration the loop's induction unknown has moved: the same offset from it
            # is another address (`out[src]`, src += stride, stored by every lane of the warp)
            advanced = bool(crossed) and _advances_each_iteration(ea, terms, crossed)
            span_a, span_b = ea.span(terms), eb.span(terms)
            if not (span_a[0] < span_b[1] and span_b[0] < span_a[1]):
                continue
            if same_grid:
                # equal widths at multiples of the width overlap only where they start together
                candidates = (((c, ta), (c,)) for c, ta in at_a.items() if c in at_b)
            else:
                # b's accesses that share a byte with a's start within (c - b's width, c + a's width)
                candidates = (((c, ta), eb.starts_between(terms, c - eb.nbytes + 1, c + ea.nbytes))
                              for c, ta in at_a.items())
            for (c, ta), starts in candidates:
                for d in starts:
                    if advanced and d == c:
                        continue
                    tb = at_b[d]
                    if len(ta) == 1 and tb == ta:
                        continue  # one thread, the same on both sides (`s[tid] = ...; ... = s[tid]`): no pair
                    spend()
                    key = (terms, max(c, d))
                    if cross is None and want_cross:
                        pair = _witness(ta, tb, True, possible)
                        if pair is not None:
                            cross = Conflict(first, second, pair, key, bool(crossed), same_warp=False)
                            return cross, inside
                    if inside is None and want_inside:
                        pair = _witness(ta, tb, False, possible)
                        if pair is not None:
                            inside = Conflict(first, second, pair, key, bool(crossed), same_warp=True)
    return cross, inside


def _advances_each_iteration(ev: Evaluation, terms: tuple, depth: int = 1) -> bool:
    """Do `terms` hold the induction unknown of a loop at nesting depth `depth` around the access
    (the evaluator's one uniform unknown for `i += step`, the same step in every thread), where the
    walk went round that loop and no loop around it? From one iteration to a later one it has moved
    by a nonzero multiple of the step (a step of zero would not advance the loop), so two accesses at
    the same offset from it in different iterations are at different addresses. Around an enclosing
    loop the inner one starts again, so nothing is claimed there."""
    evaluator = ev.evaluator
    if evaluator is None:
        return False
    table = evaluator.table
    for symbol, _ in terms:
        key = table.key_of(symbol)
        # the induction unknown itself, or a value computed from it (`(16 * i) & -16` after nvcc's
        # rounding, a quotient of it), which is not shown to repeat in a later iteration: no
        # same-address claim across iterations rests on it (a residue, `i % 2`, does repeat: it stays)
        if isinstance(key, tuple) and key[:1] != ("rotation",) \
                and _computed_from_induction(evaluator, symbol, depth, ev.instruction):
            return True
    return False


def _unfollowed_across_iterations(ev: Evaluation, terms: tuple) -> bool:
    """Do `terms` hold a loop-carried value that every thread updates alike in a way the analysis
    does not follow (lanes.py's "loopvar": `stage ^= 1` of a double buffer, `node = next[node]`)?
    Its value in a later iteration is not known, neither equal nor different: no address claim
    across iterations rests on it."""
    evaluator = ev.evaluator
    if evaluator is None:
        return False
    known = evaluator.__dict__.setdefault("_unfollowed_terms", {})
    found = known.get(terms)
    if found is None:
        table, cfg = evaluator.table, evaluator.ctx.cfg
        found = known[terms] = any(_mentions_induction(table, cfg, table.key_of(symbol), ("loopvar",))
                                   for symbol, _ in terms)
    return found


def _computed_from_induction(evaluator, symbol: str, depth: int = 1, instruction=None) -> bool:
    """Is a symbol the induction unknown of a loop at nesting depth `depth` that holds `instruction`,
    or does its key mention that unknown, directly or through the symbols in it? (Asked once per
    symbol, depth and block of an evaluator.)"""
    cfg = evaluator.ctx.cfg
    block = None if instruction is None else evaluator.function.block_of(instruction).id
    known = evaluator.__dict__.setdefault("_computed_from_induction", {})
    found = known.get((symbol, depth, block))
    if found is None:
        around = None if block is None else {h for h, _ in cfg.loops_containing(block)}
        found = known[(symbol, depth, block)] = _mentions_induction(
            evaluator.table, cfg, evaluator.table.key_of(symbol), depth=depth, around=around)
    return found


def _mentions_induction(table, cfg, key, kinds=("induction",), depth: int = 1, around=None) -> bool:
    """Does `key` mention a loop-carried unknown of one of `kinds`; for "induction", of a loop at
    nesting depth `depth` (whose header is in `around`, the headers of the loops around the access,
    where given)? An inner loop's induction starts again in each round of an outer one."""
    return any(len(item) == 3 and item[0] in kinds and not isinstance(item[1], tuple)
               and (item[0] != "induction" or (len(cfg.loops_containing(item[1])) == depth
                                               and (around is None or item[1] in around)))
               for item in S.key_tuples(table, [key]))


def _possible_pair(ea: Evaluation, eb: Evaluation, crossed, rejected: Optional[set] = None):
    """None when every pair of threads may run the two accesses together; else a test (t1, t2) ->
    bool that rejects the pairs whose conditions contradict: both accesses under unknown conditions
    that one run cannot satisfy at once (`if (x < n)` writer, `if (x >= n)` reader, x and n the same in
    both threads). Not across loop iterations: an unknown read in a loop may change between them.
    It also rejects the pairs with a thread whose reach is undecided (`Evaluation.undecided`),
    noting in `rejected` whether such a pair was cross-warp."""
    if not (ea.unsure or eb.unsure):
        return None
    undecided_a, undecided_b = ea.undecided, eb.undecided
    if crossed:
        pinned = _iteration_pins(ea, eb, crossed)
        if pinned is not None:
            return pinned
    if crossed and not (undecided_a or undecided_b):
        return None

    def key(ev: Evaluation, t: int):
        return (t // 32, ev.conditions[t] if t in ev.unsure else None)

    chosen: dict = {}  # id of a thread list (they live in the evaluations) -> its representatives

    def representatives(threads: list, ev: Evaluation) -> list:
        found = chosen.get((id(threads), id(ev)))
        if found is None:
            found = chosen[(id(threads), id(ev))] = _representatives(threads, ev, key)
        return found

    def possible(ta: list, tb: list, cross_warp: bool) -> Optional[tuple]:
        # threads of one warp under the same conditions answer alike: two of each kind suffice
        reps_a, reps_b = representatives(ta, ea), representatives(tb, eb)
        for t1 in reps_a:
            for t2 in reps_b:
                if t1 == t2 or (t1 // 32 != t2 // 32) != cross_warp:
                    continue
                if t1 in undecided_a or t2 in undecided_b:
                    if rejected is not None:
                        rejected.add(cross_warp)
                    continue
                if crossed or t1 not in ea.unsure and t2 not in eb.unsure:
                    return t1, t2
                if not contradict(ea.conditions[t1], eb.conditions[t2], ea.evaluator.table.key_of):
                    return t1, t2
        return None

    return possible


def _iteration_pins(ea: Evaluation, eb: Evaluation, crossed):
    """For two accesses in different iterations of a loop, a `possible` test (as _possible_pair's) when
    every thread of both reaches its access only where the loop's induction unknown I meets one
    equality, `K * I + rest + c_t == 0` (`if (index == n - 1)` in a grid-stride loop: each thread its
    own constant c_t, rest made of launch constants: parameters, block indices). From one iteration
    to another I moves by a nonzero integer, so threads t and u can both pass it only where c_u - c_t
    is a multiple of K (modulo the equality's width): `index == n - 1` is met by one thread in one
    iteration. None when that is not the shape of the conditions."""
    if ea.evaluator is None or eb.evaluator is not ea.evaluator or ea.undecided or eb.undecided:
        return None
    pins_a = _induction_pins(ea, crossed)
    pins_b = _induction_pins(eb, crossed) if pins_a else None
    if not pins_a or not pins_b:
        return None
    common = None
    for found in list(pins_a.values()) + list(pins_b.values()):
        common = set(found) if common is None else common & found.keys()
        if not common:
            return None
    key = min(common, key=repr)
    step = next(iter(pins_a.values()))[key][1]
    if step <= 1:
        return None

    def residue(pinned: dict, t: int) -> int:
        return pinned[t][key][0] % step

    def possible(ta: list, tb: list, cross_warp: bool) -> Optional[tuple]:
        by_residue: dict = {}
        for t2 in tb:
            by_residue.setdefault(residue(pins_b, t2), []).append(t2)
        for t1 in ta:
            for t2 in by_residue.get(residue(pins_a, t1), ()):
                if t1 != t2 and (t1 // 32 != t2 // 32) == cross_warp:
                    return t1, t2
        return None

    return possible


def _induction_pins(ev: Evaluation, crossed) -> Optional[dict]:
    """{thread: {(terms, modulus): (constant, step)}} of the equalities on one induction unknown of
    the loop `crossed` that each thread of `ev` needs to reach it (see _iteration_pins), or None when
    some thread needs none: the first thread without one ends the search. Kept per evaluation."""
    kept = ev.induction_pins
    if crossed in kept:
        return kept[crossed]
    evaluator = ev.evaluator
    key_of = evaluator.table.key_of

    def pins(t: int) -> dict:
        if t not in ev.unsure:
            return {}
        out = {}
        for (terms, modulus), constant in held_equalities(ev.conditions[t], key_of).items():
            kinds = [(key_of(sym) or ("",))[0] for sym, _ in terms]
            if kinds.count("induction") != 1 or not all(k == "induction" or _launch_constant(key_of(sym))
                                                        for k, (sym, _) in zip(kinds, terms)):
                continue
            sym, step = next((sym, c) for k, (sym, c) in zip(kinds, terms) if k == "induction")
            if _computed_from_induction(evaluator, sym, crossed, ev.instruction):
                out[(terms, modulus)] = (constant, gcd(step, modulus) if modulus else abs(step))
        return out

    found: Optional[dict] = {}
    if not ev.unsure:
        found = None
    else:
        for t in dict.fromkeys(t for at in ev.threads_at.values() for ts in at.values() for t in ts):
            pinned = pins(t)
            if not pinned:
                found = None
                break
            found[t] = pinned
    kept[crossed] = found
    return found


def _launch_constant(key) -> bool:
    """Is an unknown's key one the whole block holds from the launch on: a parameter, the block's
    index or the launch's extents?"""
    if not isinstance(key, tuple) or not key:
        return False
    return key[0] == "param" or (key[0] == "special" and len(key) > 1 and isinstance(key[1], str)
                                 and key[1].startswith(("%ctaid", "%nctaid", "%ntid")))


def _representatives(threads: list, ev: Evaluation, key) -> list:
    kept: dict = {}
    for t in threads:
        group = kept.setdefault(key(ev, t), [])
        if len(group) < 2:
            group.append(t)
    return [t for group in kept.values() for t in group]


def _witness(ta: list, tb: list, cross_warp: bool, possible=None) -> Optional[tuple]:
    if possible is not None:
        return possible(ta, tb, cross_warp)
    if cross_warp:
        warps_b = {}
        for t in tb:
            warps_b.setdefault(t // 32, t)
        for t1 in ta:
            for w, t2 in warps_b.items():
                if w != t1 // 32:
                    return t1, t2
        return None
    by_warp = {}
    for t in tb:
        by_warp.setdefault(t // 32, []).append(t)
    for t1 in ta:
        for t2 in by_warp.get(t1 // 32, ()):
            if t2 != t1:
                return t1, t2
    return None


def describe_thread(ctx, t: int) -> str:
    x, y, z = ctx.launch.thread_ids()[t] if t < ctx.launch.threads else (t, 0, 0)
    dims = ctx.launch.dims
    coords = f"threadIdx.x={x}" if dims[1] == 1 and dims[2] == 1 else f"threadIdx=({x},{y},{z})"
    return f"thread {t} ({coords}, warp {t // 32} lane {t % 32})"


def conflict_notes(ctx, c: Conflict) -> list:
    t1, t2 = c.threads
    a, b = c.first.instruction, c.second.instruction
    verb = {"read": "reads", "write": "writes", "atomic": "atomically updates"}
    loop = " in the next iteration of the loop" if c.crossed_loop else ""
    offset = _offset_text(ctx, c)
    if c.values is not None:
        v1, v2 = (_value_text(ctx, v) for v in c.values)
        return [f"{describe_thread(ctx, t1)} writes {v1} and {describe_thread(ctx, t2)} writes {v2} to {offset} "
                f"in one execution of the store at {where(a)} (PTX line {a.ptx_line}): which value remains is "
                "undefined"]
    return [
        f"{describe_thread(ctx, t1)} {verb[c.first.kind]} {offset} at {where(a)} (PTX line {a.ptx_line}); "
        f"{describe_thread(ctx, t2)} {verb[c.second.kind]} it at {where(b)} (PTX line {b.ptx_line}){loop}",
    ]


@register(
    "RACE001", "shared-memory-race", "error",
    "Two threads of a block access the same shared memory, one writing, with no barrier between.",
    RuleDoc(
        what_it_does="""
Computes, for every thread of the block, the shared-memory bytes each load, store and atomic touches,
and finds pairs of accesses by threads of different warps to the same bytes, at least one a write,
on a path with no `__syncthreads()` between them (read-after-write, write-after-read,
write-after-write, also from one loop iteration to the next), or on the two sides of a branch that
threads of the block take differently (`if (t == 0) flag = x; else y = flag;`). Reports both
instructions, their lines and a concrete pair of threads. An access before a loop whose iterations
each end at a barrier meets the loop's accesses only as its first iteration makes them: a counter
thread 0 sets before the loop, updated in iteration i by the owner of item i (thread `i %
blockDim.x`), meets only item 0's owner, thread 0 itself. From one iteration of a loop to the next,
its counter (`w += blockDim.x / 32`) has moved, so accesses at the same offset from it are at other
addresses; for a loop inside another, that holds going round the inner loop's own back edge, not
round the outer loop's, where the inner loop starts again.

One store is also a race with itself when two of its threads (lanes of one warp, or threads of
different warps) write *different* values to the same bytes (compute-sanitizer's racecheck reports it
as a WAW hazard): the finding names the two threads, the byte and both values. Threads storing the
same value are not a race; values from run-time data (loads, atomics) are not known to differ and are
not reported. Two stores of one constant (`updated = true` by every thread that found an update, also
from one loop iteration to the next) are no write-write race either: the bytes end up holding it;
nor is a read that only decides whether its thread stores that constant to the word it read (`if
(!seen[k]) seen[k] = 1;`) when every write between the same two barriers stores it. A
value that is the same in every thread of the block (a block reduction's total: xor-butterfly
shuffles over per-warp partials read back from shared memory), stored by every thread to one word
and read back by each thread after its own store in the same pass (`scale = block_sum(x); ... *
scale`), is no race: whichever copy a reader sees holds the value it stored itself.

A kernel's own check on a value every thread shares, made on every thread's way to the end
(`assert(n <= 32)`, `if (n > 32) __trap();`), holds for the whole launch: one that breaks it aborts
there. It bounds `n` as `min(n, 32)` would, so `if (tid < n) head[tid] = ...` never spills into the
array after `head`; the finding's notes name the check where it decided a thread.

A warp spinning on a `volatile` shared flag until another warp stores it (`while (s->ready == 0);`)
is no race: the loop ends whichever order they run in (as RACE003 treats a spin-wait on global
memory); a volatile flag read once, not waited on, still is.

Unknown means unknown: a pair collides only where both addresses are known for it. Accesses whose
addresses depend on run-time data (loaded values, binary-search ranks, scan offsets, atomics' results)
are skipped and counted as "not checked". A read whose value only a shuffle hands on
(`s[t] += __shfl_sync(mask, s[t - 1], 1)`) counts only in the lanes the shuffle takes it from: the
other lanes' reads reach no result. Threads that provably do not reach an access (predicates
are evaluated per thread in three-valued logic: `true || unknown` is true) do not take part, and a
pair whose conditions contradict each other (`if (x < n)` writer, `if (x >= n)` reader, with x and n
the same in both threads) is not a race.

Unknown reach is not reach when the kernel made the unknown: a thread whose access is guarded by a
per-thread value the kernel computed at run time (read back from shared memory, an atomic's result)
is no witness, since such values carry invariants ptxlint does not follow (`if (t - head >= offset)`
in a segmented scan, the head read back from shared memory and never above `t`, keeps out exactly
the threads whose index `t - offset` would fall in the other half of a ping-pong buffer;
`if (atomicAdd(&n, 1) == 0)` holds in one thread). Such pairs are counted as "not checked". A guard on
input data (global memory, parameters) still counts: some input lets any two threads pass it.
""",
        why_is_this_bad="""
Without a barrier, nothing orders the two accesses: the reader may see the old or the new value,
and the result changes from run to run and between GPUs. compute-sanitizer's racecheck finds these
only for the inputs it runs; this rule finds them for every input.
""",
        example="""
s[threadIdx.x] = in[i];
out[i] = s[(threadIdx.x + 1) % blockDim.x];   // the neighbour may not have written yet
""",
        use_instead="""
s[threadIdx.x] = in[i];
__syncthreads();
out[i] = s[(threadIdx.x + 1) % blockDim.x];
""",
    ),
)
def check_shared_race(ctx):
    conflicts = shared_conflicts(ctx)
    ctx.not_checked["RACE001"] = conflicts["not_checked"]["RACE001"]
    ctx.not_checked[UNDECIDED_REACH["RACE001"]] = conflicts["not_checked"][UNDECIDED_REACH["RACE001"]]
    by_position: dict = {}
    for c in conflicts["block"] + conflicts["lanes"]:
        by_position.setdefault(ctx.position(c.second.instruction), []).append(c)
    for position, group in sorted(by_position.items(), key=lambda kv: (kv[0][1] or 0, kv[0][2] or 0)):
        group.sort(key=lambda x: x.same_warp)  # a pair of warps first
        c = group[0]
        a, b = c.first.instruction, c.second.instruction
        if c.values is not None:
            scope = (f"lanes {c.threads[0] % 32} and {c.threads[1] % 32} of warp {c.threads[0] // 32}" if c.same_warp
                     else f"threads {c.threads[0]} and {c.threads[1]} (different warps)")
            v1, v2 = (_value_text(ctx, v) for v in c.values)
            message = (f"shared-memory race (WAW): {scope} write different values ({v1} and {v2}) to "
                       f"{_offset_text(ctx, c)} in one execution of the store at {where(b)}")
        else:
            message = (f"shared-memory race ({c.hazard}): {_what(c.second)} at {where(b)} and {_what(c.first)} at "
                       f"{where(a)} touch the same address from different warps with no barrier between")
        notes = conflict_notes(ctx, c)
        others = sorted({where(x.first.instruction) for x in group[1:]} - {where(a)})
        if others:
            notes.append(f"also races with the accesses at {', '.join(others)}")
        notes += sorted(set(c.first.notes) | set(c.second.notes)) + conflicts["notes"]
        fix = ("put `__syncthreads()` between the two accesses (for a write-after-read in a loop: a barrier "
               "after the reads as well as after the writes), or use an atomic")
        if c.values is not None:
            fix = ("give each thread its own address, let one thread store (or store a value that is the same in "
                   "every thread), or pick the winner with an atomic (atomicMax, atomicCAS)")
        yield diagnostic(ctx, "RACE001", "error", b, message, notes, fix,
                         {"hazard": c.hazard, "threads": list(c.threads),
                          "lines": sorted({ctx.position(x.first.instruction)[1] for x in group} | {position[1]}),
                          "ptx_lines": [a.ptx_line, b.ptx_line], "same_store": c.values is not None,
                          **({"values": [_value_text(ctx, v) for v in c.values]} if c.values is not None else {})})


def _offset_text(ctx, c: Conflict) -> str:
    terms, byte = c.offset
    names = {source_name(ctx.lanes.shared_symbols[s]) for s, _ in terms if s in ctx.lanes.shared_symbols}
    if names:
        return f"byte {byte} of `{', '.join(sorted(names))}`"
    if c.first.instruction.space == "shared":
        return f"shared byte {byte}"
    return f"global byte {byte} (from the array's base)"


def _value_text(ctx, value: tuple) -> str:
    parts = [S.describe(v, ctx.lanes.table) for v in value]
    return parts[0] if len(parts) == 1 else "{" + ", ".join(parts) + "}"


def _what(site: SharedSite) -> str:
    return {"read": "the read", "write": "the write", "atomic": "the atomic"}[site.kind]
