"""SYNC: barriers that not every thread that must arrive can reach (divergent control flow)."""

from __future__ import annotations

import os
import re
from typing import Optional

from ..analysis.barriers import barrier_id, barrier_kind, is_aligned, is_arrive, is_block_barrier, thread_count
from ..analysis.budget import spend
from ..analysis.feasible import reached_controls
from ..analysis.uniformity import BLOCK, CTA, WARP
from ..diagnostics import Diagnostic
from ..frontend.demangle import demangle, without_parameters
from ..frontend.ir import Function, Instruction, OperandList, Symbol
from ..frontend.launch_expr import Multiple, factor_of
from ..frontend.launches.launch import CoversGrid
from ..gate import read_lines
from ..frontend.sourcemap import reported_location, user_location
from .registry import RuleDoc, register

HARDWARE_NOTE = ("sm_70+ hardware counts exited threads as arrived and compute-sanitizer's synccheck stays "
                 "silent unless live lanes of one warp wait at different barriers; the CUDA programming "
                 "model still requires every thread of the block to reach the barrier")


# ---------------------------------------------------------------------------------------------
# Barrier instructions


def callee_name(ins: Instruction) -> Optional[str]:
    """The function a direct `call` names (`call.uni f, (args)` or `call (ret), f, (args)`); None for
    an indirect call through a register (`call (ret), %rd1, (args), prototype;`)."""
    for op in ins.operands:
        if isinstance(op, OperandList):
            continue  # the return parameters
        return op.name if isinstance(op, Symbol) else None
    return None


def call_targets(function: Function, ins: Instruction) -> Optional[tuple]:
    """Every function a `call` in `function` may reach: the one a direct call names, or the
    `.calltargets` list an indirect call names; None when that is not known (a function pointer
    or virtual call whose last operand is only a `.callprototype`)."""
    name = callee_name(ins)
    if name is not None:
        return (name,)
    table = ins.operands[-1] if ins.operands else None
    if isinstance(table, Symbol):
        targets = function.call_targets.get(table.name)
        if targets:
            return tuple(targets)
    return None


_MODULE_MEMO: list = [None, {}]  # [the module, {memo name: memo}]: the module checked last


def _module_cache(module, name: str) -> dict:
    """A memo for the module being checked, shared by all its kernels (what a device function does
    does not depend on the kernel calling it); only the last module's memos are kept."""
    if _MODULE_MEMO[0] is not module:
        _MODULE_MEMO[0], _MODULE_MEMO[1] = module, {}
    return _MODULE_MEMO[1].setdefault(name, {})


def barrier_in_callee(ctx, call: Instruction) -> Optional[Instruction]:
    """The first CTA or cluster barrier that the device function `call` calls executes, looking
    through the calls it makes in turn; None when it has none. A `__noinline__` helper with a
    `__syncthreads()` is a barrier wherever it is called. A call whose target is not known waits at
    no barrier, and one with several possible targets only when every one of them does."""
    targets = call_targets(ctx.function, call)
    if not targets:
        return None
    found = [_first_barrier(ctx.module, t) for t in targets]
    return found[0] if all(f is not None for f in found) else None


def _first_barrier(module, name: str) -> Optional[Instruction]:
    """The first barrier device function `name` waits at (through its calls), with an explicit
    stack: a chain of calls as long as the module is deep is no recursion. Recursive calls and
    external functions count as no barrier."""
    found_for = _module_cache(module, "first barrier")
    if name in found_for:
        return found_for[name]
    bodies = _module_cache(module, "device function bodies")
    if not bodies:
        bodies.update((f.name, f) for f in module.functions if f.has_body and not f.is_kernel)
    if name not in bodies:
        return None
    visiting = {name}
    stack = [[name, 0]]  # function name, position of the instruction to go on from
    while stack:
        frame = stack[-1]
        function = bodies[frame[0]]
        instructions = function.instructions
        result = None
        waiting = False
        for pos in range(frame[1], len(instructions)):
            ins = instructions[pos]
            if barrier_kind(ins) in ("cta", "cluster"):
                result = ins
                break
            if ins.op != "call":
                continue
            targets = call_targets(function, ins) or ()
            todo = [t for t in targets if t not in found_for and t not in visiting and t in bodies]
            if todo:
                frame[1] = pos  # come back to this call once its targets are known
                visiting.update(todo)
                stack.extend([t, 0] for t in todo)
                waiting = True
                break
            results = [found_for.get(t) for t in targets]
            if targets and all(r is not None for r in results):
                result = results[0]
                break
        if not waiting:
            found_for[frame[0]] = result
            stack.pop()
    return found_for.get(name)


