"""Entry points: check paths, a file, a PTX string. The CLI is a thin layer over these.

`check_paths` is the whole pipeline of one run: find the files, work out the settings for each
(command line over the nearest config), check them in parallel processes with a results cache,
then apply suppression comments.
"""

from __future__ import annotations

import gc
import os
import re
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional

from .analysis.context import AnalysisOptions
from .diagnostics import Diagnostic
from .errors import InputError
from .frontend.ir import Module
from .frontend.parser import parse_ptx, parse_ptx_file, read_ptx_file
from .frontend.host_sources import declared_sources, launch_sources
from .places import merge_places, user_path

PTX_SUFFIXES = (".ptx",)
SOURCE_SUFFIXES = (".cu",)
HEADER_SUFFIXES = (".cuh",)

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)


@dataclass
class CheckOptions:
    """Options of one `ptxlint check` run. Empty/None fields defer to the configuration."""

    select: list = field(default_factory=list)
    ignore: list = field(default_factory=list)
    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)
    arches: list = field(default_factory=list)  # for .cu files; several = compile for each
    nvcc: Optional[str] = None
    nvcc_args: list = field(default_factory=list)
    use_config: bool = True
    cache_dir: Optional[str] = None  # None = no cache
    jobs: Optional[int] = None  # None = one per CPU
    report_unused_suppressions: bool = False
    toolkit_headers: bool = False  # report findings located in CUDA toolkit headers too


@dataclass
class FileResult:
    path: str
    diagnostics: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # InputError
    sources: list = field(default_factory=list)  # user files the findings may point into
    cached: bool = False
    hidden_in_toolkit: int = 0  # findings located in CUDA toolkit headers, left out of `diagnostics`
    not_checked: dict = field(default_factory=dict)  # what the rules could not check -> how many
    kernels: list = field(default_factory=list)  # mangled names of the kernels checked
    incomplete: list = field(default_factory=list)  # kernels whose analysis stopped early (budget.py)


# ---------------------------------------------------------------------------------------------
# Finding the files


def discover(paths: Iterable[str]) -> tuple:
    """Expand directories into the PTX and .cu files under them; a `.cuh` header named directly
    stands for the `.cu` files that include it. Returns (files, errors)."""
    files: list = []
    errors: list = []
    for path in paths:
        if os.path.isdir(path):
            found = []
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.endswith(PTX_SUFFIXES + SOURCE_SUFFIXES):
                        found.append(os.path.join(root, name))
            if not found:
                errors.append(InputError(path, "directory holds no .ptx or .cu files"))
            files.extend(found)
        elif not os.path.exists(path):
            errors.append(InputError(path, "no such file or directory"))
        elif path.endswith(HEADER_SUFFIXES):
            files.extend(including_sources(path))
        else:
            files.append(path)
    unique = list(dict.fromkeys(os.path.normpath(f) for f in files))
    return unique, errors


def including_sources(header: str, search_root: Optional[str] = None) -> list:
    """The `.cu` files under `search_root` (default: the working directory) that `#include` a
    header with this file name. Headers are checked through them: nvcc needs a translation unit."""
    base = os.path.basename(header)
    root = search_root or os.getcwd()
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("build", "node_modules"))
        for name in sorted(names):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            if any(os.path.basename(inc) == base for inc in _INCLUDE.findall(text)):
                out.append(os.path.relpath(path) if not os.path.isabs(header) else path)
    return out


