"""FENCE: data handed between blocks through global memory without the fences the memory model needs.

Producer side: global data written, then a flag or ticket (an atomic whose result is used, an
`atom.exch`, a volatile/relaxed store) published with no `__threadfence()` (`membar.gl`,
`fence.sc/acq_rel.gpu`) or release between. Consumer side: the flag observed, then the data read
with plain loads and no fence or acquire between. Both are invisible to compute-sanitizer.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.lane_values import Varying
from ..analysis.spaces import access_space
from ..frontend.ir import Instruction, registers_in
from .registry import RuleDoc, register
from .sync import diagnostic, where

_ORDERED = ("volatile", "relaxed", "mmio")
_WIDE_SCOPES = ("gpu", "sys")


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


class Publication:
    """The memory operations of one kernel that matter for cross-block hand-offs."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._shared_names = {v.name for v in ctx.module.variables + ctx.function.variables if v.space == "shared"}
        # names of memory: kernel parameters and non-shared variables (not PTX constants such as WARP_SZ)
        self._memory_names = {p.name for p in ctx.function.params} | {
            v.name for v in ctx.module.variables + ctx.function.variables if v.space != "shared"}
        fn = ctx.function
        used = set()
        for ins in fn.instructions:
            used.update(r.name for r in ins.sources())
        self.writes, self.flag_stores, self.tickets, self.flag_loads, self.data_loads = [], [], [], [], []
        # observations other blocks' hand-offs can be seen through, beyond flag loads and tickets:
        # acquire loads and releasing atomics whose result is used
        self.acquire_loads, self.releasing_tickets = [], []
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
                elif not _releases(ins):
                    self.writes.append(ins)  # an accumulation (`atomicAdd(&sum[i], x)`): data, like a store
            elif ins.op == "red":
                if not _releases(ins):
                    self.writes.append(ins)  # relaxed atomics are not ordered before a later flag either
            elif ins.op in ("ld", "ldu"):
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
        return self.flag_loads + self.acquire_loads + self.tickets + self.releasing_tickets

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
        stack, seen = list(cfg.successors(block.id)), set()
        while stack:
            node = stack.pop()
            if not isinstance(node, int) or node in seen:
                continue
            seen.add(node)
            found.update(i.index for i in fn.blocks[node].instructions)
            stack.extend(cfg.successors(node))
        cache[start.index] = found
    return found


def _decides_control(ctx, obs: Instruction) -> bool:
    """Does the value `obs` reads decide a branch or a predicated instruction (directly, through
    registers, or through shared memory: `amLast = ticket == gridDim.x - 1; __syncthreads();
    if (amLast)`)? A slot counter's value only becomes an address and decides nothing."""
    cache = ctx.__dict__.setdefault("_fence_decides", {})
    found = cache.get(obs.index)
    if found is None:
        found = cache[obs.index] = _taints_a_guard(ctx, obs)
    return found


def _taints_a_guard(ctx, obs: Instruction) -> bool:
    fn = ctx.function
    shared = {v.name for v in ctx.module.variables + fn.variables if v.space == "shared"}
    tainted = {r.name for r in obs.destinations()}
    tainted_shared: set = set()
    changed = True
    while changed:
        changed = False
        for ins in fn.instructions:
            if ins.guard is not None and ins.guard.name in tainted and ins.index != obs.index:
                return True
            if ins.op == "st" and ins.space in ("shared", None):
                stored = [r.name for op in ins.operands[1:] for r in registers_in(op)]
                if any(r in tainted for r in stored):
                    names = set(ctx.address_roots.roots(ins)) & shared
                    if names - tainted_shared:
                        tainted_shared |= names
                        changed = True
                continue
            reads_taint = any(r.name in tainted for r in ins.sources())
            if not reads_taint and ins.op in ("ld", "ldu") and ins.space in ("shared", None) and tainted_shared:
                reads_taint = bool(set(ctx.address_roots.roots(ins)) & tainted_shared)
            if reads_taint:
                new = {r.name for r in ins.destinations()} - tainted
                if new:
                    tainted |= new
                    changed = True
    return False