def describe_barrier(ins: Instruction) -> str:
    if is_block_barrier(ins) and not is_arrive(ins) and "red" not in ins.modifiers and barrier_id(ins) == "0":
        return f"`__syncthreads()` ({ins.opcode} 0)"
    return f"`{str(ins).rstrip(';').strip()}`"


# ---------------------------------------------------------------------------------------------
# Shared by the rule families of this issue


def where(ins: Instruction) -> str:
    loc = reported_location(ins.loc)
    return f"line {loc.line}" if loc is not None and loc.line > 0 else f"PTX line {ins.ptx_line}"


def assumptions(ctx, architecture: Optional[str] = None) -> list:
    """What every finding assumed: the block shape and where it comes from, the architecture
    (`architecture` says more of it where a rule has a model of it), and the kernel parameters and
    grid axes the launches pin (`LaneEvaluator.passed_parameters`, `one_block_axes`)."""
    notes = [f"assumed {ctx.launch.describe()}", architecture or f"architecture {ctx.module.arch or 'unknown'}"]
    tried = getattr(ctx.launch, "tried", ())
    passed = {i: v for i, v in ctx.lanes.passed_parameters.items() if i not in tried}
    exact = {i: v for i, v in passed.items() if type(v) is int}
    if exact:
        values = ", ".join(f"{parameter_text(ctx.function, ctx.function.params[i].name)} = {v}"
                           for i, v in sorted(exact.items()))
        notes.append(f"assumed {values}: the value every launch of this block passes")
    for i, v in sorted(passed.items()):
        if i not in exact:  # a Multiple: what the host expressions of every launch show
            notes.append(f"assumed {parameter_text(ctx.function, ctx.function.params[i].name)} is {v}: "
                         f"every launch of this block passes one")
    if ctx.lanes.one_block_axes:
        axes = "".join(sorted(ctx.lanes.one_block_axes))
        notes.append(f"assumed one block along {axes} ({ctx.launch.grid_source})")
    return notes


def diagnostic(ctx, code: str, severity: str, ins: Instruction, message: str, notes: list, fix=None,
               data=None) -> Diagnostic:
    path, line, column = ctx.position(ins)
    return Diagnostic(code=code, severity=severity, message=message, path=path, line=line, column=column,
                      kernel=ctx.function.name, ptx_path=ctx.module.path, ptx_line=ins.ptx_line,
                      notes=assumptions(ctx) + list(notes), fix=fix, data=dict(data or {}))


def in_loop_exit(ctx, branch_block, block_id) -> bool:
    """Is `branch_block` a loop's exit test around `block_id` (a thread-dependent trip count)?"""
    cfg = ctx.cfg
    for header, body in cfg.loops_containing(block_id):
        if branch_block in body and any(s not in body for s in cfg.successors(branch_block)):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Early exits


def _source_lines(path: str) -> Optional[list]:
    """The source's lines when it may be read (gate.py: only sources inside the checked repository)."""
    return read_lines(path)


def _reaching(ctx, target) -> set:
    """The CFG nodes from which `target` can be reached (itself included), once per target and kernel:
    a barrier under hundreds of nested branches asks this of every one of them."""
    cache = ctx.__dict__.setdefault("_sync_reaching", {})
    found = cache.get(target)
    if found is None:
        found = cache[target] = _backwards_from(ctx.cfg, [target])
    return found


def _backwards_from(cfg, targets: list) -> set:
    found, stack = set(), list(targets)
    while stack:
        spend()
        node = stack.pop()
        if node not in found:
            found.add(node)
            stack.extend(cfg.predecessors(node))
    return found


def _leaves(ctx, branch_block, barrier_block) -> bool:
    """One side of the branch cannot reach the barrier and reaches no CTA barrier at all: the threads
    that take it leave (possibly after some work)."""
    reach_barrier = _reaching(ctx, barrier_block)
    reach_any = ctx.__dict__.get("_sync_reaching_any")
    if reach_any is None:  # the blocks from which some CTA barrier instruction is reachable
        with_barrier = [b.id for b in ctx.function.blocks
                        if any(barrier_kind(i) == "cta" for i in b.instructions)]
        reach_any = ctx.__dict__["_sync_reaching_any"] = _backwards_from(ctx.cfg, with_barrier)
    return any(succ not in reach_barrier and succ not in reach_any
               for succ in ctx.cfg.successors(branch_block))


