"""RACE003: two threads of the grid touch the same global bytes, one writing, with nothing ordering them.

Inside a block the question is RACE001's (a barrier orders global accesses of one block too).
Across blocks nothing orders two threads within one launch, so any collision is a race; `%ctaid`
is a symbol: the address `c_t + k * blockIdx.x + rest` of a thread of block b meets that of a thread
of block b + 1 when c_t + k = c_u. Only adjacent blocks of one grid dimension the kernel reads are
considered (any grid of two blocks or more in that dimension has them), and only addresses whose
other unknowns are the same for the whole launch (kernel parameters): known addresses only.
Atomics against atomics, and accesses with memory-order qualifiers (flag protocols, FENCE's
domain), are not races. A launch's grid bounds the dimensions compared: a one-block launch
(`<<<1, 512>>>`) has no race across blocks, and an integer grid has one block along y and z.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..analysis.loops import polled_in_loop
from ..frontend.ir import Register
from ..analysis.predicates import contradict, held_equalities
from .race import (Conflict, SharedSite, _collide, reaches, read_handed_on_before, read_skips_same_store, read_steers_atomic,
                   rereads_block_uniform_store, stored_value_kept_bits, _reachable, _stored_value_per_warp, _stored_value_uniform,
                   _stored_values, describe_thread, outside_focus, same_constant_stores)
from .fence import waits_for_hand_off
from .registry import RuleDoc, register
from .sync import diagnostic, where

_ORDERED = {"volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio"}
_VERB = {"read": "reads", "write": "writes", "atomic": "atomically updates"}
MAX_PAIRS = 4000
_COMPUTED = {"opaque", "compare", "product", "quotient", "pred-and", "pred-xor"}  # unknowns made of others
_INPUT_LEAVES = {"param", "param-address", "special", "float", "induction"}


@dataclass
class BlockConflict:
    first: SharedSite
    second: SharedSite
    threads: tuple  # (thread of first, thread of second)
    blocks: str  # which blocks, in words
    byte: int
    dim: str = "x"  # the grid dimension along which the two blocks differ

    @property
    def hazard(self) -> str:
        a, b = self.first.kind, self.second.kind
        if a == "read":
            return "WAR"
        if b == "read":
            return "RAW"
        return "WAW"


def _sites(ctx) -> list:
    """The global accesses compared. `volatile` ones are kept, marked, for the lanes of one warp only:
    `volatile` keeps an access in place but orders no lanes (the warp-synchronous idiom on global
    memory), while between warps or blocks it is how flag protocols poll (FENCE's domain)."""
    out = []
    for access in ctx.global_accesses:
        ins = access.instruction
        ordered = {m for m in ins.modifiers if m in _ORDERED}
        if ordered - {"volatile"}:
            continue
        if ordered and access.kind == "load" and polled_in_loop(ctx, ins):
            continue  # a spin-wait on a volatile flag: a polling protocol, which lock-step does not decide
        site = SharedSite(ctx, access)
        site.volatile = bool(ordered)
        out.append(site)
    return out


def _grid(ctx) -> Optional[tuple]:
    """The grid of the launches the kernel is checked under (None: not known; see analysis/launch.py)."""
    return getattr(ctx.launch, "grid", None)


def _dims_with_several_blocks(ctx, dims: set) -> set:
    """The dimensions of `dims` along which a launch may have two blocks or more: a launch's grid of
    1 along a dimension (`<<<1, 512>>>`, any integer grid for y and z) has no neighbouring block."""
    grid = _grid(ctx)
    if grid is None:
        return dims
    return {d for d in dims if grid["xyz".index(d)] != 1}


def _grid_condition(ctx, dim: str) -> str:
    """What the finding assumes about the grid, in words."""
    grid = _grid(ctx)
    if grid is None:
        return (f"holds when the kernel is launched with more than one block along blockIdx.{dim} (no launch "
                "with a known grid was found)")
    extent = grid["xyz".index(dim)]
    if extent is None:
        return (f"holds when the launch has more than one block along blockIdx.{dim} (its grid is a run-time "
                f"value: {ctx.launch.grid_source})")
    return f"the launch has {extent} blocks along blockIdx.{dim} ({ctx.launch.grid_source})"


def _symbols_in(item, table, limit: int = 20000) -> Optional[set]:
    """The interned symbol names inside a key (nested tuples of values), None past `limit` items."""
    found, pending, count = set(), [item], 0
    while pending:
        x = pending.pop()
        count += 1
        if count > limit:
            return None
        if isinstance(x, str):
            if table.key_of(x) is not None:
                found.add(x)
        elif isinstance(x, tuple):
            pending.extend(x)
    return found


def _block_dims_read(ctx) -> set:
    """The axes of blockIdx the kernel's work depends on: those whose `%ctaid` reaches an address,
    a stored value or a branch. A read that reaches only the runtime's own words does not count:
    cooperative groups' grid barrier (`this_grid().sync()`) adds blockIdx.x + .y + .z into its
    arrival counter, which lives at an address made from `%envreg`, in any kernel that calls it;
    such a kernel is no more 2-D than one that does not."""
    fn = ctx.function
    read = {op.name for ins in fn.instructions for op in ins.operands
            if isinstance(op, Register) and op.name.startswith("%ctaid.")}
    if not read:
        return set()
    runtime = _flowing_from(fn, lambda name: name.startswith("%envreg"), set())
    return {name[-1] for name in read if _reaches_work(fn, name, runtime)}


_MEMORY_OPS = ("ld", "ldu", "st", "atom", "red", "cp", "prefetch", "tex", "suld", "sust")


def _flowing_from(fn, start, runtime: set) -> set:
    """Registers whose value derives from a register `start` accepts, by name across the function
    (a loaded value is not followed through memory; nothing read at a `runtime` address is)."""
    tainted: set = set()
    changed = True
    while changed:
        changed = False
        for ins in fn.instructions:
            if ins.op in _MEMORY_OPS and _at_runtime_word(ins, runtime):
                continue
            if any(start(r.name) or r.name in tainted for r in ins.sources()):
                for r in ins.destinations():
                    if r.name not in tainted:
                        tainted.add(r.name)
                        changed = True
    return tainted


def _at_runtime_word(ins, runtime: set) -> bool:
    address = ins.memory_operand()
    return address is not None and isinstance(address.base, Register) and address.base.name in runtime


def _reaches_work(fn, name: str, runtime: set) -> bool:
    """Does `name` reach a branch, or an address or value of a memory access outside the runtime's words?"""
    tainted = _flowing_from(fn, lambda r: r == name, runtime) | {name}
    for ins in fn.instructions:
        if not any(r.name in tainted for r in ins.sources()):
            continue
        if ins.is_branch or ins.op in _MEMORY_OPS and not _at_runtime_word(ins, runtime):
            return True
    return False


class _Terms:
    """Splits an address's unknown terms into blockIdx coefficients and the rest, and says whether
    the rest is one value for the whole launch."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.table = ctx.lanes.table
        self.params = {p.name for p in ctx.function.params}
        self._leaves: dict = {}  # symbol -> its leaves (see leaves())
        self._pins: dict = {}  # literal -> pins_block's answer
        self._splits: dict = {}  # terms -> split(terms): every pair of sites asks again


    def block_dim(self, sym: str) -> Optional[str]:
        key = self.table.key_of(sym)
        if isinstance(key, tuple) and len(key) == 2 and key[0] == "special" and key[1].startswith("%ctaid."):
            return key[1][-1]
        return None

    def launch_invariant(self, sym: str) -> bool:
        key = self.table.key_of(sym)
        if not isinstance(key, tuple) or not key:
            return False
        if key[0] in ("param", "param-address"):
            return key[1] in self.params
        if key[0] == "special":
            return key[1].startswith(("%nctaid", "%ntid"))
        if key[0] == "product":
            # blockIdx times a run-time value (`blockIdx.x * height`) moves with the block by an
            # unknown amount: such addresses are not compared
            return all(self.launch_invariant(s) for s in key[1:])
        return False

    def leaves(self, value) -> Optional[frozenset]:
        """The keys of the unknowns a symbolic value (or the unknown a condition tests) is built from,
        followed through computed unknowns (comparisons, products, quotients) down to kernel
        parameters, special registers, loaded values, ...; None when too deep to tell."""
        out = set()
        for sym, _ in value[1]:
            found = self._symbol_leaves(sym)
            if found is None:
                return None
            out |= found
        return frozenset(out)

    def _symbol_leaves(self, sym: str) -> Optional[frozenset]:
        memo = self._leaves
        if sym in memo:
            return memo[sym]
        stack = [sym]
        while stack:  # post-order over the symbols a key names, each computed once
            top = stack[-1]
            if top in memo:
                stack.pop()
                continue
            key = self.table.key_of(top)
            if not isinstance(key, tuple) or not key:
                memo[top] = frozenset()
                stack.pop()
                continue
            if key[0] not in _COMPUTED:
                memo[top] = frozenset([key[:2]])
                stack.pop()
                continue
            children = _symbols_in(key[1:], self.table)
            if children is None or len(stack) > 2000:
                memo[top] = None
                stack.pop()
                continue
            pending = [c for c in children if c not in memo and c != top]
            if pending:
                stack.extend(pending)
                continue
            leaves = set()
            for c in children:
                found = memo.get(c, frozenset())
                if found is None:
                    leaves = None
                    break
                leaves |= found
            memo[top] = None if leaves is None else frozenset(leaves)
            stack.pop()
        return memo[sym]

    def moves_with_block(self, value) -> bool:
        """Is a value built, at any depth, from blockIdx? Such a condition may hold in one block and
        not in its neighbour."""
        leaves = self.leaves(value)
        return leaves is None or any(k[0] == "special" and str(k[1]).startswith("%ctaid.") for k in leaves)

    def from_inputs(self, value) -> bool:
        """Is a value built only from what the launch gives every block alike or per block (kernel
        parameters, thread and block indices and dimensions)? Not from loaded data or the kernel's
        own state (a flag read back from shared memory, an atomic's result), which may differ between
        blocks in ways no input chooses."""
        leaves = self.leaves(value)
        return leaves is not None and all(k[0] in _INPUT_LEAVES for k in leaves)

    def pins_block(self, literal) -> bool:
        """May a condition single out blocks or launches? An equality wanted true (`blockIdx.x == 0`,
        `k == n - 1`: one block passes it; `gridDim.x == 1`, `num_blocks == 1`: the one-block launch
        passes it), and, on a value that moves with blockIdx, any condition that is not an ordered
        comparison: nothing says two neighbouring blocks of a launch of several both pass it.
        Ordered comparisons (`k + blockDim.x < n`) and inequalities pass for some input in both."""
        found = self._pins.get(literal)
        if found is None:
            found = self._pins[literal] = self._pins_block(literal)
        return found

    def _pins_block(self, literal) -> bool:
        value, wanted = literal
        if not self.from_inputs(value):
            return True  # `if (amLast)`: which blocks pass a condition on the kernel's own state is unknown
        key = self.table.key_of(value[1][0][0]) if len(value[1]) == 1 else None
        compare = key[1] if isinstance(key, tuple) and len(key) == 2 and key[0] == "opaque" else None
        if isinstance(compare, tuple) and compare and compare[0] == "compare":
            return compare[1] == "eq" and wanted
        return self.moves_with_block(value)

    def split(self, terms: tuple) -> Optional[tuple]:
        """(blockIdx coefficients {dim: k}, the other terms) or None when the rest may differ
        between blocks (loaded data, %smid ...)."""
        try:
            return self._splits[terms]
        except KeyError:
            found = self._splits[terms] = self._split(terms)
            return found

    def _split(self, terms: tuple) -> Optional[tuple]:
        block, rest = {}, []
        for sym, coef in terms:
            dim = self.block_dim(sym)
            if dim is not None:
                block[dim] = coef
            elif self.launch_invariant(sym):
                rest.append((sym, coef))
            else:
                return None
        return block, tuple(rest)


def _across_blocks(ctx, terms: _Terms, dims_read: set, first: SharedSite, second: SharedSite):
    """A pair of threads of adjacent blocks whose accesses share a byte, or None. For one store against
    itself, threads that store the same value (in their own blocks) are no pair. Threads under
    conditions the analysis cannot evaluate pair only where both may pass them (_both_may_run)."""
    same_store = first is second and first.instruction.op == "st"
    stored: dict = {}  # id(evaluation) -> its stored values, made once, not once per pair of evaluations
    groups: dict = {}  # id(evaluation) -> its threads by the terms that do not move with blockIdx
    splits: dict = {}  # id(evaluation) -> its threads with their terms split, in order
    for ea in first.evaluations:
        for eb in second.evaluations:
            accept = None
            values_a = values_b = None
            if same_store:
                values_a, values_b = _stored_values_once(stored, ea), _stored_values_once(stored, eb)
            both_run = ea.unsure or eb.unsure
            if values_a is not None and values_b is not None or both_run:
                accept = _PairTest(terms, ea, eb, values_a, values_b)
            groups_b = _grouped_by_rest(groups, splits, terms, eb)
            for block_a, rest, t, at_a in _splits(splits, terms, ea):
                for block_b, tb, at_b in groups_b.get(rest, ()):
                    if block_a != block_b:
                        continue  # the two addresses move differently with blockIdx: not compared
                    found = _adjacent(ctx, ea, eb, tb, at_a, at_b, block_a, dims_read, accept, terms_a=t)
                    if found is not None:
                        return found
    return None


def _splits(memo: dict, terms: _Terms, ev) -> list:
    """The groups of `ev.threads_at` whose terms split into blockIdx coefficients and the rest
    (`_Terms.split`), in their order: [(coefficients, rest, terms, first byte -> threads)]; made once
    per evaluation and kept in `memo`."""
    found = memo.get(id(ev))
    if found is None:
        found = memo[id(ev)] = []
        for t, at in ev.threads_at.items():
            split = terms.split(t)
            if split is not None:
                found.append((split[0], split[1], t, at))
    return found


def _grouped_by_rest(memo: dict, splits: dict, terms: _Terms, ev) -> dict:
    """`_splits(splits, terms, ev)` by the rest of their terms: {rest: [(coefficients, terms, first
    byte -> threads)]}, made once per evaluation and kept in `memo`."""
    found = memo.get(id(ev))
    if found is None:
        found = memo[id(ev)] = {}
        for block, rest, t, at in _splits(splits, terms, ev):
            found.setdefault(rest, []).append((block, t, at))
    return found


def _stored_values_once(stored: dict, ev):
    """`_stored_values(ev)`, worked out on the first call for `ev` and looked up after (the values of
    one evaluation do not change; every vector is a per-thread list built anew by each call)."""
    key = id(ev)
    if key not in stored:
        stored[key] = _stored_values(ev)
    return stored[key]


def _under_one_lock(ctx, a, b) -> bool:
    """Do both accesses sit inside one spin lock's critical section: after an atomic retried until
    it takes the lock (`while (atomicCAS(lock, 0, 1) != 0);`, FENCE's "acquisition") and before an
    `atomicExch` or store to the same lock word, on every path (the acquisition's loop exit dominates
    them, the release post-dominates them)? Then blocks take turns there, and the pair is no race
    (whether the data is visible to the next holder is FENCE's question: the fences around it)."""
    sections = ctx.__dict__.get("_lock_sections")
    if sections is None:
        sections = ctx.__dict__["_lock_sections"] = _lock_sections(ctx)
    return any(_inside(ctx, section, a) and _inside(ctx, section, b) for section in sections)


def _lock_sections(ctx) -> list:
    """(blocks the acquisition loop leaves to, release instruction) of each spin lock of the kernel."""
    from ..analysis.lane_values import equal_per_thread
    from .fence import atomic_role

    fn, cfg, lanes = ctx.function, ctx.cfg, ctx.lanes
    found = []
    atomics = [i for i in fn.instructions if i.op == "atom" and i.space != "shared"]
    for acquire in atomics:
        if not any(m in acquire.modifiers for m in ("cas", "exch")) or atomic_role(ctx, acquire) != "acquisition":
            continue
        block = fn.block_of(acquire).id
        loop = next((body for header, body in cfg.loops_containing(block)), None)
        if loop is None:
            continue
        exits = {s for b in loop for s in cfg.successors(b) if isinstance(s, int) and s not in loop}
        lock_address = lanes.address(acquire)
        for release in fn.instructions:
            if release.index == acquire.index or not (
                    (release.op == "atom" and "exch" in release.modifiers) or release.op == "st"):
                continue
            if fn.block_of(release).id in loop or not equal_per_thread(lanes.address(release), lock_address):
                continue
            found.append((exits, release))
    return found


def _inside(ctx, section, ins) -> bool:
    exits, release = section
    fn, cfg = ctx.function, ctx.cfg
    at, release_block = fn.block_of(ins).id, fn.block_of(release).id
    if not any(cfg.dominates(e, at) for e in exits):
        return False
    if at == release_block:
        return ins.index < release.index
    return cfg.postdominates(release_block, at)


class _PairTest:
    """Which pairs (thread t1 of one block at the first access, thread t2 of a neighbouring block at
    the second) count, decided per class of threads rather than per pair of threads.

    May both run, in one launch? The guards that hang on inputs (`if (k + blockDim.x < n)`) let both
    through for some input, as in a block (RACE001), unless they contradict on a value the same in
    both blocks (a kernel parameter); a guard that hangs on the kernel's own state (a value read back,
    an atomic's result) or that singles out a block (`blockIdx.x == 0`) keeps the pair out: which
    blocks pass it is not known. And for one store against itself, do they store values not known to
    be the same (`values_a`, `values_b`: per thread, or None)?

    Each of these is a test of one thread alone (undecided, a guard that pins its block) or a
    function of what a thread brings to the pair: its guards that do not move with blockIdx and the
    value it stores. Threads that bring the same are one class, and a pair of classes is decided once
    (`first_pair`): the cost grows with the classes, not with the product of the threads."""

    def __init__(self, terms: _Terms, ea, eb, values_a, values_b) -> None:
        self.terms = terms
        self.guarded = bool(ea.unsure or eb.unsure)
        self.values = (values_a, values_b) if values_a is not None and values_b is not None else None
        self._sides = (ea, eb)
        self._classes = ({}, {})  # per side: thread -> its class, or None when it pairs with no thread
        self._verdicts: dict = {}  # (class a, class b, dim, delta) -> does the pair count
        if self.guarded:
            ea.undecided, eb.undecided  # worked out here, before any pair is looked at

    def thread_class(self, side: int, t: int):
        found = self._classes[side].get(t, False)
        if found is False:
            found = self._classes[side][t] = self._thread_class(side, t)
        return found

    def _thread_class(self, side: int, t: int):
        shared = ()
        if self.guarded:
            ev = self._sides[side]
            if t in ev.undecided:
                return None
            literals = list(ev.conditions[t]) if t in ev.unsure else []
            if any(self.terms.pins_block(lit) for lit in literals):
                return None
            # a condition on a value that moves with blockIdx is another unknown in the other block
            shared = tuple(lit for lit in literals if not self.terms.moves_with_block(lit[0]))
        return shared, (tuple(self.values[side][t]) if self.values is not None else None)

    def accepts(self, class_a, class_b, dim: str, delta) -> bool:
        key = (class_a, class_b, dim, delta)
        found = self._verdicts.get(key)
        if found is None:
            found = self._verdicts[key] = self._accepts(class_a, class_b, dim, delta)
        return found

    def _accepts(self, class_a, class_b, dim: str, delta) -> bool:
        if self.guarded and contradict(list(class_a[0]), list(class_b[0])):
            return False
        return self.values is None or not _equal_across_blocks(self.terms, class_a[1], class_b[1], dim, delta)

    def first_pair(self, ta: list, tb: list, dim: str, delta) -> Optional[tuple]:
        """The first (t1 in `ta`, t2 in `tb`) that counts, in the order of a loop over `ta` around a
        loop over `tb`: the first t1 whose class pairs with some class of `tb`, with the first t2 of
        the first such class."""
        first_of_class: dict = {}  # class of tb -> its first thread, in the order of tb
        for t2 in tb:
            c = self.thread_class(1, t2)
            if c is not None and c not in first_of_class:
                first_of_class[c] = t2
        if not first_of_class:
            return None
        partner: dict = {}  # class of ta -> the first t2 it pairs with, or None
        for t1 in ta:
            c = self.thread_class(0, t1)
            if c is None:
                continue
            if c not in partner:
                partner[c] = next((t2 for k, t2 in first_of_class.items() if self.accepts(c, k, dim, delta)), None)
            if partner[c] is not None:
                return t1, partner[c]
        return None


def _equal_across_blocks(terms: _Terms, va: tuple, vb: tuple, dim: str, delta: Optional[int]) -> bool:
    """Does a thread of block b + delta (along `dim`; None: any other block) store `va` where a thread
    of block b stores `vb`, the same value in every such pair of blocks? Only values built from
    blockIdx and launch-wide values (kernel parameters, blockDim) are known to be the same."""
    for x, y in zip(va, vb):
        split_x, split_y = terms.split(x[1]), terms.split(y[1])
        if split_x is None or split_y is None or split_x != split_y:
            return False
        k = split_x[0].get(dim, 0)
        if delta is None and k:
            return False
        if x[0] + k * (delta or 0) != y[0]:
            return False
    return True


def _adjacent(ctx, ea, eb, terms_b, at_a: dict, at_b: dict, block: dict, dims_read: set, accept, terms_a):
    """The first pair of the first access's threads (`at_a`: first byte -> threads, of `ea` at the
    unknown terms `terms_a`) and the second's (`at_b`, of `eb` at `terms_b`) in neighbouring blocks
    whose bytes meet, or None."""
    starts_b = eb.starts(terms_b)
    starts_a = ea.starts(terms_a)  # sorted once per evaluation
    if not starts_b or not starts_a:
        return None
    lowest_a, highest_a = starts_a[0], starts_a[-1]
    for dim in sorted(dims_read):
        k = block.get(dim, 0)
        for shift in ((k, -k) if k else (0,)):
            if not _spans_meet(lowest_a + shift, highest_a + shift + ea.nbytes, starts_b, eb.nbytes):
                continue  # no first byte of the second access falls near any of the first's: no pair
            delta = None if not k else (1 if shift > 0 else -1)  # the first thread's block minus the second's
            # the first access's thread at c in block b + shift/k meets the second's at d in block b
            for c, ta in at_a.items():
                for d in eb.starts_between(terms_b, c + shift - eb.nbytes + 1, c + shift + ea.nbytes):
                    pair = (ta[0], at_b[d][0])
                    if accept is not None:
                        pair = accept.first_pair(ta, at_b[d], dim, delta)
                        if pair is None:
                            continue
                    if not k:
                        where_ = f"blocks that differ only in blockIdx.{dim} access the same addresses"
                    elif shift > 0:
                        where_ = f"the first in block blockIdx.{dim} = b + 1, the second in block b"
                    else:
                        where_ = f"the first in block blockIdx.{dim} = b, the second in block b + 1"
                    return pair[0], pair[1], where_, d, dim
    return None


def _spans_meet(low_a: int, high_a: int, starts_b: list, nbytes_b: int) -> bool:
    """Can an access starting in [low_a, high_a - width_a] (high_a: one past the last byte of the
    highest) share a byte with one starting at a first byte of `starts_b` (sorted), `nbytes_b` wide?
    False when the whole spans are apart: then no start c has a start d in [c - nbytes_b + 1, c +
    width_a), the window `_adjacent` searches for each c."""
    return starts_b[0] < high_a and starts_b[-1] + nbytes_b > low_a


def _same_store(ctx, site: SharedSite) -> Optional[Conflict]:
    """Two threads of the block that write the same bytes in one execution of the store `site` with
    values not known to be equal (threads of different warps where there are such), or None.
    Threads storing one value (`totals[0] = sum` in the last lane of every tile that scans the same
    ranks, every lane storing its warp's reduction) leave the same memory whichever is last; so do
    threads that differ only in bits of the thread index the value does not depend on (`f[k] = acc`
    with acc summed over k and texture fetches at k, by every x-thread of a 3-D block)."""
    found = None
    stored: dict = {}  # id(evaluation) -> its values, worked out when two writers of one address need them
    # threads t and t & ~mask store one value: the lane bits where the value is one per warp (a load
    # at the warp's own index, a butterfly total), the bits the loop-carried walk shows once asked
    mask = 31 if _stored_value_per_warp(ctx, site.instruction) else 0
    walked = False

    def values_of(ev):
        if id(ev) not in stored:
            values = _stored_values(ev)
            if mask and values is not None:
                values = [values[t & ~mask] for t in range(len(values))]
            stored[id(ev)] = values
        return stored[id(ev)]

    def unequal_writers(ev, threads):
        nonlocal mask, walked
        pair = _unequal_writers(threads, values_of(ev))
        if pair is not None and not walked:
            walked = True
            kept = sum(1 << j for j in stored_value_kept_bits(ctx, site.instruction))
            if kept & ~mask:
                mask |= kept
                stored.clear()
                pair = _unequal_writers(threads, values_of(ev))
        return pair

    for ev in site.evaluations:
        # threads whose reach hangs on the kernel's own state (an atomic's result, a value read back from
        # shared memory) are no witnesses, as in RACE001: `if (atomicCAS(&st, 0, 1) == 0) rec = ...` is
        # one writer, the thread that won
        undecided = ev.undecided
        for terms, at in ev.threads_at.items():
            for c, threads in at.items():
                if undecided:
                    threads = [t for t in threads if t not in undecided]
                    if not threads:
                        continue
                overlapping = [d for d in ev.starts_between(terms, c - ev.nbytes + 1, c + ev.nbytes) if d != c]
                if overlapping:  # the same bytes at different offsets in the values: not one value
                    others = [t for t in at[overlapping[0]] if t not in undecided]
                    if not others:
                        continue
                    pair = tuple(sorted((threads[0], others[0])))
                elif len(threads) < 2:
                    continue
                else:
                    if ev.unsure:
                        threads = _one_run_writers(ev, threads)
                        if len(threads) < 2:
                            continue
                    pair = unequal_writers(ev, threads)
                    if pair is None:
                        continue
                conflict = Conflict(site, site, pair, (terms, max(c, *overlapping) if overlapping else c), False,
                                    same_warp=pair[0] // 32 == pair[1] // 32)
                if not conflict.same_warp:
                    return conflict
                found = found or conflict
    return found


def _one_run_writers(ev, threads: list) -> list:
    """The writers of one address that one run can bring together: a thread whose conditions
    contradict those of every other writer (each row of `if (y == ny - 1) out[x] = ...` is its own
    equality on y) takes no part. Threads under no condition always do."""
    key_of = ev.evaluator.table.key_of if ev.evaluator is not None else None
    conditions = {t: ev.conditions[t] if t in ev.unsure else () for t in threads}
    out = []
    for group in _by_held_equality(threads, conditions, key_of):
        if len(group) > 64:
            out += group  # the quadratic test is for the few writers of a guarded address
            continue
        out += [t for t in group
                if any(u != t and not contradict(conditions[t], conditions[u], key_of) for u in group)]
    return out


def _by_held_equality(threads: list, conditions: dict, key_of) -> list:
    """`threads` in groups that may run together: where every thread holds an equality on one
    unknown (`i == n - 1`, i = blockIdx.x * blockDim.x + threadIdx.x: each thread its own constant),
    threads with different constants contradict, so each constant is a group (one thread each when
    the guard admits one thread of the grid); else one group."""
    if key_of is None or any(not conditions[t] for t in threads):
        return [threads]
    held = {t: held_equalities(conditions[t], key_of) for t in threads}
    common = set(held[threads[0]])
    for t in threads[1:]:
        common &= held[t].keys()
        if not common:
            return [threads]
    key = min(common, key=repr)
    groups: dict = {}
    for t in threads:
        groups.setdefault(held[t][key], []).append(t)
    return list(groups.values())


def _unequal_writers(threads: list, values: Optional[list]) -> Optional[tuple]:
    """Two of `threads` whose stored values are not known to be equal, of different warps where
    there are such (values None: nothing is known about them)."""
    if values is None:
        groups = {t: [t] for t in threads}
    else:
        groups = {}
        for t in threads:
            groups.setdefault(values[t], []).append(t)
    if len(groups) < 2:
        return None
    reps = {}  # (value, warp) -> a thread
    for value, ts in groups.items():
        for t in ts:
            reps.setdefault((value, t // 32), t)
    items = list(reps.items())
    same_warp = None
    for n, ((v1, w1), t1) in enumerate(items):
        for (v2, w2), t2 in items[n + 1:]:
            if v1 == v2:
                continue
            if w1 != w2:
                return min(t1, t2), max(t1, t2)
            same_warp = same_warp or (min(t1, t2), max(t1, t2))
    return same_warp


def _guarded(first: SharedSite, second: SharedSite) -> bool:
    """Does either access run under a condition the analysis could not evaluate?"""
    first.evaluations, second.evaluations  # noqa: B018 (evaluating fills the notes)
    return any("depends on values unknown here" in n for n in first.notes + second.notes)


def global_conflicts(ctx) -> dict:
    """{'block': [Conflict] (RACE003 in a block), 'warp': [Conflict] (lanes of one warp with no
    __syncwarp between: WARP001), 'grid': [BlockConflict], 'notes': [...]} (cached per kernel)."""
    found = ctx.__dict__.get("_global_conflicts")
    if found is None:
        found = ctx.__dict__["_global_conflicts"] = _find(ctx)
    return found


def _find(ctx) -> dict:
    result = {"block": [], "warp": [], "grid": [], "notes": []}
    sites = _sites(ctx)
    if not sites:
        return result
    writes = [n for n, s in enumerate(sites) if s.kind != "read"]
    if not writes:
        return result
    reach = _reachable(ctx, sites, warp_level=False)
    warp_reach = _reachable(ctx, sites, warp_level=True)  # pairs with no __syncwarp between either
    compared = 0
    for a in range(len(sites)):
        pairs = sorted(reach[a])
        if sites[a].kind != "read" and not sites[a].volatile and not _stored_value_uniform(ctx, sites[a].instruction):
            pairs.append((a, None))
        for b, crossed in pairs:
            first, second = sites[a], sites[b]
            if first.kind == "read" and second.kind == "read" or first.kind == second.kind == "atomic":
                continue
            if same_constant_stores(ctx, first.instruction, second.instruction) or \
                    read_steers_atomic(ctx, first.instruction, second.instruction) or \
                    read_skips_same_store(ctx, first.instruction, second.instruction):
                continue
            if rereads_block_uniform_store(ctx, first.instruction, second.instruction, crossed):
                continue  # each thread reads back the value it stored, the one every thread of the block stores
            in_warp = crossed is not None and reaches(warp_reach[a], b, crossed) and not read_handed_on_before(
                ctx, first.instruction, second.instruction)
            volatile = first.volatile or second.volatile
            if volatile and not in_warp:
                continue
            # under a condition the analysis could not evaluate (`if (i < n)`), _collide pairs only
            # threads that may run both accesses in one run: input guards let any such pair through,
            # conditions that contradict (`x < n` against `x >= n`) or that hang on the kernel's own
            # state (a value read back, an atomic's result) do not
            compared += 1
            if compared > MAX_PAIRS:
                result["notes"].append(f"stopped after {MAX_PAIRS} pairs of global accesses")
                return result
            if outside_focus(ctx, second):
                continue
            if crossed is None:  # two threads in one execution of the store
                conflict = _same_store(ctx, first)
                if conflict is not None:
                    result["block"].append(conflict)
                continue
            # lanes of one warp are ordered by __syncwarp too: a same-warp pair counts only without one
            cross, inside = _collide(first, second, crossed, want_inside=in_warp, want_cross=not volatile)
            if cross is not None:
                result["block"].append(cross)
            elif inside is not None:
                result["warp"].append(inside)
    dims = _block_dims_read(ctx)
    if not dims:
        result["notes"].append("the kernel does not read blockIdx: a launch of one block is assumed possible, "
                               "so blocks are not compared")
        return result
    dims = _dims_with_several_blocks(ctx, dims)
    if not dims:
        return result  # every launch has one block along each dimension the kernel reads
    terms = _Terms(ctx)
    for a in range(len(sites)):
        for b in range(a, len(sites)):
            first, second = sites[a], sites[b]
            if first.kind == "read" and second.kind == "read" or first.kind == second.kind == "atomic":
                continue
            if first.volatile or second.volatile:
                continue
            if a == b and _stored_value_uniform(ctx, first.instruction) and first.kind == "write":
                continue
            if read_steers_atomic(ctx, first.instruction, second.instruction):
                continue
            compared += 1
            if compared > 2 * MAX_PAIRS:
                result["notes"].append(f"stopped after {2 * MAX_PAIRS} pairs of global accesses")
                return result
            if outside_focus(ctx, second):
                continue
            if _guarded(first, second) and not any(ev.unsure for site in (first, second) for ev in site.evaluations):
                continue  # a condition the same for the whole block (a flag read back): which blocks pass it is unknown
            if _under_one_lock(ctx, first.instruction, second.instruction):
                continue  # one block at a time holds the lock around both accesses
            if any(waits_for_hand_off(ctx, site.instruction) for site in (first, second)):
                continue  # a ticket or flag orders the blocks (FENCE001/002 judge its fences)
            found = _across_blocks(ctx, terms, dims, first, second)
            if found is not None:
                ta, tb, blocks, byte, dim = found
                result["grid"].append(BlockConflict(first, second, (ta, tb), blocks, byte, dim))
    return result


@register(
    "RACE003", "global-memory-race", "error",
    "Two threads of the grid access the same global memory, one writing, with nothing ordering them.",
    RuleDoc(
        what_it_does="""
Computes, for every thread of the block, the global bytes each load, store and atomic touches, with
`blockIdx` kept as a symbol, and finds two threads that touch the same bytes, at least one writing:
in one block on a path with no `__syncthreads()` between, or in two adjacent blocks (nothing orders
blocks within one launch). `a[i] = a[i + 1]` collides across the block boundary: the last thread of
block b reads the element the first thread of block b + 1 writes. Only addresses known from the
PTX are compared (kernel pointers, thread and block indices); different pointer parameters are
assumed not to alias; atomics against atomics and memory-ordered flag accesses are left to FENCE.
An index read back from local memory (a cursor the thread keeps in a struct on its stack) is that
thread's own: where any local store of the kernel writes a thread-dependent value, two threads
reading one local address hold two unknowns, not one.

Accesses under a condition the analysis cannot evaluate (`if (i < n) y[i] = x[i] + y[i + 1];`) are
compared in a block like RACE001's: some input lets any two threads pass an input guard together,
so the pair is a race unless the two threads' conditions contradict (`b < n` against `b >= n` on a
value the same in both; the last item's `i == n - 1` against the next thread's `i + 1 < n`, which
want n to be i + 1 and more at once; `(p - 16 * t) < 16u`, which one t passes) or hang on the
kernel's own state (a value read back, an atomic's result).
A pair of lanes of one warp that only `__syncwarp()` separates is no race; one that nothing
separates is WARP001's (warp-synchronous code on global memory), as are `volatile` accesses between
lanes of one warp, unless the volatile read is polled in a loop (a spin-wait on a flag).

A plain read that only supplies the expected value of an `atomicCAS` retry loop on the same word
(`do { old = *p; if (v <= old) break; } while (atomicCAS(p, old, v) != old);`) is not paired with the
atomics that change that word: a stale value makes the CAS fail and the loop read again. Nor is a
plain read whose value only decides whether an atomic min or max on the same word runs (`if (v <
box[0]) atomicMin(&box[0], v)`): the word moves one way, so a stale value only costs an atomic that
changes nothing. Nor is a plain read that is only a guess: its value decides nothing but when to try
an atomic on the same word whose result the thread then tests (a semaphore's fast path, `if
(count() >= n) { old = atomicAdd(&v, -n); if (old < n) atomicAdd(&v, n); }`) or how long to wait
(`while (count() < n) __nanosleep(t);` before an atomic): every change is decided by what an atomic
returned, so a stale value costs a retry or a wait. In front of an atomic whose result is not tested
(`if (count < cap) atomicAdd(&count, 1)`), of a plain store, or kept as data, it is a race.

Threads of one store that write the same value (the last lane of every tile storing the same scan
total, every lane of a warp storing the warp's reduction, every block filling one table alike) are
not a race; values from run-time data are not known to be equal, so those stores still are. Two
stores of one constant (`changed[v] = 1` by every thread that saw a change) are not a race either,
nor is a plain read that only decides whether its thread stores that constant to the word it read
(`if (!mark[i]) mark[i] = 1;`) when every write the kernel makes to that memory stores it: the word
ends up marked whatever the read sees. A test that also decides other work (`if (!mark[i]) { mark[i]
= 1; queue[atomicAdd(&n, 1)] = i; }`: two threads may queue one item) is a race. Every thread
storing one value that is the same in the whole block to a word and reading it back (`slice = rows /
parallel * width;` then a loop over `slice`) reads what it stored, whichever copy it sees: no race.
Threads of one store whose reach hangs on the kernel's own state are no witnesses there too: only the
thread whose `atomicCAS` on a status word wins writes the error record. Blocks
are compared only along grid dimensions the launches found in the host code may span: none for a
`<<<1, 512>>>` launch, only x for an integer grid (`<<<n / 256, 256>>>`); with no launch found,
the finding says it holds when the kernel is launched with more than one block, and blocks are
compared along an axis only when the kernel's work reads blockIdx on it (an address, a stored value
or a branch; cooperative groups' grid barrier reading blockIdx.y for its own counter does not count). Paths
that no thread of the launched block takes (a loop skipped only when `blockDim.x / 2 == 0`) do not
pair accesses around the barriers they avoid. Accesses inside one spin lock's critical section
(after `while (atomicCAS(lock, 0, 1) != 0);`, before `atomicExch(lock, 0)` on the same word) are
taken by one block at a time and are not paired across blocks; whether the next holder sees the data
is FENCE's question. Likewise an access that runs only once its thread has seen other blocks' hand-off
(under `if (atomicAdd(&done, 1) == gridDim.x - 1)`, after a wait on a flag or an acquire load) is
ordered after what those blocks did before handing off, if the protocol is fenced: FENCE001/002
judge the fences, RACE003 does not pair it across blocks.
""",
        why_is_this_bad="""
Blocks run in any order and at the same time: whether block b reads the old or the new value of its
neighbour's element changes from run to run and between GPUs. compute-sanitizer's racecheck checks
shared memory only, so this race goes unseen by it.
""",
        example="""
int i = blockIdx.x * blockDim.x + threadIdx.x;
float v = a[i + 1];
__syncthreads();             // orders the block's own threads only
a[i] = v;                    // block b + 1's thread 0 writes what block b's last thread read
""",
        use_instead="""
out[i] = a[i + 1];           // write to a second buffer (or launch a second kernel)
""",
    ),
)
def check_global_race(ctx):
    conflicts = global_conflicts(ctx)
    seen = set()
    for c in conflicts["block"]:
        position = ctx.position(c.second.instruction)
        if position in seen:
            continue
        seen.add(position)
        a, b = c.first.instruction, c.second.instruction
        t1, t2 = c.threads
        message = (f"global-memory race ({c.hazard}) in a block: {_what(c.second)} at {where(b)} and "
                   f"{_what(c.first)} at {where(a)} touch the same address with no barrier between")
        notes = [f"{describe_thread(ctx, t1)} {_VERB[c.first.kind]} global byte {c.offset[1]} (from the "
                 f"array's base) at {where(a)}; {describe_thread(ctx, t2)} {_VERB[c.second.kind]} it at "
                 f"{where(b)}{' in the next iteration of the loop' if c.crossed_loop else ''}"]
        notes += sorted(set(c.first.notes) | set(c.second.notes)) + conflicts["notes"]
        yield diagnostic(ctx, "RACE003", "error", b, message, notes,
                         "put `__syncthreads()` between the two accesses, or use an atomic",
                         {"hazard": c.hazard, "scope": "block", "threads": list(c.threads),
                          "ptx_lines": [a.ptx_line, b.ptx_line]})
    for c in conflicts["grid"]:
        position = ctx.position(c.second.instruction)
        if position in seen:
            continue
        seen.add(position)
        a, b = c.first.instruction, c.second.instruction
        t1, t2 = c.threads
        known = _grid(ctx) is not None and _grid(ctx)["xyz".index(c.dim)] is not None
        message = (f"global-memory race ({c.hazard}) across blocks: {_what(c.second)} at {where(b)} and "
                   f"{_what(c.first)} at {where(a)} touch the same address from neighbouring blocks; nothing "
                   f"orders blocks within one launch"
                   + ("" if known else f" (when launched with more than one block along blockIdx.{c.dim})"))
        notes = [f"{describe_thread(ctx, t1)} of one block {_VERB[c.first.kind]} a global byte at {where(a)} that "
                 f"{describe_thread(ctx, t2)} of the neighbouring block {_VERB[c.second.kind]} at {where(b)} "
                 f"({c.blocks})",
                 _grid_condition(ctx, c.dim),
                 *(["holds for inputs that let both threads pass the conditions around the accesses (a "
                    "guard on a kernel parameter, such as a bound `n`, that some input satisfies in both)"]
                   if _guarded(c.first, c.second) else []),
                 "assumed: different pointer parameters do not alias"]
        notes += sorted(set(c.first.notes) | set(c.second.notes)) + conflicts["notes"]
        yield diagnostic(ctx, "RACE003", "error", b, message, notes,
                         "let every block write only elements no other block reads or writes (write to a "
                         "second buffer), split the work into two kernel launches, or use atomics",
                         {"hazard": c.hazard, "scope": "grid", "threads": list(c.threads),
                          "ptx_lines": [a.ptx_line, b.ptx_line]})


def _what(site: SharedSite) -> str:
    return {"read": "the read", "write": "the write", "atomic": "the atomic"}[site.kind]
