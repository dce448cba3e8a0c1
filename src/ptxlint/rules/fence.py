"""FENCE: data handed between blocks through global memory without the fences the memory model needs.

A hand-off (HANDOFF_MODEL below, quoted in every FENCE rule's documentation) has a producer block that
writes data and then publishes a flag or ticket, and a consumer block of the same launch that waits on
that flag (or tests that ticket) and then reads the data. FENCE001 finds the producer's missing
`__threadfence()`, FENCE003 a block-scope one, FENCE002 the consumer's missing fence or acquire.
compute-sanitizer sees none of them.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.accesses import access_bits
from ..analysis.lane_values import Varying, all_distinct_unknowns, as_affine, bits_of, equal_per_thread
from ..analysis.spaces import access_space
from ..analysis.value_flow import value_flow
from ..frontend.ir import Immediate, Instruction, Register, registers_in
from .registry import RuleDoc, register
from .sync import diagnostic, where

_ORDERED = ("volatile", "relaxed", "mmio")
_WIDE_SCOPES = ("gpu", "sys")


HANDOFF_MODEL = """
**What is a hand-off.** Block P writes data (plain stores, or relaxed atomic accumulations), then
publishes: it stores a flag (a volatile or relaxed store, `atomicExch`) or takes a ticket from a counter
(`atomicInc`, `atomicAdd` whose value it tests). Block C, another block of the same launch, observes the
publication and its value decides what C does next: C spins until the flag is set, or tests the ticket
(`ticket == gridDim.x - 1`, the last block of a threadfence reduction), or waits for a predecessor's
flag (a decoupled look-back scan). Then C reads the data P wrote. Only then does the order of P's writes
matter to C, and only then does ptxlint report. These are not hand-offs:

* a counter whose value becomes an address and is never tested for equality: a work-queue index
  (`i = atomicAdd(&head, 1); v = q[i]`), a unique id or a slot (`out[atomicAdd(&n, 1)] = x`), a
  partition index; what a thread reads at the index it drew is its own item;
* a release written as a device-wide fence and an atomic that sets a state word (`__threadfence();
  atomicAnd(&lock, ~1u)`, a lock released, a flag set with `atomicExch`): it publishes what was
  written before the fence and is no data that a later flag or ticket publishes;
* a floating-point atomic (`atomicAdd` of a float, `atomicExch(&residual[v], 0.0f)` read back as a
  float): a number being accumulated or taken, as in PageRank's residual push; flags, tickets and
  counters are integers;