def is_early_exit(ctx, branch: Instruction, barrier: Instruction) -> bool:
    """`if (cond) return; ... __syncthreads();` rather than `if (!cond) { ... __syncthreads(); }`.

    The PTX of the two is the same; the source tells them apart: the branch's line says `return`, or
    (without the source) the barrier sits at the branch's nesting depth (its `.loc` column)."""
    b_loc, x_loc = user_location(branch.loc), user_location(barrier.loc)
    if b_loc is None or x_loc is None or b_loc.file != x_loc.file or x_loc.line <= b_loc.line:
        return False
    lines = _source_lines(b_loc.file) if os.path.isabs(b_loc.file) or os.path.exists(b_loc.file) else None
    if lines is not None and 0 < b_loc.line <= len(lines) and 0 < x_loc.line <= len(lines):
        # the branch's statement, up to its first `;` (`if (i >= n)` may put `return;` on the next line)
        text = " ".join(lines[b_loc.line - 1:min(b_loc.line + 2, x_loc.line - 1)]).split(";")[0]
        return "return" in re.findall(r"\w+", text)
    return 0 < x_loc.column <= b_loc.column


# ---------------------------------------------------------------------------------------------
# The rules


_SYNC001_DOC = RuleDoc(
    what_it_does="""
Finds block-wide barriers (`__syncthreads()`, `bar.sync 0`, `barrier.sync`, `bar.red`, `bar.arrive`
without a thread count) that only some threads of the block reach: under a branch whose condition
depends on the thread (`threadIdx`, a loaded value, an atomic's result ...), inside a loop whose trip
count is thread-dependent, or as different barrier instructions on the two sides of a divergent
`if`/`else`. A call of a device function that waits at a barrier (a `__noinline__` helper with a
`__syncthreads()`, at any depth of calls) counts as that barrier. The finding names the branch and
the thread-dependent value it tests.

Whether a condition is thread-dependent is decided for the block shape: `threadIdx.x < 128`, a loop
`for (i = threadIdx.x; i < n / blockDim.x * blockDim.x; i += blockDim.x)` or one over a fixed bound
that is a multiple of blockDim.x are the same for every thread of the block and are not reported, nor
is a grid-stride loop over a bound rounded to a multiple of `gridDim.x * blockDim.x`, or a test that
`blockIdx < gridDim` decides (`if (idx >= gridDim.x * blockDim.x) return;` returns no thread). The
result of `__syncthreads_or/and/count` is the same in every thread of the block, so a loop
`do { ... } while (__syncthreads_or(changed))` and branches on such votes are block-uniform; so is a
signed loop test whose two sides carry the same thread term (`for (t = base + tid; t < end + tid;
t += C)`, assuming the sides do not overflow), an element of an array inside a by-value struct
parameter read at blockIdx (`batch.count[blockIdx.y]`) and a grid-stride bound rounded up to whole blocks
through a 64-bit division (`(n + blockDim.x - 1) / blockDim.x * blockDim.x`). A
branch that splits the block only between whole warps (producer and consumer warps) is not reported
either when both of its sides wait at the same barriers in the same order before they join: each
barrier id then counts one arrival from every thread. A path that traps (`__trap()`, or a failed
`assert()`) ends the whole launch, not one thread: thread 0 trapping on an overflow inside
`if (threadIdx.x == 0)` leaves nobody short of the barrier after it, and such paths are left out of
every rule (a thread that returns does leave, and is reported).

Loop state a block keeps in `volatile` shared memory (a pivot index, a mask, a failure flag), read
after the barrier that follows its last write, is one value in every thread. A write counts against
that only if it may run between the same two barriers as the read and may touch it: not a store
through a pointer the kernel loaded from memory when the kernel never writes a shared address to
memory (the host cannot hand it a block's shared memory), nor a write on the other side of a branch
every thread of the block takes the same way (a failing block leaves the loop together while the
others read the mask). A volatile read beside a write that may change it is one value per thread.

A device function that nvcc keeps as a function of its own (`__noinline__`, called through a
pointer, or kept for its external linkage) is also checked on its own, and there its parameters are
taken to be alike in every thread of the block (a gate step branching on the gate it is handed).
Where a caller passes values that differ between threads, the kernel is checked with those values
wherever nvcc inlines the call; through a call that stays a call, that split is not seen.

A grid-stride loop `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x *
blockDim.x)` splits a block only in the block where `n` falls, when `n` is not a multiple of the
block's thread count: the finding says so and is a warning. When every launch of the kernel that the
host code makes passes an `n` whose value it gives (a constant, `numbodies * 1024` from an argv
default) and that value is a multiple of the block, nothing is reported: the finding would not hold
for the launches the code really uses (the same for SYNC002's early return and SHFL001's warp,
with 32 for the block).
""",
    why_is_this_bad="""
`__syncthreads()` must be reached by every thread of the block. When it is not, the kernel may hang,
or (sm_70+, where exited threads count as arrived) silently synchronise a subset of the threads, so
the data the barrier was meant to protect is read too early. compute-sanitizer only reports the
if/else case; the others run to completion with wrong ordering guarantees.
""",
    example="""
if (threadIdx.x < 16) {
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();                  // threads 16.. never arrive
    out[threadIdx.x] = s[15 - threadIdx.x];
}
""",
    use_instead="""
if (threadIdx.x < 16) s[threadIdx.x] = in[threadIdx.x];
__syncthreads();                      // every thread arrives
if (threadIdx.x < 16) out[threadIdx.x] = s[15 - threadIdx.x];
""",
)