def _handoff(ctx, pub: Publication, observations: list, data_roots: set, flag: Optional[Instruction] = None):
    """(observation, read): a read of `data_roots` that may run after an observation whose value
    decides control flow, in this kernel. None where nothing consumes the data after observing.
    Reads of the flag's own location (`flag`, or the observation) are not reads of the data."""
    if not data_roots:
        return None
    for obs in sorted(observations, key=lambda i: i.index):
        if not _decides_control(ctx, obs):
            continue
        after = _reachable_after(ctx, obs)
        for read in sorted(pub.reads, key=lambda i: i.index):
            if read.index in after and read is not obs and pub.roots(read) & data_roots:
                if pub.roots(read) <= pub.roots(obs) and any(
                        _same_location(ctx, read, f) for f in (obs, flag) if f is not None):
                    continue
                return obs, read
    return None


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


def _published_roots(ctx, pub: Publication, flag_roots: set) -> Optional[set]:
    """Roots of the data written before a publication of the flag (a flag store or ticket on
    `flag_roots`) in this kernel: what observing the flag can hand over. None when this kernel
    publishes no such flag (another kernel or the host does): then any data it writes counts."""
    publications = [p for p in pub.tickets + pub.releasing_tickets + pub.flag_stores if pub.roots(p) & flag_roots]
    if not publications:
        return None
    roots: set = set()
    for w in pub.writes:
        if w in publications or not all(_is_data_of(ctx, pub, w, p) for p in publications):
            continue
        after = _reachable_after(ctx, w)
        if any(p.index in after for p in publications):
            roots |= pub.roots(w)
    return roots


def _module_handoff(ctx, flag_roots: set, data_roots: set):
    """(kernel, observation, read) for another kernel of the module that observes the same flag and
    then reads the data. Only module variables name the same memory in two kernels: parameters do not."""
    globals_ = {v.name for v in ctx.module.variables if v.space == "global"}
    flag_names, data_names = flag_roots & globals_, data_roots & globals_
    if not flag_names or not data_names:
        return None
    from ..analysis.context import KernelContext

    for fn in ctx.module.functions:
        if fn is ctx.function or not fn.is_kernel or not fn.has_body:
            continue
        other = KernelContext(ctx.module, fn, ctx.options)
        try:
            pub = Publication(other)
            keep = pub.is_global_like
            pub.data_loads, pub.flag_loads, pub.acquire_loads = (
                [i for i in pub.data_loads if keep(i)], [i for i in pub.flag_loads if keep(i)],
                [i for i in pub.acquire_loads if keep(i)])
            observations = [o for o in pub.observations if keep(o) and pub.roots(o) & flag_names]
            found = _handoff(other, pub, observations, data_names)
            if found is not None:
                return (fn, *found)
        finally:
            other.release()
    return None


def _producer_findings(ctx):
    pub = _publication(ctx)
    if not pub.relevant:
        return []
    observed_roots = set()
    for ins in pub.observations:
        observed_roots |= pub.roots(ins)
    # a flag is a candidate when this kernel observes it, or when it is a module variable that another
    # kernel may observe (`_module_handoff` decides)
    module_globals = {v.name for v in ctx.module.variables if v.space == "global"}
    candidates = list(pub.tickets)
    candidates += [s for s in pub.flag_stores if pub.roots(s) & (observed_roots | module_globals)]
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
        # the flag or ticket is a hand-off only where someone reads the data after observing it
        observations = [p] if p.op == "atom" else []
        observations += [o for o in pub.observations if o is not p and pub.roots(o) & p_roots]
        found = None
        for code, write, fence in [("FENCE001", w, None) for w in unfenced] + \
                [("FENCE003", w, f) for f, w in narrow_fenced]:
            # data beside the flag in one buffer (`scratch` and `scratch + 2 * C`) is named by the same roots
            data_roots = (pub.roots(write) - p_roots) or pub.roots(write)
            handoff = _handoff(ctx, pub, observations, data_roots, flag=p)
            if handoff is not None:
                found = (code, p, write, fence, (None, *handoff))
            else:
                elsewhere = _module_handoff(ctx, p_roots, data_roots)
                if elsewhere is not None:
                    found = (code, p, write, fence, elsewhere)
            if found is not None:
                break
        if found is not None:
            out.append(found)
    return out


def _handoff_note(ctx, handoff) -> str:
    kernel, obs, read = handoff
    what = _what(obs) if obs.op == "atom" else f"the {obs.opcode} flag read"
    place = f" in kernel {kernel.name}" if kernel is not None else ""
    return (f"the hand-off{place}: {what} at {where(obs)} decides control flow, and the data is read at "
            f"{where(read)} after it (PTX line {read.ptx_line})")


