"""Entry points: check paths, a file, a PTX string. The CLI is a thin layer over these.

`check_paths` is the whole pipeline of one run: find the files, work out the settings for each
(command line over the nearest config), check them in parallel processes with a results cache,
then apply suppression comments.

The stages live in their own modules, each importing only those below it:
check_options.py (CheckOptions), module_check.py (a parsed module, in forked processes or in parts),
file_plan.py (a file's settings), cache_entries.py (a result as cached), file_check.py (one file's
plan run, host-code launches), results.py (FileResult, suppressions, toolkit findings hidden).
Their names are importable from here as they were before the split.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Iterable, Optional

from .cache_entries import _portable_entry, _replay_cached
from .check_options import HEADER_SUFFIXES, PTX_SUFFIXES, SOURCE_SUFFIXES, CheckOptions
from .errors import InputError
from .file_check import (
    _is_toolkit,
    _launches_in,
    _load_modules,
    _run_plan,
    load_module,
    with_launches,
)
from .file_plan import _FilePlan, _nvcc_identity, _plan, _trust_sources_of
from .frontend.parser import parse_ptx
from .run_files import discover, discover_run, including_sources
from .places import merge_across_inputs
from .module_check import (
    _FORKED,
    PARALLEL_MIN_BYTES,
    PARALLEL_MIN_INSTRUCTIONS,
    _can_fork,
    _check_function,
    _check_function_forked,
    _check_part_forked,
    _check_ptx_in_parts,
    check_module,
)
from .results import (
    FileResult,
    _apply_suppressions,
    _hide_toolkit_findings,
    _result_from_dict,
    _unmatched_block_globs,
)

# ---------------------------------------------------------------------------------------------
# Finding the files: run_files.py (discover, including_sources, discover_run)


def in_shard(path: str, index: int, count: int) -> bool:
    """Is `path` in the `index`-th (1-based) of `count` parts? A stable split: a hash of the path
    relative to its repository, the same on every machine and every run, whatever the working
    directory and whatever else is checked."""
    import hashlib

    from .gate import root_of_checked_path

    relative = os.path.relpath(os.path.abspath(path), root_of_checked_path(path)).replace(os.sep, "/")
    return int(hashlib.sha256(relative.encode()).hexdigest(), 16) % count == index - 1


def check_file(path: str, options: Optional[CheckOptions] = None) -> FileResult:
    """Check one file with the settings its configuration gives it (no cache, no suppressions)."""
    options = options or CheckOptions()
    plan = _plan(path, replace(options, cache_dir=None))
    if isinstance(plan, InputError):
        return FileResult(path, errors=[plan])
    return _result_from_dict(_run_plan(plan))


# ---------------------------------------------------------------------------------------------
# A whole run


def check_paths(paths: Iterable[str], options: Optional[CheckOptions] = None) -> list:
    """Check every file under `paths`; bad files give errors, the others are still checked."""
    from .gate import trust_checked_path

    options = options or CheckOptions()
    paths = list(paths)
    # the boundary of every read (gate.py): the repositories (else directories) of the paths given
    options = replace(options, boundary=options.boundary or tuple(dict.fromkeys(map(trust_checked_path, paths))))
    run = discover_run(paths, options)
    options = replace(options, boundary=tuple(dict.fromkeys(options.boundary + tuple(run.search_roots))))
    files = run.files
    if options.shard is not None:
        files = [f for f in files if in_shard(f, *options.shard)]
    results = [FileResult(e.path, errors=[e]) for e in run.errors]
    plans: list = []
    reported: set = set()
    for f in files:
        plan = _plan(f, options)
        if isinstance(plan, InputError):
            # A bad config is reported once, not once per file it governs.
            if str(plan) not in reported:
                reported.add(str(plan))
                results.append(FileResult(f, errors=[plan]))
            continue
        plans.append(plan)
    plans = _fail_fast_without_nvcc(plans, results)
    for plan in plans:  # in this process too: reports and suppressions read the sources here
        _trust_sources_of(plan)
    checked = _run_all(plans, options.jobs)
    notes = list(run.notes) + [note for plan in plans for note in plan.notes]
    results.extend(checked)
    results.extend(_unmatched_block_globs(options, results))
    _apply_suppressions(results, plans, options)
    if not options.toolkit_headers:
        _hide_toolkit_findings(results)
    notes += _only_in_named_headers(results, run.shown_only_in)
    notes += _included_sources_that_failed(results, options)
    if notes:
        # what the run decided about its inputs: carried by the first result, said once on stderr
        target = results[0] if results else None
        if target is None:
            target = FileResult("<run>")
            results.append(target)
        target.notes = notes + target.notes
    merge_across_inputs(results)
    return results


def _included_sources_that_failed(results: list, options: CheckOptions) -> list:
    """A `.cu` named alone that does not compile may be no translation unit (a unity build's part,
    `#include`d by another `.cu`): say which `.cu` includes it, to check instead."""
    notes = []
    for r in results:
        if not r.path.endswith(SOURCE_SUFFIXES) or not any("does not compile" in e.message for e in r.errors):
            continue
        includers = [i for i in including_sources(r.path, options=options)
                     if os.path.realpath(i) != os.path.realpath(r.path)]
        if includers:
            notes.append(f"{r.path} is #included by {', '.join(includers[:3])}: it may not be a translation unit "
                         "on its own; check the file that includes it (or the whole directory) instead")
    return notes


def _only_in_named_headers(results: list, shown_only_in: dict) -> list:
    """An includer checked only for headers named on the command line reports the findings located
    in those headers, not its own (a pre-commit run passes the changed header: what is new is there).
    Returns the notes that say how many were left out."""
    notes = []
    for r in results:
        headers = shown_only_in.get(os.path.normpath(r.path))
        if headers is None:
            continue
        kept = [d for d in r.diagnostics if os.path.realpath(d.path) in headers]
        left = len(r.diagnostics) - len(kept)
        r.diagnostics = kept
        if left:
            notes.append(f"{r.path}: {left} finding{'s' if left != 1 else ''} located outside the checked "
                         f"header{'s' if len(headers) != 1 else ''} not shown (`ptxlint check {r.path}` shows them)")
    return notes


def _fail_fast_without_nvcc(plans: list, results: list) -> list:
    """With no nvcc, say so once (how to get it), not once per `.cu` file."""
    from .frontend.nvcc import NvccNotFound, find_nvcc

    sources = [p for p in plans if p.compile is not None]
    missing: dict = {}
    for p in sources:
        if p.compile.nvcc not in missing:
            try:
                find_nvcc(p.compile.nvcc)
                missing[p.compile.nvcc] = None
            except NvccNotFound as err:
                missing[p.compile.nvcc] = err
    skipped = [p for p in sources if missing[p.compile.nvcc] is not None]
    if skipped:
        err = missing[skipped[0].compile.nvcc]
        more = f" ({len(skipped)} .cu files not checked)" if len(skipped) > 1 else ""
        results.append(FileResult(skipped[0].path, errors=[InputError(skipped[0].path, err.message + more)]))
    return [p for p in plans if p not in skipped]


def _run_all(plans: list, jobs: Optional[int]) -> list:
    jobs = jobs or os.cpu_count() or 1
    jobs = min(jobs, len(plans))
    if jobs <= 1:
        return [_result_from_dict(_run_plan(p)) for p in plans]
    # One file per task; each worker parses single-threaded so processes do not multiply.
    plans = [replace(p, parse_jobs=1) for p in plans]
    from .workers import exit_with_parent

    with ProcessPoolExecutor(max_workers=jobs, initializer=exit_with_parent, initargs=(os.getpid(),)) as pool:
        return [_result_from_dict(e) for e in pool.map(_run_plan, plans, chunksize=1)]


def check_string(text: str, path: str = "<string>", options: Optional[CheckOptions] = None) -> list:
    """Check PTX text with the options given (no configuration, no suppressions)."""
    return check_module(parse_ptx(text, path), options)


# The entry points, and the stages' names (helpers included) that the commands, tests, bench/ and
# validation/ scripts import from here: they stay importable from ptxlint.api as before the split.
__all__ = [
    "HEADER_SUFFIXES",
    "PARALLEL_MIN_BYTES",
    "PARALLEL_MIN_INSTRUCTIONS",
    "PTX_SUFFIXES",
    "SOURCE_SUFFIXES",
    "_FORKED",
    "CheckOptions",
    "FileResult",
    "_FilePlan",
    "_apply_suppressions",
    "_can_fork",
    "_check_function",
    "_check_function_forked",
    "_check_part_forked",
    "_check_ptx_in_parts",
    "_hide_toolkit_findings",
    "_is_toolkit",
    "_launches_in",
    "_load_modules",
    "_nvcc_identity",
    "_plan",
    "_portable_entry",
    "_replay_cached",
    "_result_from_dict",
    "_run_plan",
    "_trust_sources_of",
    "_unmatched_block_globs",
    "check_file",
    "check_module",
    "check_paths",
    "check_string",
    "discover",
    "discover_run",
    "in_shard",
    "including_sources",
    "load_module",
    "with_launches",
]