@register("SYNC001", "barrier-in-divergent-code", "error",
          "A block-wide barrier is reachable by only some threads of the block.", _SYNC001_DOC)
def check_divergent_barrier(ctx):
    yield from _barrier_findings(ctx, "SYNC001")


@register(
    "SYNC002", "barrier-after-divergent-exit", "warning",
    "A block-wide barrier follows a thread-dependent early return.",
    RuleDoc(
        what_it_does="""
Finds block-wide barriers reached after some threads of the block may already have returned, on a
thread-dependent condition (`if (i >= n) return; ... __syncthreads();`).
""",
        why_is_this_bad="""
The CUDA programming model requires all non-exited threads of the block to reach `__syncthreads()`
and leaves the early-exit case undefined. sm_70+ hardware counts exited threads as arrived, so it
works there today (and compute-sanitizer is silent), but the code relies on behaviour the model does
not promise, and any later barrier-dependent code (cooperative groups, named barriers with counts)
breaks.
""",
        example="""
int i = blockIdx.x * blockDim.x + threadIdx.x;
if (i >= n) return;
s[threadIdx.x] = in[i];
__syncthreads();
""",
        use_instead="""
int i = blockIdx.x * blockDim.x + threadIdx.x;
bool active = i < n;
s[threadIdx.x] = active ? in[i] : 0.0f;
__syncthreads();
if (active) out[i] = s[threadIdx.x] + s[threadIdx.x ^ 1];
""",
    ),
)
def check_barrier_after_exit(ctx):
    yield from _barrier_findings(ctx, "SYNC002")


@register(
    "SYNC003", "aligned-barrier-in-warp-divergent-code", "error",
    "An `.aligned` barrier (`bar.sync id, count`) is executed by only part of a warp.",
    RuleDoc(
        what_it_does="""
Finds named barriers with an explicit thread count in their `.aligned` form (`bar.sync`, `bar.arrive`,
`bar.red`, `barrier.sync.aligned`) under a branch that splits warps. A count makes a block-divergent
branch legitimate (producer/consumer warps), but the `.aligned` form still requires all threads of a
warp to execute the same barrier instruction.
""",
        why_is_this_bad="""
The PTX ISA makes the behaviour undefined when an `.aligned` barrier is executed by a subset of a
warp. It happens to work on current GPUs (the SASS is the same as the non-aligned form), and no
sanitizer checks it.
""",
        example="""
if ((threadIdx.x & 31) < 16) {
    asm volatile("bar.sync 1, 32;");      // half of each warp
}
""",
        use_instead="""
if ((threadIdx.x & 31) < 16) {
    asm volatile("barrier.sync 1, 32;");  // the non-aligned form allows divergent warps (sm_70+)
}
""",
    ),
)
def check_aligned_barrier(ctx):
    yield from _barrier_findings(ctx, "SYNC003")


@register(
    "SYNC004", "cluster-barrier-in-divergent-code", "error",
    "A cluster barrier (`barrier.cluster.arrive/wait`) is reached by only some threads of the cluster.",
    RuleDoc(
        what_it_does="""
Finds `barrier.cluster.arrive` / `barrier.cluster.wait` (`cluster.sync()`) under a branch whose
condition differs between threads of the cluster: a thread-dependent condition, or one on
`%cluster_ctarank` / `blockIdx` that differs between the blocks of the cluster.
""",
        why_is_this_bad="""
Every non-exited thread of every block of the cluster must arrive at the cluster barrier. A subset
either hangs the cluster or (exited threads count as arrived) lets blocks read a peer's distributed
shared memory before it is written or after it is gone. No sanitizer tool checks cluster barriers.
""",
        example="""
if (threadIdx.x < 32) {
    cluster.sync();            // only warp 0 of each block
    v += peer[threadIdx.x];
}
""",
        use_instead="""
cluster.sync();                // every thread of every block
if (threadIdx.x < 32) v += peer[threadIdx.x];
""",
    ),
)
def check_cluster_barrier(ctx):
    yield from _barrier_findings(ctx, "SYNC004")


# ---------------------------------------------------------------------------------------------
# Barriers on both arms of a warp-uniform branch


_MAX_SEQUENCES = 8


def _barrier_signature(ctx, ins: Instruction):
    """What makes two CTA barrier instructions the same barrier for pairing: the instruction, its
    barrier id and thread count (a call stands for the first barrier its callee waits at)."""
    barrier = barrier_in_callee(ctx, ins) if ins.op == "call" else ins
    if barrier is None or barrier_kind(barrier) != "cta":
        return None
    count = thread_count(barrier)
    return (barrier.op, tuple(sorted(barrier.modifiers)), barrier_id(barrier), str(count) if count is not None else None)


