"""Checking a parsed module: each function with a body under the selected rules (kernel_check.py),
in forked processes when the module is large, and a large PTX file parsed and checked in parts.

Separate from planning and caching (file_plan.py, file_check.py): this is the part that decides how
the work is spread over processes, and it sees only a module (or a PTX file's text) and rules.
"""

from __future__ import annotations

import gc
import os
from collections import Counter
from typing import Optional

from .check_options import PTX_SUFFIXES, CheckOptions
from .diagnostics import Diagnostic
from .errors import InputError
from .frontend.ir import Module
from .frontend.parser import parse_ptx, read_ptx_file
from .workers import exit_with_parent

# Below this many instructions a module is analysed in this process: forking costs more.
PARALLEL_MIN_INSTRUCTIONS = 20_000
_FORKED: dict = {}  # what forked workers analyse: set before the pool forks, read in the children


def _check_function(module: Module, index: int, rules: list, analysis):
    """The findings of `rules` on one function under its block shapes (kernel_check.py), what they
    could not check, and None or a record saying why its analysis stopped early (budget.py)."""
    from .kernel_check import check_kernel

    return check_kernel(module, module.functions[index], rules, analysis)


def _check_function_forked(index: int):
    return _check_function(_FORKED["module"], index, _FORKED["rules"], _FORKED["analysis"])


def check_module(module: Module, options: Optional[CheckOptions] = None, rules: Optional[list] = None,
                 jobs: Optional[int] = 1, only: Optional[set] = None, not_checked: Optional[Counter] = None,
                 incomplete: Optional[list] = None, not_checked_kernels: Optional[dict] = None) -> list:
    """Run the selected rules on every function with a body (or those named in `only`); return
    sorted diagnostics. What the rules could not check is added to `not_checked` when given; a
    function whose analysis stopped early (its budget ran out) is appended to `incomplete` as a dict
    (path, kernel, line, reason, skipped_rules) when a list is given. `not_checked_kernels`, when
    given, gets the names of the kernels each not-checked item was counted in (what -> [names]).

    With `jobs` > 1 (None: one per CPU) a large module's functions are analysed in forked
    processes, which inherit the parsed module instead of receiving a copy."""
    from .rules.registry import resolve_selection

    options = options or CheckOptions()
    if rules is None:
        rules = resolve_selection(options.select, options.ignore)
    indices = [i for i, f in enumerate(module.functions) if f.has_body and (only is None or f.name in only)]
    jobs = jobs or os.cpu_count() or 1
    size = sum(len(module.functions[i].instructions) for i in indices)
    diagnostics: list = []
    counts = not_checked if not_checked is not None else Counter()
    if jobs > 1 and len(indices) > 1 and size >= PARALLEL_MIN_INSTRUCTIONS and _can_fork():
        import multiprocessing

        # largest functions first, handed out one at a time, so the workers finish together
        indices.sort(key=lambda i: -len(module.functions[i].instructions))
        _FORKED.update(module=module, rules=rules, analysis=options.analysis)
        try:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(indices)), exit_with_parent,
                                                          (os.getpid(),)) as pool:
                results = list(pool.imap_unordered(_check_function_forked, indices, chunksize=1))
        finally:
            _FORKED.clear()
    else:
        results = [_check_function(module, i, rules, options.analysis) for i in indices]
    for found in results:
        diagnostics.extend(found.diagnostics)
        counts.update(found.not_checked)
        if not_checked_kernels is not None:
            for what, n in found.not_checked.items():
                if n and found.kernel and found.kernel not in not_checked_kernels.setdefault(what, []):
                    not_checked_kernels[what].append(found.kernel)
        if found.incomplete is not None and incomplete is not None:
            incomplete.append(found.incomplete)
    return sorted(diagnostics, key=Diagnostic.sort_key)


# From this size on, a PTX file is parsed in parts too, each part in the process that checks it
# (about PARALLEL_MIN_INSTRUCTIONS instructions of nvcc's PTX).
PARALLEL_MIN_BYTES = 2_000_000


def _check_ptx_in_parts(path: str, rules: list, analysis, jobs: Optional[int],
                        incomplete: Optional[list] = None, not_checked_kernels: Optional[dict] = None) -> Optional[tuple]:
    """(sorted diagnostics, not-checked counts, kernel names) of a large PTX file parsed and
    checked in parts (frontend/split.py) by forked workers, so that the parse runs in parallel as
    well. None when the file is not worth it or does not split cleanly (one that does not parse,
    say): the caller then parses it whole, and reports its errors."""
    import multiprocessing

    from .frontend.split import outline, scheduled_parts

    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or not path.endswith(PTX_SUFFIXES) or not _can_fork():
        return None
    try:
        if os.path.getsize(path) < PARALLEL_MIN_BYTES:
            return None
        text = read_ptx_file(path)
    except (OSError, InputError):
        return None
    layout = outline(text)
    if layout is None or len(layout.functions) < 2:
        return None
    parts = scheduled_parts(layout.functions, jobs)
    tasks = [(functions, k == 0) for k, functions in enumerate(parts)]  # the first one parses the sections
    _FORKED.update(text=text, path=path, layout=layout, rules=rules, analysis=analysis)
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks)), exit_with_parent,
                                                      (os.getpid(),)) as pool:
            found = list(pool.imap_unordered(_check_part_forked, tasks, chunksize=1))
    finally:
        _FORKED.clear()
    if any(f is None for f in found):
        return None
    not_checked: Counter = Counter()
    for f in found:
        not_checked.update(f[1])
    if incomplete is not None:
        incomplete.extend(stopped for f in found for stopped in f[3])
    if not_checked_kernels is not None:
        for f in found:
            for what, names in f[4].items():
                not_checked_kernels.setdefault(what, []).extend(names)
    return (sorted((d for f in found for d in f[0]), key=Diagnostic.sort_key), not_checked,
            [name for f in found for name in f[2]])


def _check_part_forked(task: tuple) -> Optional[tuple]:
    from .frontend.split import part_text

    functions, with_sections = task
    layout = _FORKED["layout"]
    # device functions come along as context (a rule may look into a callee: `__syncwarp()` is a
    # call under -G), but only this part's own functions are checked
    kept = functions | layout.device_functions
    # A worker lives for this run only and its garbage is almost all freed by reference counting
    # (see gc_pause.py): collecting cycles would only rescan the parsed parts, so do not.
    gc.disable()
    try:
        module = parse_ptx(part_text(_FORKED["text"], layout, kept, with_sections), _FORKED["path"])
    except InputError:
        return None
    defined = [f for f in module.functions if f.has_body]
    if len(defined) != len(kept) or len(module.sections) != (len(layout.sections) if with_sections else 0):
        return None  # the scan and the grammar disagree on where functions or sections are
    own = {f.name for k, f in zip(sorted(kept), defined) if k in functions}
    not_checked: Counter = Counter()
    stopped: list = []
    kernels_of: dict = {}
    found = check_module(module, CheckOptions(analysis=_FORKED["analysis"]), rules=_FORKED["rules"], jobs=1,
                         only=own, not_checked=not_checked, incomplete=stopped, not_checked_kernels=kernels_of)
    return found, not_checked, [f.name for f in defined if f.is_kernel and f.name in own], stopped, kernels_of


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and not multiprocessing.current_process().daemon
