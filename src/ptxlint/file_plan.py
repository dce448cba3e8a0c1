"""A file's plan: the settings it is checked with (the command line merged over its nearest
configuration), as one picklable value a worker process receives and the results cache keys on.

Separate from running the plan (file_check.py): what a file is checked with is decided here, once,
in the main process; how it is checked does not change it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Optional

from .analysis.context import AnalysisOptions
from .check_options import SOURCE_SUFFIXES, CheckOptions
from .errors import InputError


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
    boundary: tuple = ()  # the directories files may be read from (gate.py)
    # what the run should tell the user about these settings (flags borrowed from another file's
    # compile_commands.json entry); not part of the cache key
    notes: tuple = ()

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
    """Merge the command line over the user's configuration and the file's repository
    configuration. Returns a _FilePlan or InputError."""
    from .config import DEFAULT, config_for, named_config, user_config
    from .frontend.nvcc import DEFAULT_ARCH, CompileOptions, include_dirs_of
    from .gate import root_of_checked_path
    from .rules.registry import resolve_selection

    try:
        user = user_config() if options.use_config else DEFAULT
        trusted = options.trust_config or user.trust_repository_config
        if options.config_path:
            config = named_config(options.config_path, trusted)
        else:
            config = config_for(path, trusted) if options.use_config else DEFAULT
        build_flags, notes = _build_flags(path, options, trusted)
    except InputError as err:
        return err
    select = options.select or list(config.select or user.select or [])
    ignore = list(user.ignore) + list(config.ignore) + list(options.ignore) + list(config.ignores_for(path))
    origin = os.path.relpath(config.path) if config.path else "<command line>"
    try:
        rules = resolve_selection(select, ignore, origin=origin)
    except InputError as err:
        return err
    blocks = list(options.analysis.block_overrides) + list(config.blocks) + list(user.blocks)
    arches = list(options.arches) or list(config.arches or user.arches or [])
    pinned_arch = options.analysis.arch or (arches[0] if arches else None)
    budget = options.analysis.budget
    for source in (config, user):
        budget = source.analysis_budget if budget is None else budget
    analysis = replace(options.analysis, block_overrides=blocks, arch=pinned_arch, budget=budget,
                       toolkit_kernels=options.toolkit_headers)
    include_dirs = tuple(user.include_dirs) + tuple(config.include_dirs)
    defines = tuple(user.defines) + tuple(config.defines)
    extra = tuple(user.nvcc_args) + tuple(config.nvcc_args) + build_flags + tuple(options.nvcc_args)
    compile_options = None
    if path.endswith(SOURCE_SUFFIXES):
        compile_options = CompileOptions(
            nvcc=options.nvcc or user.nvcc or config.nvcc,
            arches=tuple(arches or [options.analysis.arch or DEFAULT_ARCH]),
            include_dirs=include_dirs,
            defines=defines,
            extra_args=extra,
        )
    host = (include_dirs + tuple(include_dirs_of(extra)),
            defines + tuple(a[2:] for a in extra if a.startswith("-D") and len(a) > 2))
    # Files may be read from the checked paths' repositories and the include directories the user
    # named (command line, user configuration), not from those a repository's configuration names.
    boundary = tuple(options.boundary) or (root_of_checked_path(path),)
    boundary += tuple(user.include_dirs) + tuple(include_dirs_of(tuple(user.nvcc_args) + tuple(options.nvcc_args)))
    # `-j 1` is one process also for a single large file (parsed and checked in forked parts otherwise)
    parse_jobs = 1 if options.jobs == 1 else None
    return _FilePlan(path, tuple(r.code for r in rules), analysis, compile_options, options.cache_dir, parse_jobs, host,
                     boundary, notes)


def _build_flags(path: str, options: CheckOptions, trusted: bool) -> tuple:
    """((nvcc flags), (notes)): the flags `path` (a `.cu`) is built with according to the
    compilation database (-p), kept to those that shape the compilation; the database is the
    repository's, so beyond those it is trusted only like its configuration."""
    if not options.compile_commands or not path.endswith(SOURCE_SUFFIXES):
        return (), ()
    from .compile_commands import load_database
    from .config import untrusted_nvcc_arg

    database = load_database(options.compile_commands)
    flags, how = database.flags_for(path)
    refused = None if trusted else untrusted_nvcc_arg(flags)
    if refused is not None:
        raise InputError(path, f"{os.path.relpath(database.path)} gives nvcc {refused!r} for this file, beyond the "
                               "options a repository may give (-std, -D, -I, ...); pass --trust-config if you "
                               "trust this repository")
    return flags, ((f"{path}: {how}",) if how else ())


def _trust_sources_of(plan: _FilePlan) -> None:
    """Let sources be read from the plan's boundary (the checked paths' repositories and the
    include directories the user named) and from nowhere else a PTX file's `.file`, an `#include`
    or a config may name (gate.py)."""
    from .gate import set_boundary

    set_boundary(plan.boundary)