def _barrier_sequences(ctx, start, stop, branch_block) -> Optional[set]:
    """The sequences of CTA barriers that the paths from `start` to `stop` execute, or None when they
    cannot be listed: a barrier inside a loop of the region (it runs an unknown number of times), a
    path that goes round a loop enclosing the branch, more than a few different sequences."""
    cfg = ctx.cfg
    blocks = ctx.function.blocks
    memo: dict = {}
    enclosing = {h for h, body in cfg.loops if branch_block in body}

    def walk(node, depth=0):
        if node == stop:
            return {()}
        if node in memo:
            return memo[node]
        if not isinstance(node, int) or depth > 2000:
            return None  # EXIT before the join (the join is not EXIT), or a pathological region
        memo[node] = None  # a cycle through forward edges: not a structured region
        own = []
        for ins in blocks[node].instructions:
            if barrier_kind(ins) is not None or (ins.op == "call" and barrier_in_callee(ctx, ins) is not None):
                signature = _barrier_signature(ctx, ins)
                if signature is None:
                    return None  # a cluster or warp barrier in the region: leave it to the plain check
                if any(node in body and h not in enclosing for h, body in cfg.loops):
                    return None  # repeated an unknown number of times
                own.append(signature)
        found: set = set()
        for succ in cfg.successors(node):
            if (node, succ) in cfg.back_edges:
                if succ in enclosing:
                    return None  # goes round the loop that encloses the branch before the join
                continue  # a loop inside the region (without barriers): its exits are other edges
            rest = walk(succ, depth + 1)
            if rest is None:
                return None
            found |= {tuple(own) + r for r in rest}
            if len(found) > _MAX_SEQUENCES:
                return None
        memo[node] = found
        return found

    return walk(start)


def arms_pair_up(ctx, branch_block) -> bool:
    """Do the two sides of a branch that splits the block but not its warps wait at the same CTA
    barriers in the same order before they join? Then every warp reaches each barrier once, half of
    them at the instruction on one side and the rest at its twin on the other: `bar.sync` counts
    arrivals per barrier id (double buffering with producer and consumer halves of the block)."""
    found = ctx.__dict__.setdefault("_paired_branches", {})
    if branch_block in found:
        return found[branch_block]
    u = ctx.uniformity
    cfg = ctx.cfg
    result = False
    join = cfg.postdominators.get(branch_block)
    successors = list(cfg.successors(branch_block))
    if u.branch_level(branch_block) == BLOCK and join is not None and len(successors) == 2 \
            and not any((branch_block, s) in cfg.back_edges for s in successors):
        sides = [_barrier_sequences(ctx, s, join, branch_block) for s in successors]
        result = all(side is not None and len(side) == 1 for side in sides) and sides[0] == sides[1] \
            and sides[0] != {()}
    found[branch_block] = result
    return result


def _barrier_findings(ctx, code: str):
    found = ctx.__dict__.get("_sync_findings")
    if found is None:
        found = ctx.__dict__["_sync_findings"] = list(_analyse_barriers(ctx))
    return [d for d in found if d.code == code]


def _analyse_barriers(ctx):
    u = ctx.uniformity
    fn = ctx.function
    candidates = []
    for ins in fn.instructions:
        # a call to a device function that waits at a barrier is that barrier, here
        barrier = barrier_in_callee(ctx, ins) if ins.op == "call" else ins
        kind = barrier_kind(barrier) if barrier is not None else None
        if kind not in ("cta", "cluster"):
            continue
        block = fn.block_of(ins).id
        code, controls = None, []
        if kind == "cluster":
            controls = u.divergent_controls(block, CTA)
            code = "SYNC004" if controls else None
        elif thread_count(barrier) is None:
            controls = [(b, w) for b, w in reached_controls(ctx, u.divergent_controls(block, BLOCK), block)
                        if not arms_pair_up(ctx, b)]
            if controls:
                exits = [b for b, _ in controls if _leaves(ctx, b, block)
                         and is_early_exit(ctx, u.branch_instruction(b), ins)]
                code = "SYNC002" if len(exits) == len(controls) else "SYNC001"
        elif is_aligned(barrier):
            controls = reached_controls(ctx, u.divergent_controls(block, WARP), block)
            code = "SYNC003" if controls else None
        if code is not None and not _no_thread_reaches(ctx, ins):
            candidates.append((ctx.position(ins), code, ins, controls, block))
    # source order: of two barriers on the two sides of an if/else, the first one written is reported
    candidates.sort(key=lambda c: (c[0][0], c[0][1] or 0, c[0][2] or 0, c[2].index))
    reported_sides: dict = {}  # innermost divergent branch -> (control edges, diagnostic)
    seen_positions: set = set()
    for position, code, ins, controls, block in candidates:
        if (position, code) in seen_positions:  # cluster.sync(): arrive + wait on one line
            continue
        seen_positions.add((position, code))
        branch_block, why = controls[0]
        branch = u.branch_instruction(branch_block)
        edges = {e for e in ctx.cfg.control_dependences.get(block, ()) if e[0] == branch_block}
        if code == "SYNC001" and branch_block in reported_sides:
            first_edges, first = reported_sides[branch_block]
            if edges and first_edges and edges != first_edges:
                first.notes.append(f"the other side of the branch waits at a different barrier, {where(ins)} "
                                   f"(PTX line {ins.ptx_line}): threads of one warp wait at two barriers")
                first.data["other_barriers"].append(position[1])
                continue
        if code in ("SYNC001", "SYNC002") and launches_rule_out(ctx, branch, ctx.launch.threads):
            continue  # every launch passes a bound the block divides: no block splits in this program
        found = _barrier_diagnostic(ctx, code, ins, branch, branch_block, why, controls, block)
        if code == "SYNC001":
            reported_sides[branch_block] = (edges, found)
        yield found


