"""Where an unknown branch condition comes from: input data, or state the kernel produced itself.

The per-lane evaluator (lanes.py) keeps a condition it cannot decide as an unknown predicate per
thread. For most such conditions any thread may pass: `if (in[i] < n)` depends on the input, and
some input lets any two threads pass together. Some conditions are not free like that. They test
values the kernel computed at run time and read back from shared memory, or an atomic's result,
and those values carry invariants of the kernel that the evaluator does not follow: a segment
head read back from shared memory is never above the thread's own index, so `tid - head >= offset`
keeps out exactly the threads below `offset`; `atomicAdd(&n, 1) == 0` holds in one thread only.

`GuardOrigins.undecided(evaluator, ins, unsure, conditions)` finds the threads whose reach of `ins`
hangs on such a condition: each unknown literal of a thread (predicates.py) is traced to the branch
or guard that made it, and that predicate register is followed back along reaching definitions,
without following addresses (a value loaded from `s[tid]` is data, not the thread index).
"""

from __future__ import annotations

from typing import Optional

from . import predicates as P
from .budget import spend
from .lane_values import Affine, Varying
from ..frontend.ir import Instruction, Register

MAX_DEFINITIONS = 400  # definitions followed per predicate; a guard's arithmetic is a few dozen

# what a value is computed from
THREAD_INDEX = "thread index"  # %tid, %laneid
SHARED_LOAD = "shared memory"  # a value read back from shared memory
ATOMIC = "atomic"              # an atomic's result
INPUT = "input"                # loads from other spaces, parameters, values from outside the function

_THREAD_REGISTERS = ("%tid.", "%laneid")


def undecidable(sources: frozenset) -> bool:
    """Does a per-thread condition computed from these sources leave unknown which threads pass it?
    Input data does not (some input lets any threads pass together); state the kernel produced
    does (a value read back from shared memory, an atomic's result)."""
    return SHARED_LOAD in sources or ATOMIC in sources


