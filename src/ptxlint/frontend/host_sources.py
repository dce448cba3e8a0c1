"""Which source files hold the host code that launches a module's kernels.

A `.cu` checked directly is its own host code. A `.ptx` names its sources in `.file` directives
(nvcc writes the translation unit and the headers whose device code it inlined): the user's files
among them (never the toolkit's), that exist here, are read for the launches of its kernels.
nvcc names only files with device code, so a `main.cu` that `#include`s `kernels.cuh` (or
`kernels.cu`) and holds only the launches is not among them: the `.cu` files beside a named
source, or beside the `.ptx`, and then in the folders near it, that `#include` a named source by
its file name (directly or through a header of their own) are read too.
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from typing import Callable, Iterable, Optional

from ..analysis.budget import spend
from ..gate import MAX_SOURCE_BYTES, is_trusted, read_lines
from .sourcemap import is_toolkit_header, relocated_sources

HOST_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".cuhpp", ".inl")
HEADER_SUFFIXES = tuple(s for s in HOST_SUFFIXES if s != ".cu")
_ARCH_TAG = re.compile(r"\.(?:sm|compute)_\d+[a-z]?$")  # `scan.sm_90.ptx`: the tag nvcc's users put in PTX names
INCLUDE_ROOT_LEVELS = 2  # folders above a named source's folder searched for a `.ptx`'s host includes
MAX_INCLUDE_SUBFOLDERS = 20  # `include/<project>/` folders looked at per `include/`
_FILE_DIRECTIVE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"\n\x00]*)"', re.MULTILINE)  # a NUL: the parser rejects it


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)
_INCLUDE_QUOTED = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
MAX_INCLUDER_CANDIDATES = 200  # `.cu` files looked at for `#include`s of a named source (beside it, then near it)


def _read_text(path: str) -> Optional[str]:
    lines = read_lines(path)
    return None if lines is None else "\n".join(lines)


def launch_sources(files: Iterable[str], checked_path: str, read: Optional[Callable] = None) -> list:
    """The files among `files` (and the checked `.cu` itself) to read launches from, in order; for a
    `.ptx`, then the `.cu` files that include one of them (see the module docstring). `read(path)`
    gives a file's text or None (default: gate.read_lines, inside the boundary)."""
    if checked_path.endswith(".cu"):
        first = [checked_path]
    else:
        unit = translation_unit_of(checked_path)
        first = [unit] if unit else []
    named = _existing_sources(first + list(files))
    if not named:
        return named
    return named + [p for p in _existing_sources(_including_sources(named, checked_path, read or _read_text))
                    if os.path.abspath(p) not in {os.path.abspath(n) for n in named}]


def translation_unit_of(ptx_path: str) -> Optional[str]:
    """The `.cu` beside a `.ptx` under its name (an arch tag such as `.sm_90` dropped): the unit it was
    compiled from where that file exists (launch_sources keeps only sources that exist and may be read)."""
    if not ptx_path.endswith(".ptx"):
        return None
    return _ARCH_TAG.sub("", ptx_path[:-len(".ptx")]) + ".cu"


def include_dirs_of(sources: Iterable[str]) -> list:
    """Folders to resolve a `.ptx`'s host `#include "..."` in, after those given: the folders of its
    host sources and up to INCLUDE_ROOT_LEVELS above each (a build's `-I src` for `src/map/kernels.cu`),
    and an `include/` folder in one of them with its subfolders (`-I include/cuszp`)."""
    above: dict = {}
    for path in sources:
        folder = os.path.dirname(os.path.abspath(path))
        for _ in range(INCLUDE_ROOT_LEVELS + 1):
            above.setdefault(folder, None)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    out = [d for d in above if is_trusted(d)]
    for folder in list(out):
        # the usual public-header layout: `include/` and `include/<project>/` beside the sources
        include = os.path.join(folder, "include")
        if not is_trusted(include) or not os.path.isdir(include):
            continue
        try:
            subfolders = sorted(e for e in os.listdir(include) if os.path.isdir(os.path.join(include, e)))
        except OSError:
            subfolders = []
        for d in [include] + [os.path.join(include, name) for name in subfolders[:MAX_INCLUDE_SUBFOLDERS]]:
            if d not in out and is_trusted(d):
                out.append(d)
    return out