# ---------------------------------------------------------------------------------------------
# One file


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
                 incomplete: Optional[list] = None) -> list:
    """Run the selected rules on every function with a body (or those named in `only`); return
    sorted diagnostics. What the rules could not check is added to `not_checked` when given; a
    function whose analysis stopped early (its budget ran out) is appended to `incomplete` as a dict
    (path, kernel, line, reason, skipped_rules) when a list is given.

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
            with multiprocessing.get_context("fork").Pool(min(jobs, len(indices))) as pool:
                results = list(pool.imap_unordered(_check_function_forked, indices, chunksize=1))
        finally:
            _FORKED.clear()
    else:
        results = [_check_function(module, i, rules, options.analysis) for i in indices]
    for found in results:
        diagnostics.extend(found.diagnostics)
        counts.update(found.not_checked)
        if found.incomplete is not None and incomplete is not None:
            incomplete.append(found.incomplete)
    return sorted(diagnostics, key=Diagnostic.sort_key)


# From this size on, a PTX file is parsed in parts too, each part in the process that checks it
# (about PARALLEL_MIN_INSTRUCTIONS instructions of nvcc's PTX).
PARALLEL_MIN_BYTES = 2_000_000


def _check_ptx_in_parts(path: str, rules: list, analysis, jobs: Optional[int],
                        incomplete: Optional[list] = None) -> Optional[tuple]:
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
        with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks))) as pool:
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
    found = check_module(module, CheckOptions(analysis=_FORKED["analysis"]), rules=_FORKED["rules"], jobs=1,
                         only=own, not_checked=not_checked, incomplete=stopped)
    return found, not_checked, [f.name for f in defined if f.is_kernel and f.name in own], stopped


def _launches_in(sources: list, given: tuple, host) -> tuple:
    """The kernel launches in the host code of `sources` (after any given already). `host`: the
    include directories and `-D` defines the host code is compiled with ((dirs...), (NAME[=V]...))."""
    if not sources:
        return given
    from .frontend.launches import find_launches

    include_dirs, defines = host
    macros = {}
    for d in defines:
        name, _, value = d.partition("=")
        macros[name] = value if _ else "1"
    found = list(given)
    for path in sources:
        try:
            found.extend(find_launches(path, include_dirs=include_dirs, defines=macros))
        except (OSError, UnicodeDecodeError):
            continue  # a source that cannot be read gives no launches; the kernel's shape stays unknown
    return tuple(found)


def with_launches(path: str, module: Module, analysis, host=((), ())):
    """`analysis` plus the launches of `module`'s kernels found in the host code of `path` (a `.cu`)
    or of the user sources its `.file` directives name (a `.ptx`): for the commands that look at one
    module (`accesses`, `kernels`, `launches`) as `check` does."""
    from .frontend.sourcefiles import trust_tree_of

    trust_tree_of(path, host[0])
    return replace(analysis, launches=_launches_in(launch_sources(module.files.values(), path),
                                                   analysis.launches, host))


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and not multiprocessing.current_process().daemon


def load_module(path: str, compile_options=None, jobs: Optional[int] = None) -> Module:
    """Parse a `.ptx` file, or compile a `.cu` file with nvcc and parse its PTX (first arch)."""
    return _load_modules(path, compile_options, jobs)[0][1]


def _load_modules(path: str, compile_options=None, jobs: Optional[int] = None) -> list:
    """[(arch or None, Module)]: one module per architecture for `.cu`, one for `.ptx`."""
    if path.endswith(SOURCE_SUFFIXES):
        from .frontend.nvcc import CompileOptions, compile_to_ptx

        compiled = compile_to_ptx(path, compile_options or CompileOptions())
        modules = [(c.arch, parse_ptx(c.text, f"{path} ({c.arch} PTX)", jobs=jobs)) for c in compiled]
        for c, (_, m) in zip(compiled, modules):
            m.ptx_text = c.text  # for --level sass: ptxas assembles the PTX nvcc made
        return modules
    return [(None, parse_ptx_file(path, jobs=jobs))]


def check_file(path: str, options: Optional[CheckOptions] = None) -> FileResult:
    """Check one file with the settings its configuration gives it (no cache, no suppressions)."""
    options = options or CheckOptions()
    plan = _plan(path, replace(options, cache_dir=None))
    if isinstance(plan, InputError):
        return FileResult(path, errors=[plan])
    return _result_from_dict(_run_plan(plan))


@dataclass(frozen=True)
class _FilePlan:
    """Everything a worker process needs to check one file; also the cache key's options."""

    path: str
    rule_codes: tuple
    analysis: AnalysisOptions
    compile: object  # CompileOptions for .cu, None for .ptx
    cache_dir: Optional[str]
    parse_jobs: Optional[int]
    host: tuple = ((), ())  # (include dirs, defines) the host code that launches the kernels sees

    def key_options(self) -> dict:
        a = self.analysis
        return {"rules": self.rule_codes, "blocks": [list(map(str, b)) for b in a.block_overrides],
                "arch": a.arch, "compile": repr(self.compile), "nvcc": _nvcc_identity(self.compile),
                "host": repr(self.host), **({"level": a.level} if a.level != "ptx" else {}),
                **({} if a.toolkit_kernels else {"toolkit_kernels": False})}


def _nvcc_identity(compile_options) -> Optional[str]:
    if compile_options is None:
        return None
    from .frontend.nvcc import find_nvcc

    try:
        nvcc = os.path.realpath(find_nvcc(compile_options.nvcc))
        st = os.stat(nvcc)
        return f"{nvcc}:{st.st_size}:{st.st_mtime_ns}"
    except (InputError, OSError):
        return None