class GuardOrigins:
    """Per kernel: what branch and guard predicates are computed from, and which threads' reach of
    an access hangs on one whose origin leaves it undecided."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._sources: dict = {}    # (instruction index, register name) -> frozenset of sources
        self._deciders: dict = {}   # block id -> [(instruction, predicate register)] that may decide it
        self._per_thread: dict = {}  # (id of a symbol table, symbol) -> per-thread unknown?
        # id of a symbol table -> (the table, {literal: per-thread unknown?}): accesses share most literals
        self._literal_per_thread: dict = {}

    def sources(self, ins: Instruction, reg: Register) -> frozenset:
        """What `reg`, as `ins` reads it, is computed from: THREAD_INDEX, SHARED_LOAD, ATOMIC, INPUT."""
        key = (ins.index, reg.name)
        found = self._sources.get(key)
        if found is None:
            found = self._sources[key] = self._walk(ins, reg)
        return found

    def undecided(self, evaluator, ins: Instruction, unsure, conditions: list) -> frozenset:
        """The threads of `unsure` whose literals in `conditions` (per thread, as
        `LaneEvaluator.reach_conditions(ins)` gives them) include a per-thread unknown made by a
        branch or guard whose predicate is undecidable (`undecidable`)."""
        if not unsure:
            return frozenset()
        # the deciders depend on the instruction only, the literals on each thread: with no
        # undecidable decider no thread's literals need looking at
        deciders = [(d, r) for d, r in self._deciding_predicates(ins) if undecidable(self.sources(d, r))]
        if not deciders:
            return frozenset()
        table = evaluator.table
        per_thread_literals: dict = {}  # id of a thread's conditions -> its per-thread literals
        # literal -> _is_per_thread; the table is kept with its answers, so that its id names no other
        per_thread = self._literal_per_thread.setdefault(id(table), (table, {}))[1]
        groups: dict = {}  # id of a thread's conditions -> (its per-thread literals, its threads)
        for t in unsure:
            found = conditions[t]
            literals = per_thread_literals.get(id(found))
            if literals is None:
                literals = set()
                for value, _ in found:
                    unknown = per_thread.get(value)
                    if unknown is None:
                        unknown = per_thread[value] = self._is_per_thread(table, value)
                    if unknown:
                        literals.add(value)
                per_thread_literals[id(found)] = literals
                if literals:
                    groups[id(found)] = (literals, [])
            if literals:
                groups[id(found)][1].append(t)
        return frozenset(_threads_deciding(evaluator, deciders, list(groups.values())))

    def _deciding_predicates(self, ins: Instruction) -> list:
        """The guard of `ins` and the predicates of the conditional branches that end the blocks from
        which its block is reached along forward edges: where its unknown literals come from."""
        fn = self.ctx.function
        block_id = fn.block_of(ins).id
        found = self._deciders.get(block_id)
        if found is None:
            cfg = self.ctx.cfg
            back = cfg.back_edges
            seen, stack = set(), [block_id]
            while stack:
                node = stack.pop()
                for pred in cfg.predecessors(node):
                    if isinstance(pred, int) and (pred, node) not in back and pred not in seen:
                        seen.add(pred)
                        stack.append(pred)
            found = []
            for b in sorted(seen):
                instructions = fn.blocks[b].instructions
                last = instructions[-1] if instructions else None
                if last is not None and last.op == "bra" and last.guard is not None:
                    found.append((last, last.guard))
            self._deciders[block_id] = found
        if ins.guard is not None:
            return [(ins, ins.guard)] + found
        return found

    def _is_per_thread(self, table, value) -> bool:
        """Does the predicate `value` hold an unknown of its own per thread (`v3#5`: data loaded per
        thread and what is computed from it), also inside an unknown made from other values
        (`p && q`)? Asked for every thread's every literal: each symbol's answer is kept."""
        return any(self._symbol_per_thread(table, name) for name, _ in value[1])

    def _symbol_per_thread(self, table, name: str) -> bool:
        if "#" in name:
            return True
        memo = self._per_thread
        found = memo.get((id(table), name))
        if found is None:
            found = memo[(id(table), name)] = self._made_per_thread(table, name)
        return found

    def _made_per_thread(self, table, root: str) -> bool:
        """The walk behind _symbol_per_thread: through the keys of opaque unknowns, to a per-thread
        symbol (True) or to none (False); symbols already answered are not walked again."""
        memo = self._per_thread
        stack, seen = [(root, 1)], set()
        while stack:
            item = stack.pop()
            if not isinstance(item, tuple):
                continue
            if len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], int):
                name = item[0]
                if "#" in name:
                    return True
                if name in seen:
                    continue
                seen.add(name)
                known = memo.get((id(table), name)) if name != root else None
                if known is not None:
                    if known:
                        return True
                    continue
                key = table.key_of(name)
                if key is not None and key[0] == "opaque":
                    stack.append(key[1])
                elif key is not None and not table.uniform.get(name, True):
                    return True
                continue
            stack.extend(item)
        # every symbol the walk went through leads to no per-thread symbol either (its own walk
        # would cover part of this one): remembered, so that the walks from other roots stop there
        table_id = id(table)
        for name in seen:
            memo[(table_id, name)] = False
        return False

    def _walk(self, ins: Instruction, reg: Register) -> frozenset:
        instructions = self.ctx.function.instructions
        dataflow = self.ctx.dataflow
        found: set = set()
        seen: set = set()
        stack = list(dataflow.definitions(ins, reg))
        if not stack:
            found.add(INPUT)
        while stack and len(seen) < MAX_DEFINITIONS:
            d = stack.pop()
            if d in seen:
                continue
            seen.add(d)
            definition = instructions[d]
            origin = _memory_origin(definition)
            if origin is not None:
                found.add(origin)
                continue  # a loaded value: its address says where, not what
            for source in definition.sources():
                if source.is_special:
                    if source.name.startswith(_THREAD_REGISTERS):
                        found.add(THREAD_INDEX)
                    continue
                definitions = dataflow.definitions(definition, source)
                if not definitions:
                    found.add(INPUT)  # defined outside the function
                stack.extend(definitions)
        if stack:
            found.add(INPUT)  # walk cut short: something else may feed it
        return frozenset(found)


def _threads_deciding(evaluator, deciders: list, groups: list) -> set:
    """The threads t of `groups` ([(literals, threads)]: threads that share one set of per-thread
    literals) for which some decider's value in thread t, as the literal `P.literal(value, True)`,
    is one of t's literals. Worked out decider by decider, for the threads not yet found: a decider
    whose values share their unknown terms (Affine) or are each thread's own symbol (Varying) makes
    literals of one form, and only the groups with a literal of that form are looked at. The
    deciders' values are read in order, up to the last one some thread needs, as a loop over threads
    and then deciders would read them (the evaluator numbers symbols in the order it makes them)."""
    out: set = set()
    pending = dict(enumerate(groups))  # group number -> (literals, threads not yet found)
    by_form: dict = {}  # literal form -> the groups with a literal of that form
    for number, (literals, _) in pending.items():
        for form in _literal_forms(literals):
            by_form.setdefault(form, []).append(number)
    for d, r in deciders:
        if not pending:
            break
        vector = evaluator.register(d, r)
        kind = type(vector)
        if kind is Affine:
            terms = vector.terms
            if not terms:
                continue  # known in every thread: no literal
            form = ("terms", tuple((sym, -c) for sym, c in terms) if terms[0][1] < 0 else terms)
            candidates = [n for n in by_form.get(form, ()) if n in pending]
        elif kind is Varying:
            candidates = [n for n in by_form.get(("own", vector.base), ()) if n in pending]
        else:
            candidates = list(pending)
        for number in candidates:
            spend()
            literals, threads = pending[number]
            left = []
            for t in threads:
                value = vector[t]
                terms_t = value[1]
                if terms_t and (value if terms_t[0][1] >= 0 else P.p_not(value)) in literals:
                    out.add(t)
                else:
                    left.append(t)
            if left:
                pending[number] = (literals, left)
            else:
                del pending[number]
    return out


def _literal_forms(literals: set) -> set:
    """The forms of a set of literals: ("terms", the unknown terms) of each, and ("own", base) of
    each that is one thread's own symbol `base#t` of a Varying vector."""
    forms = {("terms", value[1]) for value in literals}
    for value in literals:
        terms = value[1]
        if value[0] == 0 and len(terms) == 1 and terms[0][1] == 1 and "#" in terms[0][0]:
            forms.add(("own", terms[0][0].rsplit("#", 1)[0]))
    return forms


def _memory_origin(ins: Instruction) -> Optional[str]:
    """SHARED_LOAD, ATOMIC or INPUT for an instruction that brings a value in from memory or from
    other threads, None for arithmetic (whose operands the walk follows)."""
    if ins.op == "atom":
        return ATOMIC
    if ins.op in ("ld", "ldu"):
        return SHARED_LOAD if ins.space == "shared" else INPUT
    if ins.op in ("tex", "tld4", "suld", "ldmatrix", "mbarrier", "cp", "vote", "redux", "match", "activemask"):
        return INPUT
    return None


def guard_origins(ctx) -> GuardOrigins:
    """The kernel's GuardOrigins, made on first use."""
    found = ctx.__dict__.get("_guard_origins")
    if found is None:
        found = ctx.__dict__["_guard_origins"] = GuardOrigins(ctx)
    return found
