"""SHFL: warp-synchronous intrinsics (`__shfl_*_sync`, `__ballot_sync`, ...) with a wrong mask or operands."""

from __future__ import annotations

from typing import Optional

from ..analysis import symbolic as S
from ..analysis.feasible import reached_controls
from ..analysis.lane_values import Varying
from ..analysis.uniformity import WARP
from ..analysis.warpops import shuffle_mode, shuffle_source
from ..analysis.whole_warp import decided_by_full_mask, whole_warp_guard
from ..frontend.ir import Immediate, Instruction, Register
from .registry import RuleDoc, register
from .sync import _leaves, diagnostic, exit_bound, in_loop_exit, is_early_exit, launches_rule_out, where

FULL = 0xFFFFFFFF
# the segment-mask field of a shuffle's `c` operand is 32 - width: valid for widths 32, 16, 8, 4, 2, 1
_VALID_SEGMASKS = {0: 32, 16: 16, 24: 8, 28: 4, 30: 2, 31: 1}


def member_mask(ins: Instruction):
    """The membermask operand of a `.sync` warp intrinsic, or None for other instructions."""
    if ins.op in ("shfl", "vote", "match", "redux") and "sync" in ins.modifiers and len(ins.operands) >= 3:
        return ins.operands[-1]
    if ins.op == "bar" and "warp" in ins.modifiers and ins.operands:
        return ins.operands[0]
    return None


def _known(ctx, ins, operand, evaluate: bool = True) -> Optional[int]:
    """The value of an operand when it is the same known number in every thread: an immediate or a
    `mov` of one (cheap), else (when `evaluate`) from the per-thread evaluator."""
    if isinstance(operand, Immediate):
        return int(operand.value) & FULL if isinstance(operand.value, int) else None
    if isinstance(operand, Register):
        d = ctx.dataflow.sole_definition(ins, operand)
        if d is not None and d.op == "mov" and len(d.operands) == 2 and isinstance(d.operands[1], Immediate):
            value = d.operands[1].value
            return int(value) & FULL if isinstance(value, int) else None
    if not evaluate:
        return None
    values = ctx.lanes.operand(ins, operand)
    if values and S.uniform_across(values) and S.is_known(values[0]):
        return values[0][0] & FULL
    return None


def _intrinsic(ins: Instruction) -> str:
    if ins.op == "shfl":
        mode = next((m for m in ins.modifiers if m in ("up", "down", "bfly", "idx")), "idx")
        return {"up": "__shfl_up_sync", "down": "__shfl_down_sync", "bfly": "__shfl_xor_sync",
                "idx": "__shfl_sync"}[mode]
    if ins.op == "vote":
        return "__ballot_sync" if "ballot" in ins.modifiers else f"__{next((m for m in ins.modifiers if m in ('all', 'any', 'uni')), 'vote')}_sync"
    if ins.op == "bar":
        return "__syncwarp"
    return {"match": "__match_*_sync", "redux": "__reduce_*_sync"}.get(ins.op, ins.op)


