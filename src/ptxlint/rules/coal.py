"""COAL: uncoalesced global-memory accesses, with numbers from the H100-validated sector model."""

from __future__ import annotations

from typing import Optional

from ..analysis.global_accesses import GlobalAccess
from ..analysis.sectormodel import contiguous_sectors, warp_sectors
from .registry import RuleDoc, register
from .sync import diagnostic, where

# An access is reported when it moves MORE than twice the sectors its bytes need. At exactly twice
# (lanes 8 bytes apart for 4-byte data, an mma fragment's epilogue) half of each sector is used and
# the neighbouring access usually uses the other half, which L2 merges; above it, most is wasted.
THRESHOLD = 2
MODEL = ("sector model (measured on an H100, validation/global/): each warp-level request moves every distinct "
         "32-byte sector its active lanes touch; the ideal is the bytes they need, contiguous and aligned")


def _uncoalesced(a: GlobalAccess) -> bool:
    if a.determined:
        return a.sectors > THRESHOLD * a.ideal
    if a.sectors_range is not None:  # the base's alignment depends on blockIdx: every case must be bad
        ideal = sum(w.cost.ideal for w in a.warps)
        return ideal > 0 and a.sectors_range[0] > THRESHOLD * ideal
    return False


def _stride(lanes: list, offsets: list) -> Optional[int]:
    """The byte distance between consecutive lanes when the lanes' offsets are an arithmetic series."""
    if len(lanes) < 2:
        return None
    step = (offsets[1] - offsets[0]) / (lanes[1] - lanes[0])
    if step != int(step):
        return None
    if all(o == offsets[0] + step * (lane - lanes[0]) for lane, o in zip(lanes, offsets)):
        return int(step)
    return None


def _walks_its_chunk(access: GlobalAccess) -> bool:
    """Loop iterations move every lane on by one element: each thread reads a chunk of its own."""
    for w in access.warps:
        evals = [e for e in w.evaluations if e[0]]
        if len(evals) >= 2:
            return all(b == a + access.nbytes for a, b in zip(evals[0][1], evals[1][1]))
    return False


def _contiguous_cost(access: GlobalAccess) -> int:
    """Sectors per block when every warp's active lanes access consecutive elements instead."""
    total = 0
    for w in access.warps:
        for lanes, _, _ in w.evaluations:
            if lanes:
                total += contiguous_sectors(0, len(lanes), access.nbytes).sectors
    return total