def _no_thread_reaches(ctx, ins: Instruction) -> bool:
    """Does no thread of the block execute `ins` under this launch (a remainder loop that the
    trip count the launch's arguments give leaves out)? Its barrier can split nothing. Asked only
    when the launch passes known arguments: without them nvcc has already removed such code."""
    if not getattr(ctx.launch, "arguments", None):
        return False
    return all(a is False for a in ctx.lanes.active(ins))


def _barrier_diagnostic(ctx, code, ins, branch, branch_block, why, controls, block):
    u = ctx.uniformity
    what = describe_barrier(ins)
    if ins.op == "call":
        targets = [f"`{without_parameters(demangle(t))}`" for t in call_targets(ctx.function, ins) or ()]
        callee = f"the call of {targets[0]}" if callee_name(ins) is not None else \
            f"the indirect call (to {' or '.join(targets)})"
        what = f"{callee}, which waits at {describe_barrier(barrier_in_callee(ctx, ins))},"
    level = u.branch_level(branch_block)
    scope = {WARP: "lanes of a warp", BLOCK: "warps of the block", CTA: "blocks of the cluster"}[level]
    loop = in_loop_exit(ctx, branch_block, block)
    severity = "error" if code != "SYNC002" else "warning"
    if code == "SYNC001":
        if loop:
            message = (f"{what} inside a loop whose trip count differs between {scope}: "
                       f"the loop test at {where(branch)} depends on {_root(why)}")
            when = _exit_depends_on_input(ctx, branch)
            if when:
                # a grid-stride loop `i < n`: the passes differ only where n cuts a block; say so
                message += f"; the trip counts differ only {when}"
                severity = "warning"
        else:
            message = f"{what} is reached by only some threads of the block: {why}"
    elif code == "SYNC002":
        message = (f"{what} after a thread-dependent early return ({where(branch)}): threads that returned "
                   f"never arrive; {why}")
        when = _exit_depends_on_input(ctx, branch)
        if when:
            message += f"; this happens only {when}"
    elif code == "SYNC003":
        message = (f"`.aligned` barrier {what} is executed by part of a warp: {why}; use the non-aligned "
                   f"`barrier.sync` form")
    else:
        message = f"cluster barrier {what} is reached by only some threads of the cluster: {why}"
    notes = [f"the branch condition differs between {scope} (for this block shape)"]
    for other, text in controls[1:]:
        notes.append(f"also under {text}")
    if code in ("SYNC001", "SYNC002", "SYNC003"):
        notes.append(HARDWARE_NOTE)
    fix = {
        "SYNC001": "move the barrier out of the branch (or loop) so that every thread of the block reaches it; "
                   "guard only the work",
        "SYNC002": "keep every thread alive through the barrier: replace the early `return` by a flag that "
                   "guards the work",
        "SYNC003": "use `barrier.sync id, count` (non-aligned) or make the branch warp-uniform",
        "SYNC004": "call cluster.sync() (barrier.cluster.arrive/wait) in every thread of every block of the cluster",
    }[code]
    d = diagnostic(ctx, code, severity, ins, message, notes, fix,
                   {"branch_line": ctx.position(branch)[1], "branch_ptx_line": branch.ptx_line,
                    "level": level, "loop": loop, "other_barriers": []})
    return d