@register(
    "SHFL001", "shuffle-mask-inactive-lanes", "error",
    "A warp-synchronous intrinsic names lanes in its mask that may not execute it.",
    RuleDoc(
        what_it_does="""
Finds `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` and `bar.warp.sync` (`__shfl_*_sync`,
`__ballot_sync`, `__syncwarp` ...) whose member mask names lanes that may be inactive there: a full
mask (`0xffffffff`) inside a branch that splits the warp, or after a thread-dependent early return.
A branch on a value that is the same in every lane of a warp does not split it, even when computed
from lane-dependent inputs: a shuffle from one lane (`__shfl_sync(mask, v, 0)`), a vote, a ballot,
`__reduce_*_sync`, `__match_all_sync`, `__ffs`/`__popc` of a ballot; nor does one on a value that is
one per warp for the block shape: a row `(blockIdx.x * blockDim.x + threadIdx.x) / 32` (the index is
assumed not to overflow an `int`), a count read at one address per warp (`counts[threadIdx.x / 32]`),
a loop bound rounded up to whole warps, a loop test with the lane on both sides (`for (i = base +
lane; i < n + lane; ...)`, the sides assumed not to overflow). Under the kernel's own test that every lane is active
(`__activemask() == 0xffffffff`, or cooperative groups' `size() == 32` over a coalesced or
`labeled_partition` group), a full-mask intrinsic is run by the whole warp, whatever decided
earlier which lanes get there. Intrinsics whose mask is only known at run time are counted
as not checked. After an early return that tests the index against a kernel parameter
(`if (i >= n) return;`) the finding is a warning that says when lanes leave (`n % 32 != 0`, in the
warp where n falls): a host that keeps n a multiple of the warp's span never splits a warp there.
Lanes that returned from the kernel have exited, and a `.sync` intrinsic waits only for the lanes
of its mask that have not (PTX ISA, sm_70+): after an early return a shuffle is reported only when
it may read the value of a lane which returned (not a width-4 shuffle after a return that whole
quads take together), `__syncwarp()` is not reported, and a vote, `match` or reduction still is:
its result counts only the lanes that took part. nvcc may copy one source intrinsic into both arms
of a lane test (a loop unswitched on `laneId == 0`: one copy for lane 0, one for the others); a
full-mask intrinsic whose copy sits in the other arm is not reported, since on sm_70+ the lanes of
the mask meet at any instruction with that mask. Copies are recognised by the source line of the
intrinsic and of its caller, so two calls of one device function from the two arms of a lane test
are taken as copies too.
""",
        why_is_this_bad="""
Every lane named in the mask that has not exited must execute the same intrinsic with the same
mask; otherwise the behaviour is undefined (a hang, or values read from lanes that never wrote
them). A lane that exited takes no part, so a shuffle that reads from it reads an undefined value.
""",
        example="""
if (lane < 16) {
    for (int off = 8; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffff, v, off);   // lanes 16..31 are not here
}
""",
        use_instead="""
if (lane < 16) {
    unsigned mask = __activemask();                   // or 0x0000ffff
    for (int off = 8; off > 0; off >>= 1)
        v += __shfl_down_sync(mask, v, off, 16);
}
""",
    ),
)
def check_mask(ctx):
    u = ctx.uniformity
    fn = ctx.function
    seen = set()
    for ins in fn.instructions:
        operand = member_mask(ins)
        if operand is None:
            continue
        block = fn.block_of(ins).id
        controls = reached_controls(ctx, u.divergent_controls(block, WARP), block)
        if not controls:
            continue  # every lane of the warp that reaches the kernel's start runs it
        controls = _after_whole_warp_test(ctx, block, controls)
        if not controls:
            continue  # under the kernel's own test that all 32 lanes are here (cooperative groups)
        mask = _known(ctx, ins, operand)
        if mask is None:
            ctx.not_checked["SHFL001"] += 1  # computed at run time (__activemask(), a ballot): not checked
            continue
        active, notes = ctx.lanes.collect(ctx.lanes.active, ins)
        missing = _named_inactive_lanes(mask, active)
        if not controls and not missing:
            continue
        if controls and not missing and mask != FULL:
            continue  # a partial mask under a divergent branch: fine unless a named lane is known absent
        position = ctx.position(ins)
        if position in seen:
            continue
        seen.add(position)
        branch_block, why = controls[0] if controls else (None, None)
        name = _intrinsic(ins)
        text = f"mask 0x{mask:08x}" if mask != FULL else "full mask 0xffffffff"
        if missing:
            warp, lanes = missing
            detail = f"lanes {_lanes(lanes)} of warp {warp} do not execute it"
        else:
            detail = "not every lane of the warp executes it"
        exited = branch_block is not None and _leaves(ctx, branch_block, block) and \
            is_early_exit(ctx, u.branch_instruction(branch_block), ins)
        if exited and not _reads_from_exited_lanes(ctx, ins, active):
            # sm_70+: a `.sync` warp intrinsic waits only for the lanes of its mask that have not
            # exited; what is left is a shuffle that reads a value from a lane that may have left
            continue
        if not exited and mask == FULL and len(controls) == 1 and _copy_in_the_other_arm(ctx, ins, branch_block):
            # nvcc's copies of one source intrinsic (a loop unswitched on `laneId == 0`): on sm_70+
            # a .sync intrinsic meets the lanes of its mask at any instruction with the same mask
            continue
        in_loop = branch_block is not None and not exited and in_loop_exit(ctx, branch_block, block)
        if branch_block is not None and not missing and \
                launches_rule_out(ctx, u.branch_instruction(branch_block), 32):
            # every launch passes a bound that is a multiple of 32, or one no launched thread reaches:
            # the exit, loop or guard splits no warp in this program
            continue
        reason = why or "the lanes are known inactive"
        severity = "error"
        if exited:
            reason = f"lanes may have left at a thread-dependent early return ({reason})"
            when = None if missing else _exit_condition(ctx, u.branch_instruction(branch_block))
            if when is not None:
                # whether a warp splits there depends on a run-time value: say on which, not "certainly"
                reason += f"; this happens only {when}"
                severity = "warning"
        elif in_loop and not missing:
            # a grid-stride loop `i < n` around the intrinsic: its lanes part only in the warp n cuts
            when = _exit_condition(ctx, u.branch_instruction(branch_block))
            if when is not None:
                reason += f"; the trip counts differ only {when}"
                severity = "warning"
        message = f"{name} with {text}, but {detail}: {reason}"
        extra = [f"{ins.opcode} at PTX line {ins.ptx_line}"] + sorted(notes)
        fix = ("pass the mask of the lanes that really take part (`__activemask()` before the shuffles, or a "
               "constant such as 0x0000ffff) and a matching width, or move the intrinsic before the branch")
        yield diagnostic(ctx, "SHFL001", severity, ins, message, extra, fix,
                         {"mask": mask, "branch_line": ctx.position(u.branch_instruction(branch_block))[1]
                          if branch_block is not None else None})