* an atomic retried until it sees the value it waits for (a lock taken with `atomicCAS`,
  `atomicExch` or `atomicOr` in a spin loop, a compare-and-swap update): it observes (it is the
  consumer of the previous holder's release) but publishes nothing; the release does;
* reads of memory that only the reader's own block or thread wrote in this launch: the same address
  as the write in every thread (an item taken from a counter, or the data of a work item the thread
  loaded for itself: `ranks[node] += res` with `node = worklist[i]`), or addresses that move with blockIdx
  by more than a block touches (`rows[blockIdx.x * 128 + threadIdx.x]`);
* reads of another field of the object the data went to: both addresses one pointer the whole
  launch shares (a kernel parameter) plus known offsets whose bytes never meet (`q->front` stored,
  `q->size` read);
* reads that run whatever the observed value was: the value must decide them (they sit under its
  test, or after a wait loop it ends); an atomic that only decides whether an item is pushed to a
  worklist (`if (atomicMax(&stamp[v], iter) != iter) wl[atomicAdd(&n, 1)] = v`) is followed by the
  next item's reads, which do not wait for it;
* a flag that only a later kernel (or the host) reads, and data that a flag set by the host or by an
  earlier kernel guards: the launch boundary orders them;
* loads of data the kernel only reads (`ld.global.nc`, `ldu`: `const __restrict__` or `__ldg`
  arrays such as a CSR graph's offsets and edges, which the PTX ISA requires to stay unwritten while
  the kernel runs);
* CTA-scope atomics and fences (`atomicAdd_block`, `thread_scope_block`) and accesses that reach
  shared memory: only the block's own threads observe them.

A finding names the unfenced write, the flag or ticket, the observation that makes a consumer (the
flag read or ticket test) and the consumer's read, and says what it assumed: that the launch has more
than one block and that the read may return bytes the write stored in another block.
"""


def fence_scope(ins: Instruction) -> Optional[str]:
    """'wide' for a fence that orders for other blocks (gpu/sys), 'narrow' for cta/cluster scope,
    None for other instructions."""
    if ins.op == "membar":
        return "wide" if any(m in ins.modifiers for m in ("gl", "sys")) else "narrow"
    if ins.op == "fence" and any(m in ins.modifiers for m in ("sc", "acq_rel")):
        return "wide" if any(m in ins.modifiers for m in _WIDE_SCOPES) else "narrow"
    return None


def _block_scoped(ins: Instruction) -> bool:
    """A `.cta`-scope operation (`atom.or.acq_rel.cta`, `ld.relaxed.cta`): only threads of the same
    block are its observers, so it never publishes to, nor observes, another block."""
    return "cta" in ins.modifiers


def _releases(ins: Instruction) -> bool:
    return any(m in ins.modifiers for m in ("release", "acq_rel")) and not _block_scoped(ins)


def _acquires(ins: Instruction) -> bool:
    return any(m in ins.modifiers for m in ("acquire", "acq_rel")) and not _block_scoped(ins)


def _orders_earlier_writes(ins: Instruction) -> bool:
    """A device-wide fence, or a release operation (`st.release.gpu`, `atom.acq_rel.gpu`,
    `red.release.gpu`: a release is a fence for its scope) that orders the writes before it."""
    if fence_scope(ins) == "wide":
        return True
    return ins.op in ("st", "atom", "red") and _releases(ins) and "cluster" not in ins.modifiers


_STATE_UPDATES = ("and", "or", "xor", "exch", "cas")


def _fenced_state_update(ctx, ins: Instruction) -> bool:
    """Is the atomic `ins` a release written as a fence and a relaxed atomic: an update that sets a
    state word (`atomicAnd`, `atomicOr`, `atomicExch`, `atomicCAS` of an integer: a lock released, a
    flag set) that a device-wide fence precedes on every path from the kernel's entry, with no
    global write of its thread between (`__threadfence(); atomicAnd(&lock, ~1u);`)? It publishes what
    was written before the fence, and is no data of a later publication. An accumulation
    (`atomicAdd`) after a fence stays data: the sum is what a later ticket hands over."""
    if not any(m in ins.modifiers for m in _STATE_UPDATES) or ins.type in _FLOATING:
        return False
    fn, cfg = ctx.function, ctx.cfg
    block = fn.block_of(ins)
    stack, seen = [(block.id, ins.index - block.instructions[0].index)], set()
    while stack:
        block_id, pos = stack.pop()
        fenced = False
        for prior in reversed(fn.blocks[block_id].instructions[:pos]):
            if fence_scope(prior) == "wide":
                fenced = True
                break
            if prior.op == "call" or prior.op in ("st", "atom", "red") and prior.space in ("global", None):
                return False  # a write (or a callee that may write) before any fence
        if fenced:
            continue
        for node in cfg.predecessors(block_id):
            if not isinstance(node, int):
                return False  # the kernel's entry, reached with no fence on the way
            if node not in seen:
                seen.add(node)
                stack.append((node, len(fn.blocks[node].instructions)))
    return True


class Publication:
    """The memory operations of one kernel that matter for cross-block hand-offs."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._shared_names = {v.name for v in ctx.module.variables + ctx.function.variables if v.space == "shared"}
        # names of memory: kernel parameters that can hold an address (64-bit, or a struct of them: an
        # `int n` that only offsets an index is no buffer) and non-shared variables (not PTX
        # constants such as WARP_SZ)
        self._memory_names = {p.name for p in ctx.function.params if p.array_dims or bits_of(p.type) == 64} | {
            v.name for v in ctx.module.variables + ctx.function.variables if v.space != "shared"}
        fn = ctx.function
        used = self.used = set()  # registers some instruction reads
        for ins in fn.instructions:
            used.update(r.name for r in ins.sources())
        self.writes, self.flag_stores, self.tickets, self.flag_loads, self.data_loads = [], [], [], [], []
        # observations other blocks' hand-offs can be seen through, beyond flag loads and tickets:
        # acquire loads and releasing atomics whose result is used
        self.acquire_loads, self.releasing_tickets = [], []
        # atomics whose value is an address (a slot, an id) or that are retried until they take a lock
        self.slots: list = []
        self.acquisitions: list = []
        for ins in fn.instructions:
            if ins.memory_operand() is None or ins.space not in ("global", None):
                continue
            cross_block = not _block_scoped(ins)
            if ins.op == "st":
                if cross_block and any(m in ins.modifiers for m in _ORDERED) and not _releases(ins):
                    self.flag_stores.append(ins)
                if not _releases(ins):
                    self.writes.append(ins)
            elif ins.op == "atom":
                result_used = any(r.name in used for r in ins.destinations())
                if cross_block and (result_used or any(m in ins.modifiers for m in ("exch", "cas"))):
                    (self.releasing_tickets if _releases(ins) else self.tickets).append(ins)
                elif not _releases(ins) and not _fenced_state_update(ctx, ins):
                    self.writes.append(ins)  # an accumulation (`atomicAdd(&sum[i], x)`): data, like a store
            elif ins.op == "red":
                if not _releases(ins):
                    self.writes.append(ins)  # relaxed atomics are not ordered before a later flag either
            elif ins.op in ("ld", "ldu"):
                if ins.op == "ldu" or "nc" in ins.modifiers:
                    continue  # read-only for the kernel's lifetime (PTX ISA: ld.global.nc, ldu): no hand-off reads it
                if _acquires(ins):
                    self.acquire_loads.append(ins)
                elif cross_block and any(m in ins.modifiers for m in _ORDERED):
                    self.flag_loads.append(ins)
                else:
                    self.data_loads.append(ins)
        # nothing is handed between blocks: skip the per-thread address work
        self.relevant = bool(self.writes and (self.tickets or self.flag_stores or self.flag_loads))
        if self.relevant:
            # generic accesses that reach shared memory (a shared variable, `cvta.shared` of the
            # toolkit's scratch) are not cross-block traffic
            for name in ("writes", "flag_stores", "tickets", "flag_loads", "data_loads", "acquire_loads",
                         "releasing_tickets"):
                setattr(self, name, [i for i in getattr(self, name) if self.is_global_like(i)])
            # what each atomic's value is for: a slot handed out or a lock taken publishes nothing
            self.slots, self.acquisitions = [], []
            roles = {t.index: atomic_role(ctx, t) for t in self.tickets + self.releasing_tickets}
            for t in self.tickets + self.releasing_tickets:
                if roles[t.index] == "data" and t in self.tickets:
                    self.writes.append(t)  # an accumulation or a take of a number: data, like a store
                if roles[t.index] == "slot":
                    self.slots.append(t)
                elif roles[t.index] == "acquisition" and t in self.tickets:
                    self.acquisitions.append(t)
            self.tickets = [t for t in self.tickets if roles[t.index] == "ticket"]
            self.releasing_tickets = [t for t in self.releasing_tickets if roles[t.index] not in ("slot", "data")]
            self.relevant = bool(self.writes and (self.tickets or self.flag_stores or self.flag_loads))
        self.written_roots = set()
        for ins in self.writes if self.relevant else ():
            self.written_roots |= self.roots(ins)

    def is_global_like(self, ins: Instruction) -> bool:
        """Global memory, or a generic address not traced to another space (`cvta.shared` of the
        toolkit's scratch, a shared variable, a local array are not)."""
        return access_space(self.ctx, ins) in ("global", None)

    @property
    def observations(self) -> list:
        """Everything through which this kernel may see another block's hand-off."""
        return self.flag_loads + self.acquire_loads + self.tickets + self.acquisitions + self.releasing_tickets

    @property
    def reads(self) -> list:
        """Every global load, whatever its ordering (a volatile read of the partials is still a read)."""
        return self.data_loads + self.flag_loads + self.acquire_loads

    def roots(self, ins: Instruction) -> set:
        """The kernel parameters / global variables the address of `ins` is based on."""
        return {n for n in self.ctx.address_roots.roots(ins) if n in self._memory_names}


def _publication(ctx) -> Publication:
    found = ctx.__dict__.get("_publication")
    if found is None:
        found = ctx.__dict__["_publication"] = Publication(ctx)
    return found


def _walk(ctx, start: Instruction, forward: bool):
    """Instructions reachable from `start` (excluded) in one direction, each once, with the first
    fence-like instruction met on the way: yields (instruction, narrow fence or None); the walk
    stops at wide fences and releases (backward) or acquires (forward)."""
    fn = ctx.function
    cfg = ctx.cfg
    seen = set()
    block = fn.block_of(start)
    pos = start.index - block.instructions[0].index
    stack = [(block.id, pos, None)]
    while stack:
        block_id, pos, narrow = stack.pop()
        instructions = fn.blocks[block_id].instructions
        order = range(pos + 1, len(instructions)) if forward else range(pos - 1, -1, -1)
        stopped = False
        for k in order:
            ins = instructions[k]
            scope = fence_scope(ins)
            if (forward and (scope == "wide" or _acquires(ins))) or (not forward and _orders_earlier_writes(ins)):
                stopped = True
                break
            if scope == "narrow" and narrow is None:
                narrow = ins
            yield ins, narrow
        if stopped:
            continue
        nexts = cfg.successors(block_id) if forward else cfg.predecessors(block_id)
        for node in nexts:
            if not isinstance(node, int) or (node, narrow is not None) in seen:
                continue
            seen.add((node, narrow is not None))
            n = len(fn.blocks[node].instructions)
            stack.append((node, -1 if forward else n, narrow))


def _reachable_after(ctx, start: Instruction) -> set:
    """Indices of the instructions that may run after `start` in the same thread (loops included)."""
    cache = ctx.__dict__.setdefault("_fence_reachable", {})
    found = cache.get(start.index)
    if found is None:
        fn, cfg = ctx.function, ctx.cfg
        block = fn.block_of(start)
        found = {i.index for i in block.instructions if i.index > start.index}
        for node in cfg.reached_after(block.id):
            if isinstance(node, int):
                found.update(i.index for i in fn.blocks[node].instructions)
        cache[start.index] = found
    return found


def _decides_control(ctx, obs: Instruction) -> bool:
    """Does the value `obs` reads decide a branch or a predicated instruction (directly, through
    registers, or through shared memory: `amLast = ticket == gridDim.x - 1; __syncthreads();
    if (amLast)`)? A slot counter's value only becomes an address and decides nothing."""
    return bool(value_flow(ctx, obs).guards())


def _read_decided_by(ctx, obs: Instruction, read: Instruction) -> bool:
    """Does what `obs` reads decide whether `read` runs? The read is predicated on the value, or under
    a branch the value decides (`if (ticket == gridDim.x - 1) { ... read ... }`, at any depth), or after
    a loop that the value lets the thread leave (a spin-wait on a flag). A read that runs whatever the
    value was (a later iteration of a loop that only pushes a claimed item to a worklist) does not
    consume what the observation published."""
    flow = value_flow(ctx, obs)
    guards = flow.guards()
    if not guards:
        return False
    if read.guard is not None and read.guard.name in flow.registers:
        return True
    fn = ctx.function
    cfg = ctx.cfg
    read_block = fn.block_of(read).id
    deciding = {fn.block_of(g).id for g in guards if g.is_branch}
    if cfg.controlling_branches(read_block) & deciding:
        return True
    for b in deciding:
        for header, body in cfg.loops_containing(b):
            if read_block not in body and any(n not in body for n in cfg.successors(b)):
                return True  # the value decides when the thread leaves the loop: a wait
    return False


def waits_for_hand_off(ctx, ins: Instruction) -> bool:
    """Does `ins` run only once its thread has seen other blocks' hand-off: it is decided by a
    ticket (`if (atomicAdd(&done, 1) == gridDim.x - 1)`), a flag or an acquire load? What the other
    blocks did before handing off is then ordered before it by that protocol, if it is fenced: FENCE
    judges the protocol, not RACE003."""
    answers = ctx.__dict__.setdefault("_waits_for_hand_off", {})  # RACE003 asks once per pair of accesses
    found = answers.get(ins.index)
    if found is None:
        pub = _publication(ctx)
        found = answers[ins.index] = pub.relevant and any(
            _read_decided_by(ctx, obs, ins) for obs in pub.tickets + pub.flag_loads + pub.acquire_loads)
    return found


_FLOATING = ("f16", "f16x2", "bf16", "bf16x2", "f32", "f64")


def carries_a_number(ctx, ins: Instruction) -> bool:
    """Is the atomic's value a floating-point number: a floating-point atomic (`atom.add.f32`), or a
    bit-typed one (`atom.exch.b32`: atomicExch on a float) whose result goes only into floating-point
    registers? Flags, tickets and counters are integers; a float is data being accumulated."""
    if ins.type in _FLOATING:
        return True
    results = {r.name for r in ins.destinations()}
    if not results or ins.type not in ("b32", "b64"):
        return False
    fn = ctx.function
    uses = [u for u in fn.instructions if any(r.name in results for r in u.sources() if r is not u.guard)]
    return bool(uses) and all(u.op == "mov" and u.destinations() and
                              all(fn.register_type(d.name) in _FLOATING for d in u.destinations()) for u in uses)


def atomic_role(ctx, ins: Instruction) -> str:
    """What an atomic whose result is used is for, judged by where its value goes:

    * "slot": the value becomes an address (`q[atomicAdd(&head, 1)]`, a unique id, a partition index)
      and is never tested for equality: a counter handing out work or places, which tells no thread
      that another block's data is ready;
    * "acquisition": the value decides whether the loop around the atomic goes round again (a lock
      taken with `atomicCAS`/`atomicExch`/`atomicOr`, a compare-and-swap retry, a poll): it waits on a
      value, and what it writes (the lock taken) is what other blocks wait to see undone, not a signal;
    * "data": a floating-point number (`atomicAdd(&residual[v], x)` on floats, `atomicExch(&r[v], 0.0f)`
      whose result is read as a float): a quantity accumulated or taken, which signals nothing;
    * "ticket": otherwise (`ticket == gridDim.x - 1`, a flag swapped in): a publication of what its
      thread wrote before it, and an observation of what the others published."""
    if carries_a_number(ctx, ins):
        return "data"
    flow = value_flow(ctx, ins)
    if flow.addresses() and not flow.equality_tested():
        return "slot"
    cfg = ctx.cfg
    block = ctx.function.block_of(ins).id
    for header, body in cfg.loops_containing(block):
        for guarded in flow.guards():
            at = ctx.function.block_of(guarded).id
            if guarded.is_branch and at in body and any(n not in body for n in cfg.successors(at)):
                return "acquisition"
    return "ticket"


def _handoff(ctx, pub: Publication, observations: list, write: Instruction, data_roots: set,
             flag: Optional[Instruction] = None):
    """(observation, read, why): the consumer of a hand-off. A read of `data_roots` that may run
    after an observation whose value decides control flow, that does not read the item the value
    names (`q[i]` after `i = atomicAdd(&head, 1)`) nor only memory its own block or thread stored with
    `write` (the data written before the publication), in this kernel. None where nothing consumes
    the data after observing. Reads of the flag's own location (`flag`, or the observation) are not
    reads of the data."""
    if not data_roots:
        return None
    for obs in sorted(observations, key=lambda i: i.index):
        if not _decides_control(ctx, obs):
            continue
        after = _reachable_after(ctx, obs)
        items = value_flow(ctx, obs, through_loads=True)
        for read in sorted(pub.reads, key=lambda i: i.index):
            if read.index not in after or read is obs or not pub.roots(read) & data_roots:
                continue
            if pub.roots(read) <= pub.roots(obs) and any(
                    _same_location(ctx, read, f) for f in (obs, flag) if f is not None):
                continue
            if items.is_address_of(read):
                continue  # the item the observed value names (a work-queue entry, a slot)
            if not _read_decided_by(ctx, obs, read):
                continue  # runs whatever the value was: not waiting for what it published
            why = _from_another_block(ctx, pub, [write], read)
            if why is None:
                continue
            return obs, read, why
    return None


def _from_another_block(ctx, pub: Publication, writes: list, read: Instruction) -> Optional[str]:
    """Why `read` in one block may return what one of `writes` stored in another block, in words, or
    None where every such write is confined to the reader's own block or thread: the same
    address per thread, from an index each thread takes once (`items[i]` with `i` from a slot
    counter), or addresses that move with blockIdx by a stride wider than what one block touches
    (`rows[blockIdx.x * 128 + threadIdx.x]` read back as written)."""
    if not writes:
        return None
    reasons = []
    for w in writes:
        if _same_slot(ctx, pub, w, read) or _block_partitioned(ctx, w, read) or _own_item(ctx, w, read) \
                or _apart_fields(ctx, w, read):
            continue
        reasons.append(f"its address is not confined to the block that stored at {where(w)}")
    return reasons[0] if reasons else None


def _own_item(ctx, write: Instruction, read: Instruction) -> bool:
    """Do `write` and `read` touch, in every thread, one address computed from a work item the thread
    loaded for itself (`ranks[node]` with `node = worklist[i]`: a different unknown in every thread)?
    That is the data of the item the thread owns (`ranks[node] += res` after taking the node's
    residual): only the owner of the item reads and writes it, no other block hands it over."""
    xw, xr = _addresses(ctx, write, read)
    if xw is None or xr is None or not equal_per_thread(xw, xr):
        return False
    # per-thread unknowns (not a known offset per thread from one base: `out[threadIdx.x]` is shared
    # with the same thread of every other block)
    return type(xw) is Varying or (as_affine(xw) is None and all_distinct_unknowns(xw))


def _addresses(ctx, a: Instruction, b: Instruction):
    lanes = ctx.lanes
    (xa, xb), _ = lanes.collect(lambda: (lanes.address(a), lanes.address(b)))
    return xa, xb


def _same_slot(ctx, pub: Publication, write: Instruction, read: Instruction) -> bool:
    """Do `write` and `read` touch, in every thread, the one address computed from a slot that thread
    took from a counter, one-to-one (`items[i]`, not `bins[i % 4]`)? Each value of a counter is handed
    out once per launch, so no other thread stores there."""
    for slot in pub.slots:
        flow = value_flow(ctx, slot)
        if not (flow.is_address_of(write) and flow.is_address_of(read)):
            continue
        # the same counter may be drawn at several places (a rotated loop draws before it and at its end)
        same_counter = {s.index for s in pub.slots if pub.roots(s) == pub.roots(slot)}
        if not (_one_to_one(ctx, flow, same_counter, write) and _one_to_one(ctx, flow, same_counter, read)):
            continue
        xw, xr = _addresses(ctx, write, read)
        if xw is not None and xr is not None and equal_per_thread(xw, xr):
            return True
    return False


_LAUNCH_WIDE = ("%nctaid", "%ntid")


def _one_to_one(ctx, flow, draws: set, ins: Instruction) -> bool:
    """Is the address of `ins` the slot's value moved and scaled by launch-wide amounts only (moves,
    conversions, + a kernel parameter or constant, * or << a nonzero constant), so that two
    different slots never give one address? `draws`: the atomics that draw from the slot's counter."""
    mem = ins.memory_operand()
    if mem is None or not isinstance(mem.base, Register):
        return False
    dataflow, instructions = ctx.dataflow, ctx.function.instructions
    stack, seen = [(ins, mem.base)], set()
    while stack:
        at, reg = stack.pop()
        definitions = dataflow.definitions(at, reg)
        if not definitions:
            return False
        for d in definitions:
            if d in seen:
                continue
            seen.add(d)
            step = [] if d in draws else _one_to_one_step(ctx, flow, instructions[d])
            if step is None:
                return False
            stack.extend(step)
    return True


def _one_to_one_step(ctx, flow, d: Instruction) -> Optional[list]:
    """The (instruction, register) pairs to follow back from the definition `d` of a one-to-one
    image of the slot, [] where `d` is the slot itself, None where `d` may merge two slots."""
    if d.index == flow.source.index:
        return []
    if d.op in ("ld", "ldu") and d.space in ("shared", None):
        # the slot handed to the block through a shared variable (`part_s = atomicAdd(...)`)
        return [] if flow.reads_stored_value(d) else None
    derived = [r for r in d.sources() if r.name in flow.registers and r is not d.guard]
    others = [op for op in d.operands[1:] if not any(r.name in flow.registers for r in registers_in(op))]
    if len(derived) != 1 or d.guard is not None:
        return None
    if d.op in ("mov", "cvt", "cvta"):
        return [(d, derived[0])]
    if d.op in ("add", "sub") and len(others) == 1 and _launch_wide(ctx, d, others[0]):
        return [(d, derived[0])]
    if d.op in ("mul", "shl") and len(others) == 1 and isinstance(others[0], Immediate) and others[0].value:
        return [(d, derived[0])]
    if d.op == "mad" and len(d.operands) == 4:
        a, b, c = d.operands[1:]
        if _has(flow, c) and _launch_wide(ctx, d, a) and _launch_wide(ctx, d, b):
            return [(d, derived[0])]
        if not _has(flow, c) and _launch_wide(ctx, d, c) and any(
                isinstance(op, Immediate) and op.value for op in (a, b)):
            return [(d, derived[0])]
    return None


def _has(flow, operand) -> bool:
    return any(r.name in flow.registers for r in registers_in(operand))


def _launch_wide(ctx, at: Instruction, operand) -> bool:
    """Is `operand` of `at` one value for every thread of the launch (a constant, a kernel parameter,
    blockDim, gridDim)?"""
    if isinstance(operand, Immediate):
        return True
    if not isinstance(operand, Register):
        return False
    if operand.is_special:
        return operand.name.startswith(_LAUNCH_WIDE)
    values = ctx.lanes.register(at, operand)
    values = as_affine(values) if type(values) is not Varying else None
    return values is not None and len(set(values.consts)) == 1 and all(
        _launch_wide_symbol(ctx, sym) for sym, _ in values.terms)


def _launch_wide_symbol(ctx, sym: str) -> bool:
    """Is the evaluator's unknown `sym` one value for the whole launch (a kernel parameter, gridDim,
    blockDim)?"""
    key = ctx.lanes.table.key_of(sym)
    return isinstance(key, tuple) and bool(key) and (
        (key[0] in ("param", "param-address") and key[1] in {p.name for p in ctx.function.params})
        or (key[0] == "special" and key[1].startswith(_LAUNCH_WIDE)))


def _affine_addresses(ctx, write: Instruction, read: Instruction) -> tuple:
    """The addresses of `write` and `read` as Affine vectors (one unknown part for every thread, known
    offsets per thread), each None where threads differ in their unknowns."""
    xw, xr = _addresses(ctx, write, read)
    fw = as_affine(xw) if xw is not None and type(xw) is not Varying else None
    fr = as_affine(xr) if xr is not None and type(xr) is not Varying else None
    return fw, fr


def _apart_fields(ctx, write: Instruction, read: Instruction) -> bool:
    """Are `write` and `read` at one launch-wide base (the same kernel parameters, gridDim, blockDim)
    plus known offsets whose bytes never meet, whatever the threads and blocks: two fields of one
    object (`q->front` stored, `q->size` read)? Then the read cannot return what the write stored."""
    fw, fr = _affine_addresses(ctx, write, read)
    if fw is None or fr is None or fw.terms != fr.terms or not fw.terms:
        return False
    if not all(_launch_wide_symbol(ctx, sym) for sym, _ in fw.terms):
        return False  # a term that may differ between blocks or iterations (blockIdx, a loop index, data)
    written = {c + k for c in set(fw.consts) for k in range(access_bits(write) // 8)}
    return not any(c + k in written for c in set(fr.consts) for k in range(access_bits(read) // 8))


def _block_partitioned(ctx, write: Instruction, read: Instruction) -> bool:
    """Are the addresses of `write` and `read` the same launch-wide base plus k * blockIdx (one grid
    dimension, the only one the kernel reads) plus a per-thread offset, with every offset of both
    within k bytes? Then block b reads only what block b wrote."""
    fw, fr = _affine_addresses(ctx, write, read)
    if fw is None or fr is None or fw.terms != fr.terms:
        return False
    table = ctx.lanes.table
    dims_read = {op.name for ins in ctx.function.instructions for op in ins.operands
                 if isinstance(op, Register) and op.name.startswith("%ctaid.")}
    block_terms = {}
    for sym, coef in fw.terms:
        key = table.key_of(sym)
        if isinstance(key, tuple) and len(key) == 2 and key[0] == "special" and key[1].startswith("%ctaid."):
            block_terms[key[1]] = coef
        elif not _launch_wide_symbol(ctx, sym):
            return False  # a term that may differ between blocks or iterations (loaded data, a loop index)
    if len(block_terms) != 1 or set(block_terms) != dims_read:
        return False
    (k,) = block_terms.values()
    width = max(access_bits(write), access_bits(read)) // 8
    consts = fw.consts + fr.consts
    return max(consts) + width - min(consts) <= abs(k)


def _same_location(ctx, a: Instruction, b: Instruction) -> bool:
    """May `a` and `b` access one address? Yes where some thread's address of one equals some thread's
    address of the other (as the lane evaluator writes them), or where either is not known per thread."""
    found = ctx.__dict__.setdefault("_fence_same_location", {})
    key = (min(a.index, b.index), max(a.index, b.index))
    if key not in found:
        lanes = ctx.lanes
        (xa, xb), _ = lanes.collect(lambda: (lanes.address(a), lanes.address(b)))
        if xa is None or xb is None or type(xa) is Varying or type(xb) is Varying:
            found[key] = True
        else:
            found[key] = bool(set(xa) & set(xb))
    return found[key]


def _is_data_of(ctx, pub: Publication, write: Instruction, flag: Instruction) -> bool:
    """Is `write` data that the flag or ticket `flag` may publish, rather than the flag itself? A write
    based on other parameters or variables is. One in the flag's own buffer (`sums[i]` beside the
    counter `sums[n]`) is when it is a plain store or an accumulation at an address other than the
    flag's, and the buffer holds no other flags: a buffer that is also polled (volatile, relaxed or
    acquire loads), flag-stored or swapped elsewhere holds flag words (decoupled look-back's packed
    flag-and-value), and its updates are flags too."""
    roots = pub.roots(write)
    if not roots:
        return False
    if not roots <= pub.roots(flag):
        return True
    if write.op == "st" and any(m in write.modifiers for m in _ORDERED):
        return False
    if _same_location(ctx, write, flag):
        return False
    flag_like = pub.flag_loads + pub.acquire_loads + pub.flag_stores + pub.tickets + pub.releasing_tickets
    return not any(o is not flag and pub.roots(o) & roots and not _same_location(ctx, o, flag) for o in flag_like)


def _published_writes(ctx, pub: Publication, flag_roots: set) -> list:
    """The data writes that precede a publication of the flag (a flag store or ticket on `flag_roots`)
    in this kernel: what observing the flag can hand over. Empty when no block of this launch
    publishes the flag (the host or an earlier kernel set it: the launch boundary orders that data)."""
    publications = [p for p in pub.tickets + pub.releasing_tickets + pub.flag_stores if pub.roots(p) & flag_roots]
    found = []
    for w in pub.writes:
        if w in publications or not publications or not all(_is_data_of(ctx, pub, w, p) for p in publications):
            continue
        after = _reachable_after(ctx, w)
        if any(p.index in after for p in publications):
            found.append(w)
    return found


def _producer_findings(ctx):
    pub = _publication(ctx)
    if not pub.relevant:
        return []
    observed_roots = set()
    for ins in pub.observations:
        observed_roots |= pub.roots(ins)
    # a flag is a candidate when this kernel observes it: a later kernel that reads it is ordered by
    # the launch boundary, so only a reader in this launch makes a hand-off
    candidates = list(pub.tickets)
    candidates += [s for s in pub.flag_stores if pub.roots(s) & observed_roots]
    writes = {w.index for w in pub.writes}
    out = []
    for p in sorted(candidates, key=lambda i: i.index):
        p_roots = pub.roots(p)
        unfenced, narrow_fenced = [], []
        for ins, narrow in _walk(ctx, p, forward=False):
            if ins.index in writes and _is_data_of(ctx, pub, ins, p):
                if narrow is None:
                    unfenced.append(ins)
                else:
                    narrow_fenced.append((narrow, ins))
        # the flag or ticket is a hand-off only where another block reads the data after observing it
        observations = [p] if p.op == "atom" else []
        observations += [o for o in pub.observations if o is not p and pub.roots(o) & p_roots]
        found = None
        for code, write, fence in [("FENCE001", w, None) for w in unfenced] + \
                [("FENCE003", w, f) for f, w in narrow_fenced]:
            # data beside the flag in one buffer (`scratch` and `scratch + 2 * C`) is named by the same roots
            data_roots = (pub.roots(write) - p_roots) or pub.roots(write)
            handoff = _handoff(ctx, pub, observations, write, data_roots, flag=p)
            if handoff is not None:
                found = (code, p, write, fence, handoff)
                break
        if found is not None:
            out.append(found)
    return out


def _consumer_words(ctx, obs: Instruction) -> str:
    """The consumer an observation makes, in words: who waits for what."""
    if obs.op == "atom":
        if atomic_role(ctx, obs) == "acquisition":
            return f"a block that retries {_what(obs)} at {where(obs)} until it sees the value it waits for"
        return f"the block whose ticket from {_what(obs)} at {where(obs)} passes the test it decides"
    return f"a block that waits on the flag read `{obs.opcode}` at {where(obs)}"


def _handoff_note(ctx, handoff) -> str:
    obs, read, why = handoff
    return (f"the consumer: {_consumer_words(ctx, obs)}, then reads the data at {where(read)} (PTX line "
            f"{read.ptx_line}); {why}, so that block may be another one of the same launch")


def _assumption_note(pub: Publication, write: Instruction, read: Instruction) -> str:
    names = ", ".join(sorted(pub.roots(write) & pub.roots(read))) or "the same memory"
    return (f"assumed: the launch has more than one block, and the store at {where(write)} and the read at "
            f"{where(read)} may meet at the same bytes of `{names}` from different blocks")


def _write_what(ins: Instruction) -> str:
    """A data write in words: relaxed atomic updates are data too (they are not ordered before the flag)."""
    return "the global store" if ins.op == "st" else f"the global atomic update `{ins.opcode}`"


def _is_ticket(pub: Publication, ins: Instruction) -> bool:
    """An atomic whose old value its thread uses (a ticket), rather than a flag or lock word it sets."""
    return ins.op == "atom" and any(r.name in pub.used for r in ins.destinations())


def _what(ins: Instruction) -> str:
    if ins.op == "atom":
        return f"the atomic `{ins.opcode}`"
    return f"the {ins.opcode} store"


@register(
    "FENCE001", "publication-without-fence", "error",
    "Global data is published to other blocks through a flag or atomic ticket with no fence between.",
    RuleDoc(
        what_it_does="""
Finds the producer side of a cross-block hand-off: global stores followed (in the same thread, or in
other threads of the block before a `__syncthreads()`) by the store of a flag (volatile or relaxed,
`atomicExch`) or an atomic ticket that other blocks observe, with no `__threadfence()` (`membar.gl`,
`fence.sc/acq_rel.gpu`) and no release operation (`st.release.gpu`, `atom.acq_rel.gpu`: a release is a
fence for its scope) between, where a consumer of the same launch reads the data after observing the
flag or ticket.

The data are plain stores and atomic accumulations (`atomicAdd(&sum[i], x)`: relaxed atomics are not
ordered before the flag either), also in the flag's own buffer (`sums[i]` beside the counter
`sums[n]`) unless that buffer holds other flags (polled, flag-stored or swapped elsewhere, as the
packed flag-and-value words of a decoupled look-back).
""" + HANDOFF_MODEL,
        why_is_this_bad="""
Without a fence the GPU may make the flag or ticket visible before the data: the block that sees the
flag (the "last block" of a threadFenceReduction, the consumer of a handshake) reads stale partial
results. It fails rarely and only under load; no sanitizer tool models it.
""",
        example="""
partial[blockIdx.x] = s;
unsigned ticket = atomicInc(&count, gridDim.x);     // may overtake the store above
if (ticket == gridDim.x - 1) { __threadfence(); total = sum(partial, gridDim.x); }
""",
        use_instead="""
partial[blockIdx.x] = s;
__threadfence();                                   // or cuda::atomic_ref ... memory_order_release
unsigned ticket = atomicInc(&count, gridDim.x);
if (ticket == gridDim.x - 1) { __threadfence(); total = sum(partial, gridDim.x); }
""",
    ),
)
def check_publication(ctx):
    for code, p, write, fence, handoff in _fence_findings(ctx):
        if code != "FENCE001":
            continue
        message = (f"{_what(p)} publishes to other blocks, but {_write_what(write)} at {where(write)} before it "
                   f"is not fenced: other blocks may see the "
                   f"{'ticket' if _is_ticket(_publication(ctx), p) else 'flag'} "
                   f"before the data")
        notes = [f"{_write_what(write)} at {where(write)} (PTX line {write.ptx_line}) reaches {_what(p)} at {where(p)} "
                 f"(PTX line {p.ptx_line}) with no membar.gl / fence.sc.gpu / release on the way",
                 _handoff_note(ctx, handoff),
                 _assumption_note(_publication(ctx), write, handoff[1]),
                 "compute-sanitizer does not model cross-block memory ordering; this is from the PTX memory model"]
        yield diagnostic(ctx, "FENCE001", "error", p, message, notes,
                         "put `__threadfence()` between the data stores and the publication, or publish with a "
                         "release (`cuda::atomic_ref<..., thread_scope_device>::store(v, memory_order_release)`)",
                         {"write_line": ctx.position(write)[1]})


@register(
    "FENCE003", "fence-scope-too-narrow", "error",
    "A block-scope fence orders a publication that other blocks observe.",
    RuleDoc(
        what_it_does="""
Finds `__threadfence_block()` (`membar.cta`, `fence.*.cta`) used as the only fence between global
data stores and a flag or atomic ticket that other blocks observe, where a consumer of the same
launch reads the data after observing it.
""" + HANDOFF_MODEL,
        why_is_this_bad="""
A CTA-scope fence only orders the accesses for observers in the same block; a thread of another
block may still see the flag before the data.
""",
        example="""
partial[blockIdx.x] = s;
__threadfence_block();
unsigned ticket = atomicInc(&count, gridDim.x);
""",
        use_instead="""
partial[blockIdx.x] = s;
__threadfence();
unsigned ticket = atomicInc(&count, gridDim.x);
""",
    ),
)
def check_fence_scope(ctx):
    for code, p, write, fence, handoff in _fence_findings(ctx):
        if code != "FENCE003":
            continue
        message = (f"`{fence.opcode}` (block scope) is the only fence between {_write_what(write)} at {where(write)} "
                   f"and {_what(p)} at {where(p)}, which other blocks observe: use a device-scope fence")
        notes = [f"{_what(p)} at PTX line {p.ptx_line} publishes to other blocks",
                 "a CTA-scope fence orders memory only for threads of the same block",
                 _handoff_note(ctx, handoff),
                 _assumption_note(_publication(ctx), write, handoff[1])]
        yield diagnostic(ctx, "FENCE003", "error", fence, message, notes,
                         "use `__threadfence()` (membar.gl / fence.sc.gpu) instead of `__threadfence_block()`",
                         {"publication_line": ctx.position(p)[1]})


def _fence_findings(ctx):
    found = ctx.__dict__.get("_fence_findings")
    if found is None:
        found = ctx.__dict__["_fence_findings"] = _producer_findings(ctx)
    return found


@register(
    "FENCE002", "consumer-without-acquire", "error",
    "Data from other blocks is read after observing their flag or ticket, with no fence or acquire between.",
    RuleDoc(
        what_it_does="""
Finds the consumer side of a cross-block hand-off: a thread observes a flag (a volatile/relaxed load,
typically in a spin loop), an atomic ticket or a lock it retries for, and then reads, with plain
(weak) loads, global data that another block of the launch writes before publishing that flag, with
no `__threadfence()` or acquire operation between (also across a `__syncthreads()`). Volatile or
relaxed reads of the data are accepted. The data a flag hands over is what the kernel writes before
publishing that flag: a block that reads its own partition after taking the partition's index from a
counter (and writes it only afterwards), or re-reads input after a spin timed out, consumes nothing
published; a flag that no block of the launch publishes (the host or an earlier kernel set it) hands
over nothing. An observation that is itself an acquire (`atom.exch.acquire.gpu`: libcu++'s
`exchange(1, cuda::memory_order_acquire)` taking a lock, `ld.acquire.gpu`) orders the loads after it,
so nothing is missing there.
""" + HANDOFF_MODEL,
        why_is_this_bad="""
Fence-based synchronisation needs both halves: the producer's fence before the flag, and the
consumer's fence (or an acquire) after observing it. Without the second, plain loads may be served
from a stale L1 line or reordered before the flag read.
""",
        example="""
if (threadIdx.x == 0) while (*flag == 0) {}
__syncthreads();
v = data[threadIdx.x];                  // plain load, may be stale
""",
        use_instead="""
if (threadIdx.x == 0) { while (*flag == 0) {} __threadfence(); }
__syncthreads();
v = data[threadIdx.x];
""",
    ),
)
def check_consumer(ctx):
    pub = _publication(ctx)
    if not pub.relevant or not pub.written_roots:
        return
    data = {ins.index for ins in pub.data_loads}
    seen, positions = set(), set()
    # an observation that is itself an acquire (`atom.exch.acquire.gpu`: libcu++'s lock taken with
    # memory_order_acquire, `ld.acquire`) orders every load after it: nothing is missing
    observations = [o for o in pub.flag_loads + pub.tickets + pub.acquisitions + pub.releasing_tickets
                    if not _acquires(o)]
    for obs in sorted(observations, key=lambda i: i.index):
        if not _decides_control(ctx, obs):
            continue  # a value stored or counted, not a flag waited for: nothing is read "after" it
        obs_roots = pub.roots(obs)
        # the data the flag hands over: what this launch writes before publishing it (the block's own
        # partition, written only after it takes its ticket, is not handed over)
        published = _published_writes(ctx, pub, obs_roots)
        if not published:
            continue
        published_roots = set().union(*(pub.roots(w) for w in published))
        items = value_flow(ctx, obs, through_loads=True)
        for ins, _ in _walk(ctx, obs, forward=True):
            if ins.index not in data or ins.index in seen:
                continue
            roots = pub.roots(ins)
            if not roots or not (roots & published_roots):
                continue
            if roots <= obs_roots and _same_location(ctx, ins, obs):
                continue  # the flag's own location
            if items.is_address_of(ins):
                continue  # the item the observed value names: nothing another block published
            if not _read_decided_by(ctx, obs, ins):
                continue  # runs whatever the value was: not waiting for what it published
            writes = [w for w in published if pub.roots(w) & roots]
            why = _from_another_block(ctx, pub, writes, ins)
            if why is None:
                continue
            seen.add(ins.index)
            position = ctx.position(ins)
            message = (f"global data read at {where(ins)} after observing {_what(obs) if obs.op == 'atom' else 'the flag read'} "
                       f"at {where(obs)} with no fence or acquire between: the load may see data older than the flag")
            writer = next(w for w in writes if _from_another_block(ctx, pub, [w], ins) is not None)
            notes = [f"observation: {obs.opcode} at PTX line {obs.ptx_line}; data load: {ins.opcode} at PTX line "
                     f"{ins.ptx_line} from memory this kernel writes ({', '.join(sorted(roots & published_roots))})",
                     f"the consumer: {_consumer_words(ctx, obs)}, then reads at {where(ins)}; {why}, and the "
                     f"producer stores there at {where(writer)} before publishing what the observation reads",
                     _assumption_note(pub, writer, ins),
                     "compute-sanitizer does not model cross-block memory ordering; this is from the PTX memory model"]
            if position in positions:  # an unrolled loop: one finding per source line
                continue
            positions.add(position)
            yield diagnostic(ctx, "FENCE002", "error", ins, message, notes,
                             "put `__threadfence()` after observing the flag (before `__syncthreads()` if other "
                             "threads read the data), or read the flag with an acquire load",
                             {"observation_line": ctx.position(obs)[1]})
