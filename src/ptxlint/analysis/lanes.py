"""The per-lane symbolic evaluator: the value of a register for every thread of the block.

Threads are numbered linearly (x + y*Dx + z*Dx*Dy); warp w holds threads 32w..32w+31. Values are
`symbolic.Value`s, one per thread, in the vector forms of lane_values.py (the value domain: this
module reads the IR and, for each opcode, combines values there). Evaluation follows reaching
definitions backwards from a use, memoised per (definition, register). Whatever the evaluator had
to assume is recorded as a note that travels with the result, so a finding can say it.
"""

from __future__ import annotations

import sys
from itertools import repeat
from math import gcd
from time import process_time
from typing import Optional

from ..frontend.launch_expr import Multiple, factor_of
from ..frontend.launches.launch import LaunchShare
from ..frontend.sourcemap import user_line
from ..frontend.ir import (
    Immediate, Instruction, Negated, PairOperand, Register, Symbol, VectorOperand,
)
from . import predicates as P
from . import symbolic as S
from .lane_values import (
    AFFINE_OPS, Affine, COMPARE, CONCRETE_OPS, PURE_OPS, SIGNED, Varying, all_distinct_unknowns, apply_per_distinct,
    as_affine, bits_of, disjoint_bits_sum, exact_quotient, low_bits_changed, masked_away, single_symbol,
    uniform_const, uniform_vector, where_predicate, with_low_bits, wrap_consts,
)
from .budget import PartExhausted, part_budget, remaining, spend
from .cfg import ENTRY, EXIT
from .loops import latches as loop_latches, value_after
from .uniformity import is_ordered_load, observes_changing_memory
from .spaces import access_space, sole_local_store, thread_dependent_local_store
from .warpops import broadcasts_per_warp, is_barrier_reduction, shuffle_mode, shuffle_source

# Definitions evaluated inside one another before the inputs of the next are evaluated first,
# iteratively (`_prefetch`): a chain of definitions as long as the kernel never recurses deeper.
_DEPTH_BEFORE_PREFETCH = 150
# the iteration number of the evaluator that _updated_alike probes a loop with (real ones count from 0)
PROBE_ITERATION = -1
# the share of a kernel's remaining analysis budget its loop-state probes may spend together
PROBE_SHARE = 0.4


def _alike_in_warps(values) -> bool:
    """Does every warp (32 consecutive threads) hold one value throughout?"""
    return all(values[t] == values[t - t % 32] for t in range(len(values)))


def _value_multiple(v) -> int:
    """The largest M that divides the known part and every coefficient of a symbolic value (0 for 0)."""
    found = v[0]
    for _, coef in v[1]:
        found = gcd(found, coef)
    return abs(found)


def _latest_run(flags: tuple, runs_after) -> Optional[int]:
    """Of the definitions a thread ran (`flags[k]` True; None: it may or may not have), the one it ran
    last, which a join hands it: the one the others it ran come before (`runs_after(k, j)`: j runs
    after k wherever both run). None where that is not one definition, or where a definition it may
    have run could come after it (a loop body entered on an unknown condition may overwrite the value
    from before the loop)."""
    chosen = [k for k, f in enumerate(flags) if f is True]
    if len(chosen) > 1:
        chosen = [k for k in chosen if not any(runs_after(k, j) for j in chosen)]
    if len(chosen) != 1:
        return None
    if any(f is None and not runs_after(k, chosen[0]) for k, f in enumerate(flags)):
        return None
    return chosen[0]