def _after_whole_warp_test(ctx, block, controls: list) -> list:
    """The controls left when the block runs only under a test that every lane of the warp was active
    at an earlier `activemask` (`coalesced_group::size() == 32`): the branches that decided whether
    a lane got to that point split nothing on this path, nor does the test itself, nor a later one
    on that full mask alone (`size() < 2`)."""
    found = whole_warp_guard(ctx, block)
    if found is None:
        return controls
    guard, point, full = found
    before = ctx.uniformity.controls(ctx.function.block_of(point).id)
    return [c for c in controls if c[0] != guard and c[0] not in before
            and not (isinstance(c[0], int) and decided_by_full_mask(ctx, c[0], full))]


def _reads_from_exited_lanes(ctx, ins: Instruction, active: list) -> bool:
    """After a thread-dependent early return: may the intrinsic `ins` depend on a lane that returned?
    `__syncwarp()` does not (it waits only for the lanes that have not exited). A vote, `match` or
    `redux` does: its result counts only the lanes that took part, not the warp the mask names. A
    lane that may run a shuffle reads from its source lane (warpops.shuffle_source); the source is
    safe when it surely runs it too, or when both may run it under the same conditions (the quads of
    a width-4 shuffle that return together). True when an operand the source depends on is not known."""
    if ins.op in ("bar", "barrier"):
        return False
    if ins.op != "shfl" or len(ins.operands) < 4:
        return True
    mode = shuffle_mode(ins.modifiers)
    lanes = ctx.lanes
    b_values, _ = lanes.collect(lanes.operand, ins, ins.operands[2])
    c_values, _ = lanes.collect(lanes.operand, ins, ins.operands[3])
    if mode is None or type(b_values) is Varying or type(c_values) is Varying:
        return True
    conditions = None
    n = len(active)
    for t in range(n):
        if active[t] is False:
            continue
        b, c = b_values[t], c_values[t]
        if not (S.is_known(b) and S.is_known(c)):
            return True
        lane = t % 32
        source, in_range = shuffle_source(mode, lane, b[0], c[0])
        if not in_range or source == lane:
            continue
        u = t - lane + source
        if u >= n or active[u] is False:
            return True
        if active[u] is True:
            continue
        if active[t] is True:
            return True
        if conditions is None:
            conditions = lanes.reach_conditions(ins)
        if conditions[t] != conditions[u]:
            return True
    return False