def exit_bound(ctx, branch) -> Optional[tuple]:
    """(parameter names in words, parameter symbols, "global" / "block" / None) of an exit test that
    reads kernel parameters (`_index_against` tells how the index runs), or None when it reads none."""
    if branch is None or branch.guard is None:
        return None
    lanes = ctx.lanes
    compares = _exit_compares(lanes, branch)
    params = sorted({k[1] for key in compares for side in key[3:] for sym, _ in side[1]
                     for k in [_key(lanes, sym)] if k and k[0] == "param"})
    if not params:
        return None
    names = " and ".join(parameter_text(ctx.function, p) for p in params)
    index = _index_against(lanes, compares, ctx.launch.threads) if len(params) == 1 else None
    return names, params, index[0] if index is not None and index[1] == 1 else None


def _exit_compares(lanes, branch) -> set:
    """The keys of the comparisons the branch's guard is made of, in any thread."""
    compares = set()
    for v in lanes.register(branch, branch.guard):
        for sym, _ in v[1]:
            key = _key(lanes, sym)
            if key and key[0] == "compare":
                compares.add(key)
    return compares


def _strides_grid(ctx, param: str) -> bool:
    """Does some branch of the kernel test `param` against an index that carries a grid-stride
    loop's passes (`i += gridDim.x * blockDim.x`)? A bound the first pass never reaches may still
    cut a later one, and the loop's entry test and its exit test are separate branches. Answered
    once per parameter (every barrier and shuffle under the bound asks)."""
    answers = ctx.__dict__.setdefault("_strides_grid", {})
    if param not in answers:
        answers[param] = _any_grid_stride_test(ctx, param)
    return answers[param]


def _any_grid_stride_test(ctx, param: str) -> bool:
    lanes, threads = ctx.lanes, ctx.launch.threads
    for ins in ctx.function.instructions:
        if ins.op != "bra" or ins.guard is None:
            continue
        for key in _exit_compares(lanes, ins):
            syms = [(sym, coef) for side in key[3:] for sym, coef in side[1]]
            if any((_key(lanes, sym) or ())[1:2] == (param,) for sym, _ in syms) and \
                    any(_strides_by_blocks(lanes, sym, coef, threads) for sym, coef in syms):
                return True
    return False


def _exit_depends_on_input(ctx, branch) -> Optional[str]:
    """When an early return splits a block only for some values of the kernel's parameters, in
    words: `if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;` splits only the block in which
    n falls, and only when n is not a multiple of the block's thread count. None when the exit test
    reads no parameter (then it splits every block alike)."""
    bound = exit_bound(ctx, branch)
    if bound is None:
        return None
    names, params, index = bound
    threads = ctx.launch.threads
    if index == "global":
        return (f"in the block where the bound {names} falls, when it is not a multiple of the block's thread "
                f"count ({params[0]} % {threads} != 0 for a block of {threads} threads)")
    if index == "block":
        return (f"when the bound {names} is below the block's thread count (0 < {params[0]} < {threads} for a "
                f"block of {threads} threads), in every block")
    return f"for some values of {names} (a run-time value)"


def launches_rule_out(ctx, branch, multiple: int) -> bool:
    """Does every launch the host code makes of this kernel (with this block) pass, for the one
    parameter an exit or loop test compares a global thread index with, a value that is a multiple
    of `multiple` (the block's thread count; 32 for a warp), or one its grid floor-divides
    (`<<<n / 256, 256>>>(.., n)`: no launched thread reaches it)? Then the test never splits a block (a
    warp) in this program, whatever it would do for other inputs: a finding that depends on it does
    not hold for the launches the code really uses. For a test on the thread's index in the block,
    a bound of 0 or at least the block's thread count splits nothing either."""
    arguments = getattr(ctx.launch, "arguments", None)
    if not arguments:
        return False
    bound = exit_bound(ctx, branch)
    if bound is None or len(bound[1]) != 1:
        return False
    names = [p.name for p in ctx.function.params]
    if bound[1][0] not in names:
        return False
    position = names.index(bound[1][0])
    values = arguments[position] if position < len(arguments) else None
    if not values or not all(isinstance(v, (int, Multiple, CoversGrid)) for v in values):
        return False  # none passed, or a pointer argument (a PointerOffset), which bounds nothing here
    if bound[2] == "global":
        # a bound at least the grid's threads (`<<<n / 256, 256>>>(.., n)`) is reached by no launched
        # thread in its first pass; a grid-stride loop's later passes may still cross it
        if any(isinstance(v, CoversGrid) for v in values) and _strides_grid(ctx, bound[1][0]):
            return False
        return all(v.scale <= 1 if isinstance(v, CoversGrid) else factor_of(v) % multiple == 0 for v in values)
    if bound[2] is None:
        if not all(isinstance(v, CoversGrid) for v in values):
            return False
        # `i >= 4 * n` against a grid of n / 32 blocks of 128 threads (at most 4n threads): the
        # bound's coefficient covers what the grid launches beyond n
        scaled = _index_against(ctx.lanes, _exit_compares(ctx.lanes, branch), ctx.launch.threads, scaled=True)
        return scaled is not None and scaled[0] == "global" and not _strides_grid(ctx, bound[1][0]) \
            and all(scaled[1] >= v.scale for v in values)
    if any(isinstance(v, (Multiple, CoversGrid)) for v in values):
        return False  # a multiple of k may still be below the block's thread count
    return all(v <= 0 or v >= ctx.launch.threads for v in values)


