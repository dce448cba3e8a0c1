"""Running one file's plan (file_plan.py), usually in a worker process: replay its cached result,
or load its module(s) (parse a `.ptx`, compile a `.cu` per architecture), find the kernel launches
in its host code, check it (module_check.py) and store the result as plain data.

Separate from the whole run (api.py), which plans every file and hands the plans out, and from the
checking of a module itself, which knows nothing of files, caches or host code.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from typing import Optional

from .cache_entries import _portable_entry, _replay_cached
from .check_options import SOURCE_SUFFIXES, CheckOptions
from .errors import InputError
from .file_plan import _FilePlan, _trust_sources_of
from .frontend.host_sources import declared_sources, include_dirs_of, launch_sources
from .frontend.ir import Module
from .frontend.parser import parse_ptx, parse_ptx_file, read_ptx_file
from .module_check import _check_ptx_in_parts, check_module
from .places import merge_places, user_path


def _launches_in(sources: list, given: tuple, host, budget: Optional[float] = None,
                 callers_read: Optional[list] = None, for_ptx: bool = False) -> tuple:
    """The kernel launches in the host code of `sources` (after any given already). `host`: the
    include directories and `-D` defines the host code is compiled with ((dirs...), (NAME[=V]...)),
    then the sources' own folders and those above them (host_sources.include_dirs_of).
    Each source is read within the analysis budget (`budget`, as a kernel's): host code too hard to
    read in it gives no launches. A `.cu` whose launches take their shape from a wrapper's
    parameters is read again with the nearby translation units that call the wrapper
    (`_launches_through_callers`); those files are added to `callers_read` (the cache depends on them).
    `for_ptx`: the sources are a `.ptx`'s host code, built with -D options ptxlint does not know
    (an `#ifdef X` around its kernels keeps both branches)."""
    if not sources:
        return given
    from .analysis.budget import BudgetExhausted, kernel_budget
    from .frontend.launches import find_launches

    include_dirs, defines = host
    include_dirs = tuple(dict.fromkeys((*include_dirs, *include_dirs_of(sources))))
    macros = {}
    for d in defines:
        name, _, value = d.partition("=")
        macros[name] = value if _ else "1"
    found = list(given)
    for path in sources:
        try:
            key = (os.path.abspath(path), include_dirs, tuple(sorted(macros.items())), for_ptx)
            own = _unit_launches_kept(key)
            if own is None:
                files: list = []
                with kernel_budget(budget):
                    own = find_launches(path, include_dirs=include_dirs, defines=macros, unknown_switches=for_ptx,
                                        files_read=files)
                _keep_unit_launches(key, files, own)
            own = list(own)
        except (OSError, UnicodeDecodeError, BudgetExhausted, RecursionError):
            continue  # a source that cannot be read gives no launches; the kernel's shape stays unknown
        try:
            with kernel_budget(budget):  # the callers' reading has a budget of its own
                own = _launches_through_callers(path, own, include_dirs, macros, callers_read, for_ptx)
        except (OSError, UnicodeDecodeError, BudgetExhausted, RecursionError):
            pass  # the source's own reading stands
        found.extend(own)
    return _read_in_context(found)


# The launches each translation unit read gives, kept for the rest of the process: the sources of one
# project share their headers, and a run over the project's `.ptx` files reads the same `.cu` for each
# of them (a repository of 35 sources that all include one header: 0.8 s per source, per file).
# Kept with the size and time of every file the reading opened, and used only while they are
# unchanged; at most _UNIT_LAUNCHES_KEPT units (a launch record is a few hundred bytes).
_UNIT_LAUNCHES: dict = {}
_UNIT_LAUNCHES_KEPT = 512


def _stamps(paths: list) -> Optional[tuple]:
    try:
        return tuple((p, st.st_size, st.st_mtime_ns) for p in dict.fromkeys(paths) for st in (os.stat(p),))
    except OSError:
        return None


def _unit_launches_kept(key: tuple) -> Optional[tuple]:
    kept = _UNIT_LAUNCHES.get(key)
    if kept is None:
        return None
    stamps, launches = kept
    if _stamps([p for p, _, _ in stamps]) != stamps:
        del _UNIT_LAUNCHES[key]
        return None
    return launches


def _keep_unit_launches(key: tuple, files: list, launches: list) -> None:
    stamps = _stamps(files)
    if stamps is None:
        return
    if len(_UNIT_LAUNCHES) >= _UNIT_LAUNCHES_KEPT:
        del _UNIT_LAUNCHES[next(iter(_UNIT_LAUNCHES))]
    _UNIT_LAUNCHES[key] = (stamps, tuple(launches))


def _launches_through_callers(path: str, own: list, include_dirs: tuple, macros: dict,
                              callers_read: Optional[list], for_ptx: bool = False) -> list:
    """`own`, the launches of the `.cu` `path`, with those whose block or grid is a parameter of
    their host function (a launch wrapper no call in `path` binds) read again together with the
    nearby translation units that call the wrapper (host_sources.caller_sources): Kaldi's
    `cudaF_scale(dim3 Gr, dim3 Bl, ...)` gets the shapes cu-matrix.cc passes. A statement the
    callers tell more of replaces its reading alone."""
    if not path.endswith(".cu"):
        return own
    # only for a shape not known at all (a grid known to be 1-D with a run-time width gains nothing),
    # and only wrappers nothing in the unit calls (Indigo's `GPUcc(ECLgraph g, ...)`, called from its
    # own main with a struct ptxlint does not bind, is no wrapper of other files)
    wrappers = {w for l in own if l.block is None or l.grid is None for w in l.wrappers}
    if wrappers:
        from .frontend.host_sources import called_names_in

        wrappers -= called_names_in(path)
    if not wrappers:
        return own
    from .frontend.host_sources import caller_sources
    from .frontend.launches.finder import find_launches_with_callers

    callers = caller_sources(path, wrappers)
    if not callers:
        return own
    if callers_read is not None:
        callers_read.extend(callers)
    dirs = tuple(dict.fromkeys((*include_dirs, *include_dirs_of(callers))))
    # the statements whose own reading misses the block or the grid, by their file's full path
    open_statements = {(os.path.abspath(l.path), l.line): l.path for l in own if l.block is None or l.grid is None}
    better = []
    for l in find_launches_with_callers(path, callers, dirs, macros, unknown_switches=for_ptx):
        written = open_statements.get((os.path.abspath(l.path), l.line))
        if written is not None and (l.block is not None or l.grid is not None):
            better.append(replace(l, path=written))
    told = {(l.path, l.line, l.kernel) for l in better}
    kept = [l for l in own if (l.path, l.line, l.kernel) not in told]
    noted: dict = {}  # one launch per statement, kernel and shapes (a header read twice repeats calls)
    for l in better:
        noted.setdefault((l.path, l.line, l.kernel, l.template_args, l.block, l.grid, l.call_arguments),
                         replace(l, assumes=l.assumes or _called_from(callers)))
    return kept + list(noted.values())


def _called_from(callers: list) -> str:
    names = ", ".join(os.path.basename(c) for c in callers[:3]) + (", ..." if len(callers) > 3 else "")
    return f"its wrapper is called only as in {names} (the nearby files that call it)"


def _read_in_context(found: list) -> tuple:
    """The launches, each once: a header read on its own and again through the `.cu` that includes
    it gives its launches twice, and only the `.cu`'s reading sees the constants and macros the
    `.cu` defines before the `#include` (`constexpr int BX` in a config header): where one reading
    of a launch statement knows its block, the readings that do not are dropped."""
    known = {(l.path, l.line, l.kernel) for l in found if l.block is not None}
    kept = [l for l in found if l.block is not None or (l.path, l.line, l.kernel) not in known]
    return tuple(dict.fromkeys(kept))


def with_launches(path: str, module: Module, analysis, host=((), ())):
    """`analysis` plus the launches of `module`'s kernels found in the host code of `path` (a `.cu`)
    or of the user sources its `.file` directives name (a `.ptx`): for the commands that look at one
    module (`accesses`, `kernels`, `launches`) as `check` does."""
    from .gate import trust_checked_path

    trust_checked_path(path)
    return replace(analysis, launches=_launches_in(launch_sources(module.files.values(), path),
                                                   analysis.launches, host, analysis.budget,
                                                   for_ptx=path.endswith(".ptx")))


def load_module(path: str, compile_options=None, jobs: Optional[int] = None,
                cache_dir: Optional[str] = None) -> Module:
    """Parse a `.ptx` file, or compile a `.cu` file with nvcc and parse its PTX (first arch);
    `cache_dir`: where a compile of the same file and options may be kept (compile_cache.py)."""
    return _load_modules(path, compile_options, jobs, cache_dir)[0][1]


def _load_modules(path: str, compile_options=None, jobs: Optional[int] = None,
                  cache_dir: Optional[str] = None) -> list:
    """[(arch or None, Module)]: one module per architecture for `.cu`, one for `.ptx`."""
    if path.endswith(SOURCE_SUFFIXES):
        from .compile_cache import compiled_ptx
        from .frontend.nvcc import CompileOptions

        compiled = compiled_ptx(path, compile_options or CompileOptions(), cache_dir)
        modules = [(c.arch, parse_ptx(c.text, f"{path} ({c.arch} PTX)", jobs=jobs, source_name=c.source_name))
                   for c in compiled]
        for c, (_, m) in zip(compiled, modules):
            m.ptx_text = c.text  # for --level sass: ptxas assembles the PTX nvcc made
        return modules
    return [(None, parse_ptx_file(path, jobs=jobs))]


def _run_plan(plan: _FilePlan) -> dict:
    """Check one file (in a worker process); returns the result as plain data."""
    from .cache import ResultCache, file_digest, make_key

    _trust_sources_of(plan)
    cache = key = None
    if plan.cache_dir:
        digest = file_digest(plan.path)
        if digest is not None:
            cache = ResultCache(plan.cache_dir)
            key = make_key(digest, plan.key_options())
            entry = cache.get(key)
            if entry is not None:
                replayed = _replay_cached(entry, plan)
                if replayed is not None:
                    return replayed
    from .rules.registry import iter_rules

    rules = list(iter_rules(plan.rule_codes))
    incomplete: list = []  # kernels whose analysis stopped early (budget.py)
    try:
        in_parts = None
        not_checked: Counter = Counter()
        not_checked_kernels: dict = {}  # what -> the kernels it was counted in
        host_files = []  # the host code a .ptx's launches were read from (the cache depends on it)
        callers_read: list = []  # other translation units read for the callers of launch wrappers
        if plan.compile is None:
            host_files = declared_sources(read_ptx_file(plan.path), plan.path)
            plan = replace(plan, analysis=replace(plan.analysis, launches=_launches_in(
                host_files, plan.analysis.launches, plan.host, plan.analysis.budget, callers_read, for_ptx=True)))
        if plan.compile is None and plan.analysis.level == "ptx":  # SASS: ptxas takes the whole module
            in_parts = _check_ptx_in_parts(plan.path, rules, plan.analysis, plan.parse_jobs, incomplete,
                                           not_checked_kernels)
        if in_parts is not None:
            modules = []
            found, counts, kernels = in_parts
            found_per_arch = [(None, found)]
            not_checked.update(counts)
        else:
            modules = _load_modules(plan.path, plan.compile, plan.parse_jobs, plan.cache_dir)
            found_per_arch, kernels = [], []
            launches_of: dict = {}  # host sources -> their launches: host code is the same for every arch
            for arch, module in modules:
                analysis = replace(plan.analysis, arch=arch) if arch else plan.analysis
                if arch is not None:  # a .cu: its own host code and its headers
                    sources = tuple(launch_sources(module.files.values(), plan.path))
                    if sources not in launches_of:
                        launches_of[sources] = _launches_in(list(sources), analysis.launches, plan.host,
                                                            analysis.budget, callers_read)
                    analysis = replace(analysis, launches=launches_of[sources])
                found_per_arch.append((arch, check_module(module, CheckOptions(analysis=analysis), rules=rules,
                                                          jobs=plan.parse_jobs, not_checked=not_checked,
                                                          incomplete=incomplete,
                                                          not_checked_kernels=not_checked_kernels)))
                kernels.extend(f.name for f in module.kernels)
        diagnostics = merge_places(found_per_arch, plan.path)
        sources = [plan.path]
        deps = {}
        for arch, module in modules:
            for f in module.files.values():
                if os.path.isfile(f) and not _is_toolkit(f):
                    deps[os.path.abspath(f)] = None  # SYNC reads the branch's source line
                    user = user_path(f, plan.path)
                    if arch is not None and user not in sources:
                        sources.append(user)
        deps.update((os.path.abspath(f), None) for f in (*host_files, *callers_read))
        entry = {
            "path": plan.path,
            "diagnostics": [d.to_dict() for d in diagnostics],
            "errors": [], "sources": sources, "cached": False,
            "not_checked": dict(not_checked), "kernels": sorted(set(kernels)),
            "not_checked_kernels": {what: sorted(set(names)) for what, names in not_checked_kernels.items()},
            "incomplete": [dict(s, path=user_path(s["path"], plan.path)) for s in incomplete],
        }
    except InputError as err:
        return {"path": plan.path, "diagnostics": [], "errors": [err.to_dict()], "sources": [plan.path], "cached": False}
    except Exception as err:  # a bug in ptxlint must not cost the user the other files' results
        message = f"internal error in ptxlint while checking this file ({type(err).__name__}: {err}); please report it"
        return {"path": plan.path, "diagnostics": [], "sources": [plan.path], "cached": False,
                "errors": [InputError(plan.path, message).to_dict()]}
    if cache is not None and not incomplete:  # a run that ran out of time may finish next time
        cache.put(key, _portable_entry(entry, plan, deps))
    return entry


def _is_toolkit(path: str) -> bool:
    from .frontend.sourcemap import is_toolkit_header

    return is_toolkit_header(path)