def _plan(path: str, options: CheckOptions):
    """Merge the command line over the file's configuration. Returns a _FilePlan or InputError."""
    from .config import DEFAULT, config_for
    from .frontend.nvcc import DEFAULT_ARCH, CompileOptions
    from .rules.registry import resolve_selection

    try:
        config = config_for(path) if options.use_config else DEFAULT
    except InputError as err:
        return err
    select = options.select or list(config.select or [])
    ignore = list(config.ignore) + list(options.ignore) + list(config.ignores_for(path))
    origin = os.path.relpath(config.path) if config.path else "<command line>"
    try:
        rules = resolve_selection(select, ignore, origin=origin)
    except InputError as err:
        return err
    blocks = list(options.analysis.block_overrides) + list(config.blocks)
    arches = list(options.arches) or list(config.arches or [])
    pinned_arch = options.analysis.arch or (arches[0] if arches else None)
    budget = options.analysis.budget if options.analysis.budget is not None else config.analysis_budget
    analysis = replace(options.analysis, block_overrides=blocks, arch=pinned_arch, budget=budget,
                       toolkit_kernels=options.toolkit_headers)
    compile_options = None
    if path.endswith(SOURCE_SUFFIXES):
        compile_options = CompileOptions(
            nvcc=options.nvcc or config.nvcc,
            arches=tuple(arches or [options.analysis.arch or DEFAULT_ARCH]),
            include_dirs=config.include_dirs,
            defines=config.defines,
            extra_args=tuple(config.nvcc_args) + tuple(options.nvcc_args),
        )
    extra = tuple(config.nvcc_args) + tuple(options.nvcc_args)
    host = (tuple(config.include_dirs) + tuple(a[2:] for a in extra if a.startswith("-I") and len(a) > 2),
            tuple(config.defines) + tuple(a[2:] for a in extra if a.startswith("-D") and len(a) > 2))
    return _FilePlan(path, tuple(r.code for r in rules), analysis, compile_options, options.cache_dir, None, host)


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
        host_files = []  # the host code a .ptx's launches were read from (the cache depends on it)
        if plan.compile is None:
            host_files = declared_sources(read_ptx_file(plan.path), plan.path)
            plan = replace(plan, analysis=replace(plan.analysis, launches=_launches_in(
                host_files, plan.analysis.launches, plan.host)))
        if plan.compile is None and plan.analysis.level == "ptx":  # SASS: ptxas takes the whole module
            in_parts = _check_ptx_in_parts(plan.path, rules, plan.analysis, plan.parse_jobs, incomplete)
        if in_parts is not None:
            modules = []
            found, counts, kernels = in_parts
            found_per_arch = [(None, found)]
            not_checked.update(counts)
        else:
            modules = _load_modules(plan.path, plan.compile, plan.parse_jobs)
            found_per_arch, kernels = [], []
            launches_of: dict = {}  # host sources -> their launches: host code is the same for every arch
            for arch, module in modules:
                analysis = replace(plan.analysis, arch=arch) if arch else plan.analysis
                if arch is not None:  # a .cu: its own host code and its headers
                    sources = tuple(launch_sources(module.files.values(), plan.path))
                    if sources not in launches_of:
                        launches_of[sources] = _launches_in(list(sources), analysis.launches, plan.host)
                    analysis = replace(analysis, launches=launches_of[sources])
                found_per_arch.append((arch, check_module(module, CheckOptions(analysis=analysis), rules=rules,
                                                          jobs=plan.parse_jobs, not_checked=not_checked,
                                                          incomplete=incomplete)))
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
        deps.update((os.path.abspath(f), None) for f in host_files)
        entry = {
            "path": plan.path,
            "diagnostics": [d.to_dict() for d in diagnostics],
            "errors": [], "sources": sources, "cached": False,
            "not_checked": dict(not_checked), "kernels": sorted(set(kernels)),
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


def _portable_entry(entry: dict, plan: _FilePlan, deps: dict) -> dict:
    """`entry` as cached: every path relative to the checked file (cache.portable_path), with the
    digests of the sources it depends on and, for PTX, the `.file` table as resolved here."""
    from .cache import portable_path, safe_digest, source_files

    def portable(p):
        return portable_path(p, plan.path)

    stored = dict(entry, path=None, cached=False, incomplete=[])
    stored["diagnostics"] = [dict(d, path=portable(d["path"]), ptx_path=portable(d.get("ptx_path")))
                             for d in entry["diagnostics"]]
    stored["sources"] = [portable(p) for p in entry["sources"]]
    checked = os.path.abspath(plan.path)
    stored["deps"] = {portable(dep): safe_digest(dep) for dep in deps if dep != checked}
    if plan.compile is None:
        stored["files"] = source_files(plan.path)
    return stored


def _replay_cached(stored: dict, plan: _FilePlan) -> Optional[dict]:
    """A cached entry for the file checked now, under its current path; None when it does not
    apply here (a source it depends on differs, or the PTX's `.file` sources resolve elsewhere)."""
    from .cache import local_path, safe_digest, source_files

    def local(p):
        return local_path(p, plan.path)

    for dep, digest in stored.get("deps", {}).items():
        if safe_digest(local(dep)) != digest:
            return None
    if plan.compile is None and stored.get("files") != source_files(plan.path):
        return None

    def shown(p):
        p = local(p)
        return user_path(p, plan.path) if p is not None and os.path.isabs(p) else p

    entry = dict(stored, path=plan.path, cached=True, incomplete=[])
    entry.pop("deps", None)
    entry.pop("files", None)
    entry["diagnostics"] = [dict(d, path=shown(d["path"]), ptx_path=shown(d.get("ptx_path")))
                            for d in stored["diagnostics"]]
    entry["sources"] = [shown(p) for p in stored["sources"]]
    return entry


def _trust_sources_of(plan: _FilePlan) -> None:
    """Let snippets and suppressions be read from the checked file's tree and its include
    directories, and from nowhere else a PTX file's `.file` may name (frontend/sourcefiles.py)."""
    from .frontend.sourcefiles import include_dirs_of, trust_tree_of

    includes = []
    if plan.compile is not None:
        includes = list(plan.compile.include_dirs) + include_dirs_of(plan.compile.extra_args)
    trust_tree_of(plan.path, includes)


def _is_toolkit(path: str) -> bool:
    from .frontend.sourcemap import is_toolkit_header

    return is_toolkit_header(path)


def _result_from_dict(entry: dict) -> FileResult:
    return FileResult(
        path=entry["path"],
        diagnostics=[Diagnostic(**d) for d in entry["diagnostics"]],
        errors=[InputError(e["path"], e["message"], e.get("line"), e.get("column")) for e in entry["errors"]],
        sources=list(entry.get("sources", [])),
        cached=bool(entry.get("cached")),
        not_checked=dict(entry.get("not_checked", {})),
        kernels=list(entry.get("kernels", [])),
        incomplete=list(entry.get("incomplete", [])),
    )


# ---------------------------------------------------------------------------------------------
# A whole run


def check_paths(paths: Iterable[str], options: Optional[CheckOptions] = None) -> list:
    """Check every file under `paths`; bad files give errors, the others are still checked."""
    options = options or CheckOptions()
    files, errors = discover(paths)
    results = [FileResult(e.path, errors=[e]) for e in errors]
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
    results.extend(_run_all(plans, options.jobs))
    results.extend(_unmatched_block_globs(options, results))
    _apply_suppressions(results, plans, options)
    if not options.toolkit_headers:
        _hide_toolkit_findings(results)
    return results


def _unmatched_block_globs(options: CheckOptions, results: list) -> list:
    """A `--block KERNEL=...` whose glob names no kernel of the run is a mistake (a typo, a renamed
    kernel): say so rather than silently analyse with another shape."""
    from .analysis.launch import name_matches

    checked = [(r.path, k) for r in results if not r.errors for k in r.kernels]
    if not checked:
        return []
    out = []
    for glob, dims, origin in options.analysis.block_overrides:
        if glob is not None and origin.startswith("command line") and not any(name_matches(k, glob) for _, k in checked):
            out.append(FileResult("<command line>", errors=[InputError(
                "<command line>", f"--block {glob}={'x'.join(map(str, dims))} matches no kernel of the checked "
                f"files; kernels: {', '.join(sorted({k for _, k in checked})[:8])}")]))
    return out


def _hide_toolkit_findings(results: list) -> None:
    """Findings inside CUB, Thrust or libcu++ (a kernel instantiated from a toolkit template) are
    not the user's to fix: like system-header warnings in a C++ linter, they are counted, not shown."""
    for r in results:
        kept = [d for d in r.diagnostics if not _is_toolkit(d.path)]
        r.hidden_in_toolkit = len(r.diagnostics) - len(kept)
        r.diagnostics = kept


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
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [_result_from_dict(e) for e in pool.map(_run_plan, plans, chunksize=1)]


def _apply_suppressions(results: list, plans: list, options: CheckOptions) -> None:
    from .suppressions import SuppressionIndex, read_lines

    index = SuppressionIndex(read_lines)
    for r in results:
        r.diagnostics = [d for d in r.diagnostics if index.suppressing(d) is None]
    if not options.report_unused_suppressions:
        return
    selected: set = set()
    for p in plans:
        selected.update(p.rule_codes)
    for r in results:
        for source in r.sources:
            index.for_path(source)
    unused = index.unused(selected)
    by_path = {r.path: r for r in results}
    for d in unused:
        target = by_path.get(d.path) or next((r for r in results if d.path in r.sources), None)
        if target is None:
            target = FileResult(d.path)
            results.append(target)
            by_path[d.path] = target
        target.diagnostics.append(d)
    for r in results:
        r.diagnostics.sort(key=Diagnostic.sort_key)


def check_string(text: str, path: str = "<string>", options: Optional[CheckOptions] = None) -> list:
    """Check PTX text with the options given (no configuration, no suppressions)."""
    return check_module(parse_ptx(text, path), options)