def _key(lanes, sym: str) -> Optional[tuple]:
    """The key a symbol was made for, through the `opaque` wrapper of comparisons."""
    key = lanes.table.key_of(sym)
    if isinstance(key, tuple) and len(key) == 2 and key[0] == "opaque" and isinstance(key[1], tuple):
        key = key[1]
    return key if isinstance(key, tuple) and key else None


def parameter_text(function, name: str) -> str:
    """`early_param_1` -> "`early_param_1` (kernel parameter 2)": PTX keeps no source names."""
    prefix = f"{function.name}_param_"
    if name.startswith(prefix) and name[len(prefix):].isdigit():
        return f"`{name}` (kernel parameter {int(name[len(prefix):]) + 1})"
    return f"`{name}`"


def _index_against(lanes, compares: set, threads: int, scaled: bool = False) -> Optional[tuple]:
    """("global", m) when every comparison is `i < m * n` (or its complement) with i = blockIdx *
    threads + the thread's linear index and n one parameter; ("block", m) when i is the thread's
    linear index alone; else None. The known parts of i must run over 0 .. threads - 1, one per
    thread. m is 1 unless `scaled` admits the same integer multiplier m > 1 in every comparison."""
    consts, moving, spans, multipliers = set(), set(), set(), set()
    for _, base, _, x, y in compares:
        if base not in ("lt", "lo"):
            return None
        index, bound = (x, y) if len(y[1]) == 1 and _is_param(lanes, y[1][0][0]) else (y, x)
        if bound[0] != 0 or len(bound[1]) != 1 or not _is_param(lanes, bound[1][0][0]):
            return None
        # the parameter itself: coefficient 1, or its factor when the launches pass multiples (n = k * q)
        key = _key(lanes, bound[1][0][0])
        factor = key[3] if len(key) > 3 else 1
        coef = bound[1][0][1]
        if coef <= 0 or coef % factor or coef != factor and not scaled:
            return None
        multipliers.add(coef // factor)
        # a grid-stride loop's index also carries the loop's one uniform unknown, stepped by a multiple
        # of the block's thread count: it moves whole blocks, as blockIdx does
        steps = [(sym, coef) for sym, coef in index[1] if _strides_by_blocks(lanes, sym, coef, threads)]
        rest = [(sym, coef) for sym, coef in index[1] if (sym, coef) not in steps]
        if len(rest) > 1 or any(not _moves_by_block(lanes, sym, coef, threads) for sym, coef in rest):
            return None
        consts.add(index[0])
        moving.add(bool(rest))
        # against k * q (or m * n), threads between two multiples of k (of m) compare alike: the
        # evaluator keeps one each
        spans.add(coef)
    if len(spans) == 1:
        (factor,) = spans
        consts = {c // factor * factor for c in consts}
    if len(moving) != 1 or len(spans) != 1 or len(multipliers) != 1 \
            or consts != {c // factor * factor for c in range(threads)}:
        return None
    return "global" if moving == {True} else "block", multipliers.pop()


def _is_param(lanes, sym: str) -> bool:
    key = _key(lanes, sym)
    return key is not None and key[0] == "param"


def _strides_by_blocks(lanes, sym: str, coef: int, threads: int) -> bool:
    """Is `coef * sym` the same in every thread of the launch and a multiple of the block's thread
    count: a grid-stride loop's passes (its induction unknown, `gridDim.x * blockDim.x` added by
    the increment before the test)? It shifts the index by whole blocks."""
    key = _key(lanes, sym)
    if key is None or coef % threads:
        return False
    return key[0] in ("induction", "param") or (key[0] == "special" and key[1].startswith(("%nctaid.", "%ntid.")))


def _moves_by_block(lanes, sym: str, coef: int, threads: int) -> bool:
    """Is `coef * sym` blockIdx times the block's thread count (a 1-D global index's block part)?"""
    key = _key(lanes, sym)
    if key is None:
        return False
    if key[0] == "special" and key[1].startswith("%ctaid."):
        return coef == threads
    if key[0] == "product" and coef == 1:
        names = [_key(lanes, s) for s in key[1:]]
        return sorted(k[1][:-1] for k in names if k and k[0] == "special") == ["%ctaid.", "%ntid."]
    return False


def _root(why: Optional[str]) -> str:
    if not why:
        return "a thread-dependent value"
    marker = "depends on "
    return why[why.index(marker) + len(marker):] if marker in why else why