def _siblings(ctx, access: GlobalAccess, stride: int) -> Optional[list]:
    """Accesses of the same kind in the same basic block from the same base register whose
    immediate offsets fill the `stride` bytes each thread steps over (four scalar loads of a float4)."""
    ins = access.instruction
    mem = ins.memory_operand()
    block = ctx.function.block_of(ins).id
    by_offset = {}
    for other in ctx.global_accesses:
        o = other.instruction
        om = o.memory_operand()
        if other.kind == access.kind and other.bits == access.bits and om.base == mem.base and \
                ctx.function.block_of(o).id == block and o.guard == ins.guard:
            by_offset[om.offset] = other
    first = mem.offset - (mem.offset % stride)
    group = [by_offset.get(first + k * access.nbytes) for k in range(stride // access.nbytes)]
    if any(g is None or not g.determined for g in group):
        return None
    return group


def suggest_fix(ctx, access: GlobalAccess) -> Optional[dict]:
    """The rewrite that makes the access coalesced, with the sectors the model gives it:
    {kind, text, before, after, ideal} (per block, for the accesses the rewrite replaces)."""
    worst = max((w for w in access.warps if w.offsets), key=lambda w: w.cost.sectors, default=None)
    if worst is None:
        return None
    stride = None if worst.described else _stride(worst.lanes, worst.offsets)
    nbytes = access.nbytes
    elem = {1: "char", 2: "short", 4: "float", 8: "double", 16: "float4"}.get(nbytes, f"{nbytes}-byte element")
    if stride in (8, 16) and stride > nbytes and access.kind in ("load", "store"):
        group = _siblings(ctx, access, stride)
        if group is not None:
            after = 0
            for w in access.warps:
                for lanes, offsets, _ in w.evaluations:
                    if lanes:
                        base = [o - o % stride for o in offsets]
                        after += warp_sectors(base, stride).sectors
            before = sum(g.sectors for g in group)
            vec = "float4" if stride == 16 else "float2"
            lines = sorted({ctx.position(g.instruction)[1] or 0 for g in group})
            verb, op = ("load", "ld") if access.kind == "load" else ("store", "st")
            text = (f"{verb} the {stride} bytes each thread {'reads' if verb == 'load' else 'writes'} with one "
                    f"{stride * 8}-bit vector {verb} (`{vec}`, PTX `{op}.global.v{stride // 4}.f32`) instead of "
                    f"{len(group)} scalar {verb}s (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})")
            return {"kind": "vector", "text": text, "before": before, "after": after,
                    "ideal": sum(g.ideal for g in group)}
    after = _contiguous_cost(access)
    before = access.sectors if access.determined else access.sectors_range[0]
    ideal = sum(w.cost.ideal for w in access.warps)
    if stride is not None and nbytes < abs(stride) <= 64 and not _walks_its_chunk(access):
        text = (f"structure of arrays: keep this {nbytes}-byte field in an array of its own, so that lane i "
                f"accesses element i instead of byte {abs(stride)}*i of an array of {abs(stride)}-byte structs")
        return {"kind": "soa", "text": text, "before": before, "after": after, "ideal": ideal}
    bank = ctx.bank_model
    pad_cost = bank.lanes_cost(tuple(range(32)), tuple(k * 33 * nbytes for k in range(32)), nbytes)
    plain_cost = bank.lanes_cost(tuple(range(32)), tuple(k * 32 * nbytes for k in range(32)), nbytes)
    text = (f"stage through a padded shared tile: let consecutive lanes access consecutive elements of global "
            f"memory (a row of the tile), and do the transposed access in shared memory, declared "
            f"`__shared__ {elem} tile[32][33]` (with [32][32] its column access is {plain_cost.wavefronts} "
            f"wavefronts per warp, padded {pad_cost.wavefronts}, by the bank model)")
    return {"kind": "shared-tile", "text": text, "before": before, "after": after, "ideal": ideal}


def _offsets_text(w) -> str:
    shown = [str(o) for o in (w.described or w.offsets)]
    lanes = w.lanes
    span = f"lanes {lanes[0]}..{lanes[-1]}" if lanes == list(range(lanes[0], lanes[-1] + 1)) else \
        f"{len(lanes)} lanes"
    more = ", ..." if len(shown) > 6 else ""
    return (f"warp {w.warp}: {span} at byte offsets {', '.join(shown[:6])}{more} from lane {lanes[0]}'s address: "
            f"{w.evaluations[0][2].sectors} sectors per request (ideal {w.evaluations[0][2].ideal})")


@register(
    "COAL001", "uncoalesced-global-access", "warning",
    "A global load, store or atomic moves more than twice the 32-byte sectors its data needs.",
    RuleDoc(
        what_it_does="""
Computes, for every warp of the block, the global address each active lane gives to a load, store,
atomic or reduction (`ld.global`, `ld.global.nc`, `ldu`, `st.global`, `atom`, `red`, and generic
accesses whose pointer is a kernel parameter), and from it the 32-byte sectors each warp-level
request moves, with the rules measured on an H100. Reports a source line whose accesses move more
than twice the sectors their bytes need (the ideal: the same bytes, contiguous and aligned), with
the numbers per block, the lanes' byte offsets, and a rewrite whose sectors the same model computes:
vector loads, a structure of arrays, or a padded shared tile. Kernel pointers are assumed 256-byte
aligned (as `cudaMalloc` returns them), or at the offset the launches pass them (`d_in + RADIUS`
is 12 bytes into a sector for floats), and run-time row pitches (`y * width`) to keep rows 32-byte
aligned; a run-time offset of the whole block (`in[i + off]`) may put the warp's bytes anywhere in a
sector, so its count is a range from the best to the worst alignment, as is one of a run-time pitch
between the lanes of a warp (`in[x * w + y]` in a 16x16 block: two floats in each of 16 rows), and the
line is reported only when even the best case is over the threshold ("at least N sectors"). Addresses
computed from loaded data are not judged.
""",
        why_is_this_bad="""
DRAM and L2 move whole 32-byte sectors. A warp whose 32 lanes read 4-byte floats 128 bytes apart
moves 32 sectors (1024 bytes) for 128 useful bytes: 8 times the memory traffic, and a
memory-bound kernel runs up to 8 times slower. The naive matrix transpose writes its output so.
""",
        example="""
__global__ void transpose(float *out, const float *in, int n) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    out[x * n + y] = in[y * n + x];      // the store: lanes n*4 bytes apart, 32 sectors per request
}
""",
        use_instead="""
__shared__ float tile[32][33];           // padded: the transposed read is conflict-free
tile[threadIdx.y][threadIdx.x] = in[y * n + x];
__syncthreads();
x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
out[y * n + x] = tile[threadIdx.x][threadIdx.y];   // 4 sectors per request
""",
    ),
)
def check_uncoalesced(ctx):
    by_place: dict = {}
    for access in ctx.global_accesses:
        if _uncoalesced(access):
            by_place.setdefault(ctx.position(access.instruction), []).append(access)
    for position, group in sorted(by_place.items(), key=lambda kv: (kv[0][1] or 0, kv[0][2] or 0)):
        yield _finding(ctx, group)


def _short(ctx, text: str) -> str:
    """`kernel parameter k_param_3` -> `kernel parameter 3`: nvcc names parameters after the kernel."""
    return text.replace(f"kernel parameter {ctx.function.name}_param_", "kernel parameter ") \
        .replace(f"{ctx.function.name}_param_", "param ")


def _finding(ctx, group: list):
    first = group[0]
    kinds = sorted({a.kind for a in group})
    sectors = sum(a.sectors if a.determined else a.sectors_range[0] for a in group)
    ideal = sum(sum(w.cost.ideal for w in a.warps) for a in group)
    requests = sum(a.requests for a in group)
    per = "per block" if all(a.iterations is not None for a in group) else "per block and loop iteration"
    at_least = "" if all(a.determined for a in group) else "at least "
    what = f"{first.bits}-bit global {' and '.join(kinds)}{'s' if len(group) > 1 else ''}"
    message = (f"uncoalesced {what}: {at_least}{sectors} sectors {per} where {ideal} would do "
               f"({sectors / requests:g} per request instead of {ideal / requests:g})")
    notes = []
    worst = max(group, key=lambda a: a.sectors if a.determined else a.sectors_range[0])
    warps = [w for w in worst.warps if w.offsets]
    if warps:
        notes.append(_offsets_text(max(warps, key=lambda w: w.evaluations[0][2].sectors)))
        bad = sum(1 for w in warps if w.cost.sectors > THRESHOLD * w.cost.ideal)
        notes.append(f"{bad} of {len(worst.warps)} warps are uncoalesced")
    if len(group) > 1:
        notes.append(f"{len(group)} accesses at this line (PTX lines {', '.join(str(a.instruction.ptx_line) for a in group)})")
    for a in group:
        if not a.determined:
            notes.append(a.unknown_reason)
    notes += sorted({x for a in group for x in a.assumptions})
    notes.append(MODEL)
    notes += sorted({x for a in group for x in a.notes})
    fixes = [suggest_fix(ctx, a) for a in group]
    fix = None
    data = {"sectors": sectors, "ideal": ideal, "requests": requests, "threshold": THRESHOLD,
            "lines": sorted({ctx.position(a.instruction)[1] for a in group}), "per_loop_iteration": per != "per block"}
    if all(f is not None for f in fixes):
        kind = fixes[0]["kind"]
        if fixes[0]["kind"] == "vector":
            before, after, fix_ideal = fixes[0]["before"], fixes[0]["after"], fixes[0]["ideal"]
        else:
            before = sum(f["before"] for f in fixes)
            after = sum(f["after"] for f in fixes)
            fix_ideal = sum(f["ideal"] for f in fixes)
        fix = (f"{fixes[0]['text']} (verified with the sector model: {before} -> {after} sectors {per}, "
               f"ideal {fix_ideal})")
        data.update(fix=kind, fix_sectors=after, fix_sectors_before=before)
    notes = [_short(ctx, n) for n in notes]
    return diagnostic(ctx, "COAL001", "warning", first.instruction, message, notes, fix, data)


__all__ = ["check_uncoalesced", "suggest_fix", "where"]
