"""Which files a run checks, and through what: directories expand to their `.cu` and `.ptx` files;
a header (`.cuh`) stands for the `.cu` files that `#include` it; a `.cu` that another checked `.cu`
`#include`s is not a translation unit and is checked through its includer.

nvcc needs a translation unit, so a header is compiled through its includers. Includers are found
in the header's project, whatever the working directory: its repository, else the nearest directory
above it with a `.ptxlint.toml` or `pyproject.toml`, else its own directory; and among the translation units of
the compilation database (-p). An `#include` names the header when it resolves to it, the way the
compiler resolves it (the includer's directory for `"..."`, then its include directories); an
`#include` that resolves nowhere here (its flags are missing) names the header when the header's
path ends with it. Only the findings located in the named header are reported for it: a pre-commit
run that passes a changed header reports what is in that header, not every old finding of its
includers (their count is given in a note).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .check_options import HEADER_SUFFIXES, PTX_SUFFIXES, SOURCE_SUFFIXES, CheckOptions
from .errors import InputError

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
_SKIPPED_DIRS = ("build", "node_modules")


@dataclass
class RunFiles:
    """The files of a run and what the run should say about how they were chosen."""

    files: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # InputError
    notes: list = field(default_factory=list)  # sentences for the user (stderr)
    # an includer checked only for headers named on the command line -> the real paths of those
    # headers: its findings located elsewhere are not reported
    shown_only_in: dict = field(default_factory=dict)
    search_roots: list = field(default_factory=list)  # where includers were looked for (the boundary)


def discover(paths: Iterable[str]) -> tuple:
    """Expand directories into the PTX and .cu files under them; a `.cuh` header named directly
    stands for the `.cu` files that include it. Returns (files, errors)."""
    found = discover_run(paths)
    return found.files, found.errors


def discover_run(paths: Iterable[str], options: Optional[CheckOptions] = None) -> RunFiles:
    """The files `paths` stand for (see the module docstring), with the settings of `options` (the
    include directories and compilation database that resolve `#include`s)."""
    options = options or CheckOptions()
    run = RunFiles()
    named: list = []  # files named or found under a named directory, in order
    headers: list = []
    for path in paths:
        if os.path.isdir(path):
            found = []
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.endswith(PTX_SUFFIXES + SOURCE_SUFFIXES):
                        found.append(os.path.join(root, name))
            if not found:
                run.errors.append(InputError(path, "directory holds no .ptx or .cu files"))
            named.extend(found)
        elif not os.path.exists(path):
            run.errors.append(InputError(path, "no such file or directory"))
        elif path.endswith(HEADER_SUFFIXES):
            headers.append(path)
        else:
            named.append(path)
    named = list(dict.fromkeys(os.path.normpath(f) for f in named))
    named = _translation_units(named, options, run.notes)
    run.files = list(named)
    named_real = {os.path.realpath(f) for f in named}
    for header in headers:
        run.search_roots.append(header_search_root(header))
        includers = including_sources(header, options=options)
        if not includers:
            run.notes.append(f"{header}: no .cu under {_shown(header_search_root(header))} includes this header"
                             + (" and no entry of the compilation database does" if options.compile_commands else "")
                             + ": not checked")
            continue
        run.notes.append(f"{header}: checked through {', '.join(includers[:5])}"
                         + (f" and {len(includers) - 5} more" if len(includers) > 5 else ""))
        for includer in includers:
            includer = os.path.normpath(includer)
            if os.path.realpath(includer) in named_real:
                continue  # named itself: all its findings are reported
            run.shown_only_in.setdefault(includer, set()).add(os.path.realpath(header))
            if includer not in run.files:
                run.files.append(includer)
    return run


def header_search_root(header: str) -> str:
    """Where the includers of `header` are looked for: its repository, else the directory of the
    nearest ptxlint configuration above it, else its own directory (never the working directory)."""
    from .config import CONFIG_FILES
    from .gate import repository_root

    folder = os.path.dirname(os.path.abspath(header))
    repository = repository_root(folder)
    if repository:
        return repository
    current = folder
    while True:  # no repository: the project is where its configuration file is (not read here)
        if any(os.path.isfile(os.path.join(current, name)) for name in CONFIG_FILES):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return folder
        current = parent


def including_sources(header: str, search_root: Optional[str] = None, options: Optional[CheckOptions] = None) -> list:
    """The `.cu` files under `search_root` (default: header_search_root) and the translation units
    of the compilation database that `#include` `header` (see the module docstring). Headers are
    checked through them: nvcc needs a translation unit. Files are read through the gate (regular
    files, bounded size, inside the boundary, which the search root joins)."""
    from .gate import trust_directory

    options = options or CheckOptions()
    root = search_root or header_search_root(header)
    trust_directory(root)  # the user named a header of this project: its includers may be read
    wanted = os.path.realpath(header)
    candidates = list(_sources_under(root))
    if options.compile_commands:
        candidates += _database_sources(options)
    out = []
    seen: set = set()
    for path in candidates:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        if _includes(path, wanted, options):
            out.append(os.path.relpath(path) if not os.path.isabs(header) else os.path.abspath(path))
    return out


def _sources_under(root: str):
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def _database_sources(options: CheckOptions) -> list:
    from .compile_commands import load_database

    try:
        database = load_database(options.compile_commands)
    except InputError:
        return []  # reported when the includers are planned
    return [e.file for e in database.entries if e.file.endswith(SOURCE_SUFFIXES)]


def _includes(path: str, wanted: str, options: CheckOptions) -> bool:
    """Does `path` `#include` the file whose real path is `wanted`?"""
    text = _read(path)
    if text is None:
        return False
    base = os.path.basename(wanted)
    directives = [(kind, name) for kind, name in _INCLUDE.findall(text) if os.path.basename(name) == base]
    if not directives:
        return False  # the cheap test first: no planning for files that cannot include it
    include_dirs = _include_dirs(path, options)
    return any(_resolves_to(path, kind, name, include_dirs, wanted) for kind, name in directives)


def _resolves_to(includer: str, kind: str, name: str, include_dirs: tuple, wanted: str) -> bool:
    target = _resolve(includer, kind, name, include_dirs)
    if target is not None:
        return target == wanted
    # resolves nowhere here (flags missing): the header's path ends with the include's path
    tail = os.path.normpath(name)
    return not os.path.isabs(tail) and not tail.startswith("..") and wanted.endswith(os.sep + tail)


def _include_dirs(path: str, options: CheckOptions) -> tuple:
    """The include directories `path` is compiled with (configuration, -p, --nvcc-arg)."""
    from .file_plan import _plan

    plan = _plan(path, options)
    return () if isinstance(plan, InputError) else tuple(plan.host[0])


def _translation_units(files: list, options: CheckOptions, notes: list) -> list:
    """`files` without the `.cu` files that another of them `#include`s (a `.cu` with its own entry
    in the compilation database is a translation unit all the same); a note says through which."""
    sources = [f for f in files if f.endswith(SOURCE_SUFFIXES)]
    if len(sources) < 2:
        return files
    by_real = {os.path.realpath(f): f for f in sources}
    included_by: dict = {}
    for includer in sources:
        text = _read(includer)
        if text is None or not any(name.endswith(SOURCE_SUFFIXES) for _, name in _INCLUDE.findall(text)):
            continue
        include_dirs = None
        for kind, name in _INCLUDE.findall(text):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            include_dirs = _include_dirs(includer, options) if include_dirs is None else include_dirs
            target = _resolve(includer, kind, name, include_dirs)
            if target in by_real and by_real[target] != includer:
                included_by.setdefault(by_real[target], []).append(includer)
    database = _database(options)
    dropped = set()
    for source, includers in included_by.items():
        if database is not None and database.has_entry(source):
            continue
        through = [i for i in includers if i not in included_by]  # an includer that is checked itself
        if not through:
            continue
        dropped.add(source)
        notes.append(f"{source} is #included by {', '.join(through)} (not a translation unit): checked through "
                     f"{'it' if len(through) == 1 else 'them'}, not compiled alone")
    return [f for f in files if f not in dropped]


def _resolve(includer: str, kind: str, name: str, include_dirs: tuple) -> Optional[str]:
    """The real path `#include <name>` / `"name"` in `includer` names (the first match, as the
    compiler takes it), or None when it resolves nowhere here."""
    folders = ((os.path.dirname(os.path.abspath(includer)),) if kind == '"' else ()) + tuple(include_dirs)
    for folder in folders:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return os.path.realpath(candidate)
    return None


def _database(options: CheckOptions):
    if not options.compile_commands:
        return None
    from .compile_commands import load_database

    try:
        return load_database(options.compile_commands)
    except InputError:
        return None


def _read(path: str) -> Optional[str]:
    from .gate import read_bytes

    try:
        return read_bytes(path).decode("utf-8", errors="replace")
    except OSError:
        return None  # outside the repository (a link), a FIFO, too large, unreadable


def _shown(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