def _copy_in_the_other_arm(ctx, ins: Instruction, branch_block) -> bool:
    """Does the other arm of the thread-dependent branch that decides whether a lane runs this
    full-mask intrinsic hold a copy of it (the same opcode, full mask and source position, as nvcc
    leaves when it unswitches a loop on `laneId == 0`: one copy of the loop for lane 0, one for
    the others)? On sm_70+ a `.sync` intrinsic waits for the non-exited lanes of its mask wherever
    in the code they execute one with that mask (PTX ISA, shfl.sync and bar.warp.sync), so the
    copies in the two arms meet as the source's one intrinsic would. Source positions are compared
    with the intrinsic's own line and its first caller's: nvcc does not repeat the rest of the
    inlining chain before a copy."""
    cfg = ctx.cfg
    arms = cfg.successors(branch_block)
    key = _source_key(ins)
    if len(arms) != 2 or key is None:
        return False
    join = cfg.postdominators.get(branch_block)
    back = cfg.back_edges
    regions = [_forward_region(cfg, arm, join, back) for arm in arms]
    block = ctx.function.block_of(ins).id
    mine = [k for k, region in enumerate(regions) if block in region]
    if len(mine) != 1:
        return False
    other = regions[1 - mine[0]] - regions[mine[0]]
    return any(copy is not ins and ctx.function.block_of(copy).id in other
               and _known(ctx, copy, member_mask(copy)) == FULL
               for copy in _intrinsics_by_source(ctx).get((ins.opcode, key), ()))


def _intrinsics_by_source(ctx) -> dict:
    """(opcode, _source_key) -> the warp intrinsics with a member mask at that source position;
    made once per kernel (every candidate finding asks)."""
    found = ctx.__dict__.get("_intrinsics_by_source")
    if found is None:
        found = ctx._intrinsics_by_source = {}
        for ins in ctx.function.instructions:
            key = _source_key(ins)
            if key is not None and member_mask(ins) is not None:
                found.setdefault((ins.opcode, key), []).append(ins)
    return found


def _source_key(ins: Instruction):
    loc = ins.loc
    if loc is None or loc.line <= 0:
        return None
    caller = loc.inlined_at
    return (loc.file, loc.line, loc.column) + ((caller.file, caller.line, caller.column) if caller else ())


def _forward_region(cfg, start, stop, back_edges) -> set:
    """The blocks reached from `start` along forward edges without passing `stop`."""
    seen, stack = set(), [start]
    while stack:
        node = stack.pop()
        if node in seen or node == stop:
            continue
        seen.add(node)
        stack.extend(s for s in cfg.successors(node) if (node, s) not in back_edges)
    return seen


def _exit_condition(ctx, branch: Instruction) -> Optional[str]:
    """When an early return that reads a kernel parameter splits a warp, in words (None: it reads none).
    `if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;` splits only the warp where n falls, and
    only when n is not a multiple of 32."""
    found = exit_bound(ctx, branch)
    if found is None:
        return None
    names, params, index = found
    if index == "global":
        return f"in the warp where the bound {names} falls, when it is not a multiple of 32 ({params[0]} % 32 != 0)"
    if index == "block":
        return f"when the bound {names} is not a multiple of 32 and below the block's thread count"
    return f"for some values of {names} (a run-time value the host may keep a multiple of the warp's span)"