def _including_sources(named: list, checked_path: str, read: Callable) -> list:
    """The `.cu` files that `#include` a named source's file name or a header of a named `.cu`'s
    name (`scan.h` for `scan.cu`), directly or through one header of their own (`ops.cu` includes
    `ops.cuh`, which includes `kernels.cuh`): first those beside a named source or the checked file,
    then those in the folders near a named source (its parent's subtree, as caller_sources looks:
    `integrators/run.cu` including `../hydro/hydro.h`), MAX_INCLUDER_CANDIDATES at most."""
    names = {os.path.basename(p) for p in named}
    stems = {os.path.splitext(os.path.basename(p))[0] for p in named if p.endswith(".cu")}
    folders = list(dict.fromkeys([os.path.dirname(os.path.abspath(p)) for p in named]
                                 + [os.path.dirname(os.path.abspath(checked_path))]))
    candidates = []
    for folder in folders:
        try:
            entries = sorted(e for e in os.listdir(folder) if e.endswith(".cu"))[:MAX_INCLUDER_CANDIDATES]
        except OSError:
            continue
        candidates.extend(os.path.join(folder, entry) for entry in entries)
    for source in named[:1]:
        candidates.extend(p for p in _nearby_files(source)[0] if p.endswith(".cu"))
    out, seen = [], {os.path.abspath(n) for n in named}  # a named source is read already
    for path in candidates:
        key = os.path.abspath(path)
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > MAX_INCLUDER_CANDIDATES + len(named):
            break
        if not is_trusted(path):
            continue
        if any(_declares(name, names, stems) for name in _includes_through_headers(path, read)):
            out.append(path)
    return out


def _includes_through_headers(path: str, read: Callable) -> set:
    """The file names `path` includes, and those its own included headers include (one level; a
    header found relative to `path`'s folder, inside the boundary)."""
    spend()
    if read is _read_text:
        direct, relatives = _included_names(path), _included_paths(path)
    else:
        text = read(path)
        direct, relatives = _names_included_by(text), _paths_included_by(text)
    found = set(direct)
    for relative in relatives:
        header = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), relative))
        if not header.endswith(HEADER_SUFFIXES) or not is_trusted(header) or not os.path.isfile(header):
            continue
        found |= _included_names(header) if read is _read_text else _names_included_by(read(header))
    return found


def _paths_included_by(text: Optional[str]) -> tuple:
    """The `#include "..."` paths of a source, as written."""
    return tuple(_INCLUDE_QUOTED.findall(text)) if text else ()


@functools.lru_cache(maxsize=4096)
def _included_paths(path: str) -> tuple:
    return _paths_included_by(_read_text(path))


def _names_included_by(text: Optional[str]) -> frozenset:
    """The file names a source `#include`s (without their folders)."""
    return frozenset(os.path.basename(inc) for inc in _INCLUDE.findall(text)) if text else frozenset()


@functools.lru_cache(maxsize=4096)
def _included_names(path: str) -> frozenset:
    """_names_included_by of a file read through the gate, once per run: every `.cu` of a folder
    checked in one run looks at the same siblings."""
    return _names_included_by(_read_text(path))


def _declares(included: str, names: set, stems: set) -> bool:
    """Does an `#include` of the file name `included` bring one of the named sources (or the header
    of a named `.cu`'s name) in?"""
    if included in names:
        return True
    stem, suffix = os.path.splitext(included)
    return suffix in HEADER_SUFFIXES and stem in stems


def _existing_sources(candidates: list) -> list:
    """The user's host sources among `candidates` that may be read, each once, in order."""
    out = []
    seen: set = set()  # absolute paths already in `out`
    for path in candidates:
        # only files inside the boundary (gate.py): a PTX names any path
        if not path.endswith(HOST_SUFFIXES) or is_toolkit_header(path) or not is_trusted(path):
            continue
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > MAX_SOURCE_BYTES:
                continue
        except OSError:
            continue
        if os.path.abspath(path) not in seen:
            seen.add(os.path.abspath(path))
            out.append(path)
    return out


def declared_sources(ptx_text: str, ptx_path: str) -> list:
    """launch_sources() of a PTX text without parsing it whole (large files are parsed in parts)."""
    files = {int(m.group(1)): m.group(2) for m in _FILE_DIRECTIVE.finditer(ptx_text)}
    return launch_sources(relocated_sources(files, ptx_path).values(), ptx_path)


# ---------------------------------------------------------------------------------------------
# Launch wrappers called from other translation units

