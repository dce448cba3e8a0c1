"""The per-kernel analysis budget: a kernel that would take too long is reported as incomplete,
never left to hang the run.

The analyses call `spend()` in their loops (it only reads a clock); once the kernel's budget of
CPU seconds is used up it raises `BudgetExhausted`, which `kernel_check.check_kernel` turns into an
`incomplete` note on that kernel: the rules that finished keep their findings, the rest are
skipped. CPU time of this process is measured, not wall time, so that a loaded machine (CI
runners, several checks in parallel) does not cut an analysis short that would finish alone.

Deep program structure (definition chains, inlining chains) is walked iteratively or with a
bounded depth; a walk that still meets Python's recursion limit is reported the same way.

`spend()` bounds the loops that call it. So that a walk which does not (or a quadratic stretch
between two calls) cannot outlive the budget either, a CPU-time timer (SIGPROF) is armed for the
deadline plus a grace of GRACE_SECONDS: if it fires, BudgetExhausted is raised wherever the
analysis is, and again every GRACE_SECONDS until the budget is left. The timer only runs in the
main thread of a process on a system with `setitimer`; elsewhere `spend()` alone bounds the work.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Optional

DEFAULT_SECONDS = 5.0
GRACE_SECONDS = 0.25  # how long past its deadline an analysis that does not call spend() may run

_deadline: Optional[float] = None  # process CPU time at which the current kernel's budget ends
_start = 0.0  # process CPU time at which it began
_clock = time.process_time


class BudgetExhausted(Exception):
    """The current kernel's analysis budget is used up (or its structure is too deep to walk)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_calls = 0
_reads = 0  # clock reads in the current kernel's budget
# what each clock read counts at least: a process's CPU clock may advance only at scheduler ticks
# (milliseconds on some virtual machines), so that a tiny budget would never be seen spent; with
# this a microsecond budget runs out by the eleventh read whatever the clock does, and a kernel's
# 5 s budget loses a few hundredths of a second to it
READ_COST = 1e-7


def spend() -> None:
    """Raise BudgetExhausted when the current kernel has used its budget; otherwise nothing.
    Cheap enough for inner loops: the clock (a system call) is read on a kernel's first 31 calls,
    then every 32nd call."""
    global _calls, _reads
    _calls += 1
    if (_calls & 31 == 0 or _calls < 32) and _deadline is not None:
        _reads += 1
        if max(_clock(), _start + _reads * READ_COST) > _deadline:
            raise BudgetExhausted("the analysis budget ran out")


def remaining() -> Optional[float]:
    """CPU seconds left to the current kernel (None: no budget)."""
    return None if _deadline is None else _deadline - _clock()


def seconds_of(value: Optional[float]) -> float:
    """The budget an option asks for: None is the default, 0 (or less) is no limit."""
    return DEFAULT_SECONDS if value is None else float(value)


def _on_timer(signum, frame) -> None:
    """SIGPROF: the analysis ran past its deadline without stopping at a spend(); stop it here."""
    if _deadline is not None and _clock() > _deadline:
        raise BudgetExhausted("the analysis budget ran out")


def _can_arm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _arm(deadline: Optional[float]) -> None:
    """Set the CPU-time timer to fire GRACE_SECONDS after `deadline` (None: disarm), then every
    GRACE_SECONDS (an exception swallowed on the way out is raised again)."""
    if deadline is None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        return
    # ITIMER_PROF counts user and system time, as process_time() does (ITIMER_VIRTUAL, user time
    # only, fired late where reading the clock is a system call: a second past a 0.3 s budget)
    delay = max(deadline - _clock(), 0.0) + GRACE_SECONDS
    signal.setitimer(signal.ITIMER_PROF, delay, GRACE_SECONDS)


@contextmanager
def kernel_budget(seconds: Optional[float]):
    """Run the analysis of one kernel within `seconds` of CPU time (None: the default; 0: no limit).
    BudgetExhausted is raised in the body once the budget is spent (at a spend(), or by the timer
    GRACE_SECONDS later at the latest)."""
    global _deadline, _calls, _reads, _start
    outer, outer_start, outer_reads = _deadline, _start, _reads
    seconds = seconds_of(seconds)
    _start = _clock()
    _deadline = _start + seconds if seconds and seconds > 0 else None
    # a kernel's first 31 spend() calls read the clock, then every 32nd: a tiny budget stops even a
    # small kernel, and when the clock is read does not depend on the calls the kernels before made
    _calls = _reads = 0
    if outer is not None and (_deadline is None or outer < _deadline):
        _deadline = outer  # a nested budget never outlives the one around it
    timed = _can_arm()
    previous = None
    if timed:
        previous = signal.signal(signal.SIGPROF, _on_timer)
        _arm(_deadline)
    try:
        yield
    finally:
        _deadline, _start, _reads = outer, outer_start, outer_reads
        if timed:
            _arm(outer)
            if outer is None:
                signal.signal(signal.SIGPROF, previous if previous is not None else signal.SIG_DFL)


class PartExhausted(Exception):
    """A part of a kernel's analysis used the share of the budget `part_budget` gave it; the
    kernel's own budget is not spent."""


@contextmanager
def part_budget(seconds: float):
    """Run an optional refinement of a kernel's analysis within `seconds` of its remaining CPU
    budget: past them it raises PartExhausted (the caller keeps its coarser answer), so that the
    refinement cannot spend the budget the kernel's other rules need. With no budget (0: no limit)
    the part runs to its end, as the kernel does."""
    global _deadline
    outer = _deadline
    if outer is None or _clock() + seconds >= outer:
        yield
        return
    _deadline = _clock() + seconds
    try:
        yield
    except BudgetExhausted:
        if _clock() > outer:
            raise
        raise PartExhausted() from None
    finally:
        _deadline = outer


def describe(reason: str, seconds: Optional[float], lost: str = "rules that had not finished were skipped") -> str:
    """The note an incomplete kernel carries; `lost` says what of its results is missing."""
    seconds = seconds_of(seconds)
    if reason == "the analysis budget ran out" and seconds:
        return (f"incomplete: the analysis budget of {seconds:g} s (CPU) for this kernel ran out; {lost} "
                "(raise it with --analysis-budget or `analysis-budget`)")
    return f"incomplete: {reason}; {lost}"