def _named_inactive_lanes(mask: int, active: list):
    """(warp, lanes) of the first warp where a lane named in the mask is known not to execute."""
    for start in range(0, len(active), 32):
        chunk = active[start:start + 32]
        if not any(a is not False for a in chunk):
            continue  # the whole warp skips it
        lanes = [k for k, a in enumerate(chunk) if a is False and mask >> k & 1]
        if lanes:
            return start // 32, lanes
    return None


def _lanes(lanes: list) -> str:
    if len(lanes) > 2 and lanes == list(range(lanes[0], lanes[-1] + 1)):
        return f"{lanes[0]}..{lanes[-1]}"
    return ", ".join(map(str, lanes))


@register(
    "SHFL002", "invalid-shuffle-operand", "error",
    "A shuffle's width is not a power of two up to 32, or its lane/offset is out of range.",
    RuleDoc(
        what_it_does="""
Decodes the operands of `shfl.sync` when they are constants: the width argument of `__shfl_*_sync`
(packed by nvcc into the `c` operand as `(32 - width) << 8 | clamp`) must be 1, 2, 4, 8, 16 or 32,
and the source lane / offset / xor mask must lie in 0..31.
""",
        why_is_this_bad="""
The CUDA programming guide leaves the result undefined for a width that is not a power of two or is
larger than warpSize; the hardware silently uses only some bits of the operand, so the segments are
not the ones the code was written for. No sanitizer checks shuffle operands.
""",
        example="""
v += __shfl_down_sync(0xffffffff, v, off, 12);   // segments of 12 lanes do not exist
""",
        use_instead="""
v += __shfl_down_sync(0xffffffff, v, off, 16);   // or handle 12-element groups with a mask
""",
    ),
)
def check_operands(ctx):
    seen = set()
    for ins in ctx.function.instructions:
        if ins.op != "shfl" or len(ins.operands) < 4:
            continue
        b_operand, c_operand = ins.operands[2], ins.operands[3]
        problems = []
        # constants only (immediates, `mov` of one): the per-thread evaluator is too slow for every shuffle
        c = _known(ctx, ins, c_operand, evaluate=False)
        if c is not None:
            segmask = (c >> 8) & 0x1F
            if c >> 13:
                width = 32 - _signed(c >> 8)
                problems.append(f"width {width} (c operand 0x{c:x}) is larger than a warp"
                                if width > 32 else f"the c operand 0x{c:x} does not encode a width")
            elif segmask not in _VALID_SEGMASKS:
                problems.append(f"width {32 - segmask} (c operand 0x{c:x}) is not a power of two")
        b = _known(ctx, ins, b_operand, evaluate=False)
        if b is not None:
            b_signed = b - (1 << 32) if b >> 31 else b
            if not 0 <= b_signed <= 31:
                what = {"idx": "source lane", "bfly": "xor lane mask"}.get(
                    next((m for m in ins.modifiers if m in ("up", "down", "bfly", "idx")), "idx"), "offset")
                problems.append(f"{what} {b_signed} is outside 0..31")
        if not problems:
            continue
        position = ctx.position(ins)
        if position in seen:
            continue
        seen.add(position)
        message = f"{_intrinsic(ins)}: {'; '.join(problems)}"
        yield diagnostic(ctx, "SHFL002", "error", ins, message,
                         [f"{str(ins)} at PTX line {ins.ptx_line} ({where(ins)})"],
                         "use a width of 1, 2, 4, 8, 16 or 32 and lane operands in 0..31", {"c": c, "b": b})


def _signed(field: int) -> int:
    """The `(32 - width)` field as nvcc computed it, sign included (24 bits after the shift)."""
    field &= 0xFFFFFF
    return field - (1 << 24) if field >> 23 else field
