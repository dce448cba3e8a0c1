"""RACE: two threads of a block touch the same shared-memory bytes, one of them writing, with no
barrier between. Also the engine behind WARP001 (the same question inside one warp)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..analysis import symbolic as S
from ..analysis.loops import innermost_loop
from ..frontend.ir import Immediate, Instruction, Register
from .registry import RuleDoc, register
from .sync import barrier_kind, diagnostic, is_arrive, where

MAX_PAIRS = 4000  # access pairs compared per kernel; beyond that the rest is skipped with a note
_KIND = {"load": "read", "ldmatrix": "read", "store": "write", "stmatrix": "write", "atomic": "atomic"}


@dataclass
class Evaluation:
    """One evaluation of an access: the whole block, or one iteration of the loop around it."""

    loop: Optional[int]  # loop header followed per iteration, else None
    iteration: int
    bytes_of: dict  # (unknown terms, byte offset) -> threads touching that byte


@dataclass
class SharedSite:
    instruction: Instruction
    kind: str  # read | write | atomic
    evaluations: list = field(default_factory=list)
    notes: list = field(default_factory=list)


@dataclass
class Conflict:
    """`first` then `second` (program order along a barrier-free path) collide in `threads`."""

    first: SharedSite
    second: SharedSite
    threads: tuple  # (thread of first, thread of second)
    offset: tuple  # (terms, byte)
    crossed_loop: bool
    same_warp: bool

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


def shared_conflicts(ctx) -> dict:
    """{'block': [Conflict], 'warp': [Conflict], 'notes': [...]}: cached per kernel."""
    found = ctx.__dict__.get("_shared_conflicts")
    if found is None:
        found = ctx.__dict__["_shared_conflicts"] = _find_conflicts(ctx)
    return found


def _sites(ctx) -> list:
    lanes = ctx.lanes
    sites = []
    for access in ctx.shared_accesses:
        if access.space != "shared" or access.kind not in _KIND:
            continue
        ins = access.instruction
        site = SharedSite(ins, _KIND[access.kind])
        nbytes = max(1, access.bits // 8)
        loop = innermost_loop(ctx, ctx.function.block_of(ins).id)
        iterations = ctx.loop_iterations(*loop) if loop else None
        evaluators = iterations.evaluators if iterations else [lanes]
        for k, ev in enumerate(evaluators):
            addresses, notes = ev.collect(ev.address, ins)
            active, more = ev.collect(ev.active, ins)
            site.notes.extend(sorted(notes | more))
            bytes_of: dict = {}
            for t, (addr, act) in enumerate(zip(addresses, active)):
                if act is False:
                    continue
                for b in range(addr[0], addr[0] + nbytes):
                    bytes_of.setdefault((addr[1], b), []).append(t)
            site.evaluations.append(Evaluation(iterations.header if iterations else None, k, bytes_of))
        sites.append(site)
    return sites


def _reachable(ctx, sites: list, warp_level: bool) -> dict:
    """site index -> {(site index, crossed a loop back edge)} reachable without a barrier."""
    fn = ctx.function
    cfg = ctx.cfg
    by_block: dict = {}
    for n, site in enumerate(sites):
        by_block.setdefault(fn.block_of(site.instruction).id, []).append(n)
    stops = {b.id: [i.index for i in b.instructions if is_wait_barrier(i, warp_level)] for b in fn.blocks}
    index_of = {site.instruction.index: n for n, site in enumerate(sites)}

    def scan(block_id, start):
        """Sites in block from instruction index `start` up to the first barrier; and whether one was hit."""
        block = fn.blocks[block_id]
        stop = next((s for s in stops[block_id] if s >= start), None)
        end = stop if stop is not None else block.instructions[-1].index + 1
        return [index_of[i] for i in range(start, end) if i in index_of], stop is not None

    out = {}
    back = cfg.back_edges
    for n, site in enumerate(sites):
        ins = site.instruction
        block_id = fn.block_of(ins).id
        found, blocked = scan(block_id, ins.index + 1)
        reached = {(m, False) for m in found}
        if not blocked:
            seen = set()
            stack = [(s, (block_id, s) in back) for s in cfg.successors(block_id)]
            while stack:
                node, crossed = stack.pop()
                if (node, crossed) in seen or not isinstance(node, int):
                    continue
                seen.add((node, crossed))
                block = fn.blocks[node]
                if not block.instructions:
                    stack.extend((s, crossed or (node, s) in back) for s in cfg.successors(node))
                    continue
                found, blocked = scan(node, block.instructions[0].index)
                reached |= {(m, crossed) for m in found}
                if not blocked:
                    stack.extend((s, crossed or (node, s) in back) for s in cfg.successors(node))
        out[n] = reached
    return out


def _stored_value_uniform(ctx, ins: Instruction) -> bool:
    """A store whose value is the same in every thread: concurrent copies of it are benign."""
    if ins.op != "st" or len(ins.operands) < 2:
        return False
    value = ins.operands[1]
    if isinstance(value, Immediate):
        return True
    if isinstance(value, Register):
        return not ctx.uniformity.is_divergent(ins, value, "block")
    return False


def _find_conflicts(ctx) -> dict:
    sites = _sites(ctx)
    result = {"block": [], "warp": [], "notes": []}
    if not sites:
        return result
    compared = 0
    for level in ("block", "warp"):
        reach = _reachable(ctx, sites, warp_level=(level == "warp"))
        for a, targets in reach.items():
            pairs = sorted(targets)
            if sites[a].kind != "read" and not _stored_value_uniform(ctx, sites[a].instruction):
                pairs.append((a, None))  # two threads in one execution of the same write
            for b, crossed in pairs:
                first, second = sites[a], sites[b]
                if first.kind == "read" and second.kind == "read":
                    continue
                if first.kind == "atomic" and second.kind == "atomic":
                    continue
                compared += 1
                if compared > MAX_PAIRS:
                    result["notes"].append(f"stopped after {MAX_PAIRS} pairs of shared accesses")
                    return result
                conflict = _collide(first, second, crossed, want_cross_warp=(level == "block"))
                if conflict is not None:
                    result[level].append(conflict)
    return result


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
    return [(x, y) for x in fa for y in sb]


def _collide(first: SharedSite, second: SharedSite, crossed, want_cross_warp: bool) -> Optional[Conflict]:
    """A pair of different threads that touch the same byte, cross-warp (block level) or within one
    warp (warp level); None if there is none the analysis can prove."""
    for ea, eb in _evaluation_pairs(first, second, crossed):
        small, large = (ea.bytes_of, eb.bytes_of) if len(ea.bytes_of) <= len(eb.bytes_of) else (eb.bytes_of, ea.bytes_of)
        for key in small:
            if key not in large:
                continue
            ta, tb = ea.bytes_of[key], eb.bytes_of[key]
            pair = _witness(ta, tb, want_cross_warp)
            if pair is not None:
                return Conflict(first, second, pair, key, bool(crossed),
                                same_warp=not want_cross_warp)
    return None


def _witness(ta: list, tb: list, cross_warp: bool) -> Optional[tuple]:
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
    terms, byte = c.offset
    var = ", ".join(sorted({ctx.lanes.shared_symbols.get(s, ctx.lanes.table.origin.get(s, s)) for s, _ in terms}))
    offset = f"byte {byte} of {var}" if var else f"shared byte {byte}"
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
write-after-write, also from one loop iteration to the next). Reports both instructions, their
lines and a concrete pair of threads. Accesses whose addresses depend on run-time data are skipped.
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
    by_position: dict = {}
    for c in conflicts["block"]:
        by_position.setdefault(ctx.position(c.second.instruction), []).append(c)
    for position, group in sorted(by_position.items(), key=lambda kv: (kv[0][1] or 0, kv[0][2] or 0)):
        c = group[0]
        a, b = c.first.instruction, c.second.instruction
        message = (f"shared-memory race ({c.hazard}): {_what(c.second)} at {where(b)} and {_what(c.first)} at "
                   f"{where(a)} touch the same address from different warps with no barrier between")
        notes = conflict_notes(ctx, c)
        others = sorted({where(x.first.instruction) for x in group[1:]} - {where(a)})
        if others:
            notes.append(f"also races with the accesses at {', '.join(others)}")
        notes += sorted(set(c.first.notes) | set(c.second.notes)) + conflicts["notes"]
        fix = ("put `__syncthreads()` between the two accesses (for a write-after-read in a loop: a barrier "
               "after the reads as well as after the writes), or use an atomic")
        yield diagnostic(ctx, "RACE001", "error", b, message, notes, fix,
                         {"hazard": c.hazard, "threads": list(c.threads),
                          "lines": sorted({ctx.position(x.first.instruction)[1] for x in group} | {position[1]}),
                          "ptx_lines": [a.ptx_line, b.ptx_line]})


def _what(site: SharedSite) -> str:
    return {"read": "the read", "write": "the write", "atomic": "the atomic"}[site.kind]