CALLER_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++", ".cu", ".c")
CALLER_SEARCH_LEVELS = 1  # folders above a source's folder whose subtrees are searched for callers
CALLER_SEARCH_DEPTH = 2  # folders below such a folder searched
MAX_CALLER_CANDIDATES = 400  # files looked at for calls of a source's launch wrappers
MAX_CALLER_FILES = 12  # files read as the callers
_DEFINITION = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^;{}()]|\([^;{}()]*\))*\)\s*(?:const\s*)?\{")


def caller_sources(source: str, wrappers: Iterable[str], read: Optional[Callable] = None) -> list:
    """The translation units near `source` (its folder, then the subtrees of the folder above it) that
    call one of `wrappers`, host functions of `source` whose launches take their block or grid from
    their parameters (`void cuda_scale(dim3 Gr, dim3 Bl, ...) { k<<<Gr, Bl>>>(...); }`, called from a
    `.cc` file). A call written in a header (an inline overload that forwards to the wrapper) counts
    through the functions of that header that make it: the files calling those are the callers.
    Only files inside the boundary are read; the search is bounded (MAX_CALLER_CANDIDATES files), and
    the MAX_CALLER_FILES files that call the most wrappers are kept."""
    read = read or _read_text
    names = {w for w in wrappers if re.fullmatch(r"[A-Za-z_]\w*", w)}
    if not names:
        return []
    candidates, headers = _nearby_files(source)
    me = os.path.abspath(source)
    # one level through headers: the functions of a header that call a wrapper are wrappers too
    for path in headers:
        spend()
        text = read(path)
        if text and not names.isdisjoint(_called_names(text)):
            names |= _functions_calling(text, names)
    ranked = []  # (-wrappers called, nearness, path): the files calling the most wrappers first
    for nearness, path in enumerate(candidates):
        spend()
        if os.path.abspath(path) == me:
            continue
        text = read(path)
        called = names & _called_names(text) if text else set()
        if called:
            ranked.append((-len(called), nearness, path))
    return [path for _, _, path in sorted(ranked)[:MAX_CALLER_FILES]]


_CALL = re.compile(r"(?<![\w.>:])([A-Za-z_]\w*)\s*\(")


def called_names_in(path: str) -> set:
    """The names a source writes as calls other than where it defines them (`f(...)` more often than
    `f(...) {`): the functions the unit itself calls."""
    text = _read_text(path) or ""
    written = Counter(_CALL.findall(text))
    written.subtract(m.group(1) for m in _DEFINITION.finditer(text))
    return {name for name, more in written.items() if more > 0}


def _called_names(text: str, start: int = 0, end: Optional[int] = None) -> set:
    """The names written as calls (`name(`, not `x.name(` or `p->name(`) in text[start:end]."""
    return set(_CALL.findall(text, start, len(text) if end is None else end))


def _functions_calling(text: str, names: set) -> set:
    """Names of the functions defined in `text` whose bodies call one of `names` (a rough reading:
    braces are counted, comments and strings are not told apart)."""
    found = set()
    for m in _DEFINITION.finditer(text):
        if m.group(1) in ("if", "for", "while", "switch", "catch", "return", "sizeof"):
            continue
        start = m.end() - 1
        depth, i = 0, start
        while i < len(text):
            ch = text[i]
            depth += ch == "{"
            depth -= ch == "}"
            if depth == 0:
                break
            i += 1
        if not names.isdisjoint(_called_names(text, start, i)):
            found.add(m.group(1))
    return found


def _nearby_files(source: str) -> tuple:
    """(translation units, headers) in `source`'s folder, then below the folders above it, nearest
    first, at most MAX_CALLER_CANDIDATES in all; only those inside the boundary."""
    folder = os.path.dirname(os.path.abspath(source))
    roots = [folder]
    for _ in range(CALLER_SEARCH_LEVELS):
        parent = os.path.dirname(roots[-1])
        if parent == roots[-1] or not is_trusted(parent):
            break
        roots.append(parent)
    units, headers, seen = [], [], set()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            depth = os.path.relpath(dirpath, root).count(os.sep) + (dirpath != root)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if depth < CALLER_SEARCH_DEPTH else []
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                if path in seen or not name.endswith(CALLER_SUFFIXES + HEADER_SUFFIXES):
                    continue
                seen.add(path)
                if len(seen) > MAX_CALLER_CANDIDATES:
                    return units, headers
                if not is_trusted(path) or is_toolkit_header(path):
                    continue
                try:
                    if os.path.getsize(path) > MAX_SOURCE_BYTES:
                        continue
                except OSError:
                    continue
                (units if name.endswith(CALLER_SUFFIXES) else headers).append(path)
    return units, headers
