"""Checking one kernel under the block shapes it may run with (analysis/launch.py plans them).

Known shapes (command line, config, the launches in the host code, `.reqntid`): every rule runs
under each, and a finding seen under several of them is one finding that names them.

Unknown shape: every rule runs under the first admitted candidate shape, which the findings state.
A correctness finding (RACE, SYNC, WARP, SHFL, FENCE) is kept only if it also holds under every
other candidate of at least two warps (MIN_UNKNOWN_THREADS) the kernel admits: a collision that
exists only because the block was guessed too large (thread 32 writing a slot sized for a 32-thread
block) is not the user's bug, while a race between two warps is, though a one-warp block would not
have it (a real kernel is rarely launched with one warp when it has no launch to say so). A kernel
that admits no such shape is confirmed under all its candidates. Findings that depend on the shape
are counted as "not checked", never reported; the note of a kept finding names the candidates
checked, never "every shape". A kept finding of a kernel that reads no blockDim.x, has no block
barrier and no shared memory (often written for one warp in x) that does not hold in a 32x1x1 block says so: its
message ends "(only when the block has more than 32 threads in x; no launch found)" and it is a
warning, not an error: a real race if the block is wider, none at the width the code may be written for.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Optional

from .analysis.budget import BudgetExhausted, describe, kernel_budget
from .analysis.context import KernelContext
from .analysis.launch import ONE_THREAD_SOURCE, fails_assertion, out_of_bounds, overlapping_blocks, plan_block_shapes
from .analysis.loops import trip_bound_parameters
from .rules.sync import parameter_text
from .frontend.sourcemap import wholly_in_toolkit
from .gc_pause import collector_paused
from .rules.registry import CORRECTNESS_FAMILIES
SHAPE_DEPENDENT = "findings that depend on the unknown block shape"
NO_ADMITTED_SHAPE = "kernels with no admitted block shape"
ONE_THREAD = ("kernels checked as one thread (serial programs: they loop but read no thread or block index, and no "
              "launch was found): races between their threads, under a launch of several, not checked")
# With no known launch, correctness findings are those of every admitted block of two warps or more.
MIN_UNKNOWN_THREADS = 64
TOOLKIT_KERNEL = ("kernels wholly inside CUDA toolkit headers (CUB, Thrust, libcu++), not analysed: their findings "
                  "are not yours to fix (--toolkit-headers analyses them)")


def is_correctness(code: str) -> bool:
    return code.startswith(CORRECTNESS_FAMILIES)


@dataclass
class KernelResult:
    diagnostics: list = field(default_factory=list)
    not_checked: Counter = field(default_factory=Counter)  # what could not be checked -> how many
    incomplete: Optional[dict] = None  # why the analysis stopped early (budget.py), else None
    kernel: Optional[str] = None  # the function's (mangled) name: what was not checked is said of it


def check_kernel(module, function, rules: list, analysis) -> KernelResult:
    """Every selected rule on one function, under its planned block shapes, within the kernel's
    analysis budget: when it runs out, the findings made so far stay (a correctness finding still
    being confirmed under other shapes is dropped) and the kernel is reported as incomplete."""
    result = KernelResult(kernel=function.name)
    if not analysis.toolkit_kernels and wholly_in_toolkit(function):
        # every finding would be located in a toolkit header and hidden (results._hide_toolkit_findings)
        result.not_checked[TOOLKIT_KERNEL] += 1
        return result
    progress: list = []  # codes of the rules that finished under the last shape tried
    try:
        with kernel_budget(analysis.budget):
            plan = plan_block_shapes(function, analysis)  # inside: the launch analysis is a phase too
            if plan.known:
                _under_known_shapes(module, function, rules, analysis, plan, result, progress)
            else:
                _under_candidate_shapes(module, function, rules, analysis, plan, result, progress)
        return result
    except BudgetExhausted as err:
        reason = err.reason
    except RecursionError:
        reason = "the kernel's structure is nested too deeply to follow"
    note = describe(reason, analysis.budget)
    for d in result.diagnostics:
        d.notes.append(note)
        d.data["incomplete"] = note
    result.incomplete = {"path": module.path, "kernel": function.name, "line": function.ptx_line, "reason": note,
                         "skipped_rules": [r.code for r in rules if r.code not in progress]}
    return result


def _run(module, function, rules, analysis, shape, progress: list, admission: bool = False, focus=None):
    """(diagnostics, not_checked, why the shape is not admitted or None) under one shape; the codes
    of the rules that finish are put in `progress`. `focus`: see KernelContext (a confirming run).
    The race rules also run with loop-bounding parameters tried (`_races_at_tried_trip_counts`)."""
    progress.clear()
    with collector_paused():
        context = KernelContext(module, function, analysis, shape, focus)
        try:
            if admission:
                rejected = overlapping_blocks(context) or out_of_bounds(context) or fails_assertion(context)
                if rejected is not None:
                    return [], Counter(), rejected
            found = []
            for rule in rules:
                found.extend(rule.check(context))
                progress.append(rule.code)
            bounds = trip_bound_parameters(context) if any(r.code in _SAME_RACE for r in rules) else {}
        finally:
            context.release()
        found += _races_at_tried_trip_counts(module, function, rules, analysis, shape, focus, found, bounds)
        return found, context.not_checked, None


# A race that needs one thread's last iteration of a loop against another's first (`y[i*m + j + 1]`
# written for j < m, a row overrun) is not seen while the trip count is an unknown: a loop that one
# integer parameter bounds is also checked with it taken as each of these (a multiple of nvcc's
# unroll factor and one that leaves a remainder), and a race found under every one is reported.
TRIED_TRIP_COUNTS = (5, 8)


def _races_at_tried_trip_counts(module, function, rules, analysis, shape, focus, found: list,
                                bounds: dict) -> list:
    """The race findings in a block (RACE001, RACE003, WARP001) that hold with each loop-bounding
    parameter in `bounds` ({position: loop line}) taken as every value of TRIED_TRIP_COUNTS, at
    places where `found` has none, with the condition in their message."""
    race_rules = [r for r in rules if r.code in _SAME_RACE]
    known = {key for d in found for key in _confirmed_as(d)}
    out = []
    for position, line in sorted(bounds.items()):
        passed = shape.arguments[position] if shape.arguments and position < len(shape.arguments) else None
        if passed is not None:
            continue  # the launches pass it: the finding above already used it
        per_value = []
        for value in TRIED_TRIP_COUNTS:
            arguments = list(shape.arguments or ()) + [None] * (len(function.params) - len(shape.arguments or ()))
            arguments[position] = frozenset((value,))
            tried = replace(shape, arguments=tuple(arguments), tried=shape.tried + (position,))
            context = KernelContext(module, function, analysis, tried, focus)
            try:
                # within a block only: a tried bound makes a guard such as `p < np` pass in block 0
                # alone, which the pairing of neighbouring blocks does not follow
                races = [d for rule in race_rules for d in rule.check(context) if d.data.get("scope") != "grid"]
            finally:
                context.release()
            per_value.append({_confirmed_as(d)[1]: d for d in races
                              if not any(key in known for key in _confirmed_as(d))})
        for key in sorted(set.intersection(*(set(p) for p in per_value))):
            d = per_value[-1][key]
            name = parameter_text(function, function.params[position].name)
            values = ", ".join(map(str, TRIED_TRIP_COUNTS))
            d.message += f" (with {name} taken as {values}: it bounds the loop at line {line})"
            d.notes.insert(1, f"{name} bounds the loop at line {line} and is not known here; the race is "
                              f"found with it taken as each of {values} (values tried, not read from a launch)")
            d.data["condition"] = f"{name} in {{{values}}}"
            out.append(d)
            known.update(_confirmed_as(d))
    return out


def _place(d) -> tuple:
    return (d.code, d.ptx_line)


# A race between two threads of a block is the same bug whichever warps the shape puts them in:
# RACE001 (or RACE003 in a block) under one candidate can be WARP001 under a smaller one.
_SAME_RACE = {"RACE001": "race", "RACE003": "race", "WARP001": "race"}


def _confirmed_as(d) -> tuple:
    """The keys under which a finding of another candidate shape confirms `d`."""
    code = _SAME_RACE.get(d.code, d.code)
    return (code, d.ptx_line), (code, d.path, d.line)


def _race_focus(findings: list):
    """The places a confirming run asks the race rules about: the PTX lines and source places of
    the race findings to confirm (`_confirmed_as`), as KernelContext.focus; None without any."""
    race = [d for d in findings if d.code in _SAME_RACE]
    if not race:
        return None
    return frozenset(d.ptx_line for d in race), frozenset((d.path, d.line) for d in race)


def _confirming_run(module, function, rules, analysis, shape, to_confirm: list):
    """`_run` of the confirming rules under `shape`, with the race rules comparing only the pairs
    that can report at the places of `to_confirm` (the confirmation is the same; the other pairs,
    most of the work under large blocks, are not compared). WARP001 reports one place per kernel,
    the first of all its conflicts, which a focused run cannot tell: when a finding would be
    confirmed only by a WARP001 of the focused run, the run is repeated whole."""
    focus = _race_focus(to_confirm)
    found, not_checked, why = _run(module, function, rules, analysis, shape, [], admission=True, focus=focus)
    if focus is None or why is not None:
        return found, not_checked, why
    seen = {key for d in found for key in _confirmed_as(d)}
    seen_without_warp = {key for d in found if d.code != "WARP001" for key in _confirmed_as(d)}
    if any(any(k in seen for k in _confirmed_as(d)) and not any(k in seen_without_warp for k in _confirmed_as(d))
           for d in to_confirm):
        return _run(module, function, rules, analysis, shape, [], admission=True)
    return found, not_checked, why


def _under_known_shapes(module, function, rules, analysis, plan, result: KernelResult, progress: list) -> None:
    merged: dict = {}
    for shape in plan.shapes:
        found, not_checked, _ = _run(module, function, rules, analysis, shape, progress)
        result.not_checked.update(not_checked)
        occurrences: Counter = Counter()
        for d in found:
            key = _place(d) + (occurrences[_place(d)],)
            occurrences[_place(d)] += 1
            first = merged.get(key)
            if first is None:
                merged[key] = d
                d.data.setdefault("blocks", []).append(shape.text)
                continue
            first.data["blocks"].append(shape.text)
            first.notes.append(f"also under {shape.describe()}"
                               + (f": {d.message}" if d.message != first.message else ""))
        result.diagnostics = list(merged.values())
    if plan.unknown_launches:
        for d in merged.values():
            d.notes.append("not checked under the launches whose block shape is a run-time value: "
                           + "; ".join(plan.unknown_launches))


def _under_candidate_shapes(module, function, rules, analysis, plan, result: KernelResult, progress: list) -> None:
    candidates = list(plan.shapes)
    primary, rejected = None, []
    while candidates:
        shape = candidates.pop(0)
        found, not_checked, why = _run(module, function, rules, analysis, shape, progress, admission=True)
        if why is None:
            primary = shape
            break
        rejected.append(f"{shape.text} ({why})")
    if primary is None:
        result.not_checked[NO_ADMITTED_SHAPE] += 1
        return
    result.not_checked.update(not_checked)
    if primary.source == ONE_THREAD_SOURCE:
        result.not_checked[ONE_THREAD] += 1
    result.diagnostics = [d for d in found if not is_correctness(d.code)]
    to_confirm = [d for d in found if is_correctness(d.code)]
    checked = [primary.text]
    if primary.threads >= MIN_UNKNOWN_THREADS:
        candidates = [s for s in candidates if s.threads >= MIN_UNKNOWN_THREADS]
    if to_confirm:
        codes = {_SAME_RACE.get(d.code, d.code) for d in to_confirm}
        confirming = [r for r in rules if _SAME_RACE.get(r.code, r.code) in codes]
        for shape in candidates:
            if not to_confirm:
                break
            others, _, why = _confirming_run(module, function, confirming, analysis, shape, to_confirm)
            if why is not None:
                rejected.append(f"{shape.text} ({why})")
                continue
            checked.append(shape.text)
            seen = {key for d in others for key in _confirmed_as(d)}
            survivors = [d for d in to_confirm if any(key in seen for key in _confirmed_as(d))]
            if len(survivors) < len(to_confirm):
                result.not_checked[SHAPE_DEPENDENT] += len(to_confirm) - len(survivors)
            to_confirm = survivors
        for d in to_confirm:
            _state_shapes(d, checked, rejected, plan, primary.threads >= MIN_UNKNOWN_THREADS)
        if to_confirm and primary.threads >= MIN_UNKNOWN_THREADS and not _written_for_many_warps(function):
            _state_one_warp_condition(module, function, confirming, analysis, to_confirm)
    result.diagnostics += to_confirm


ONE_WARP = (32, 1, 1)
ONE_WARP_CONDITION = "only when the block has more than 32 threads in x"


def _written_for_many_warps(function) -> bool:
    """Does the kernel show that its block has several warps in x: it reads blockDim.x (`%ntid.x`),
    has a block barrier or uses shared memory (warps that talk to each other)? One that does none of
    these is often written for one warp in x: lanes of `threadIdx.x`, `WARP_SIZE`-strided loops, rows
    in `threadIdx.y`."""
    from .frontend.ir import Register

    width = Register("%ntid.x")
    return any(width in ins.operands or ins.op in ("bar", "barrier") or getattr(ins, "space", None) == "shared"
               for ins in function.instructions)


def _state_one_warp_condition(module, function, rules, analysis, findings: list) -> None:
    """With no launch, a kernel that never reads blockDim.x may be written for one warp in x; a
    finding that does not hold in a 32x1x1 block is reported with that condition and as a warning:
    a real race when the block is wider, none at the width the code may be written for."""
    from .analysis.launch import UNKNOWN_SOURCE, BlockShape

    bound = function.maxntid
    if bound and bound[0] * bound[1] * bound[2] < ONE_WARP[0]:
        return
    others, _, why = _confirming_run(module, function, rules, analysis,
                                     BlockShape(ONE_WARP, UNKNOWN_SOURCE, assumed=True), findings)
    if why is not None:
        return  # the kernel does not admit a one-warp block: nothing to qualify
    seen = {key for d in others for key in _confirmed_as(d)}
    for d in findings:
        if any(key in seen for key in _confirmed_as(d)):
            continue
        d.message += f" ({ONE_WARP_CONDITION}; no launch found)"
        if d.severity == "error":
            d.severity = "warning"
        d.data["condition"] = ONE_WARP_CONDITION
        d.notes.insert(1, "in a 32x1x1 block no two threads make this race, and the kernel reads no "
                          "blockDim.x, has no block barrier and no shared memory: it may be written for one "
                          "warp in x; pass --block with its launch shape")


def _state_shapes(d, checked: list, rejected: list, plan, two_warps: bool) -> None:
    """Replace the assumed-shape note of a confirmed correctness finding by what was checked: the
    candidate blocks it holds under, never a claim about shapes that were not tried."""
    why_unknown = "no launch of this kernel with a compile-time block shape was found"
    if plan.unknown_launches:
        why_unknown += " (" + "; ".join(plan.unknown_launches) + ")"
    which = (f"every candidate block of {MIN_UNKNOWN_THREADS} threads or more" if two_warps
             else "every candidate block")
    statement = (f"holds under {which} that the kernel admits ({why_unknown}): checked under "
                 f"{', '.join(checked)}")
    if rejected:
        statement += "; not admitted: " + "; ".join(rejected)
    if plan.narrowed_by:
        statement += f"; no wider block admitted: {plan.narrowed_by}"
    d.notes = [statement if n.startswith("assumed block") else n for n in d.notes]
    if statement not in d.notes:
        d.notes.insert(0, statement)
    d.data["blocks"] = checked