class LaneEvaluator:
    """Answers: what value does this operand have in each thread, and which threads execute here."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.function = ctx.function
        self.shape = ctx.launch
        self.threads = self.shape.thread_ids()
        self.n = len(self.threads)
        self.table = S.SymbolTable()
        self._memo: dict = {}
        self._in_progress: set = set()
        self._probing: set = set()  # (loop header, register) whose updates _updated_alike is testing
        self._alike: dict = {}  # its answers (shared with iteration evaluators)
        self._notes: list = [set()]
        self._block_active: dict = {}
        self._block_notes: dict = {}
        self._depth = [0]  # definitions being evaluated inside one another (shared with iteration evaluators)
        self._rpo: Optional[dict] = None  # block id -> position in reverse postorder
        self.shared_symbols: dict = {}  # symbol -> variable name, for shared variables
        self._variables = {v.name: v for v in ctx.module.variables}
        self._variables.update({v.name: v for v in self.function.variables})
        self._kernel_params = {p.name for p in self.function.params} if self.function.is_kernel else set()
        self._site = None
        # kernel parameter position -> the one value every launch of this shape passes, or the
        # Multiple they all are, for the parameters a query has read so (`_passed_value`): what a
        # finding assumed
        self.passed_parameters: dict = {}
        self.one_block_axes: set = set()  # grid axes read as one block (`_special`)
        # symbol -> bounds (("min" or "max", k, signed, why), ...): the value is at most (least) k;
        # from min(k, x) / max(k, x) (why None), or from the kernel's own assert or trap (why says which)
        self.bounds: dict = {}
        self._facts_read = False  # the assertion facts are in `bounds` (`_read_assertion_facts`)
        self._fact_checks: set = set()  # id() of the comparisons they come from (not decided by them)
        self.variable_symbols: dict = {}  # symbol -> variable name, for every declared variable
        self.booleans: set = set()  # symbols (and per-thread symbol bases) that hold a predicate: 0 or 1
        self.nonzero: set = set()  # symbols known not to be 0 (`x | 1`)
        # symbol of %nctaid.x/y/z -> the block's threads along that axis: a grid has at least one
        # block, and fewer than 2**31 threads along an axis (what a 32-bit global index assumes)
        self.grid_extents: dict = {}
        # vectors of one unknown per thread, by key (`_opaque_per_thread`, `_canonical_per_thread`)
        self._opaque_vectors: dict = {}
        self.rotations: dict = {}  # symbol of `(c + U) mod d` -> (terms of U, d, c mod d)
        self._block_conditions: dict = {}  # block id -> per thread, the literals its arrival requires
        # set on evaluators made by `for_iteration`: one iteration of one loop, values pinned
        self.iteration: Optional[LoopIteration] = None
        self._shared_memo: dict = self._memo  # memo for definitions outside the pinned loop
        self._prefetching: set = set()  # definitions whose inputs `_prefetch` is evaluating
        if sys.getrecursionlimit() < 20000:
            sys.setrecursionlimit(20000)

    # ---- notes
    def _note(self, text: str) -> None:
        self._notes[-1].add(text)

    def collect(self, fn, *args):
        """Run fn(*args) and return (result, notes made while computing it)."""
        self._notes.append(set())
        try:
            result = fn(*args)
        finally:
            notes = self._notes.pop()
        self._notes[-1] |= notes
        return result, notes

    # ---- public queries
    def operand(self, ins: Instruction, operand) -> list:
        """Per-thread values of a source operand of `ins`."""
        if isinstance(operand, Register):
            return self.register(ins, operand)
        if isinstance(operand, Immediate):
            value = operand.value if isinstance(operand.value, int) else self._float_symbol(operand)
            return uniform_vector(S.const(value) if isinstance(value, int) else value, self.n)
        if isinstance(operand, Symbol):
            if operand.name == "WARP_SZ":  # PTX's predefined constant: the warp size
                return uniform_vector(S.const(32), self.n)
            return uniform_vector(self._symbol_address(operand.name), self.n)
        if isinstance(operand, Negated):
            return self._predicates(P.p_not, self.operand(ins, operand.operand))
        return [self._opaque(("operand", str(operand)))] * self.n

    def address(self, ins: Instruction) -> Optional[list]:
        """Per-thread byte address of the memory operand of `ins` (None if it has none)."""
        mem = ins.memory_operand()
        if mem is None:
            return None
        if mem.base is None:
            base = uniform_vector(S.ZERO, self.n)
        elif isinstance(mem.base, Register):
            base = self.register(ins, mem.base)
        else:
            base = uniform_vector(self._symbol_address(mem.base.name), self.n)
        if mem.offset:
            if type(base) is Affine:
                return Affine([c + mem.offset for c in base.consts], base.terms)
            if type(base) is Varying:
                return base.plus(mem.offset)
            return [(c + mem.offset, terms) for c, terms in base]
        return base

    def active(self, ins: Instruction) -> list:
        """Per thread: True (executes `ins`), False (does not), None (unknown; assumed to)."""
        block = self.function.block_of(ins)
        reach = self.block_active(block.id)
        if ins.guard is None:
            return reach
        out, unknown = where_predicate(reach, self.register(ins, ins.guard), not ins.guard_negated)
        if unknown:
            self._note(f"the guard {'!' if ins.guard_negated else ''}{ins.guard.source_name} (PTX line {ins.ptx_line}) "
                       "depends on values unknown here; lanes are assumed to execute it")
        return out

    def block_active(self, block_id) -> list:
        """Per thread: does it reach this block (forward edges only: loop bodies count once)."""
        found = self._block_active.get(block_id)
        if found is None:
            self._fill_block_active(block_id)
            found = self._block_active[block_id]
        self._notes[-1] |= self._block_notes.get(block_id, set())
        return found

    def _fill_block_active(self, block_id) -> None:
        """Activity of `block_id` and of every block it is computed from, those first, with an
        explicit stack: a kernel of thousands of early exits is a chain of thousands of blocks."""
        memo = self._block_active
        stack = [block_id]
        while stack:
            b = stack[-1]
            if b in memo:
                stack.pop()
                continue
            missing = [d for d in self._activity_inputs(b) if d not in memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            spend()
            result, notes = self.collect(self._compute_block_active, b)
            memo[b] = result
            self._block_notes[b] = notes

    def _forward_order(self) -> dict:
        if self._rpo is None:
            self._rpo = {b: i for i, b in enumerate(self.ctx.cfg.reverse_postorder)}
        return self._rpo

    def _is_forward(self, pred, block_id) -> bool:
        """Is pred -> block_id followed for activity? Not a back edge, nor any edge against the
        reverse postorder (a loop entered in the middle, irreducible, has such edges that are not
        back edges), nor from a block no thread reaches."""
        order = self._forward_order()
        return (pred, block_id) not in self.ctx.cfg.back_edges and pred in order \
            and order[pred] < order[block_id]

    def _activity_inputs(self, block_id) -> list:
        """The blocks whose activity `_compute_block_active(block_id)` reads (earlier in the
        reverse postorder, so that the computation never waits on itself)."""
        if self.iteration is not None and block_id == self.iteration.header:
            return []
        if block_id not in self._forward_order():
            return []
        cfg = self.ctx.cfg
        idom = cfg.dominators.get(block_id)
        if idom is not None and idom != block_id and idom != ENTRY and cfg.postdominates(block_id, idom) \
                and (idom, block_id) not in cfg.back_edges:
            return [idom]
        return [p for p in cfg.predecessors(block_id) if p != ENTRY and self._is_forward(p, block_id)]

    def _compute_block_active(self, block_id) -> list:
        if self.iteration is not None and block_id == self.iteration.header:
            return self.iteration.active
        cfg = self.ctx.cfg
        n = self.n
        if block_id not in self._forward_order():
            return [False] * n  # unreachable from the entry: no thread runs it
        # a block that post-dominates its immediate dominator runs whenever the dominator does
        # (the join after an if/else), whatever the branch conditions were
        idom = cfg.dominators.get(block_id)
        if self._joins_after(idom, block_id):
            return self.block_active(idom)
        acc = [False] * n
        any_pred = False
        for pred in cfg.predecessors(block_id):
            if pred != ENTRY and not self._is_forward(pred, block_id):
                continue
            any_pred = True
            if pred == ENTRY:
                return [True] * n
            reach = self.block_active(pred)
            cond = cfg.edge_condition(pred, block_id)
            if cond is None:
                taken = reach
            else:
                reg, value = cond
                branch = self.function.blocks[pred].instructions[-1]
                taken, unknown = where_predicate(reach, self.register(branch, reg), value)
                if unknown:
                    self._note(self._unknown_branch_note(branch, reg))
            acc = [a if a is True else (t if t is not False else a) for a, t in zip(acc, taken)]
        if not any_pred:
            return [False] * n
        return acc

    def _joins_after(self, idom, block_id) -> bool:
        """Does every thread that runs `idom` run `block_id` (a join after an if/else that post-
        dominates its immediate dominator)? Not where a path between them left out code that traps
        (cfg.py): the threads that go on are those whose conditions avoided it."""
        cfg = self.ctx.cfg
        if idom is None or idom == block_id or idom == ENTRY or not cfg.postdominates(block_id, idom) \
                or (idom, block_id) in cfg.back_edges:
            return False
        return not any(cfg.dominates(idom, src) and cfg.dominates(src, block_id) for src, _, _ in cfg.pruned_edges)

    def reach_conditions(self, ins: Instruction) -> list:
        """Per thread: the literals (predicate value, wanted truth; see predicates.py) that must hold
        for the thread to execute `ins`, from the unknown branch conditions and guard on its way.
        Only threads whose `active` is None have any: for the others the answer is known."""
        block = self.function.block_of(ins).id
        conds = self.block_conditions(block)
        if ins.guard is None:
            return conds
        guard = self.register(ins, ins.guard)
        want = not ins.guard_negated
        return apply_per_distinct(lambda c, v: c if P.known_truth(v) is not None else c | {P.literal(v, want)},
                                   list(zip(conds, guard)))

    def block_conditions(self, block_id) -> list:
        """`reach_conditions` of a block's first instruction (forward edges only, as `block_active`)."""
        found = self._block_conditions.get(block_id)
        if found is None:
            self._notes.append(set())  # the values it reads were noted where they decided an access
            try:
                found = self._compute_block_conditions(block_id)
            finally:
                self._notes.pop()
            self._block_conditions[block_id] = found
        return found

    def _compute_block_conditions(self, block_id) -> list:
        cfg = self.ctx.cfg
        n = self.n
        none = frozenset()
        idom = cfg.dominators.get(block_id)
        if self._joins_after(idom, block_id):
            return self.block_conditions(idom)
        acc = [None] * n  # per thread: the literals common to every edge it may arrive by
        for pred in cfg.predecessors(block_id):
            if (pred, block_id) in cfg.back_edges:
                continue
            if pred == ENTRY:
                return [none] * n
            reach = self.block_active(pred)
            conds = self.block_conditions(pred)
            cond = cfg.edge_condition(pred, block_id)
            if cond is None:
                edge = [c if r is not False else None for r, c in zip(reach, conds)]
            else:
                reg, want = cond
                values = self.register(self.function.blocks[pred].instructions[-1], reg)

                def arrive(r, c, v, want=want):
                    if r is False:
                        return None
                    truth = P.known_truth(v)
                    if truth is None:
                        return c | {P.literal(v, want)}
                    return c if truth == want else None

                edge = apply_per_distinct(arrive, list(zip(reach, conds, values)))
            acc = [e if a is None else (a if e is None else a & e) for a, e in zip(acc, edge)]
        return [a if a is not None else none for a in acc]

    def _executes(self, ins: Instruction) -> list:
        """`active(ins)` without notes: for definitions, whose reach is not an access's."""
        self._notes.append(set())
        try:
            return self.active(ins)
        finally:
            self._notes.pop()

    def _unknown_branch_note(self, branch: Instruction, reg: Register) -> str:
        where = f"line {branch.loc.line}" if branch.loc else f"PTX line {branch.ptx_line}"
        return (f"the branch at {where} (on {reg.source_name}) depends on values unknown here; "
                "threads are assumed to take the path that reaches this access")

    # ---- loops
    def for_iteration(self, header, body: frozenset, values: dict, active: list, number: int = 0) -> "LaneEvaluator":
        """An evaluator for one iteration of the loop at `header`: loop-carried registers hold
        `values`, the threads in `active` run it. Definitions outside the loop are shared."""
        child = LaneEvaluator.__new__(LaneEvaluator)
        child.__dict__.update(self.__dict__)
        child.iteration = LoopIteration(header, body, values, active, number)
        child._memo = {}
        child._shared_memo = self._shared_memo
        # read through to this evaluator's activity outside the loop instead of copying it (a copy
        # per iteration made kernels of many loops quadratic)
        child._block_active = _LayeredMemo(self._block_active, body)
        child._block_notes = _LayeredMemo(self._block_notes, frozenset())
        child._block_conditions = _LayeredMemo(self._block_conditions, body)
        child._notes = [set()]
        child._in_progress = set()
        child._prefetching = set()
        return child

    # ---- registers
    def register(self, ins: Instruction, reg: Register) -> list:
        special = self._special(reg)
        if special is not None:
            return special
        defs = self.ctx.dataflow.definitions(ins, reg)
        if not defs:
            if reg.name in self.function.registers or reg.name.rstrip("0123456789") in self.function.register_ranges:
                self._note(f"{reg.source_name} is read before any write reaches it; treated as unknown")
            return self._uniform_unknown(("undefined", reg.name), f"undefined {reg.source_name}")
        if len(defs) == 1:
            return self._definition(defs[0], reg)
        return self._join(ins, reg, defs)

    def _memo_for(self, index: int) -> dict:
        """Inside a pinned loop iteration, definitions in the loop body have values of their own."""
        it = self.iteration
        if it is not None and self.function.block_of(self.function.instructions[index]).id in it.body:
            return self._memo
        return self._shared_memo

    def _definition(self, index: int, reg: Register) -> list:
        key = (index, reg.name)
        memo = self._memo_for(index)
        found = memo.get(key)
        if found is not None:
            self._notes[-1] |= found[1]
            return found[0]
        if key in self._in_progress:
            # a value that feeds itself around a loop: the loop join handles it
            return self._fresh(("cycle", key), f"the loop-carried value of {reg.source_name}")
        spend()
        depth = self._depth
        if depth[0] >= _DEPTH_BEFORE_PREFETCH and key not in self._prefetching:
            # the definitions being prefetched are not prefetched again when their evaluation comes
            # back to them around a loop (two loop-carried registers computed from each other made
            # each prefetch start the other's, 10,000 calls deep, in CGBN's bignum loops)
            self._prefetching.add(key)
            try:
                self._prefetch(index, reg)
            finally:
                self._prefetching.discard(key)
            found = memo.get(key)
            if found is not None:
                self._notes[-1] |= found[1]
                return found[0]
        self._in_progress.add(key)
        depth[0] += 1
        # the definition being evaluated names the unknowns it derives (`_site`); a definition
        # evaluated inside it must hand that name back, or two values share one unknown
        outer_site = self._site
        try:
            values, notes = self.collect(self._evaluate_definition, self.function.instructions[index], reg)
        finally:
            self._in_progress.discard(key)
            depth[0] -= 1
            self._site = outer_site
        if self._is_predicate(reg):
            self._mark_boolean(values)
        memo[key] = (values, notes)
        return values

    def _prefetch(self, index: int, reg: Register) -> None:
        """Evaluate the definitions that the definition of `reg` at `index` is computed from, the
        deepest first, with an explicit stack; evaluating it afterwards finds them memoised
        instead of recursing once per link of the chain. Their notes are kept with their values
        (and reach a result only through the values it uses)."""
        dataflow, instructions = self.ctx.dataflow, self.function.instructions
        on_path = {(index, reg.name)}
        order = []
        stack = [(index, reg.name, None)]
        while stack:
            i, name, pending = stack[-1]
            if pending is None:
                spend()
                ins = instructions[i]
                pending = []
                read = ins.sources()
                for r in read[:-1] if ins.guard is not None else read:  # the guard is not an input of the value
                    if not r.is_special:
                        pending.extend((d, r.name) for d in dataflow.definitions(ins, r))
                stack[-1] = (i, name, pending)
            while pending:
                d, rname = pending.pop()
                node = (d, rname)
                if node in on_path or node in self._in_progress or node in self._prefetching \
                        or node in self._memo_for(d):
                    continue
                on_path.add(node)
                stack.append((d, rname, None))
                break
            else:
                stack.pop()
                order.append((i, name))
        self._notes.append(set())
        try:
            for i, name in order[:-1]:  # the last one is the definition asked for
                self._definition(i, Register(name))
        finally:
            self._notes.pop()

    def _is_predicate(self, reg: Register) -> bool:
        return self.function.register_type(reg.name) == "pred"

    def _mark_boolean(self, values) -> None:
        """Every unknown a predicate register holds is 0 or 1 (what `boolean_compare` relies on)."""
        if type(values) is Varying:
            self.booleans.add(values.base)
            return
        for terms in ({values.terms} if type(values) is Affine else {v[1] for v in values}):
            for sym, _ in terms:
                self.booleans.add(sym.split("#", 1)[0])

    def is_boolean(self, sym: str) -> bool:
        return sym.split("#", 1)[0] in self.booleans

    def _join(self, ins: Instruction, reg: Register, defs: list) -> list:
        cfg = self.ctx.cfg
        fn = self.function
        use_block = fn.block_of(ins).id
        loops = cfg.loops_containing(use_block)
        for header, body in sorted(loops, key=lambda hb: len(hb[1])):
            inside = [d for d in defs if fn.block_of(fn.instructions[d]).id in body]
            outside = [d for d in defs if d not in inside]
            if inside and outside:
                within = self._defs_in_this_iteration(ins, header, body, inside)
                if within:
                    return self._join_in_iteration(ins, reg, header, within)
                return self._induction(reg, header, inside, outside)
        after = self._after_followed_loop(use_block, reg, defs)
        if after is not None:
            return after
        vectors = [self._definition(d, reg) for d in defs]
        if all(v == vectors[0] for v in vectors[1:]):
            return vectors[0]
        # a join after a branch: each thread takes the definition on the path it executed;
        # where several are, the one that the others dominate (the latest) wins
        actives = [self._executes(fn.instructions[d]) for d in defs]
        k_range = range(len(defs))
        # (k, j) -> j runs after k wherever both run (j's block is dominated by k's, or j is later in
        # one block); asked only for the few definitions a pattern of threads has (a join of hundreds
        # of definitions, an unrolled insertion, would otherwise ask every pair at every join)
        after: dict = {}

        def shadows(k: int, j: int) -> bool:
            found = after.get((k, j))
            if found is None:
                found = after[(k, j)] = cfg.runs_before(fn.instructions[defs[k]], fn.instructions[defs[j]])
            return found

        def choose(*flags) -> Optional[int]:
            if True not in flags:
                # a thread that reaches the use got its value from the one definition it may run
                # (where whether it runs that one is unknown, it runs no other)
                maybe = [k for k in k_range if flags[k] is None]
                return maybe[0] if len(maybe) == 1 else None
            return _latest_run(flags, shadows)

        # threads fall into a few patterns of reached definitions
        choice = apply_per_distinct(choose, list(zip(*actives)))
        if choice.count(choice[0]) == self.n and choice[0] is not None:
            return vectors[choice[0]]
        unresolved = choice.count(None)
        used = {k for k in choice if k is not None}
        if unresolved:
            same = self._same_path_join(ins, reg, defs, vectors)
            if same is None:
                same = self._path_select_join(ins, reg, defs, vectors, choice)
            if same is None and unresolved == self.n:
                same = self._uniform_path_join(ins, reg, defs, vectors, actives)
            if same is None:
                same = self._same_path_join_per_warp(ins, reg, defs, vectors)
            if same is not None:
                return same
        fresh = self._fresh(("join", ins.index, reg.name), f"{reg.source_name} after the paths merge")
        if unresolved:
            self._note(f"{reg.source_name} at PTX line {ins.ptx_line} merges values from several paths; "
                       "some threads' values are unknown")
        if unresolved == self.n or any(type(vectors[k]) is Varying for k in used):
            return fresh  # per-thread unknowns on some path: unknown in every thread
        if not unresolved:
            affines = {k: as_affine(vectors[k]) for k in used}
            terms = {a.terms for a in affines.values() if a is not None}
            if all(a is not None for a in affines.values()) and len(terms) == 1:
                return Affine([affines[k].consts[t] for t, k in enumerate(choice)], terms.pop())
        return [vectors[k][t] if k is not None else fresh[t] for t, k in enumerate(choice)]

    def _defs_in_this_iteration(self, use: Instruction, header, body, inside: list) -> list:
        """The definitions of `inside` (in the loop at `header`) that reach `use` within one
        iteration, on a path that does not go round the loop again: `if (lane == 0) t = atomicAdd(...);
        t = __shfl_sync(~0u, t, 0);` reads lane 0's new `t` at the shuffle, and the header's value in
        the other lanes."""
        fn = self.function
        use_block = fn.block_of(use).id
        reaching = None
        found = []
        for d in inside:
            block = fn.block_of(fn.instructions[d]).id
            if block == use_block:
                if d < use.index:
                    found.append(d)
                continue
            if use_block == header:
                continue  # another block reaches the header only by going round the loop
            if reaching is None:
                reaching = self.ctx.cfg.reaching_in_iteration(header, use_block)
            if block in reaching:
                found.append(d)
        return found

    def _join_in_iteration(self, ins: Instruction, reg: Register, header, within: list) -> list:
        """The value of `reg` at `ins` where the definitions `within` reach it in this iteration on
        some paths and the loop header's value on the others: each thread takes the latest of those
        it ran, else the header's value; a thread that may or may not have run one is an unknown."""
        fn, cfg = self.function, self.ctx.cfg
        head = fn.blocks[header].instructions[0]
        start = self.register(head, reg)
        vectors = [self._definition(d, reg) for d in within]
        actives = [self._executes(fn.instructions[d]) for d in within]

        def runs_after(k: int, j: int) -> bool:  # does definition j run after k wherever it runs?
            return cfg.runs_before(fn.instructions[within[k]], fn.instructions[within[j]])

        def choose(*flags) -> Optional[int]:
            if True not in flags:
                return -1 if None not in flags else None
            return _latest_run(flags, runs_after)

        choice = apply_per_distinct(choose, list(zip(*actives)))
        if all(k == -1 for k in choice):
            return start
        fresh = None
        out = []
        for t, k in enumerate(choice):
            if k is None:
                if fresh is None:
                    fresh = self._fresh(("join", ins.index, reg.name), f"{reg.source_name} after the paths merge")
                    self._note(f"{reg.source_name} at PTX line {ins.ptx_line} merges values from several paths; "
                               "some threads' values are unknown")
                out.append(fresh[t])
            else:
                out.append(start[t] if k == -1 else vectors[k][t])
        return as_affine(out) or out

    def _same_path_join(self, ins: Instruction, reg: Register, defs: list, vectors: list) -> Optional[list]:
        """One unknown for every thread when they all take the same (unknown) path to the join: each
        reaching definition holds one value in every thread, and every branch between the join's
        immediate dominator and the join, and every guard of a definition, is one value in every
        thread (nvcc's 32-/64-bit division paths on a uniform operand). None otherwise."""
        if self._deciding_values(ins, defs, vectors, S.uniform_across) is None:
            return None
        use_block = self.function.block_of(ins).id
        key = ("same-path-join", use_block, reg.name, tuple(defs), tuple(v[0] for v in vectors)) + self._instance(ins)
        return self._uniform_unknown(key, f"{reg.source_name} after paths that every thread takes alike")

    def _same_path_join_per_warp(self, ins: Instruction, reg: Register, defs: list, vectors: list) -> Optional[list]:
        """`_same_path_join` for one warp at a time: when each reaching definition and each branch or
        guard deciding between them holds one value in every lane of a warp (a ballot, a shuffle
        from a lane the whole warp names, and tests of them: CGBN's `bfind` of a vote and its
        broadcast), the lanes of a warp bring one definition with one value, so the join is one
        unknown per warp (one per combination of the warp's values). None otherwise."""
        decided = self._deciding_values(ins, defs, vectors, _alike_in_warps)
        if decided is None:
            return None
        use_block = self.function.block_of(ins).id
        base = ("same-path-join-warp", use_block, reg.name, tuple(defs)) + self._instance(ins)
        out = []
        for w in range(0, self.n, 32):
            key = base + (tuple(v[w] for v in vectors), tuple(d[w] for d in decided))
            value = self.table.value(key, f"{reg.source_name} after paths that the lanes of a warp take alike")
            out.extend([value] * min(32, self.n - w))
        return out

    def _deciding_values(self, ins: Instruction, defs: list, vectors: list, alike) -> Optional[list]:
        """The per-thread values of what decides which of `defs` a thread brings to the join
        (`_join_deciders`), when those and the joined `vectors` are all `alike` (one value in the
        block: S.uniform_across; in each warp: _alike_in_warps); None otherwise."""
        if any(type(v) is Varying or not alike(v) for v in vectors):
            return None
        deciders = self._join_deciders(ins, defs)
        if deciders is None:
            return None
        decided = []
        for decider in deciders:
            values = self.register(decider, decider.guard)
            if type(values) is Varying or not alike(values):
                return None
            decided.append(values)
        return decided

    def _join_deciders(self, ins: Instruction, defs: list) -> Optional[list]:
        """The branches between the join's immediate dominator and the join, and the guards of the
        joined definitions: what decides which definition a thread brings to the join. None when the
        region is not a small one below a dominator."""
        cfg = self.ctx.cfg
        fn = self.function
        use_block = fn.block_of(ins).id
        top = cfg.dominators.get(use_block)
        if top is None or top == ENTRY:
            return None
        region, stack = set(), [p for p in cfg.predecessors(use_block)]
        while stack:
            b = stack.pop()
            if b in region or b == ENTRY:
                continue
            if not cfg.dominates(top, b):
                return None
            region.add(b)
            if b != top:
                stack.extend(cfg.predecessors(b))
            if len(region) > 64:
                return None  # a large region: leave it to the per-thread path
        deciders = [fn.blocks[b].instructions[-1] for b in sorted(region) if fn.blocks[b].instructions]
        deciders = [i for i in deciders if i.guard is not None and i.op in ("bra", "brx")]
        return deciders + [fn.instructions[d] for d in defs if fn.instructions[d].guard is not None]

    def _repeated_copies(self, defs: list, vectors: list) -> set:
        """The definitions that repeat the value an earlier one already gave: nvcc copies `mov %r85,
        %r5` onto both sides of a branch, and the copy under the branch changes nothing. A definition
        counts as a repeat when one with the same values dominates it and no other definition lies
        between them (dominated by the first and not by the repeat)."""
        cfg, fn = self.ctx.cfg, self.function

        def before(a, b):  # does definition a run before b wherever b runs?
            return cfg.runs_before(fn.instructions[defs[a]], fn.instructions[defs[b]])

        out = set()
        for j in range(len(defs)):
            for k in range(len(defs)):
                if k == j or vectors[k] != vectors[j] or not before(k, j):
                    continue
                if all(m in (j, k) or not before(k, m) or before(j, m) for m in range(len(defs))):
                    out.add(defs[j])
                    break
        return out

    def _deciding_conditions(self, ins: Instruction, defs: list, vectors: list) -> Optional[list]:
        """Per branch that decides which of `defs` reaches `ins`, its condition's values per thread;
        None when a decider is no conditional branch, a condition's values are per-thread unknowns,
        or every condition is known (the join's own choice decides then)."""
        deciders = self._join_deciders(ins, defs)
        if not deciders or any(d.op != "bra" for d in deciders):
            return None
        # only branches that decide whether a definition runs (its control dependences, direct or
        # through enclosing branches) decide which one arrives: a lane-dependent `if` inside a
        # remainder iteration, which rejoins before the next definition, does not, nor one that
        # only decides whether a copy of the value already there runs
        cfg, fn = self.ctx.cfg, self.function
        controlling = set()
        repeated = self._repeated_copies(defs, vectors)
        for d in defs:
            if d not in repeated:
                controlling |= cfg.controlling_branches(fn.block_of(fn.instructions[d]).id)
        deciders = [d for d in deciders if d.op != "bra" or fn.block_of(d).id in controlling]
        conditions = []
        for decider in deciders:
            values = self.register(decider, decider.guard)
            if type(values) is Varying:
                return None
            conditions.append(values)
        if not any(not S.is_known(v) for c in conditions for v in c):
            return None
        return conditions

    def _uniform_path_join(self, ins: Instruction, reg: Register, defs: list, vectors: list,
                           actives: list) -> Optional[list]:
        """Definitions each the same in every thread, each reached by every thread alike (the same
        reach and the same conditions on the way in every thread): every thread brings the same
        definition, so the join is one unknown for all threads, one per combination of those
        conditions and values (a stack pointer that a loop pops under a test of a value every thread
        reads at the same address). None where this does not apply."""
        if any(type(v) is Varying or not S.uniform_across(v) for v in vectors):
            return None
        repeated = self._repeated_copies(defs, vectors)  # a copy under `if (tid == 0)` changes nothing
        kept = [k for k, d in enumerate(defs) if d not in repeated]
        defs, vectors, actives = [defs[k] for k in kept], [vectors[k] for k in kept], [actives[k] for k in kept]
        if any(not S.uniform_across(a) for a in actives):
            return None
        fn = self.function
        conditions = [self.block_conditions(fn.block_of(fn.instructions[d]).id) for d in defs]
        if any(not S.uniform_across(c) for c in conditions):
            return None
        key = ("uniform join", fn.block_of(ins).id, reg.name, tuple(defs), tuple(a[0] for a in actives),
               tuple(c[0] for c in conditions), tuple(v[0] for v in vectors)) + self._instance(ins)
        return self._uniform_unknown(key, f"{reg.source_name} after paths that every thread takes alike")

    def _path_select_join(self, ins: Instruction, reg: Register, defs: list, vectors: list,
                          choice: list) -> Optional[list]:
        """Definitions that differ by known amounts in each thread (the same unknown terms), joined
        after branches that decide which one arrives: a thread whose deciding conditions are unknown
        holds `first + g * P`, g the gcd of its known differences from the first definition and P
        one unknown per combination of the deciders' values in the thread and of those differences.
        Threads that test the same values take the same path: nvcc's remainder iterations before a
        loop unrolled by two or four (`i = tid`, or `tid + 512`, `tid + 1024`, ... by the trip count
        `(32*n - 1 - tid) >> 9` or bit 9 of it) are one P per warp, so the warp stays together in the
        loop. None where this does not apply."""
        if any(type(v) is Varying for v in vectors):
            return None
        affines = [as_affine(v) for v in vectors]
        if any(a is None for a in affines) or any(a.terms != affines[0].terms for a in affines[1:]):
            return None
        conditions = self._deciding_conditions(ins, defs, vectors)
        if conditions is None:
            return None
        fn = self.function
        use_block = fn.block_of(ins).id
        first = affines[0]
        out = []
        for t in range(self.n):
            k = choice[t]
            if k is not None:
                out.append(vectors[k][t])
                continue
            steps = tuple(a.consts[t] - first.consts[t] for a in affines[1:])
            g = gcd(*steps)
            if not g:
                out.append(vectors[0][t])
                continue
            key = ("path select", use_block, reg.name, tuple(defs), tuple(c[t] for c in conditions),
                   tuple(x // g for x in steps)) + self._instance(ins)
            taken = self.table.value(key, f"which of the definitions at PTX lines "
                                          f"{', '.join(str(fn.instructions[d].ptx_line) for d in defs)} "
                                          f"{reg.source_name} comes from", True)
            out.append(S.add(vectors[0][t], S.scale(taken, g)))
        return out

    def _induction(self, reg: Register, header, inside: list, outside: list) -> list:
        it = self.iteration
        if it is not None and it.header == header and reg.name in it.values:
            return it.values[reg.name]
        fn = self.function
        init = self._join_outside(reg, outside, header)
        steps_uniform = True
        step_gcd = 0  # every step is a multiple of this (kept: alignment decides global sectors)
        for d in inside:
            upd = self._update_through_copy(fn.instructions[d], reg, inside + outside)
            ok = False
            if upd.op in ("add", "sub") and len(upd.operands) == 3:
                a, b = upd.operands[1], upd.operands[2]
                a_is_reg = self._header_value_copy(upd, a, reg, inside + outside)
                other = b if a_is_reg else (
                    a if upd.op == "add" and self._header_value_copy(upd, b, reg, inside + outside) else None)
                if other is not None:
                    step = self.operand(upd, other)
                    ok = S.uniform_across(step)
                    if ok:
                        step_gcd = gcd(step_gcd, step[0][0], *(c for _, c in step[0][1]))
            elif upd.op == "mad" and "lo" in upd.modifiers and len(upd.operands) == 4 and upd.operands[3] == reg:
                # i += a * b written as `mad.lo i, a, b, i` (a grid-stride loop: i += gridDim.x * warps)
                a, b = self.operand(upd, upd.operands[1]), self.operand(upd, upd.operands[2])
                if type(a) is not Varying and type(b) is not Varying and S.uniform_across(a) \
                        and S.uniform_across(b):
                    step = self._mul(a[0], b[0])
                    ok = True
                    step_gcd = gcd(step_gcd, step[0], *(c for _, c in step[1]))
            if not ok:
                chained = self._chained_step(fn.instructions[d], reg, inside + outside, header)
                if chained is not None:
                    ok = True
                    step_gcd = gcd(step_gcd, chained[0], *(c for _, c in chained[1]))
            steps_uniform &= ok
        header_block = fn.blocks[header] if isinstance(header, int) else None
        where = ""
        if header_block is not None and header_block.instructions and header_block.instructions[0].loc \
                and header_block.instructions[0].loc.line > 0:
            where = f" (loop at line {header_block.instructions[0].loc.line})"
        if steps_uniform:
            term = self.table.value(("induction", header, reg.name), f"iterations of {reg.source_name}{where}")
            if step_gcd > 1:
                term = S.scale(term, step_gcd)
            self._note(f"{reg.source_name} changes by the same amount in every thread each iteration{where}; "
                       "the analysis covers every iteration with one uniform unknown")
            base = as_affine(init)
            if base is not None:  # one sum of terms for every thread
                shift, terms = S.add((0, base.terms), term)
                return Affine([c + shift for c in base.consts] if shift else base.consts, terms)
            return [S.add(v, term) for v in init]
        if S.uniform_across(init):
            if self._updated_alike(reg, header):
                self._note(f"{reg.source_name} is updated in a loop{where} in a way the analysis does not follow, "
                           "alike in every thread; treated as one unknown for all threads")
                return self._uniform_unknown(("loopvar", header, reg.name), f"{reg.source_name} in the loop{where}")
            self._note(f"{reg.source_name} is updated in a loop{where} in a way the analysis does not follow; "
                       "treated as unknown")
        return self._opaque_per_thread(("loopvar", header, reg.name))

    def _updated_alike(self, reg: Register, header) -> bool:
        """Does every thread update `reg` alike in the loop at `header`: taking its value at the
        header as one unknown shared by all threads, is the value each back edge carries to the next
        iteration the same in every thread? Then a value that enters the loop the same in every
        thread stays so (a stack pointer popped under a test of a value read at the same address, a
        bound loaded in each round); an update on one side of a thread-dependent branch only is not
        alike, the same copy on both sides is. Threads are assumed to arrive at the header together,
        as for any access."""
        it = self.iteration
        key = (header, reg.name, None if it is None else (it.header, it.number))
        found = self._alike.get(key)
        if found is not None:
            return found
        body = next((b for h, b in self.ctx.cfg.loops if h == header), None)
        if body is None or self._probing:
            return False  # no test inside another's: its answer would rest on an unproven assumption
        fn = self.function
        latches = [fn.blocks[u].instructions[-1] for u in loop_latches(self.ctx.cfg).get(header, [])
                   if isinstance(u, int) and fn.blocks[u].instructions]
        if not latches:
            return False
        self._alike[key] = found = self._probe_updates(reg, header, body, latches)
        return found

    def _probe_updates(self, reg: Register, header, body, latches: list) -> bool:
        """_updated_alike's test, in an evaluator of one iteration whose `reg` holds one unknown.
        The probes of a kernel share PROBE_SHARE of its analysis budget: past it a probe answers
        no (each thread's value its own unknown, as before the test existed) and the note says so,
        so that a large unrolled body cannot leave the kernel's rules unrun."""
        key = (header, reg.name)
        left = self.ctx.__dict__.setdefault("_probe_seconds", [None])
        if left[0] is None:
            total = remaining()
            left[0] = float("inf") if total is None else total * PROBE_SHARE
        if left[0] <= 0:
            self._note(f"{reg.source_name}: not tested for an update alike in every thread (the share of the analysis "
                       "budget for such tests is spent)")
            return False
        self._probing.add(key)
        start = process_time()
        try:
            with part_budget(left[0]):
                probe = self._uniform_unknown(("loopvar probe", header, reg.name), f"{reg.source_name} at the loop header")
                child = self.for_iteration(header, body, {reg.name: probe}, [True] * self.n, PROBE_ITERATION)
                for last in latches:
                    values = value_after(child, last, reg)
                    if type(values) is Varying or not S.uniform_across(values):
                        return False
                return True
        except PartExhausted:
            self._note(f"{reg.source_name}: the test for an update alike in every thread ran out of its share of the "
                       "analysis budget; each thread's value is taken as its own unknown")
            return False
        except RecursionError:  # pragma: no cover - a pathological kernel: keep the per-thread answer
            return False
        finally:
            left[0] -= process_time() - start
            self._probing.discard(key)

    def _chained_step(self, upd: Instruction, reg: Register, header_defs: list, header) -> Optional[tuple]:
        """What a chain of unguarded adds of uniform amounts (and copies) inside the loop adds to `reg`
        in one iteration, `reg` taken as it is at the header: `a = i + 32; b = a + 32; i = b + 32`
        (an unrolled loop's update) steps i by 96. None when the update is not such a chain."""
        fn, dataflow = self.function, self.ctx.dataflow
        body = next((b for h, b in self.ctx.cfg.loops if h == header), None)
        if body is None:
            return None
        wanted = sorted(header_defs)
        total = S.ZERO
        ins = upd
        for _ in range(32):
            ops = ins.operands
            if ins.guard is not None or fn.block_of(ins).id not in body:
                return None
            if ins.op == "mov" and len(ops) == 2:
                pairs = [(ops[1], None)]
            elif ins.op in ("add", "sub") and len(ops) == 3:
                pairs = [(ops[1], ops[2])] + ([(ops[2], ops[1])] if ins.op == "add" else [])
            else:
                return None
            for source, other in pairs:
                if not isinstance(source, Register) or source.is_special:
                    continue
                step = S.ZERO
                if other is not None:
                    # the amount must be the same in every iteration: an immediate or a value from before
                    # the loop (evaluating a carried one would ask for this loop's values again)
                    if isinstance(other, Register) and not other.is_special and any(
                            fn.block_of(fn.instructions[x]).id in body for x in dataflow.definitions(ins, other)):
                        continue
                    values = self.operand(ins, other)
                    if type(values) is Varying or not S.uniform_across(values):
                        continue
                    step = values[0] if ins.op == "add" else S.neg(values[0])
                defs = dataflow.definitions(ins, source)
                if source.name == reg.name and sorted(defs) == wanted:
                    return S.add(total, step)
                if len(defs) == 1:
                    total = S.add(total, step)
                    ins = fn.instructions[defs[0]]
                    break
            else:
                return None
        return None

    def _header_value_copy(self, ins: Instruction, operand, reg: Register, header_defs: list) -> bool:
        """Is `operand` of `ins` the value `reg` has at the loop header: `reg` itself, or `reg` moved,
        widened and truncated back to its width (`cvt.s64.s32 %rd3, %r71; cvt.u32.u64 %r68, %rd3`,
        which nvcc emits around a loop index it also uses as a 64-bit offset)? Integer conversions
        that never go below the register's width give back the same bits."""
        if operand == reg:
            return True
        if not isinstance(operand, Register) or operand.is_special:
            return False
        dataflow = self.ctx.dataflow
        width = ins.type_bits  # the update's width is the register's
        if not width:
            return False
        at, current = ins, operand
        for _ in range(4):
            defs = dataflow.definitions(at, current)
            if len(defs) != 1:
                return False
            source = self.function.instructions[defs[0]]
            ops = source.operands
            if source.guard is not None or len(ops) != 2 or not isinstance(ops[1], Register):
                return False
            if source.op == "cvt":
                types = [m for m in source.modifiers if m[:1] in "usb" and m[1:].isdigit()]
                if len(types) != 2 or any(m[:1] == "f" for m in source.modifiers) or \
                        min(bits_of(types[0]), bits_of(types[1])) < width:
                    return False
            elif source.op != "mov":
                return False
            at, current = source, ops[1]
            if current == reg:
                return sorted(dataflow.definitions(source, reg)) == sorted(header_defs)
        return False

    def _update_through_copy(self, upd: Instruction, reg: Register, header_defs: list) -> Instruction:
        """`add next, i, 1; mov i, next` (nvcc keeps the old value for the loop test): the `add` is the
        update of i when it reads the value i has at the loop header; else `upd` itself."""
        ops = upd.operands
        if upd.op != "mov" or upd.guard is not None or len(ops) != 2 or not isinstance(ops[1], Register) \
                or ops[1].is_special:
            return upd
        dataflow = self.ctx.dataflow
        defs = dataflow.definitions(upd, ops[1])
        if len(defs) != 1:
            return upd
        source = self.function.instructions[defs[0]]
        if source.guard is None and source.op in ("add", "sub", "mad") and reg in source.operands[1:] \
                and sorted(dataflow.definitions(source, reg)) == sorted(header_defs):
            return source
        return upd

    def _join_outside(self, reg: Register, defs: list, header=None) -> list:
        if len(defs) == 1:
            return self._definition(defs[0], reg)
        vectors = [self._definition(d, reg) for d in defs]
        if all(v == vectors[0] for v in vectors[1:]):
            return vectors[0]
        after = self._after_followed_loop(None, reg, defs)
        if after is not None:
            return after
        if header is not None:
            merged = self._merged_before_loop(header, reg, defs)
            if merged is not None:
                return merged
        return self._opaque_per_thread(("init", tuple(defs), reg.name))

    def _merged_before_loop(self, header, reg: Register, defs: list) -> Optional[list]:
        """The value of `reg` entering the loop at `header`, where its definitions from outside the
        loop merge at a block that dominates the header with none of them at or below that block:
        the join there (nvcc's remainder iteration before a loop unrolled by two). None otherwise."""
        cfg, fn = self.ctx.cfg, self.function
        def_blocks = [fn.block_of(fn.instructions[d]).id for d in defs]
        block = cfg.dominators.get(header)
        for _ in range(8):  # a few blocks up: the preheader and the tests nvcc puts before it
            if block is None or block == ENTRY or any(cfg.dominates(block, b) for b in def_blocks):
                return None
            if len(cfg.predecessors(block)) >= 2 and fn.blocks[block].instructions:
                return self._join(fn.blocks[block].instructions[0], reg, defs)
            block = cfg.dominators.get(block)
        return None

    def _after_followed_loop(self, use_block, reg: Register, defs: list) -> Optional[list]:
        """The per-thread value of `reg` after a loop whose iterations are followed: where the
        thread left the loop for threads that ran it, the definitions before it for the others.
        Those must run before the loop (dominate it, or lie where no path from it leads), so that
        no thread redefined `reg` after leaving it: of two loops in a row (nvcc's unrolled loop and
        its remainder), the second, whose entry value is the first's."""
        fn, ctx = self.function, self.ctx
        block_of = {d: fn.block_of(fn.instructions[d]).id for d in defs}
        in_progress = ctx.__dict__.setdefault("_loops_in_progress", set())
        for header, body in ctx.cfg.loops:
            inside = [d for d in defs if block_of[d] in body]
            rest = [d for d in defs if block_of[d] not in body]
            if use_block in body or not inside or not rest or header in in_progress:
                continue
            if self.iteration is not None and header in self.iteration.body:
                return None
            if not all(ctx.cfg.dominates(block_of[d], header) for d in rest):
                reached = ctx.cfg.reached_after(header)
                if any(block_of[d] == header or block_of[d] in reached for d in rest):
                    continue
            in_progress.add(header)
            try:
                iterations = ctx.loop_iterations(header, body)
            finally:
                in_progress.discard(header)
            after = iterations.values_after(reg.name) if iterations is not None else None
            if after is None:
                in_progress.add(header)
                try:
                    return self._after_loop_by_trips(header, body, reg, inside, rest)
                finally:
                    in_progress.discard(header)
            ran, left_with = after
            before = self._definition(rest[0], reg) if len(rest) == 1 else self._join_outside(reg, rest)
            return [left_with[t] if ran[t] else before[t] for t in range(self.n)]
        return None

    def _after_loop_by_trips(self, header, body, reg: Register, inside: list, rest: list) -> Optional[list]:
        """`reg` after a loop whose trip count is not known, where the loop steps it by the same amount
        in every thread (init + step * iterations): init + step * K, with K the thread's trip count.
        Threads whose branch conditions are equal (the same function of the iteration) at every branch
        that decides whether the header, an update or an exit test runs, and at every exit test,
        take the same paths and leave in the same iteration, so they share one K: `lane + 32 * K`
        after a loop whose exit is the same in every lane of a warp is one K per warp (the remainder
        loop nvcc peels before an unrolled one). None when the loop does not step `reg` that way."""
        fn, cfg = self.function, self.ctx.cfg
        derived = self._derived_from_induction(header, reg, inside)
        if derived is not None:  # `next = i + 32` computed in the loop from an induction variable
            within, symbol = derived
        else:
            within = self._induction(reg, header, inside, rest)
            symbol = self.table.interned(("induction", header, reg.name))
        if symbol is None or type(within) is Varying:
            return None
        exits = [b for b in body if isinstance(b, int) and any(s not in body for s in cfg.successors(b))]
        deciding = set(exits)
        for block_id in [header, *exits, *(fn.block_of(fn.instructions[d]).id for d in inside)]:
            deciding |= cfg.controlling_branches(block_id)
        signature_parts = []
        for block_id in sorted(b for b in deciding if isinstance(b, int)):
            branch = fn.blocks[block_id].instructions[-1] if fn.blocks[block_id].instructions else None
            if branch is not None and branch.guard is not None:
                signature_parts.append(self.register(branch, branch.guard))
            elif branch is None or branch.op not in ("bra", "ret", "exit"):
                return None  # a branch this does not read (an indirect one)
        if not signature_parts:
            return None
        return self._with_trip_counts(header, within, symbol, list(zip(*signature_parts)))

    def _derived_from_induction(self, header, reg: Register, inside: list) -> Optional[tuple]:
        """(its value in the loop, the induction symbol it holds) for a register that the loop at
        `header` defines once, from other registers only (nvcc's rotated loop keeps `i + 32`, the
        next index, beside the induction `i`), holding one induction variable of that loop; None
        otherwise."""
        if len(inside) != 1:
            return None
        fn = self.function
        definition = fn.instructions[inside[0]]
        if definition.guard is not None or reg in definition.operands[1:]:
            return None
        body = next((b for h, b in self.ctx.cfg.loops if h == header), None)
        dataflow = self.ctx.dataflow
        if body is None or not any(  # read from a register carried round the loop: cheap to ask first
                len({fn.block_of(fn.instructions[d]).id in body for d in dataflow.definitions(definition, r)}) == 2
                for r in definition.sources() if not r.is_special):
            return None
        within = self._definition(inside[0], reg)
        vector = as_affine(within)
        if vector is None:
            return None
        key_of = self.table.key_of
        found = [name for name, _ in vector.terms
                 if (key := key_of(name)) is not None and key[:2] == ("induction", header)]
        return (within, found[0]) if len(found) == 1 else None

    def _with_trip_counts(self, header, within: list, symbol: str, rows: list) -> Optional[list]:
        """`within` (init + step * the induction `symbol`) with the symbol replaced by thread t's trip
        count, one unknown per distinct `rows[t]` (its branch conditions); None when a thread's value
        does not hold the symbol. A thread's unknown part depends only on its unknown part in the
        loop and its conditions (its known part is kept): worked out once per class of threads, the
        first thread of each class first (the order the trip counts are named in)."""
        out = []
        unknown_parts: dict = {}
        for t, value in enumerate(within):
            terms = unknown_parts.get((value[1], rows[t]))
            if terms is None:
                key = ("trips", header, rows[t])
                coefficient = dict(value[1]).get(symbol)
                if coefficient is None:
                    return None
                trips = self._opaque(key)
                rest_terms = tuple(term for term in value[1] if term[0] != symbol)
                terms = unknown_parts[(value[1], rows[t])] = S.add((0, rest_terms), S.scale(trips, coefficient))[1]
            out.append((value[0], terms))
        return as_affine(out) or out

    # ---- special registers and symbols
    def _special(self, reg: Register) -> Optional[list]:
        name = reg.name
        if not reg.is_special:
            return None
        threads = self.threads
        dims = self.shape.dims
        if name in ("%tid.w", "%ntid.w"):
            return Affine([0] * self.n)  # PTX ISA: the fourth element of the vector reads zero
        if name in ("%tid.x", "%tid.y", "%tid.z"):
            axis = "xyz".index(name[-1])
            return Affine([t[axis] for t in threads])
        if name in ("%ntid.x", "%ntid.y", "%ntid.z"):
            return Affine([dims["xyz".index(name[-1])]] * self.n)
        if name == "%laneid":
            return Affine([i % 32 for i in range(self.n)])
        if name == "%warpid":
            self._note("%warpid is the hardware warp slot, not threadIdx/32; treated as a uniform unknown")
            return self._per_warp_unknown(("special", name), name)
        grid = self.shape.grid
        if name[:-2] in ("%ctaid", "%nctaid") and name[-1] in "xyz" and grid and grid["xyz".index(name[-1])] == 1:
            # every launch of this shape has one block along this axis (`k<<<1, 256>>>`)
            self.one_block_axes.add(name[-1])
            return Affine([0 if name.startswith("%ctaid") else 1] * self.n)
        if name[:-2] == "%nctaid" and name[-1] in "xyz":
            value = self._uniform_unknown(("special", name), name)
            self.grid_extents[single_symbol(value[0])] = dims["xyz".index(name[-1])]
            return value
        if name.startswith(("%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_", "%smid", "%nsmid",
                            "%gridid", "%dynamic_smem_size", "%total_smem_size", "%envreg")):
            return self._uniform_unknown(("special", name), name)
        if name.startswith("%lanemask_"):
            kind = name[len("%lanemask_"):]
            out = []
            for i in range(self.n):
                lane = i % 32
                mask = {
                    "eq": 1 << lane, "le": (1 << (lane + 1)) - 1, "lt": (1 << lane) - 1,
                    "ge": (0xFFFFFFFF << lane) & S.MASK32, "gt": (0xFFFFFFFF << (lane + 1)) & S.MASK32,
                }.get(kind)
                out.append(S.const(mask) if mask is not None else self._opaque((name, i)))
            return out
        return self._opaque_per_thread((name,))

    def _symbol_address(self, name: str):
        var = self._variables.get(name)
        if var is not None:
            origin = f"the address of {var.space} variable {name}"
            sym = self.table.symbol(("address", name), origin, uniform=True)
            self.variable_symbols[sym] = name
            if var.space == "shared":
                self.shared_symbols[sym] = name
            return (0, ((sym, 1),))
        if name in self._kernel_params:
            return (0, ((self.table.symbol(("param-address", name), f"parameter {name}", True), 1),))
        return (0, ((self.table.symbol(("symbol", name), name, True), 1),))

    def _float_symbol(self, imm: Immediate):
        return self.table.value(("float", imm.text), f"float {imm.text}")

    def _passed_value(self, ins: Instruction, name: str, offset: int):
        """The value of an integer kernel parameter when every launch of this block shape passes
        the same one (`k<<<1, 256>>>(8, p)`: `threads` is 8 in this program), as the load reads it
        (truncated to its width, signed types sign-extended); a Multiple when the launches pass
        different or run-time values that are all multiples of one factor (`nbodies * 1024`, or 512
        and 1024, or a multiple of the launch's own block, this shape's x extent); a constant times
        gridDim.x where every launch passes its own thread count (`_launch_share_value`); None
        otherwise. Findings note the values read so (`passed_parameters`)."""
        arguments = getattr(self.shape, "arguments", None)
        if not arguments or offset or ins.type is None or ins.type[0] not in "usb":
            return None
        params = self.function.params
        position = next((i for i, p in enumerate(params) if p.name == name), None)
        if position is None or position >= len(arguments) or params[position].array_dims:
            return None
        values = arguments[position]
        bits = ins.type_bits
        if not values or params[position].type[0] not in "usb" or bits not in (8, 16, 32, 64):
            return None
        only = next(iter(values)) if len(values) == 1 else None
        if isinstance(only, LaunchShare) and not only.multiple:
            return self._launch_share_value(position, only)
        # a multiple of the launch's blockDim.x (`base += blocks * threads`): this shape's x extent;
        # the note names the relation where it is the only value passed
        values = {Multiple(self.shape.dims[0]) if isinstance(v, LaunchShare) and v.multiple else v for v in values}
        if len(values) != 1 or type(next(iter(values))) is not int:
            if not all(type(v) is int or isinstance(v, Multiple) for v in values):
                return None
            factor = gcd(*(factor_of(v) for v in values))
            # a factor that wraps at the load's width says nothing; powers of two survive wrapping
            factor = min(factor, 1 << (bits - 2)) if factor & (factor - 1) == 0 else factor
            if factor < 2 or factor >= 1 << (bits - 1):
                return None
            self.passed_parameters[position] = only if isinstance(only, LaunchShare) else Multiple(factor)
            return Multiple(factor)
        (value,) = values
        value &= (1 << bits) - 1
        if ins.type[0] == "s" and value >> (bits - 1):
            value -= 1 << bits
        self.passed_parameters[position] = value
        return value

    def _launch_share_value(self, position: int, share):
        """The value of a parameter every launch of this shape computes from its own x extents
        (`blocks * threads`): a constant times gridDim.x (the same unknown the kernel reads as
        %nctaid.x), or a constant where the grid is not a factor; None where the share of this
        block's x extent is not an integer."""
        scaled = share.numerator * self.shape.dims[0]
        if scaled % share.denominator:
            return None
        self.passed_parameters[position] = share
        if not share.grid:
            return scaled // share.denominator
        grid = self.shape.grid
        if grid and grid[0] == 1:
            self.one_block_axes.add("x")
            return scaled // share.denominator
        blocks = self.table.value(("special", "%nctaid.x"), "%nctaid.x", True)
        return S.scale(blocks, scaled // share.denominator)

    def _uniform_unknown(self, key, origin: str) -> list:
        return uniform_vector(self.table.value(key, origin, True), self.n)

    def _opaque_per_thread(self, prefix: tuple) -> list:
        """One unknown per thread, `_opaque(prefix + (t,))` in thread t; the vector is made once per
        prefix (loop iterations and joins ask again for the same one)."""
        found = self._opaque_vectors.get(prefix)
        if found is None:
            opaque = self._opaque
            found = self._opaque_vectors[prefix] = [opaque(prefix + (t,)) for t in range(self.n)]
        return found

    def _opaque(self, key) -> tuple:
        """An unknown that is equal for equal keys: uniform when every thread builds the same key.
        Its description names the first unknown it was computed from."""
        name = self.table.interned(("opaque", key))
        if name is not None:  # seen before (most calls): no description object to make
            return (0, ((name, 1),))
        return self.table.value(("opaque", key), S.ComputedFrom(key), True)

    # ---- instruction semantics
    def _evaluate_definition(self, ins: Instruction, reg: Register) -> list:
        self._site = (ins.index, reg.name)
        op = ins.op
        ops = ins.operands
        n = self.n
        dest = ops[0] if ops else None
        if isinstance(dest, (VectorOperand, PairOperand)) and op not in ("mov", "setp"):
            return self._loaded(ins, reg)
        if isinstance(dest, VectorOperand):  # mov.b64 {%r1, %r2}, %rd1: unpack halves
            return self._unpack(ins, reg)
        t = ins.type
        bits = 1 if t == "pred" else bits_of(t)  # predicates are one bit: not.pred flips it
        signed = t in SIGNED

        def src(k):
            return self.operand(ins, ops[k])

        if op == "mov":
            if isinstance(ops[1], VectorOperand):  # pack
                parts = [self.operand(ins, e) for e in ops[1].elements]
                width = bits // len(parts)
                return [self._pack([p[i] for p in parts], width) for i in range(n)]
            return src(1)
        if op in ("cvta",):
            return src(1)
        if op == "cvt":
            values = src(1)
            return self._affine_op(op, ins, [values], bits, signed) or self._convert(ins, values)
        if op in ("ld", "ldu", "atom", "shfl", "vote", "redux", "match", "tex", "tld4", "suld", "ldmatrix",
                  "activemask", "elect", "mbarrier", "cp", "wgmma", "mma") or is_barrier_reduction(ins):
            return self._loaded(ins, reg)
        if t == "pred" and op in ("and", "or", "xor", "not"):
            return self._logic(op, ins)
        if op in AFFINE_OPS:
            sources = [src(k) for k in range(1, len(ops))]
            fast = self._affine_op(op, ins, sources, bits, signed)
            if fast is not None:
                return fast
        lift = self._lift
        wide = "wide" in ins.modifiers
        fold = self.fold_rotations
        if op in ("add", "sub"):
            return self._sum(src(1), src(2), -1 if op == "sub" else 1, bits, signed)
        if op == "neg":
            return lift(lambda x: S.wrap(S.neg(x), bits, signed), src(1))
        if op == "mul" and ("lo" in ins.modifiers or wide or t in ("u64", "s64", "b64")):
            if wide:
                return lift(lambda x, y: S.wrap(self._mul(S.wrap(x, bits, signed), S.wrap(y, bits, signed)),
                                                2 * bits, signed), src(1), src(2))
            return lift(lambda x, y: S.wrap(self._mul(x, y), bits, signed), src(1), src(2))
        if op == "mad" and ("lo" in ins.modifiers or wide):
            if wide:
                return lift(lambda x, y, z: S.wrap(S.add(self._mul(S.wrap(x, bits, signed), S.wrap(y, bits, signed)),
                                                         z), 2 * bits, signed), src(1), src(2), src(3))
            return lift(lambda x, y, z: S.wrap(S.add(self._mul(x, y), z), bits, signed), src(1), src(2), src(3))
        if op == "shl":
            return lift(lambda x, y: S.wrap(S.scale(x, 1 << y[0]), bits) if S.is_known(y) and 0 <= y[0] < bits
                        else self._opaque(("shl", x, y)), src(1), src(2))
        if op == "setp":
            return self._compare(ins, reg)
        if op == "selp":
            return self._select(ins, src(1), src(2), src(3))
        if op == "not" and len(ops) == 2:
            value = src(1)
            if type(value) is not Varying and any(v[1] for v in value):
                # ~x is -1 - x, also where threads hold different unknowns (a lane plus its warp's trips)
                return self._sum(uniform_vector(S.const(-1), self.n), value, -1, bits, signed)
        if op in CONCRETE_OPS:
            fn = CONCRETE_OPS[op]

            def concrete(*vals):
                if all(not v[1] for v in vals):
                    try:
                        return S.wrap(S.const(fn(ins, [v[0] for v in vals], bits, signed)), bits, signed)
                    except (ZeroDivisionError, ValueError, IndexError):
                        return self._opaque((op, vals))
                return self._simplify_unknown(op, ins, list(vals), bits)

            args = [src(k) for k in range(1, len(ops))]
            if op == "or" and len(args) == 2 and any(type(v) is Varying for v in args):
                other = args[1] if type(args[0]) is Varying else args[0]
                if type(other) is not Varying and any(S.is_known(v) and S.wrap(v, bits)[0] for v in other):
                    # where one side is known non-zero, so is `a | b` (nvcc's `bool` `||`: or.b16 of selp's)
                    return apply_per_distinct(concrete, list(zip(*args)))
            if op in ("shr", "div") and len(args) == 2 and self._high_bits_apply(op, ins, args, bits):
                return lift(concrete, *args)
            if op not in ("and", "rem") and any(all_distinct_unknowns(v) for v in args):
                # a non-linear function of per-thread unknowns: per-thread unknowns again
                source = next(v for v in args if all_distinct_unknowns(v))
                return self._fresh(("derived", self._site), self._derived_origin(source))
            return lift(concrete, *args)
        if op in PURE_OPS and len(ops) > 1 and not isinstance(dest, (VectorOperand, PairOperand)):
            return self._pure(ins, [src(k) for k in range(1, len(ops))])
        return self._loaded(ins, reg)

    def _pure(self, ins: Instruction, args: list) -> list:
        """An instruction whose result is a function of its inputs alone (`fma.rn.f32`, `sqrt.approx`,
        `lop3`...): threads with equal inputs get one value, so a padding lane that redoes another
        lane's arithmetic on the same loads stores what that lane stores. Inputs that differ in every
        thread give per-thread unknowns, as before."""
        if any(all_distinct_unknowns(v) for v in args):
            source = next(v for v in args if all_distinct_unknowns(v))
            return self._fresh(("derived", self._site), self._derived_origin(source))
        opcode = ins.opcode
        return self._lift(lambda *values: self._opaque((opcode, values)), *args)

    def _affine_op(self, op: str, ins: Instruction, sources: list, bits: int, signed: bool) -> Optional[Affine]:
        """The result as an Affine vector when the inputs allow it (None: use the per-thread path)."""
        vecs = [as_affine(v) for v in sources]
        if any(v is None for v in vecs):
            return None
        wide = "wide" in ins.modifiers
        out_bits = 2 * bits if wide else bits
        if op in ("add", "sub"):
            if len(vecs) != 2:
                return None
            a, b = vecs
            if op == "add":
                consts = [x + y for x, y in zip(a.consts, b.consts)]
                shift, terms = self.fold_rotations(S.add((0, a.terms), (0, b.terms)))
            else:
                consts = [x - y for x, y in zip(a.consts, b.consts)]
                shift, terms = self.fold_rotations(S.sub((0, a.terms), (0, b.terms)))
            if shift:
                consts = [c + shift for c in consts]
            return Affine(wrap_consts(consts, bits, signed) if not terms else consts, terms)
        if op in ("mul", "mad", "shl"):
            if op != "shl" and not ("lo" in ins.modifiers or wide or ins.type in ("u64", "s64", "b64")):
                return None
            a, b = vecs[0], vecs[1]
            if wide:
                a = Affine(wrap_consts(a.consts, bits, signed), a.terms) if not a.terms else a
                b = Affine(wrap_consts(b.consts, bits, signed), b.terms) if not b.terms else b
            if op == "shl":
                k = uniform_const(b)
                if k is None or not 0 <= k < bits:
                    return None
                b = Affine([1 << k] * len(b.consts))
            ka, kb = uniform_const(a), uniform_const(b)
            if kb is not None:
                product = Affine([x * kb for x in a.consts], S.scale((0, a.terms), kb)[1])
            elif ka is not None:
                product = Affine([x * ka for x in b.consts], S.scale((0, b.terms), ka)[1])
            elif not a.terms and not b.terms:
                product = Affine([x * y for x, y in zip(a.consts, b.consts)])
            else:
                return None
            if op == "mad":
                c = vecs[2]
                product = Affine([x + y for x, y in zip(product.consts, c.consts)],
                                 S.add((0, product.terms), (0, c.terms))[1])
            return Affine(wrap_consts(product.consts, out_bits, signed) if not product.terms else product.consts,
                          product.terms)
        if op == "cvt":
            types = [m for m in ins.modifiers if m[:1] in "usb" and m[1:].isdigit()]
            if len(types) < 2 or any(m[:1] == "f" and m[1:].isdigit() for m in ins.modifiers):
                return None
            (a,) = vecs
            if a.terms:
                return a
            consts = wrap_consts(a.consts, bits_of(types[1]), types[1].startswith("s"))
            return Affine(wrap_consts(consts, bits_of(types[0]), types[0].startswith("s")))
        if op in ("mov", "cvta"):
            return vecs[0]
        if op in CONCRETE_OPS:
            if op == "mul" and "hi" not in ins.modifiers:
                return None
            if any(v.terms for v in vecs):
                if op == "not" and len(vecs) == 1:  # ~x is -x - 1 (nvcc's `limit + ~i` for `limit - 1 - i`)
                    return Affine([-c - 1 for c in vecs[0].consts], S.scale((0, vecs[0].terms), -1)[1])
                if op in ("shr", "div") and len(vecs) == 2 and not vecs[1].terms:
                    quotient = exact_quotient(op, ins, vecs[0], uniform_const(vecs[1]))
                    if quotient is not None:
                        return quotient
                if op in ("or", "xor") and len(vecs) == 2:
                    joined = disjoint_bits_sum(*vecs)
                    if joined is not None:
                        return joined
                    low_bits = low_bits_changed(op, *vecs)
                    if low_bits is not None:
                        return low_bits
                if op in ("and", "rem") and len(vecs) == 2 and not vecs[1].terms:
                    k = uniform_const(vecs[1])
                    a = vecs[0]
                    if op == "and" and k is not None and k > 0 and masked_away(a.terms, k):
                        return Affine([x & k for x in a.consts])
                    if op == "and" and k is not None:
                        # clearing the low bits (`x & -4`) keeps unknowns that are multiples of 4
                        low = ~k & ((1 << bits) - 1)
                        if low and low & (low + 1) == 0 and low + 1 < (1 << bits) \
                                and all(c % (low + 1) == 0 for _, c in a.terms):
                            return Affine([x & ~low for x in a.consts], a.terms)
                    exact = op == "rem" and k is not None and k > 0 and all(c % k == 0 for _, c in a.terms) \
                        and ins.type not in SIGNED
                    if exact and all(x >= 0 for x in a.consts):
                        return Affine([x % k for x in a.consts])
                return None
            fn = CONCRETE_OPS[op]
            try:
                consts = [fn(ins, list(args), bits, signed) for args in zip(*(v.consts for v in vecs))]
            except (ZeroDivisionError, ValueError, IndexError):
                return None
            return Affine(wrap_consts(consts, bits, signed))
        return None

    def _fresh(self, site, origin) -> Varying:
        """A new all-different unknown per thread, for the value defined at `site`: one named
        symbol for the site, suffixed `#thread` per thread (not interned: there are many)."""
        return Varying(self.table.symbol(("fresh", site), origin, uniform=False), self.n)

    def _derived_origin(self, source: list) -> S.ComputedFrom:
        """Description of a value computed from the unknowns in `source` (computed lazily)."""
        first = source[0]
        return S.ComputedFrom(first[1][0][0] if first[1] else None)

    def _lift(self, fn, *vectors) -> list:
        """Apply a per-thread function to per-thread values: once when every input is the same
        in all threads (the common case for uniform values), once per distinct input otherwise."""
        for v in vectors:
            if type(v) is Varying:
                return self._fresh(("derived", self._site), self._derived_origin(v))
        if all(v.count(v[0]) == len(v) for v in vectors):
            return uniform_vector(fn(*(v[0] for v in vectors)), self.n)
        return apply_per_distinct(fn, list(zip(*vectors)))

    def _sum(self, x, y, sign: int, bits: int, signed: bool) -> list:
        """x + sign*y per thread (`add`, `sub` whose inputs are not all Affine), folded and wrapped as
        `_lift` would (`S.wrap(fold(S.add(x, S.scale(y, sign))))`). The unknown part of a sum depends
        only on the unknown parts of its inputs, and its known part is the inputs' known parts plus a
        constant of those: it is worked out once per distinct pair of unknown parts (a few per
        block), in the order `_lift` meets them (folding may name symbols), and the known parts are
        added per thread as plain ints."""
        for v in (x, y):
            if type(v) is Varying or v.count(v[0]) != len(v):
                break
        else:
            return self._lift(lambda a, b: S.wrap(self.fold_rotations(S.add(a, S.scale(b, sign))), bits, signed),
                              x, y)
        if type(x) is Varying or type(y) is Varying:
            return self._lift(None, x, y)  # per-thread unknowns: `_lift` makes them
        fold = self.fold_rotations
        mask = (1 << bits) - 1 if bits < 128 else None
        half = 1 << (bits - 1)
        parts: dict = {}  # (id of x's terms, id of y's terms) -> (known part, terms) of their sum
        by_value: dict = {}  # (x's terms, y's terms) -> the same: equal terms held in other objects
        keep = []  # the terms objects keyed by id, alive until the end
        out = []
        xs = zip(x.consts, repeat(x.terms)) if type(x) is Affine else x
        ys = zip(y.consts, repeat(y.terms)) if type(y) is Affine else y
        # a + b and b + a have one sum (S.add sorts the terms and adds coefficients): an xor-butterfly
        # step `v + shfl_xor(v, m)` gives lanes l and l ^ m the same pair of unknown parts, worked out once
        either_order = sign == 1
        for (cx, tx), (cy, ty) in zip(xs, ys):
            key = (id(tx), id(ty))
            if either_order and key[0] > key[1]:
                key = (key[1], key[0])
            part = parts.get(key)
            if part is None:
                keep.append((tx, ty))
                # threads of one class (one trip count, one loaded value) hold equal terms in objects
                # of their own: their sum is worked out once per class too
                pair = (ty, tx) if either_order and ty < tx else (tx, ty)
                part = by_value.get(pair)
                if part is None:
                    # S.scale by 1 gives the terms back unchanged
                    part = by_value[pair] = fold(S.add((0, tx), (0, ty) if either_order
                                                       else S.scale((0, ty), sign)))
                parts[key] = part
            c = cx + sign * cy + part[0]
            if part[1] or mask is None:
                out.append((c, part[1]))
            else:
                c &= mask
                if signed and c & half:
                    c -= mask + 1
                out.append((c, ()))
        return out

    def _simplify_unknown(self, op, ins, vals, bits):
        """A bitwise/divide op with unknown inputs: exact when the unknowns cannot reach the result."""
        if op in ("min", "max") and len(vals) == 2 and sum(S.is_known(v) for v in vals) == 1:
            # min(32, n) is at most 32, max(0, n) at least 0: kept as a bound of the unknown result
            k = next(v for v in vals if S.is_known(v))
            value = self._opaque((op, ins.type, tuple(vals)))
            self.bounds[value[1][0][0]] = ((op, S.wrap(k, bits, ins.type in SIGNED)[0], ins.type in SIGNED, None),)
            return value
        if op == "and" and len(vals) == 2:
            for x, m in ((vals[0], vals[1]), (vals[1], vals[0])):
                if S.is_known(m) and m[0] >= 0 and masked_away(x[1], m[0]):
                    return S.const(x[0] & m[0])
            for x, m in ((vals[0], vals[1]), (vals[1], vals[0])):
                low = ~m[0] & ((1 << bits) - 1) if S.is_known(m) and x[1] else 0
                if low and low & (low + 1) == 0:
                    # clearing the low bits (`(n + 31) & ~31`): x - x mod 2^k, a multiple of 2^k; where
                    # the unknowns are multiples of 2^j < 2^k, the known part's bits below j are cleared
                    # whatever the unknowns are (threads of `(32*n - 1 - tid) & -512` in one warp agree)
                    step = min(self._stride_of(x), low + 1)
                    base = (x[0] - x[0] % step, x[1])
                    return self.fold_rotations(S.sub(base, self._rotation(base, low + 1)))
            x, m = vals
            if S.is_known(m) and 0 < m[0] < (1 << 31) and x[1]:
                # a run of low bits (`& 63`), or one above bits the unknowns never touch (`& 252` of a
                # 4-byte offset): (c + U) mod 2^k with the bits below 2^j cleared
                low = m[0] & -m[0]
                full = m[0] | (low - 1)
                if full & (full + 1) == 0 and all(c % low == 0 for _, c in x[1]):
                    # (c + U) & m = (c - c % 2^j + U) mod 2^k: threads whose c differ only below 2^j
                    # hold one value (`(i >> 1) & ~1` is one value per four consecutive i)
                    return self._rotation((x[0] - x[0] % low, x[1]), full + 1)
            split = self._and_above_stride(vals, bits)
            if split is not None:
                return split
        if op == "bfi" and len(vals) == 4 and S.is_known(vals[2]) and S.is_known(vals[3]):
            # `bfi d, a, b, pos, len` up to the top bit: a's bits from pos up over b's bits below pos,
            # a * 2^pos + (b & (2^pos - 1)) (nvcc's `(tid & 31) + blockIdx.x * 32`), wrap-around
            # ignored as for shl
            pos, length = vals[2][0] & 0xFF, vals[3][0] & 0xFF
            if 0 < pos < bits and pos + length >= bits:
                b, low_mask = vals[1], S.const((1 << pos) - 1)
                low = S.const(b[0] & low_mask[0]) if S.is_known(b) else self._simplify_unknown("and", ins, [b, low_mask], bits)
                return S.add(S.wrap(S.scale(vals[0], 1 << pos), bits), low)
        if op in ("or", "xor", "and") and len(vals) == 2 and (vals[0][1] or vals[1][1]):
            split = self._bitwise_above_stride(op, vals, bits)
            if split is not None:
                return split
        if op == "shr" and ins.type in SIGNED and len(vals) == 2 and S.is_known(vals[1]) and vals[0][1]:
            exact = self._rounded_signed_quotient(vals[0], vals[1][0], bits)
            if exact is not None:
                return exact
        if op in ("shr", "div") and len(vals) == 2 and S.is_known(vals[1]) and vals[0][1]:
            found = self._high_bits(op, ins, vals[0], vals[1][0], bits)
            if found is not None:
                return found
        if op == "prmt" and len(vals) == 3 and S.is_known(vals[2]) and not ins.modifiers[1:]:
            kept = self._bytes_kept(ins, vals)
            if kept is not None:
                return kept
        if op == "rem" and len(vals) == 2 and vals[1][1] and vals[0][1] and gcd(*(c for _, c in vals[1][1])) > 1:
            # x - y * (x / y), for signed (truncating) and unsigned division alike, with the quotient
            # the unknown that `div` of the same operands gives, where y has a stride to keep:
            # `(n + s - 1) % s` of a grid stride s = gridDim.x * blockDim.x leaves `n + s - 1 - that`
            # a multiple of blockDim.x (also with n a known value: `(999 + s) % s`)
            x, y = vals
            return S.sub(x, self._mul(y, self._quotient(ins.type, x, y)))
        if op == "rem" and len(vals) == 2 and S.is_known(vals[1]) and ins.type not in SIGNED and vals[0][1]:
            d = vals[1][0]
            if 0 < d < (1 << 31) and d & (d - 1) == 0:
                return self._rotation(vals[0], d)
        if op == "rem" and len(vals) == 2 and S.is_known(vals[1]) and vals[1][0] > 0:
            d = vals[1][0]
            x = vals[0]
            if all(c % d == 0 for _, c in x[1]) and x[0] >= 0 and ins.type not in SIGNED:
                return S.const(x[0] % d)
            if x[1]:
                # x - d * (x / d), with the quotient the unknown `div` gives: `n - n % 96` is 96 * (n / 96)
                # (signed too: `rem.s32` is what is left of C's truncating division)
                return S.sub(x, S.scale(self._quotient(ins.type, x, vals[1]), d))
        if op in ("or", "xor") and len(vals) == 2:
            for x, k in ((vals[0], vals[1]), (vals[1], vals[0])):
                if S.is_known(k) and S.wrap(k, bits)[0] == 0:
                    return x
                if S.is_known(k) and x[1] and 0 < k[0]:
                    changed = with_low_bits(op, x[0], x[1], k[0])
                    if changed is not None:
                        return (changed, x[1])
        if op == "and" and len(vals) == 2:
            multiple = self._cleared_low_bits(vals, bits)
            if multiple > 1:
                # a mask that clears the low bits and some high ones too (nvcc's `(n + 3) / 4 * 4` of a
                # value it knows is small is `& 0x1FFF...FC`): whatever the unknown, a multiple of 4
                return S.scale(self._opaque(("and-multiple", ins.type, tuple(vals))), multiple)
        value = self._opaque((op, ins.type, tuple(vals)))
        if op == "or" and any(S.is_known(v) and S.wrap(v, bits)[0] for v in vals):
            self.nonzero.add(value[1][0][0])
        return value

    @staticmethod
    def _cleared_low_bits(vals, bits: int) -> int:
        """2^k where `x & m` with an unknown x and a known m whose low k bits are zero is a multiple
        of 2^k (k >= 1; capped at 2^16, an alignment a warp's lanes could share); 1 otherwise."""
        x, m = vals
        if not S.is_known(m):
            x, m = m, x
        if not S.is_known(m) or not x[1]:
            return 1
        mask = m[0] & ((1 << bits) - 1)
        if mask == 0:
            return 1
        return min(mask & -mask, 1 << 16)

    def _rounded_signed_quotient(self, x, k: int, bits: int):
        """`(y + ((y >> 31) >>> (32 - k))) >> k`, nvcc's signed division of y by 2^k, where y is a
        multiple of 2^k (every coefficient and the known part): the rounding term is 0 or 2^k - 1 and
        does not change the quotient, which is y / 2^k exactly (`(csize - csize % 128) / 4`)."""
        if not 0 < k < bits:
            return None
        table = self.table
        for sym, coef in x[1]:
            if coef != 1:
                continue
            key = table.key_of(sym)
            # the rounding term: an unsigned shift by bits - k of the sign of y
            if not (key and key[0] == "opaque" and len(key[1]) == 3 and key[1][0] == "shr"
                    and key[1][1] not in SIGNED and key[1][2][1] == S.const(bits - k)):
                continue
            sign = single_symbol(key[1][2][0])
            sign_key = table.key_of(sign) if sign else None
            if not (sign_key and sign_key[0] == "opaque" and sign_key[1][:2] == ("high bits", "shr")
                    and sign_key[1][2] in SIGNED and sign_key[1][4] == bits - 1):
                continue
            y = S.sub(x, (0, ((sym, 1),)))
            d = 1 << k
            if y[1] == sign_key[1][3] and y[0] % d == 0 and all(c % d == 0 for _, c in y[1]):
                return (y[0] // d, tuple((t, c // d) for t, c in y[1]))
        return None

    def _bytes_kept(self, ins, vals):
        """`prmt` whose low result bytes are one operand's low bytes in place (a 16- or 32-bit value
        assembled from bytes): the result is that operand plus 2^(8L) times an unknown, L the bytes
        kept, so `x - (x & 127)` of the assembled value stays a multiple of 128. None otherwise."""
        selector = vals[2][0]
        sources = [(selector >> (4 * b)) & 0xF for b in range(4)]
        if any(s & 8 for s in sources):
            return None  # sign replication
        operand = 0 if sources[0] == 0 else 1 if sources[0] == 4 else None
        if operand is None:
            return None
        kept = 0
        while kept < 4 and sources[kept] == 4 * operand + kept:
            kept += 1
        if kept == 4:
            return vals[operand]
        rest = self._opaque(("prmt above byte", kept, tuple(vals)))
        return S.add(vals[operand], S.scale(rest, 1 << (8 * kept)))

    @staticmethod
    def _stride_of(x) -> int:
        """The largest power of two that divides every unknown coefficient of x (1 when one is odd)."""
        stride = 0
        for _, c in x[1]:
            stride |= abs(c)
        return stride & -stride if stride else 1

    def _and_above_stride(self, vals, bits: int):
        """`x & m` for a known mask m and x = c + U whose unknown coefficients are all multiples of
        2^j: U + (c rounded down to 2^j) has no bits below j and adding c's low part cannot carry,
        so the bits of m from j up depend on U and c's high part only, the bits below j are c's own.
        nvcc's test of a loop unrolled by two over `i < 32*n` (`(32*n - 1 - tid) & 512`) is then one
        value per warp. None when no unknown coefficient has a factor of two."""
        x, m = vals if S.is_known(vals[1]) else (vals[1], vals[0])
        if not S.is_known(m) or not x[1]:
            return None
        step = self._stride_of(x)
        if step <= 1 or step >= (1 << bits):
            return None
        mask = m[0] & ((1 << bits) - 1)
        low = x[0] % step  # Python's modulo: 0 <= low < step, also for a negative c
        high_mask = mask & ~(step - 1)
        high = self._opaque(("and above stride", x[1], x[0] - low, high_mask, bits)) if high_mask else S.ZERO
        return S.add(high, S.const(low & mask))

    def _bitwise_above_stride(self, op: str, vals, bits: int):
        """`x | y`, `x ^ y`, `x & y` where every unknown coefficient of both is a multiple of 2^j:
        below bit j the result is the operation on the known parts' low bits, from bit j up some
        multiple of 2^j that depends on the unknowns and the known parts' high bits only. So
        `((x | y | z) & 7)` of indices `c + 8*U` is known in every thread (cuSZ's `x % 8 == 0 and
        y % 8 == 0 and z % 8 == 0`). None where no factor of two is common."""
        step = min(self._stride_of(v) for v in vals if v[1])
        if step <= 1 or step >= (1 << bits):
            return None
        lows = [v[0] % step for v in vals]  # Python's modulo: 0 <= low < step, also for a negative c
        low = {"or": lows[0] | lows[1], "xor": lows[0] ^ lows[1], "and": lows[0] & lows[1]}[op]
        high = self._opaque(("bitwise above stride", op, bits) + tuple((v[1], v[0] - l) for v, l in zip(vals, lows)))
        return S.add(S.scale(high, step), S.const(low))

    def _high_bits(self, op, ins, x, k: int, bits: int):
        """`x >> k` (arithmetic or logical) or unsigned `x / 2^k` of x = c + U where every unknown
        coefficient of U is a multiple of 2^j: the bits from j up depend only on U and c / 2^j
        (rounded down), so threads whose c agree there get the same value, whatever the sign or
        wrap-around (`(32*n - lane - 1) >> 5`, nvcc's trip count of a loop over a rounded bound,
        is one value for the whole warp). The sign of a global thread index is 0 (see
        `_not_negative`). None when this does not apply."""
        if op == "div":
            if ins.type in SIGNED or k <= 0 or k & (k - 1):
                return None
            k = k.bit_length() - 1
        if not 0 <= k < bits:
            return None
        if op == "shr" and k == bits - 1 and ins.type in SIGNED and self._not_negative(x, bits):
            return S.ZERO
        stride = 0
        for _, c in x[1]:
            stride |= abs(c)
        m = min(stride & -stride, 1 << k)
        if m <= 1:
            return None
        return self._opaque(("high bits", op, ins.type, x[1], k, x[0] // m))

    def _quotient(self, type_name: Optional[str], x, y):
        """The unknown quotient x / y that `rem` leaves behind (x % y is x - y * (x / y)), keyed by
        the operands and the signedness of the division but not by its width: nvcc divides a 64-bit
        value by a run-time divisor as `rem.u64`, or, on the path where both fit in 32 bits, as a
        `rem.u32` of their truncations (which the evaluator keeps as the values themselves), and the
        two paths give one value where they join."""
        kind = (type_name or "b")[:1]
        return self._opaque(("div", "s" if kind == "s" else "u", (x, y)))

    def _high_bits_apply(self, op, ins, args: list, bits: int) -> bool:
        """Does `_high_bits` give the shift or division of these per-thread operands (one known
        amount, unknown terms shared by every thread)?"""
        x, k = args
        if type(x) is Varying or type(k) is Varying or not S.uniform_across(k) or not S.is_known(k[0]) \
                or not x[0][1]:
            return False
        return self._high_bits(op, ins, x[0], k[0][0], bits) is not None

    def _not_negative(self, x, bits: int) -> bool:
        """Is x a global thread index along one axis, `blockIdx * k + c` with 0 <= c < k <= blockDim
        (`blockIdx.x * blockDim.x + threadIdx.x`)? It is not negative as a signed `bits`-wide value
        when the grid has fewer than 2^(bits-1) threads along that axis, which is assumed (and noted):
        an `int` index of a larger grid overflows in the kernel's own arithmetic."""
        if len(x[1]) != 1 or bits < 32:
            return False
        (sym, k), = x[1]
        for axis, size in zip("xyz", self.shape.dims):
            if sym == self.table.interned(("special", f"%ctaid.{axis}")) and 0 <= x[0] < k <= size:
                self._note(f"a global thread index (blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis}) "
                           f"is assumed not to overflow a signed {bits}-bit integer")
                return True
        return False

    def _rotation(self, x, modulus: int):
        """`(c + U) mod 2^k` with U unknown: one symbol per residue of c, so that threads whose
        residues agree hold the same value and others different ones. The residue (in the key)
        lets a cost model count a lane pattern that a uniform unknown rotates (`(lane + i) & 63`:
        32 distinct table entries for every i). Differences between residues stay unknown."""
        terms = x[1]
        residue = x[0] % modulus
        key = ("rotation", terms, modulus, residue)
        name = self.table.interned(key)
        if name is None:
            origin = f"({S.describe((0, terms), self.table)} + lane pattern) mod {modulus}"
            name = self.table.symbol(key, origin, True)
            self.rotations[name] = (terms, modulus, residue)
        return (0, ((name, 1),))

    def fold_rotations(self, value):
        """`x - x % d` is a multiple of d: where a value holds `a*R - a*U` with R = `(r + U) mod d`, it
        is `a*r - a*d*Q` with Q = `(r + U) / d` (`n - n % blockDim.x`, nvcc's form of
        `n / blockDim.x * blockDim.x`, is blockDim.x times an unknown), so that comparisons and
        addresses see the stride."""
        rotations = self.rotations
        if not rotations or not value[1]:
            return value
        for sym, a in value[1]:
            info = rotations.get(sym)
            if info is None:
                continue
            terms, d, residue = info
            have = dict(value[1])
            if not all(have.get(s, 0) == -a * c for s, c in terms):
                continue
            quotient = self.table.value(("quotient", terms, d, residue),
                                        f"({S.describe((residue, terms), self.table)}) / {d}", True)
            # a*R - a*U = -a*(U - R) = -a*(d*Q - r)
            rest = (value[0] + a * residue, tuple(t for t in value[1] if t[0] != sym and t[0] not in dict(terms)))
            return self.fold_rotations(S.add(rest, S.scale(quotient, -a * d)))
        return self._fold_nested_rotations(value)

    def _fold_nested_rotations(self, value):
        """a*R1 - a*R2 with R1 = (r + U) mod d1 and R2 = (r' + U) mod d2, d2 dividing d1 and r = r'
        (mod d2): both keep the same low bits, so the difference is d2 times an unknown (`(x & 255) -
        (x & 127)` is 128 times bit 7 of x)."""
        rotations = self.rotations
        found = [(sym, a, rotations[sym]) for sym, a in value[1] if sym in rotations]
        for sym1, a1, (terms1, d1, r1) in found:
            for sym2, a2, (terms2, d2, r2) in found:
                if a2 != -a1 or terms1 != terms2 or d2 >= d1 or d1 % d2 or (r1 - r2) % d2:
                    continue
                between = self.table.value(("rotation difference", terms1, d1, r1, d2),
                                           f"({S.describe((r1, terms1), self.table)}) mod {d1} / {d2}", True)
                rest = (value[0] + a1 * (r2 % d2 - r1 % d2),
                        tuple(t for t in value[1] if t[0] not in (sym1, sym2)))
                return S.add(rest, S.scale(between, a1 * d2))
        return value

    def _mul(self, x, y):
        if S.is_known(y):
            return S.scale(x, y[0])
        if S.is_known(x):
            return S.scale(y, x[0])
        return self._bilinear(x, y)

    def _bilinear(self, x, y):
        """x * y with unknowns on both sides, multiplied out: the product of two unknowns is an
        unknown of its own. A lane-dependent index times a run-time row pitch (`x * height`) so
        keeps the lanes' coefficients on the pitch instead of becoming one opaque value per lane."""
        if len(x[1]) * len(y[1]) > 4:
            return self._opaque(("mul", x, y))
        value = S.add(S.scale((0, y[1]), x[0]), S.scale((0, x[1]), y[0]))
        value = (x[0] * y[0], value[1])
        for s, a in x[1]:
            for r, b in y[1]:
                key = ("product",) + tuple(sorted((s, r)))
                known = self.table.interned(key)
                if known is not None:
                    product = (0, ((known, 1),))
                else:
                    origins = self.table.origin
                    product = self.table.value(key, f"{origins.get(key[1], key[1])} * {origins.get(key[2], key[2])}",
                                               True)
                value = S.add(value, S.scale(product, a * b))
        return value

    def _convert(self, ins: Instruction, values: list) -> list:
        types = [m for m in ins.modifiers if m[:1] in "usbf" and m[1:].isdigit()]
        if len(types) < 2 or types[0].startswith("f") or types[1].startswith("f"):
            return self._lift(lambda v: v if S.is_known(v) and not types else
                              self._opaque(("cvt", ins.opcode, v)), values)
        dst, srct = types[0], types[1]
        src_bits, dst_bits = bits_of(srct), bits_of(dst)
        src_signed, dst_signed = srct.startswith("s"), dst.startswith("s")
        return self._lift(lambda v: S.wrap(S.wrap(v, src_bits, src_signed), dst_bits, dst_signed), values)

    def _compare(self, ins: Instruction, reg: Register) -> list:
        """setp, per thread: known where both sides' difference is, else one boolean unknown per
        canonical comparison (`x >= n` is `not x < n`); `setp.cmp.and/or/xor d|e, a, b, c` combines
        (`d = cmp(a, b) op c`, `e = !cmp(a, b) op c`) in three-valued logic."""
        cmp = ins.modifiers[0] if ins.modifiers else "eq"
        ops = ins.operands
        first = ops[0]
        a, b = self.operand(ins, ops[1]), self.operand(ins, ops[2])
        combine = next((m for m in ins.modifiers if m in P.COMBINE), None) if len(ops) > 3 else None
        signed = ins.type in SIGNED
        bits = bits_of(ins.type)
        compare = COMPARE.get(cmp)
        if not self._facts_read:
            self._read_assertion_facts()
        out = self._grid_bound_compare(cmp, ins.type, a, b)
        if out is None:
            out = self._affine_compare(compare, a, b, bits, signed)
        if out is None:
            out = self._shifted_compare(cmp, ins.type, a, b)
        if out is None and self.bounds and id(ins) not in self._fact_checks:
            out = self._with_bounds(cmp, ins.type, a, b, bits, signed)
        if out is None:
            out = self._ordering_compare(cmp, ins.type, a, b)
        if out is None:
            out = self._difference_compare(compare, cmp, ins.type, a, b, bits, signed)
        if out is None:
            out = self._compare_per_thread(compare, cmp, ins.type, a, b, bits, signed)
        if isinstance(first, PairOperand) and reg == first.second:
            out = self._predicates(P.p_not, out)
        if combine:
            join = P.COMBINE[combine]
            out = self._predicates(lambda x, y: join(x, y, self._boolean_opaque), out, self.operand(ins, ops[3]))
        return out

    def _grid_bound_compare(self, cmp: str, type_name: Optional[str], a, b) -> Optional[list]:
        """An integer comparison decided by `blockIdx < gridDim` on every axis: where a - b is
        c + k*(blockIdx - gridDim) (summed over axes, one sign of k), it is at most c - k (k > 0), or
        at least c + |k| (k < 0): `blockIdx.x == gridDim.x` is false, and `blockIdx.x * blockDim.x +
        threadIdx.x < gridDim.x * blockDim.x` true, in every thread. Also by `blockIdx >= 0`: where
        a - b is c + k*blockIdx (one sign of k), it is at least c (k > 0) or at most c (k < 0). Both sides are taken as the
        integers they are written as (global thread indices do not overflow, see `_not_negative`).
        The result in the threads this decides, the usual comparison in the others; None when it
        decides none."""
        compare = COMPARE.get(cmp)
        if compare is None or P.canonical_form(cmp, type_name) is None or type(a) is Varying \
                or type(b) is Varying:
            return None
        pairs = {}
        blocks = set()
        for axis in "xyz":
            block, grid = (self.table.interned(("special", f"{name}.{axis}")) for name in ("%ctaid", "%nctaid"))
            if block is not None:
                blocks.add(block)
                if grid is not None:
                    pairs[block] = grid
        if not blocks:
            return None

        grids = set(pairs.values())
        grid_symbols = blocks | grids
        unsigned = P.canonical_form(cmp, type_name)[0] == "lo" or type_name[:1] in "ub"

        def decide(x, y):
            # only sides made of blockIdx and gridDim (index arithmetic, no other unknown that could
            # wrap around); unsigned, only sides that are not negative, blockIdx >= 0 and gridDim >= 1
            # (`gridDim.x * blockDim.x - 1` is not, `blockIdx.x - 1` wraps at 0)
            for side in (x, y):
                if any(sym not in grid_symbols for sym, _ in side[1]):
                    return None
                if unsigned and (any(c < 0 for _, c in side[1]) or
                                 side[0] + sum(c for sym, c in side[1] if sym in grids) < 0):
                    return None
            d = S.sub(x, y)
            terms = dict(d[1])
            if terms and all(sym in blocks for sym in terms):
                # blockIdx alone (`blockIdx.x * 32 + 8 < 8`, a bound known once a trip count is tried):
                # blockIdx >= 0 puts a - b at or above c (coefficients > 0) or at or below it (< 0)
                signs = {c > 0 for c in terms.values()}
                if len(signs) != 1:
                    return None
                step = 1 if signs.pop() else -1
                if d[0] * step > 0:
                    return P.TRUE if compare(step, 0) else P.FALSE
                if d[0] == 0 and compare(0, 0) == compare(step, 0):
                    return P.TRUE if compare(0, 0) else P.FALSE
                return None
            k = 0
            for block, grid in pairs.items():
                kb = terms.pop(block, 0)
                if kb != -terms.pop(grid, 0) or kb * k < 0:
                    return None
                k += kb
            if terms or not k:
                return None
            if k > 0 and d[0] - k < 0:
                return P.TRUE if compare(-1, 0) else P.FALSE
            if k < 0 and d[0] - k > 0:
                return P.TRUE if compare(1, 0) else P.FALSE
            return None

        decided = apply_per_distinct(decide, list(zip(a, b)))
        if all(v is None for v in decided):
            return None
        self._note("0 <= blockIdx < gridDim on every axis decides a comparison (global thread indices are "
                   "assumed not to overflow)")
        if all(v is not None for v in decided):
            return as_affine(decided) or decided
        rest = self._affine_compare(compare, a, b, bits_of(type_name), type_name in SIGNED)
        if rest is None:
            rest = self._ordering_compare(cmp, type_name, a, b)
        if rest is None:
            rest = self._compare_per_thread(compare, cmp, type_name, a, b, bits_of(type_name), type_name in SIGNED)
        out = [v if v is not None else rest[t] for t, v in enumerate(decided)]
        return as_affine(out) or out

    def _shifted_compare(self, cmp: str, type_name: Optional[str], a, b) -> Optional[Affine]:
        """An integer comparison whose two sides differ by the same unknown amount in every thread
        (`t < end` with t = 96*b*s + tid and end = 96*b*s + 96*s + tid): one value for the whole
        block, as `t - end < 0` is (the sides are taken as the integers they are written as, as
        for global thread indices). None when the difference differs between threads."""
        va, vb = as_affine(a), as_affine(b)
        form = P.canonical_form(cmp, type_name)
        if va is None or vb is None or form is None or va.terms == vb.terms or not va.consts:
            return None
        shift = va.consts[0] - vb.consts[0]
        if any(x - y != shift for x, y in zip(va.consts, vb.consts)) or min(va.consts) == max(va.consts):
            return None  # the difference differs between threads, or both sides are the same everywhere
        base, swap, negate, bits = form
        difference = S.sub((shift, va.terms), (0, vb.terms))  # a - b
        if swap:
            difference = S.neg(difference)  # `a > b` is `b < a`
        if base == "eq":
            difference = min(difference, S.neg(difference))
        if base != "eq":
            self._note("a comparison whose sides differ by the same amount in every thread is one value for "
                       "all of them (the values are assumed not to overflow)")
        value = self._boolean_opaque(("compare-difference", base, bits, difference))
        return uniform_vector(P.p_not(value) if negate else value, self.n)

    def _affine_compare(self, compare, a, b, bits, signed) -> Optional[Affine]:
        """setp on Affine inputs with the same unknown terms: compared on int lists."""
        if compare is None:
            return None
        va, vb = as_affine(a), as_affine(b)
        if va is None or vb is None or va.terms != vb.terms:
            return None
        if va.terms:  # the same unknown on both sides: compare the difference
            return Affine([int(compare(x - y, 0)) for x, y in zip(va.consts, vb.consts)])
        xs, ys = wrap_consts(va.consts, bits, signed), wrap_consts(vb.consts, bits, signed)
        return Affine([int(compare(x, y)) for x, y in zip(xs, ys)])

    def _ordering_compare(self, cmp: str, type_name: Optional[str], a, b) -> Optional[list]:
        """An integer ordering comparison (not eq/ne) of two Affine vectors with different unknown
        terms, without the per-thread path's tries that cannot apply to it. When the unknown terms
        are multiples of a stride m (`tid + 128*k < 128*n`), P.strided_compare decides each thread
        from the quotients of its known parts by m and which remainder is smaller, so threads that
        agree on those get the same result, computed once; otherwise each thread's comparison is
        its own canonical unknown. The values are the per-thread path's. None when it does not apply."""
        form = P.canonical_form(cmp, type_name)
        if form is None or form[0] == "eq":
            return None
        va, vb = as_affine(a), as_affine(b)
        if va is None or vb is None or va.terms == vb.terms:
            return None
        ta, tb = va.terms, vb.terms
        m = P.common_stride((0, ta), (0, tb), int(form[3]))
        if m <= 1:
            return self._canonical_per_thread(form, va, vb)
        found: dict = {}
        out = []
        for x, y in zip(va.consts, vb.consts):
            q, r = divmod(x, m)
            q2, r2 = divmod(y, m)
            key = (q, q2, (r > r2) - (r < r2))
            value = found.get(key)
            if value is None:
                value = found[key] = P.strided_compare(cmp, type_name, (x, ta), (y, tb), self._boolean_opaque)
                if value is None:
                    return None
            out.append(value)
        return as_affine(out) or out

    def _canonical_per_thread(self, form: tuple, va: Affine, vb: Affine) -> list:
        """P.canonical_compare in each thread (`form` is P.canonical_form's), for operands whose
        unknown parts differ: one boolean unknown per thread (`tid * 4 + k < n`), made once per
        pair of operand vectors (loop iterations repeat the same comparisons)."""
        ta, tb = va.terms, vb.terms
        memo_key = ("canonical", form, ta, tb, tuple(va.consts), tuple(vb.consts))
        out = self._opaque_vectors.get(memo_key)
        if out is None:
            unknown, negate = self._boolean_opaque, form[2]
            differences = [x - y for x, y in zip(va.consts, vb.consts)]
            if form[0] == "lt" and len(set(differences)) < len(set(zip(va.consts, vb.consts))):
                # signed, and threads whose two sides differ by the same amount although the sides
                # themselves differ (`t < end + tid` with t = base + tid + k*C; `i < n + lane` with
                # i = 256*b + tid, one difference per warp): `x < y` is `x - y < 0` for integers that
                # do not overflow, so those threads get one value (trip counts uniform by construction)
                self._note("a signed comparison whose two sides carry the same thread-dependent term is "
                           "decided by their difference (the sides are assumed not to overflow)")
                by_difference: dict = {}
                for d in differences:
                    if d not in by_difference:
                        v = unknown(P.canonical_key(form, (d, ta), (0, tb)))
                        by_difference[d] = P.p_not(v) if negate else v
                out = [by_difference[d] for d in differences]
            else:
                # `unknown(P.canonical_key(...))` per thread, its calls inlined: one per thread of the block
                table, booleans, out = self.table, self.booleans, []
                interned, symbol, key_of = table.interned, table.symbol, P.canonical_key
                for x, y in zip(va.consts, vb.consts):
                    key = key_of(form, (x, ta), (y, tb))
                    name = interned(("opaque", key))
                    if name is None:
                        name = symbol(("opaque", key), S.ComputedFrom(key), True)
                    booleans.add(name)
                    out.append((1, ((name, -1),)) if negate else (0, ((name, 1),)))  # P.p_not: 1 - p
            self._opaque_vectors[memo_key] = out
        return out

    def _compare_per_thread(self, compare, cmp, type_name, a, b, bits, signed) -> list:
        def one(x, y):
            if S.difference_known(x, y) and compare is not None:
                if S.is_known(x) and S.is_known(y):
                    result = compare(S.wrap(x, bits, signed)[0], S.wrap(y, bits, signed)[0])
                else:
                    result = compare(x[0] - y[0], 0)  # the same unknown on both sides: compare the difference
                return S.const(int(result))
            found = P.boolean_compare(cmp, x, y, self.is_boolean)
            if found is None:
                found = self._bounded_compare(cmp, type_name, x, y)
            if found is None and cmp in ("eq", "ne") and (y == S.ZERO and self._known_nonzero(x)
                                                          or x == S.ZERO and self._known_nonzero(y)):
                found = P.FALSE if cmp == "eq" else P.TRUE
            if found is None:
                found = P.strided_compare(cmp, type_name, x, y, self._boolean_opaque)
            if found is None:
                found = P.canonical_compare(cmp, type_name, x, y, self._boolean_opaque)
            return found if found is not None else self._boolean_opaque(("setp", cmp, x, y))

        return self._lift(one, a, b)

    def _difference_compare(self, compare, cmp, type_name, a, b, bits, signed) -> Optional[list]:
        """A signed comparison where threads whose sides differ by the same unknown amount although
        the sides themselves differ (`i < nnz + lane` with i = 32*(warp / k) + lane: one difference
        per warp, an opaque quotient in it) get one value: `x < y` is `x - y < 0` for integers that
        do not overflow. The other threads get the usual comparison; None when no two threads share
        a difference this way (then `i < n` keeps the form exit tests read)."""
        form = P.canonical_form(cmp, type_name)
        if form is None or form[0] != "lt" or type(a) is Varying or type(b) is Varying:
            return None
        sides: dict = {}  # the comparison's key by difference -> the distinct (x, y) with it
        keys = []
        for x, y in zip(a, b):
            # keyed as _canonical_per_thread keys a shared difference: (x - y of the known parts, x's
            # unknowns) against (0, y's unknowns)
            key = None if S.difference_known(x, y) else P.canonical_key(form, (x[0] - y[0], x[1]), (0, y[1]))
            keys.append(key)
            if key is not None:
                sides.setdefault(key, set()).add((x, y))
        if not any(len(v) > 1 for v in sides.values()):
            return None
        self._note("a signed comparison whose two sides carry the same thread-dependent term is "
                   "decided by their difference (the sides are assumed not to overflow)")
        rest = self._compare_per_thread(compare, cmp, type_name, a, b, bits, signed)
        out = []
        for t, key in enumerate(keys):
            if key is None or len(sides[key]) < 2:
                out.append(rest[t])
                continue
            value = self._boolean_opaque(key)
            out.append(P.p_not(value) if form[2] else value)
        return as_affine(out) or out

    def _known_nonzero(self, v) -> bool:
        """Is v known not to be 0: a symbol known nonzero (`x | 1`), or the grid's blocks along an
        axis times at most a block's threads along it (`gridDim.x * blockDim.x`, the stride of a
        grid-stride loop: at least one thread, and no wrap below 2**31 threads)?"""
        if v[0] != 0 or len(v[1]) != 1:
            return False
        symbol, coefficient = v[1][0]
        if coefficient == 1 and symbol in self.nonzero:
            return True
        extent = self.grid_extents.get(symbol)
        if extent is not None and 0 < abs(coefficient) <= extent:
            self._note("the grid is assumed to have fewer than 2**31 threads along each axis (as a 32-bit "
                       "global index does): gridDim times blockDim is not 0")
            return True
        return False

    def _with_bounds(self, cmp: str, type_name: Optional[str], a, b, bits: int, signed: bool) -> Optional[list]:
        """The comparison where a min/max bound decides it in some threads (`_bounded_compare`), the
        usual comparison in the others; None when the bound decides no thread."""
        if type(a) is Varying or type(b) is Varying:
            return None
        decided = apply_per_distinct(lambda x, y: self._bounded_compare(cmp, type_name, x, y), list(zip(a, b)))
        if all(v is None for v in decided):
            return None
        if all(v is not None for v in decided):
            return as_affine(decided) or decided
        compare = COMPARE.get(cmp)
        rest = self._ordering_compare(cmp, type_name, a, b)
        if rest is None:
            rest = self._compare_per_thread(compare, cmp, type_name, a, b, bits, signed)
        out = [v if v is not None else rest[t] for t, v in enumerate(decided)]
        return as_affine(out) or out

    def _bounded_compare(self, cmp: str, type_name: Optional[str], x, y):
        """An ordering comparison of a known value with min(k, u) + c or max(k, u) + c that the bound
        decides: `tx < min(32, n)` is false for tx >= 32 whatever n is. None when it does not."""
        form = P.canonical_form(cmp, type_name)
        if form is None or form[0] not in ("lt", "lo"):
            return None
        base, swap, negate, _ = form
        lhs, rhs = (y, x) if swap else (x, y)  # the comparison is lhs < rhs, negated when `negate`
        signed = type_name[:1] == "s"
        for known, other, known_left in ((lhs, rhs, True), (rhs, lhs, False)):
            if not S.is_known(known) or len(other[1]) != 1 or other[1][0][1] != 1:
                continue
            bounds = self.bounds.get(other[1][0][0], ())
            for op, k, bound_signed, why in bounds:
                if bound_signed != signed and not _holds_across_signedness(bounds, op, k, bound_signed):
                    continue
                if not signed and (known[0] < 0 or k < 0):
                    continue
                limit = k + other[0]  # other <= limit (min) or other >= limit (max)
                if known_left:  # known < other
                    result = False if op == "min" and known[0] >= limit else True if op == "max" and known[0] < limit \
                        else None
                else:  # other < known
                    result = True if op == "min" and limit < known[0] else False if op == "max" and limit >= known[0] \
                        else None
                if result is not None:
                    if why is not None:
                        self._note(why)
                    return S.const(int(result != negate))
        return None

    def _read_assertion_facts(self) -> None:
        """Bounds that the kernel's own checks put on values every thread shares. A check that every
        thread passes on its way to the kernel's end (`assert(n <= 64)`, `if (n + 1 > 65) __trap();`)
        holds for the whole launch: a launch that breaks it aborts there (the CFG leaves the aborting
        path out, cfg.pruned_edges), and an aborted launch's accesses are not the program's. Only a
        comparison of one shared unknown (plus a constant) with a known value is read, as a bound
        like min(n, 64)'s (`_bounded_compare`)."""

        self._facts_read = True
        cfg = self.ctx.cfg
        for src, _, cond in cfg.pruned_edges:
            if cond is None or not isinstance(src, int) or not cfg.dominates(src, EXIT):
                continue
            branch = self.function.blocks[src].instructions[-1]
            defs = self.ctx.dataflow.definitions(branch, cond[0])
            if len(defs) != 1:
                continue
            check = self.function.instructions[defs[0]]
            if check.op != "setp" or len(check.operands) != 3 or not check.modifiers:
                continue
            form = P.canonical_form(check.modifiers[0], check.type)
            if form is None or form[0] not in ("lt", "lo"):
                continue
            self._fact_checks.add(id(check))
            pair = [self.operand(check, op) for op in check.operands[1:]]
            values = [v[0] if len(set(v)) == 1 else None for v in pair]
            if None in values:
                continue
            base, swap, negate, _ = form
            lhs, rhs = (values[1], values[0]) if swap else (values[0], values[1])
            holds = (not cond[1]) != negate  # the threads that go on have lhs < rhs == holds
            signed = check.type[:1] == "s"
            for unknown, known, on_left in ((lhs, rhs, True), (rhs, lhs, False)):
                if not S.is_known(known) or len(unknown[1]) != 1 or unknown[1][0][1] != 1:
                    continue
                if not signed and unknown[0] != 0:
                    continue  # an unsigned u + c may wrap
                k, c = known[0], unknown[0]
                if on_left:  # u + c < k, or u + c >= k
                    bound = ("min", k - c - 1) if holds else ("max", k - c)
                else:  # k < u + c, or k >= u + c
                    bound = ("max", k - c + 1) if holds else ("min", k - c)
                where = user_line(branch)
                name = self.table.origin.get(unknown[1][0][0], "a shared value")
                why = (f"the kernel's check at {where} holds in every launch that does not abort there: "
                       f"{name} is at {'most' if bound[0] == 'min' else 'least'} {bound[1]}")
                symbol, entry = unknown[1][0][0], (bound[0], bound[1], signed, why)
                if entry not in self.bounds.get(symbol, ()):  # (an iteration's evaluator shares `bounds`)
                    self.bounds[symbol] = self.bounds.get(symbol, ()) + (entry,)

    def _boolean_opaque(self, key) -> tuple:
        """An unknown predicate, equal for equal keys (and known to be 0 or 1)."""
        value = self._opaque(key)
        self.booleans.add(value[1][0][0])
        return value

    def _predicates(self, fn, *vectors) -> list:
        """Apply a predicate function thread by thread. Unlike `_lift`, per-thread unknowns do not
        make the result unknown everywhere: `true || unknown` is true in the threads where it is."""
        affines = [as_affine(v) for v in vectors]
        if all(v is not None and not v.terms for v in affines):
            rows = list(zip(*(v.consts for v in affines)))
            return Affine(apply_per_distinct(lambda *cs: fn(*map(S.const, cs))[0], rows))
        out = apply_per_distinct(fn, list(zip(*vectors)))
        return as_affine(out) or out

    def _logic(self, op: str, ins: Instruction) -> list:
        """and/or/xor/not.pred in three-valued logic."""
        ops = ins.operands
        if op == "not":
            return self._predicates(P.p_not, self.operand(ins, ops[1]))
        join = P.COMBINE[op]
        return self._predicates(lambda x, y: join(x, y, self._boolean_opaque),
                                self.operand(ins, ops[1]), self.operand(ins, ops[2]))

    def _select(self, ins: Instruction, x: list, y: list, q: list) -> list:
        """selp d, x, y, q: x where q, y where not; with known x, y and an unknown q exactly
        y + (x - y) * q (q is 0 or 1), so `selp 1, 0, p` is p itself."""
        if type(x) is Varying or type(y) is Varying:
            qa = as_affine(q)
            if qa is None or qa.terms:
                return self._fresh(("derived", self._site), self._derived_origin(x if type(x) is Varying else y))
            return [x[t] if c else y[t] for t, c in enumerate(qa.consts)]
        number = not (ins.type or "").startswith("f")

        def one(a, b, c):
            truth = P.known_truth(c)
            if truth is not None:
                return a if truth else b
            if a == b:
                return a
            if number and S.is_known(a) and S.is_known(b):
                return S.add(b, S.scale(c, a[0] - b[0]))
            if number:
                multiple = self._selected_multiple(a, b, c)
                if multiple > 1:
                    return S.scale(self._opaque(("selp-multiple", a, b, c, multiple)), multiple)
            return self._opaque(("selp", a, b, c))

        out = apply_per_distinct(one, list(zip(x, y, q)))
        return as_affine(out) or out

    def _selected_multiple(self, a, b, c) -> int:
        """M > 1 when both values a select `c ? a : b` may pick are multiples of M, taking on each side
        what its test shows: where c is `(x & (2^k - 1)) == 0`, x on the side it holds is a multiple of
        2^k (`(n & (w - 1)) ? (n & ~(w - 1)) + w : n`, a bound rounded up to a power-of-two block
        whichever side is taken); 1 otherwise."""
        test = self._low_bits_zero(c)
        if test is not None:
            x, k, when_true = test
            side = a if when_true else b
            if side[1] == x[1] and side[0] % (1 << k) == x[0]:
                # on that side the value is x with its low k bits zero: 2^k times an unknown
                held = S.scale(self._opaque(("low-bits-zero", side, k)), 1 << k)
                a, b = (held, b) if when_true else (a, held)
        return gcd(_value_multiple(a), _value_multiple(b))

    def _low_bits_zero(self, c) -> Optional[tuple]:
        """(x, k, whether c is true when they are) when the predicate c is `(x & (2^k - 1)) == 0` or its
        negation, else None; x's known part is its residue modulo 2^k."""
        if S.is_known(c) or len(c[1]) != 1:
            return None
        (sym, coef), = c[1]
        if (c[0], coef) == (0, 1):
            when_true = True
        elif (c[0], coef) == (1, -1):
            when_true = False
        else:
            return None
        key = self.table.key_of(sym)
        if not (key and key[0] == "opaque" and len(key[1]) == 5 and key[1][:2] == ("compare", "eq")):
            return None
        x, y = key[1][3], key[1][4]
        masked = y if x == S.ZERO else x if y == S.ZERO else None
        name = single_symbol(masked) if masked is not None and masked[0] == 0 else None
        if name is None:
            return None
        rotation = self.rotations.get(name)
        if rotation is not None:
            # `x & (2^k - 1)` of an unknown x as `(c + U) mod 2^k` (_rotation): zero where c + U is a multiple
            terms, modulus, residue = rotation
            if modulus & (modulus - 1) or modulus < 2:
                return None
            return (residue, terms), modulus.bit_length() - 1, when_true
        inner = self.table.key_of(name)
        if not (inner and inner[0] == "opaque" and len(inner[1]) == 3 and inner[1][0] == "and"):
            return None
        # the same kept as an unknown of its own (the mask written first: `and.b32 r, 1023, n`)
        u, m = inner[1][2]
        if not S.is_known(m):
            u, m = m, u
        low = m[0] if S.is_known(m) else 0
        if low <= 0 or low & (low + 1) or S.is_known(u):
            return None
        return (u[0] % (low + 1), u[1]), low.bit_length(), when_true

    def _loaded(self, ins: Instruction, reg: Register) -> list:
        """The result of a load, atomic, shuffle...: uniform when every thread reads the same thing."""
        op = ins.op
        where = f"line {ins.loc.line}" if ins.loc else f"PTX line {ins.ptx_line}"
        if op == "ld" and ins.space == "param":
            mem = ins.memory_operand()
            name = mem.base.name if mem is not None and isinstance(mem.base, Symbol) else "?"
            if name in self._kernel_params:
                passed = self._passed_value(ins, name, mem.offset)
                if isinstance(passed, Multiple):  # factor * q, q some integer the same in every thread
                    # keyed as a parameter (rules ask whether a value comes from the kernel's inputs)
                    quotient = self.table.value(("param", name, mem.offset, passed.factor),
                                                f"kernel parameter {name} / {passed.factor}", True)
                    return uniform_vector(S.scale(quotient, passed.factor), self.n)
                if isinstance(passed, tuple):  # a multiple of gridDim.x (`_launch_share_value`)
                    return uniform_vector(passed, self.n)
                if passed is not None:
                    return uniform_vector(S.const(passed), self.n)
                return self._uniform_unknown(("param", name, mem.offset), f"kernel parameter {name}")
            # a device function's parameter may differ between the threads that call it
            return self._fresh(("param", name), f"parameter {name} of {self.function.name}")
        if op == "redux" or op == "vote" and any(m in ins.modifiers for m in ("ballot", "all", "any", "uni")) \
                or op == "match" and "all" in ins.modifiers:
            # one result for the whole warp (match.all: the mask, or 0, and its predicate)
            return self._per_warp_unknown(("warp-result", ins.index, reg.name) + self._instance(ins),
                                          f"the {ins.opcode} result at {where}")
        if op == "shfl":
            return self._shuffle(ins, reg, where)
        if is_barrier_reduction(ins):
            # __syncthreads_or/and/count: every thread of the block receives the block-wide result
            return self._uniform_unknown(("block-result", ins.index, reg.name) + self._instance(ins),
                                         f"the {ins.opcode} result at {where} (one value per block)")
        if op in ("ld", "ldu") and ins.memory_operand() is not None:
            if access_space(self.ctx, ins) == "local":
                forwarded = self._forwarded_from_local_store(ins)
                if forwarded is not None:  # what this thread's one store to the slot wrote
                    return forwarded
                store = thread_dependent_local_store(self.ctx, ins)
                if store is not None:  # each thread reads back what it stored: no two alike
                    return self._fresh(("load", ins.index, reg.name),
                                       f"the thread-private value loaded at {where} (local memory, written "
                                       f"per thread at {user_line(store)})")
            if ins.space == "shared" and is_ordered_load(ins) and observes_changing_memory(self.ctx, ins):
                # a volatile shared read beside writes of the block: threads reading one address may
                # see the old value or the new (not told which branches split the block: the
                # uniformity analysis asks the evaluator). Global memory is left as one value per
                # address: other blocks' writes to it are the race and fence rules' to judge.
                return self._fresh(("load", ins.index, reg.name), f"the {ins.opcode} at {where} (each thread "
                                   "may observe a different value)")
            addr = self.address(ins)
            if addr is not None and S.uniform_across(addr):
                return self._uniform_unknown(("load", ins.index, reg.name, addr[0]) + self._instance(ins),
                                             f"the value loaded at {where}")
            if addr is None or type(addr) is Varying or len(set(addr)) == len(addr):
                return self._fresh(("load", ins.index, reg.name), f"the value loaded at {where}")
            # threads that read one address read one value
            instance = self._instance(ins)
            return [self.table.value(("load", ins.index, reg.name, a) + instance, f"the value loaded at {where}")
                    for a in addr]
        return self._fresh((op, ins.index, reg.name), f"the {ins.op} result at {where}")

    def _forwarded_from_local_store(self, load: Instruction) -> Optional[list]:
        """The value a local load reads where one store writes its slot and runs before it in the
        same loop nest (its block dominates the load's, or it is earlier in the same block): each
        thread reads back what it stored there (a warp's item kept in a stack temporary stays the
        warp's). None otherwise."""
        store = sole_local_store(self.ctx, load)
        if store is None:
            return None
        cfg, fn = self.ctx.cfg, self.function
        if not cfg.runs_before(store, load):
            return None
        if cfg.loops_containing(fn.block_of(store).id) != cfg.loops_containing(fn.block_of(load).id):
            return None
        return self.operand(store, store.operands[1])

    def _shuffle(self, ins: Instruction, reg: Register, where: str) -> list:
        """shfl.sync: each lane receives the value of its source lane (PTX ISA lane arithmetic) where
        the lane and clamp operands are known; with `idx` and a source lane that is one (unknown)
        lane per warp, every lane of a warp receives the same value: a per-warp value."""
        ops = ins.operands
        fresh = self._fresh((ins.op, ins.index, reg.name), f"the {ins.op} result at {where}")
        mode = shuffle_mode(ins.modifiers)
        if mode is None or len(ops) < 4:
            return fresh
        first = ops[0]
        want_pred = isinstance(first, PairOperand) and reg == first.second
        a = self.operand(ins, ops[1])
        b = self.operand(ins, ops[2])
        cv = as_affine(self.operand(ins, ops[3]))
        c = uniform_const(cv) if cv is not None else None
        if not want_pred and type(a) is not Varying and S.uniform_across(a):
            return a  # every lane holds the same value, in range or not
        n = self.n
        bv = as_affine(b)
        if c is not None and bv is not None and not bv.terms:
            # a lane's source depends on its lane number and b only: worked out once per distinct
            # (lane, b), not per thread (every warp with the same b repeats the first one's)
            sources: dict = {}
            origins, oks = [], []
            for t, bt in enumerate(bv.consts):
                lane = t % 32
                found = sources.get((lane, bt))
                if found is None:
                    found = sources[(lane, bt)] = shuffle_source(mode, lane, bt, c)
                origins.append(t - lane + found[0])
                oks.append(found[1])
            if want_pred:
                return Affine([int(ok) for ok in oks])
            if origins and max(origins) < n:
                if type(a) is Affine:  # the sources' constants, under the terms they share
                    consts = a.consts
                    return Affine([consts[src] for src in origins], a.terms)
                values = list(a) if type(a) is Varying else a  # each thread's unknown made once
                out = [values[src] for src in origins]
            else:
                out = [a[src] if src < n else fresh[t] for t, src in enumerate(origins)]
            return as_affine(out) or out
        if want_pred or not broadcasts_per_warp(mode, c):
            return fresh
        out = []
        for start in range(0, n, 32):
            lanes = range(start, min(start + 32, n))
            if not S.uniform_across(b[t] for t in lanes):
                out.extend(fresh[t] for t in lanes)
                continue
            values = [a[t] for t in lanes]
            if not S.uniform_across(values):
                values = [self.table.value(("shfl", ins.index, reg.name, start // 32, b[start]) + self._instance(ins),
                                           f"the value {ins.opcode} at {where} broadcasts in warp {start // 32}")]
            out.extend([values[0]] * len(lanes))
        return as_affine(out) or out

    def _instance(self, ins: Instruction) -> tuple:
        """What tells one execution of `ins` from another for values read from memory: inside a pinned
        loop iteration, the iteration (memory may change from one to the next; the same address
        does not mean the same value)."""
        it = self.iteration
        if it is not None and self.function.block_of(ins).id in it.body:
            return (("iteration", it.header, it.number),)
        return ()

    def _per_warp_unknown(self, key, origin) -> list:
        warp_values = [self.table.value((key, w), origin) for w in range((self.n + 31) // 32)]
        return [warp_values[t // 32] for t in range(self.n)]  # interned once per warp, not per thread

    def _pack(self, parts: list, width: int):
        value = S.ZERO
        for k, p in enumerate(parts):
            if not S.is_known(p):
                return self._opaque(("pack", tuple(parts)))
            value = S.add(value, S.const((p[0] & ((1 << width) - 1)) << (width * k)))
        return value

    def _unpack(self, ins: Instruction, reg: Register) -> list:
        elements = ins.operands[0].elements
        position = elements.index(reg)
        width = bits_of(ins.type, 64) // len(elements)
        source = self.operand(ins, ins.operands[1])
        return [S.const((v[0] >> (width * position)) & ((1 << width) - 1)) if S.is_known(v)
                else self._opaque(("unpack", v, position)) for v in source]


_ABSENT = object()


def _holds_across_signedness(bounds: tuple, op: str, k: int, bound_signed: bool) -> bool:
    """Does a bound (op, k) of a value read as signed (or as unsigned) also bound it read the other
    way? Both readings agree on values in [0, 2**31): a bound of k >= 0 does where the value is known
    to lie there, through its other bound or this one (signed at least k, unsigned at most k)."""
    if not 0 <= k < 1 << 31:
        return False
    if (op == "max") == bound_signed:
        return True  # signed at least k >= 0, unsigned at most k < 2**31
    other = "max" if op == "min" else "min"
    return any(o == other and s == bound_signed and 0 <= b < 1 << 31 for o, b, s, _ in bounds)


class _LayeredMemo(dict):
    """A memo over a parent memo: its own entries first, then the parent's except for `hidden`
    keys (the blocks of a loop, whose activity differs per iteration). Supports what the
    evaluator uses: get, `in`, [] and assignment (which stays in this layer)."""

    __slots__ = ("parent", "hidden")

    def __init__(self, parent: dict, hidden: frozenset) -> None:
        super().__init__()
        self.parent = parent
        self.hidden = hidden

    def get(self, key, default=None):
        found = dict.get(self, key, _ABSENT)
        if found is not _ABSENT:
            return found
        return default if key in self.hidden else self.parent.get(key, default)

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or (key not in self.hidden and key in self.parent)

    def __getitem__(self, key):
        found = self.get(key, _ABSENT)
        if found is _ABSENT:
            raise KeyError(key)
        return found


class LoopIteration:
    """One pinned iteration: the loop header, its body blocks, loop-carried values, active threads."""

    __slots__ = ("header", "body", "values", "active", "number")

    def __init__(self, header, body, values, active, number: int = 0) -> None:
        self.header, self.body, self.values, self.active = header, body, values, active
        self.number = number