def _write_what(ins: Instruction) -> str:
    """A data write in words: relaxed atomic updates are data too (they are not ordered before the flag)."""
    return "the global store" if ins.op == "st" else f"the global atomic update `{ins.opcode}`"


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
other threads of the block before a `__syncthreads()`) by the store of a flag (volatile or relaxed)
or an atomic ticket that other blocks observe, with no `__threadfence()` (`membar.gl`,
`fence.sc/acq_rel.gpu`) and no release operation (`st.release.gpu`, `atom.acq_rel.gpu`: a release is a
fence for its scope) between.

It fires only where there is a hand-off: after observing the flag or ticket (a last-block ticket
compared with `gridDim.x - 1`, a spin on a volatile or acquire load), the kernel, or another kernel
of the module through a `__device__` variable, reads the data. A counter that hands out slots
(`dst[atomicAdd(&n, 1)] = x`), a completion count for the host, CTA-scope atomics (`atomicAdd_block`,
`thread_scope_block`) and generic accesses that reach shared memory (`cvta.shared` of a shared
variable or of the toolkit's reserved scratch) publish nothing to other blocks.

The data are plain stores and atomic accumulations (`atomicAdd(&sum[i], x)`: relaxed atomics are not
ordered before the flag either), also in the flag's own buffer (`sums[i]` beside the counter
`sums[n]`) unless that buffer holds other flags (polled, flag-stored or swapped elsewhere, as the
packed flag-and-value words of a decoupled look-back).
""",
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
                   f"is not fenced: other blocks may see the {'ticket' if p.op == 'atom' else 'flag'} "
                   f"before the data")
        notes = [f"{_write_what(write)} at {where(write)} (PTX line {write.ptx_line}) reaches {_what(p)} at {where(p)} "
                 f"(PTX line {p.ptx_line}) with no membar.gl / fence.sc.gpu / release on the way",
                 _handoff_note(ctx, handoff),
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
data stores and a flag or atomic ticket that other blocks observe.
""",
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
                 _handoff_note(ctx, handoff)]
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
typically in a spin loop) or an atomic ticket, and then reads, with plain (weak) loads, global data
that the kernel's blocks write, with no `__threadfence()` or acquire operation between (also across
a `__syncthreads()`). Volatile or relaxed reads of the data (the CUDA threadFenceReduction sample's
shape) are accepted. The observed value must decide control flow (the ticket compared with
`gridDim.x - 1`, the spin's exit): a slot taken from a counter decides nothing, and CTA-scope
atomics observe only the block's own threads. The data a flag hands over is what the kernel writes
before publishing that flag: a block that reads its own partition after taking the partition's
index from a counter (and writes it only afterwards), or re-reads input after a spin timed out,
consumes nothing published. A flag published only by another kernel or the host hands over
anything the kernel writes.
""",
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
    observations = pub.flag_loads + pub.tickets + [t for t in pub.releasing_tickets if not _acquires(t)]
    for obs in sorted(observations, key=lambda i: i.index):
        if not _decides_control(ctx, obs):
            continue  # a slot handed out, not a flag waited for: nothing is read "after" it
        obs_roots = pub.roots(obs)
        # the data the flag hands over: what is written before the flag is published (in this kernel;
        # the block's own partition, written only after it takes its ticket, is not handed over)
        published = _published_roots(ctx, pub, obs_roots)
        if published is None:
            published = pub.written_roots
        for ins, _ in _walk(ctx, obs, forward=True):
            if ins.index not in data or ins.index in seen:
                continue
            roots = pub.roots(ins)
            if not roots or not (roots & published):
                continue
            if roots <= obs_roots and _same_location(ctx, ins, obs):
                continue  # the flag's own location
            seen.add(ins.index)
            position = ctx.position(ins)
            message = (f"global data read at {where(ins)} after observing {_what(obs) if obs.op == 'atom' else 'the flag read'} "
                       f"at {where(obs)} with no fence or acquire between: the load may see data older than the flag")
            notes = [f"observation: {obs.opcode} at PTX line {obs.ptx_line}; data load: {ins.opcode} at PTX line "
                     f"{ins.ptx_line} from memory this kernel writes ({', '.join(sorted(roots & pub.written_roots))})",
                     "compute-sanitizer does not model cross-block memory ordering; this is from the PTX memory model"]
            if position in positions:  # an unrolled loop: one finding per source line
                continue
            positions.add(position)
            yield diagnostic(ctx, "FENCE002", "error", ins, message, notes,
                             "put `__threadfence()` after observing the flag (before `__syncthreads()` if other "
                             "threads read the data), or read the flag with an acquire load",
                             {"observation_line": ctx.position(obs)[1]})
