"""WARP: warp-synchronous code that relies on lock-step execution (pre-Volta idiom), on shared or
global memory."""

from __future__ import annotations

from .race import UNDECIDED_REACH, conflict_notes, shared_conflicts
from .race_global import global_conflicts
from .registry import RuleDoc, register
from .sync import diagnostic, where


@register(
    "WARP001", "warp-synchronous-without-syncwarp", "error",
    "Lanes of one warp read shared or global memory that other lanes of the warp wrote, with no `__syncwarp()` "
    "between.",
    RuleDoc(
        what_it_does="""
Finds shared- or global-memory accesses where one lane of a warp reads (or overwrites) what another
lane of the same warp wrote, with neither `__syncwarp()` (`bar.warp.sync`) nor `__syncthreads()`
between: the unrolled `volatile` last-warp reduction, per-warp scratch buffers, a lane-0 broadcast
through a global slot. Reported once per kernel and memory, at the first such access, with the pair
of lanes. `volatile` global accesses are compared between lanes of one warp only: between warps and
blocks a volatile flag is a polling protocol, FENCE's domain. A full-mask warp collective that takes
the value a read returned (`__shfl_xor_sync(0xffffffff, v, o)` over it, CUB's WarpScan)
orders that read before every write reached only through the collective, as `__syncwarp()` would:
no lane passes the collective before every lane's read has returned.
""",
        why_is_this_bad="""
Since Volta (sm_70) the lanes of a warp are scheduled independently: lock-step execution is not
guaranteed, and `volatile` only keeps the loads and stores in place, it does not order lanes.
compute-sanitizer's racecheck reports these only as warnings.
""",
        example="""
if (tid < 32) {
    volatile float* v = sdata;
    v[tid] += v[tid + 32];
    v[tid] += v[tid + 16];     // lane t reads what lane t+16 just wrote
}
""",
        use_instead="""
if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
    for (int off = 16; off > 0; off >>= 1) {
        __syncwarp(); sdata[tid] = v; __syncwarp();
        v += sdata[tid + off];
    }
}
// or, better, __shfl_down_sync on registers
""",
    ),
)
def check_warp_synchronous(ctx):
    conflicts = shared_conflicts(ctx)
    ctx.not_checked["WARP001"] = conflicts["not_checked"]["WARP001"]
    ctx.not_checked[UNDECIDED_REACH["WARP001"]] = conflicts["not_checked"][UNDECIDED_REACH["WARP001"]]
    block_pairs = {(id(c.first), id(c.second)) for c in conflicts["block"]}
    found = [c for c in conflicts["warp"] if (id(c.first), id(c.second)) not in block_pairs]
    yield from _report(ctx, found, "shared")
    in_global = global_conflicts(ctx)
    block_pairs = {(id(c.first), id(c.second)) for c in in_global["block"]}
    yield from _report(ctx, [c for c in in_global["warp"] if (id(c.first), id(c.second)) not in block_pairs],
                       "global")


def _report(ctx, found: list, memory: str):
    """One WARP001 for the same-warp conflicts `found` on `memory` ("shared" or "global"), if any."""
    if not found:
        return
    found.sort(key=lambda c: (ctx.position(c.second.instruction)[1] or 0, c.second.instruction.index))
    c = found[0]
    b = c.second.instruction
    lines = sorted({ctx.position(x.first.instruction)[1] for x in found} |
                   {ctx.position(x.second.instruction)[1] for x in found})
    message = (f"warp-synchronous {memory} memory without __syncwarp ({c.hazard}): lanes of one warp "
               f"exchange data through {memory} memory at {where(b)} and {where(c.first.instruction)}; "
               f"independent thread scheduling (sm_70+) does not keep them in step")
    notes = conflict_notes(ctx, c)
    if len(lines) > 2:
        notes.append(f"the same pattern covers lines {', '.join(map(str, lines))}")
    notes.append("`volatile` keeps each access in place but does not order the lanes of a warp")
    notes += sorted(set(c.first.notes) | set(c.second.notes))
    fix = ("put `__syncwarp()` between each write and the reads of other lanes (and between those reads and "
           "the next write), or exchange the values with `__shfl_*_sync`")
    found_diagnostic = diagnostic(ctx, "WARP001", "error", b, message, notes, fix,
                                  {"hazard": c.hazard, "threads": list(c.threads), "lines": lines})
    found_diagnostic.fix_edits = _syncwarp_insertions(ctx, found)
    yield found_diagnostic


def _syncwarp_insertions(ctx, found: list):
    """The edit `check --fix --unsafe-fixes` tries: a `__syncwarp();` line before each line whose
    access depends on another lane's access on an earlier line of the same file. None when some
    pair of accesses shares a line (`v[t] += v[t + 16]`: no line between them) or spans files.
    Unsafe: `__syncwarp()` must be reached by every lane its mask names, which the source's
    control flow decides (and a brace-less `if` above the line would change meaning)."""
    before_lines = set()
    path = None
    for conflict in found:
        first = ctx.position(conflict.first.instruction)
        second = ctx.position(conflict.second.instruction)
        earlier, later = sorted((first, second), key=lambda p: p[1] or 0)
        if earlier[0] != later[0] or not earlier[1] or earlier[1] == later[1] or path not in (None, later[0]):
            return None
        path = later[0]
        before_lines.add(later[1])
    if not before_lines or path is None or path.endswith(".ptx"):
        return None
    return {"safe": False, "edits": [{"path": path, "line": line, "start": 0, "end": 0, "old": "",
                                      "new": "__syncwarp();\n", "indent": True} for line in sorted(before_lines)]}
