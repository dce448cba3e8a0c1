"""The block shapes a kernel is analysed with, and where each came from.

Order (first that applies wins): `--block` on the command line, then the config's `block` table
(both arrive in AnalysisOptions.block_overrides, first match wins), then the launches of the kernel
found in the host code (`frontend/launches/`: every compile-time block shape it is launched with),
then `.reqntid`. Those shapes are *known*: the kernel is checked under each of them.

Without any of them the shape is *unknown*. The kernel is then checked under candidate shapes: the
ones it admits (`.maxntid` bounds them; a shape under which a thread would index a shared array
out of its bounds, or under which every thread fails a device-side `assert` on the block shape,
is not admitted). Performance findings use one of them, stated in every finding;
a correctness finding is kept only if it holds under every admitted candidate (kernel_check.py does that).

A kernel that builds its index as `blockIdx.x * K + threadIdx.x` with a constant K (`#define
BLOCK_SIZE 16`) and never reads blockDim.x is written for blocks of at most K threads in x: in a wider
block, thread K would take the index of thread 0 of the next block, so every element near a block's
end would be shared by two blocks: a launch that contradicts the kernel's own indexing, not the
code's race. Such shapes are not admitted, and K in that dimension is a candidate (block_strides).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Optional

from ..frontend.demangle import demangle, without_parameters
from ..frontend.ir import Function, Immediate, Register, Symbol

WARP_SIZE = 32
MAX_BLOCK_THREADS = 1024
DEFAULT_1D = (256, 1, 1)
DEFAULT_2D = (32, 8, 1)
DEFAULT_3D = (8, 8, 4)
# The shapes a kernel with no known launch is checked under, by the thread ids it reads.
CANDIDATES_1D = [(32, 1, 1), (64, 1, 1), (128, 1, 1), (256, 1, 1), (512, 1, 1), (1024, 1, 1)]
# (32, 4): a warp per row, four rows: the shape of many kernels bounded to 128 threads
CANDIDATES_2D = [(8, 8, 1), (16, 16, 1), (32, 8, 1), (32, 32, 1), (32, 4, 1)]
CANDIDATES_3D = [(8, 8, 4), (4, 4, 4)]
UNKNOWN_SOURCE = "assumed: no --block, config, launch in the code or .reqntid; pass --block to change it"
ONE_THREAD_SOURCE = ("assumed: one thread, as the kernel reads no thread or block index and loops (a serial "
                     "program: every thread would repeat the same work) and no launch was found; pass --block "
                     "to check another shape")


@dataclass(frozen=True)
class BlockShape:
    dims: tuple  # (x, y, z)
    source: str  # "command line (--block)", "from the launch at k.cu:12", ".reqntid", "assumed ..."
    assumed: bool = False
    # the grid of the launches with this block, per dimension: the largest extent, None where a
    # launch's is a run-time value ((None, 1, 1): 1-D grids); None when no launch says (--block,
    # .reqntid, candidates, or a launch whose grid is wholly unknown)
    grid: Optional[tuple] = None
    grid_source: str = ""  # "grid 1x1x1 at k.cu:40", for the notes of findings that depend on it
    # per kernel parameter, the integer values the launches with this block pass (a frozenset), None
    # where some launch passes a value the host code does not give; None when no launch says
    arguments: Optional[tuple] = None
    # positions in `arguments` that are values tried, not passed by a launch (kernel_check.py
    # tries loop-bounding parameters so; findings say it in their own words)
    tried: tuple = ()

    @property
    def threads(self) -> int:
        x, y, z = self.dims
        return x * y * z

    @property
    def warps(self) -> int:
        return (self.threads + WARP_SIZE - 1) // WARP_SIZE

    @property
    def text(self) -> str:
        return "x".join(map(str, self.dims))

    def describe(self) -> str:
        return f"block {self.text} ({self.source})"

    def thread_ids(self) -> list:
        """(x, y, z) of each thread in linear order: x + y*Dx + z*Dx*Dy."""
        x, y, z = self.dims
        return [(i, j, k) for k in range(z) for j in range(y) for i in range(x)]


@dataclass(frozen=True)
class ShapePlan:
    """The shapes to check a kernel under. `known`: they are the launches' own (check under each);
    otherwise they are candidates, the first one being the one performance findings assume."""

    shapes: tuple
    known: bool
    unknown_launches: tuple = ()  # "k.cu:40 (block argument `n` is a run-time value)" for launches not used
    # candidates narrowed to the kernel's own block stride: "the index blockIdx.x * 16 + threadIdx.x at
    # line 12 gives each block 16 threads in x" (block_strides), else ""
    narrowed_by: str = ""


def kernel_matches(function: Function, glob: str) -> bool:
    """A glob matches the mangled name or the demangled name without its parameters."""
    return name_matches(function.name, glob)


def name_matches(mangled: str, glob: str) -> bool:
    """kernel_matches() on a mangled name."""
    if fnmatchcase(mangled, glob):
        return True
    plain = without_parameters(demangle(mangled))
    return fnmatchcase(plain, glob) or fnmatchcase(plain.rsplit("::", 1)[-1], glob)


def _uses(function: Function, name: str) -> bool:
    reg = Register(name)
    return any(reg in ins.operands for ins in function.instructions)


def _valid(dims) -> bool:
    x, y, z = dims
    return 0 < x * y * z <= MAX_BLOCK_THREADS


def _launch_place(launch) -> str:
    path = launch.path
    if os.path.isabs(path):
        rel = os.path.relpath(path)
        path = rel if not rel.startswith("..") else path
    return f"{path}:{launch.line}"


def launch_source(launch) -> str:
    """`from the launch at k.cu:12`, with what its values assume (the program's default run)."""
    text = f"from the launch at {_launch_place(launch)}"
    if launch.assumes:
        text += f", assuming {launch.assumes}"
    return text


def merge_arguments(known, values: tuple) -> Optional[tuple]:
    """Per kernel parameter, the set of values two groups of launches pass (`...`: none seen yet);
    None for a parameter where a launch passes a value not known."""
    if not values:
        return None
    mine = tuple(frozenset((v,)) if v is not None else None for v in values)
    if known is ...:
        return mine
    if known is None:
        return None
    # a call that leaves trailing parameters to their C++ default arguments passes fewer values:
    # those parameters are not known, the ones before them still are
    merged = tuple(a | b if a is not None and b is not None else None for a, b in zip(known, mine))
    return merged + (None,) * abs(len(known) - len(mine))


def _grid_text(grid: tuple) -> str:
    return "x".join("?" if d is None else str(d) for d in grid)


def merge_grids(a: Optional[tuple], b: Optional[tuple]) -> Optional[tuple]:
    """The grid of two launches with one block: per dimension the larger extent, None where either
    is a run-time value; None when either grid is wholly unknown."""
    if a is None or b is None:
        return None
    return tuple(None if x is None or y is None else max(x, y) for x, y in zip(a, b))


def plan_block_shapes(function: Function, options) -> ShapePlan:
    """The shapes to check `function` under (see the module docstring for the order)."""
    for glob, dims, origin, *grid in options.block_overrides:
        # an override may carry the launch's grid as a fourth item ((None, 1, 1): a 1-D grid of
        # run-time size), as a recorded launch does, and per kernel parameter the values its
        # launches pass as a fifth (merge_arguments); --block and configs give neither
        if glob is None or kernel_matches(function, glob):
            given = tuple(grid[0]) if grid and grid[0] is not None else None
            passed = grid[1] if len(grid) > 1 else None
            return ShapePlan((BlockShape(tuple(dims), origin, grid=given, arguments=passed,
                                         grid_source=f"grid {_grid_text(given)} {origin}" if given else ""),), True)
    unknown_launches: tuple = ()
    if function.is_kernel and getattr(options, "launches", None):
        from ..frontend.launches import launches_for_function

        found = launches_for_function(function.name, list(options.launches))
        shapes: dict = {}
        grids: dict = {}  # block -> (merged grid, [where each grid is])
        arguments: dict = {}  # block -> per parameter, the values its launches pass
        for launch in found:
            if launch.block is not None and _valid(launch.block):
                block = tuple(launch.block)
                shapes.setdefault(block, launch_source(launch))
                grid, places = grids.get(block, (launch.grid, []))
                grids[block] = (merge_grids(grid, launch.grid),
                                places + [f"grid {launch.grid_text} at {_launch_place(launch)}"])
                arguments[block] = merge_arguments(arguments.get(block, ...), getattr(launch, "call_arguments", ()))
        unknown_launches = tuple(f"{_launch_place(l)} ({l.unknown_because or 'block shape not known'})"
                                 for l in found if l.block is None)
        forms = [(l.block_form, _launch_place(l)) for l in found if l.block is None]
        if forms and not shapes and all(form is not None for form, _ in forms):
            # what those launches pass holds whichever block they run with (a run-time block's
            # own extent, `blocks * threads`, is resolved per candidate: LaneEvaluator)
            passed = ...
            for launch in found:
                passed = merge_arguments(passed, getattr(launch, "call_arguments", ()))
            passed = passed if passed is not ... and passed and any(passed) else None
            return ShapePlan(tuple(replace(shape, arguments=passed) for shape in _candidates(function, forms)),
                             False, unknown_launches, stride_note(function))
        if shapes:
            return ShapePlan(tuple(BlockShape(d, s, grid=grids[d][0], grid_source="; ".join(grids[d][1]),
                                              arguments=arguments.get(d) or None)
                                   for d, s in shapes.items()), True, unknown_launches)
    if function.reqntid and _valid(function.reqntid):
        return ShapePlan((BlockShape(tuple(function.reqntid), ".reqntid"),), True)
    if function.is_kernel and not unknown_launches and not tells_threads_apart(function) and _loops(function):
        return ShapePlan((BlockShape((1, 1, 1), ONE_THREAD_SOURCE, assumed=True, grid=(1, 1, 1)),), False)
    return ShapePlan(tuple(_candidates(function)), False, unknown_launches, stride_note(function))


# what tells one thread of a launch from another: its indices, and what hands threads different work
_THREAD_REGISTERS = ("%tid", "%ctaid", "%laneid", "%warpid", "%lanemask", "%smid", "%clusterid", "%cluster_ctaid",
                     "%cluster_ctarank")
_THREAD_OPS = frozenset(("atom", "shfl", "vote", "match", "activemask", "redux", "elect"))
_PLAIN_CALLS = frozenset(("vprintf", "__assertfail", "malloc", "free"))


def _loops(function: Function) -> bool:
    """Does the kernel branch back to an earlier instruction (a loop)?"""
    for ins in function.instructions:
        if ins.op == "bra":
            target = next((o.name for o in ins.operands if isinstance(o, Symbol)), None)
            if target is not None and function.labels.get(target, ins.index + 1) <= ins.index:
                return True
    return False


def tells_threads_apart(function: Function) -> bool:
    """Does anything in the kernel differ between its threads: a thread or block index (or lane,
    warp, SM), an atomic's result (`i = atomicAdd(&next, 1)` hands each thread its item), a warp
    exchange, a call to code not seen here? A kernel with none of them does the same work in
    every thread it is launched with. One that loops (`*overhead = (stop - start) / ITERS` after a
    timed loop, a debug walk over every literal from 0) is a serial program: written to run in one
    thread. One without a loop (`count[0] = count[0] + 1`) is the classic demonstration of a race
    between the threads of a launch, and is checked as any kernel is."""
    for ins in function.instructions:
        if ins.op in _THREAD_OPS:
            return True
        if ins.op == "call":
            named = [o.name for o in ins.operands if isinstance(o, Symbol)]
            if not named or named[0] not in _PLAIN_CALLS:
                return True
        for operand in ins.operands:
            if isinstance(operand, Register) and operand.name.startswith(_THREAD_REGISTERS):
                return True
    return False


def block_strides(function: Function) -> dict:
    """{dimension index: (K, instruction)} for each dimension d in which the kernel forms an index
    `blockIdx.d * K + threadIdx.d` (K a constant: `mad.lo`, or `shl`/`mul.lo` then `add`) and never
    reads blockDim.d; a dimension with two different K is left out."""
    defs: dict = {}
    for ins in function.instructions:
        if ins.operands and isinstance(ins.operands[0], Register):
            defs.setdefault(ins.operands[0].name, []).append(ins)

    def special(operand, depth=0) -> Optional[str]:
        """The special register a value is a plain copy of (`mov`, `cvt`), or None."""
        if not isinstance(operand, Register):
            return None
        if operand.is_special:
            return operand.name
        found = defs.get(operand.name, ())
        if len(found) != 1 or depth > 4:
            return None
        d = found[0]
        if d.guard is None and d.op in ("mov", "cvt") and len(d.operands) == 2:
            return special(d.operands[1], depth + 1)
        return None

    def scaled(operand) -> Optional[tuple]:
        """(block-index register name, K) when the value is blockIdx.d * K with K a constant."""
        if not isinstance(operand, Register):
            return None
        found = defs.get(operand.name, ())
        if len(found) != 1 or found[0].guard is not None or len(found[0].operands) != 3:
            return None
        d = found[0]
        a, b = d.operands[1], d.operands[2]
        if d.op == "shl" and isinstance(b, Immediate) and isinstance(b.value, int) and 0 <= b.value < 11:
            return (special(a), 1 << b.value)
        if d.op == "mul" and "lo" in d.modifiers:
            for x, k in ((a, b), (b, a)):
                if isinstance(k, Immediate) and isinstance(k.value, int):
                    return (special(x), k.value)
        return None

    found: dict = {}
    for ins in function.instructions:
        if ins.guard is not None:
            continue
        ops = ins.operands
        pairs = []
        if ins.op == "add" and len(ops) == 3:
            pairs = [(scaled(ops[1]), ops[2]), (scaled(ops[2]), ops[1])]
        elif ins.op == "mad" and "lo" in ins.modifiers and len(ops) == 4:
            for x, k in ((ops[1], ops[2]), (ops[2], ops[1])):
                if isinstance(k, Immediate) and isinstance(k.value, int):
                    pairs.append(((special(x), k.value), ops[3]))
        for scale, thread in pairs:
            if scale is None or scale[0] is None or not scale[0].startswith("%ctaid."):
                continue
            axis = scale[0][-1]
            if special(thread) == f"%tid.{axis}" and 0 < scale[1] <= MAX_BLOCK_THREADS:
                found.setdefault("xyz".index(axis), {}).setdefault(scale[1], ins)
    return {dim: next(iter(ks.items())) for dim, ks in found.items()
            if len(ks) == 1 and not _uses(function, f"%ntid.{'xyz'[dim]}")}


def _stride_text(dim: int, k: int, ins) -> str:
    from ..frontend.sourcemap import user_line

    axis = "xyz"[dim]
    return (f"the index blockIdx.{axis} * {k} + threadIdx.{axis} at {user_line(ins)} gives each block {k} "
            f"threads in {axis}")


def stride_note(function: Function) -> str:
    """What narrows the candidates of a kernel with no known launch to its own block strides, or ""."""
    return "; ".join(_stride_text(dim, k, ins) for dim, (k, ins) in sorted(block_strides(function).items()))


def overlapping_blocks(ctx) -> Optional[str]:
    """Why the context's block shape cannot be the kernel's: it is wider than the kernel's own block
    stride (`blockIdx.x * 16 + threadIdx.x`), so two blocks would take one index. None otherwise."""
    for dim, (k, ins) in sorted(block_strides(ctx.function).items()):
        if ctx.launch.dims[dim] > k:
            return (f"{_stride_text(dim, k, ins)}: thread {k} would take the index of thread 0 of the "
                    f"next block")
    return None


def _candidates(function: Function, forms: Optional[list] = None) -> list:
    """The admitted-shape candidates, the shape performance findings assume first. `forms`: what
    the kernel's launches fix of a block that is not wholly known ([((1, None, 1), "k.cu:40")]):
    only shapes one of them allows are candidates."""
    bound = function.maxntid if function.maxntid and _valid(function.maxntid) else None
    limit = bound[0] * bound[1] * bound[2] if bound else MAX_BLOCK_THREADS
    dims = list(CANDIDATES_1D)
    if _uses(function, "%tid.z"):
        first, dims = DEFAULT_3D, dims + CANDIDATES_2D + CANDIDATES_3D
    elif _uses(function, "%tid.y"):
        first, dims = DEFAULT_2D, dims + CANDIDATES_2D
    else:
        first = DEFAULT_1D
    source = UNKNOWN_SOURCE
    if bound:
        first = tuple(bound)
        source = "assumed from .maxntid, its upper bound"
        # .maxntid bounds the product of the dimensions only: `__launch_bounds__(128)` emits
        # `.maxntid 128, 1, 1` and the kernel may still be launched 32x4
        dims = [d for d in dims if d[0] * d[1] * d[2] <= limit]
    fitting = _fitting_forms(dims + [first], [form for form, _ in forms], limit) if forms else []
    if fitting:
        dims = fitting
        size = first[0] * first[1] * first[2]
        first = min(dims, key=lambda d: abs(d[0] * d[1] * d[2] - size))
        source = ("assumed: the launches at " + ", ".join(f"{place} (block {_grid_text(form)})"
                                                          for form, place in forms)
                  + " leave the rest of the block to run-time values; pass --block to change it")
    strides = block_strides(function)
    if strides:
        # the kernel's own block stride in a dimension: shapes wider there are not admitted
        # (overlapping_blocks); each is tried at that stride instead
        def narrowed(d):
            return tuple(min(v, strides[i][0]) if i in strides else v for i, v in enumerate(d))
        dims = list(dict.fromkeys(narrowed(d) for d in dims))
        first = narrowed(first)
    # after the default: smaller shapes, largest first, then larger ones; when the default is not
    # admitted, the next admitted one is the nearest smaller shape
    size = first[0] * first[1] * first[2]
    dims = sorted((d for d in dims if d != first), key=lambda d: (d[0] * d[1] * d[2] > size,
                                                                  abs(d[0] * d[1] * d[2] - size)))
    out = [BlockShape(first, source, assumed=True)]
    out += [BlockShape(d, source, assumed=True) for d in dims]
    return out


# the values a run-time dimension of a partly known block is tried with (a warp or more in all)
_FORM_FILLS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def _fits(dims: tuple, form: tuple) -> bool:
    return all(f is None or f == d for d, f in zip(dims, form))


def _fitting_forms(dims: list, forms: list, limit: int) -> list:
    """The shapes some launch's form allows: the candidates that fit one, and for each form its
    run-time dimensions filled so that the block holds a warp to `limit` threads (one run-time
    dimension: every such count; two: the 2-D candidates laid on them)."""
    out = [d for d in dims if any(_fits(d, f) for f in forms)]
    for form in forms:
        fixed = 1
        for f in form:
            fixed *= f or 1
        free = [i for i, f in enumerate(form) if f is None]
        fills = []
        if len(free) == 1:
            fills = [(v,) for v in _FORM_FILLS if WARP_SIZE <= v * fixed <= limit]
        elif len(free) == 2:
            fills = [(x, y) for x, y, _ in CANDIDATES_2D if x * y * fixed <= limit]
        for fill in fills:
            shape = list(form)
            for i, v in zip(free, fill):
                shape[i] = v
            shape = tuple(shape)
            if _valid(shape) and shape not in out:
                out.append(shape)
    return out


def resolve_block_shape(function: Function, options) -> BlockShape:
    """The one shape a single-shape view (`ptxlint accesses`) uses: the first of the plan."""
    return plan_block_shapes(function, options).shapes[0]


def out_of_bounds(ctx) -> Optional[str]:
    """Why the context's block shape cannot be the kernel's: a thread that executes a shared
    access with a known address would touch bytes outside the array it indexes (`s[threadIdx.x]`
    on a `__shared__ float s[64]` admits at most 64 threads). None when no access says so."""
    from .accesses import access_bits, access_kind
    from .lane_values import Affine

    lanes = ctx.lanes
    variables = {v.name: v for v in ctx.module.variables}
    variables.update({v.name: v for v in ctx.function.variables})
    for ins in ctx.function.instructions:
        if access_kind(ins) is None or ins.space != "shared" or ins.memory_operand() is None:
            continue
        addresses = lanes.address(ins)
        if type(addresses) is not Affine or len(addresses.terms) != 1 or addresses.terms[0][1] != 1:
            continue
        name = lanes.shared_symbols.get(addresses.terms[0][0])
        var = variables.get(name) if name else None
        size = var.size_bytes if var is not None else None
        if not size:
            continue  # dynamic shared memory: no bound to check
        nbytes = max(1, access_bits(ins) // 8)
        if min(addresses.consts) >= 0 and max(addresses.consts) + nbytes <= size:
            continue  # no thread's bytes fall outside, whichever threads run it
        active = lanes.active(ins)
        for t, c in enumerate(addresses.consts):
            if active[t] is not False and (c < 0 or c + nbytes > size):
                return (f"thread {t} would access byte {c} of `{name}` ({size} bytes) at PTX line "
                        f"{ins.ptx_line}")
    return None


def fails_assertion(ctx) -> Optional[str]:
    """Why the context's block shape cannot be the kernel's: every thread reaches a failing
    device-side assertion (`assert(blockDim.x == 4)` calls `__assertfail` when the shape is another)
    or a trap, so the kernel aborts at once under it. The CFG leaves such paths out (cfg.py:
    `pruned_edges`); here each is asked whether every thread of the block takes it. None when some
    thread may get past every assertion."""
    from .lane_values import where_predicate
    from ..frontend.sourcemap import user_line

    lanes, cfg = ctx.lanes, ctx.cfg
    for src, dst, cond in cfg.pruned_edges:
        branch = ctx.function.blocks[src].instructions[-1]
        (reach, values), _ = lanes.collect(lambda: (lanes.block_active(src),
                                                     lanes.register(branch, cond[0]) if cond else None))
        if not reach or any(r is not True for r in reach):
            continue
        if cond is not None:
            taken, _ = where_predicate(reach, values, cond[1])
            if any(t is not True for t in taken):
                continue
        where = user_line(branch)
        if _asserts(ctx, dst):
            return f"every thread fails the assertion at {where}"
        return f"every thread reaches a trap at {where}"
    return None


def _asserts(ctx, block_id) -> bool:
    """Does the aborting code from `block_id` on fail an `assert()` (call `__assertfail`), rather than
    trap directly?"""
    from .cfg import calls_assertfail

    seen, stack = set(), [block_id]
    while stack:
        node = stack.pop()
        if node in seen or node not in ctx.cfg.aborting:
            continue
        seen.add(node)
        if any(calls_assertfail(ins) for ins in ctx.function.blocks[node].instructions):
            return True
        stack.extend(ctx.cfg.successors(node))
    return False
