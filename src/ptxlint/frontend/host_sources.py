"""Which source files hold the host code that launches a module's kernels.

A `.cu` checked directly is its own host code. A `.ptx` names its sources in `.file` directives
(nvcc writes the translation unit and the headers whose device code it inlined): the user's files
among them (never the toolkit's), that exist here, are read for the launches of its kernels.
nvcc names only files with device code, so a `main.cu` that `#include`s `kernels.cuh` (or
`kernels.cu`) and holds only the launches is not among them: the `.cu` files beside a named
source, or beside the `.ptx`, that `#include` a named source by its file name are read too.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Iterable, Optional

from ..gate import MAX_SOURCE_BYTES, is_trusted, read_lines
from .sourcemap import is_toolkit_header, relocated_sources

HOST_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".cuhpp", ".inl")
_FILE_DIRECTIVE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"\n\x00]*)"', re.MULTILINE)  # a NUL: the parser rejects it


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)
MAX_INCLUDER_CANDIDATES = 200  # `.cu` files looked at per directory for `#include`s of a named source


def _read_text(path: str) -> Optional[str]:
    lines = read_lines(path)
    return None if lines is None else "\n".join(lines)


def launch_sources(files: Iterable[str], checked_path: str, read: Optional[Callable] = None) -> list:
    """The files among `files` (and the checked `.cu` itself) to read launches from, in order; for a
    `.ptx`, then the `.cu` files that include one of them (see the module docstring). `read(path)`
    gives a file's text or None (default: gate.read_lines, inside the boundary)."""
    named = _existing_sources(([checked_path] if checked_path.endswith(".cu") else []) + list(files))
    if checked_path.endswith(".cu") or not named:
        return named
    return named + [p for p in _existing_sources(_including_sources(named, checked_path, read or _read_text))
                    if os.path.abspath(p) not in {os.path.abspath(n) for n in named}]


def _including_sources(named: list, ptx_path: str, read: Callable) -> list:
    """The `.cu` files beside a named source or beside the `.ptx` that `#include` a named source's
    file name."""
    names = {os.path.basename(p) for p in named}
    folders = list(dict.fromkeys([os.path.dirname(os.path.abspath(p)) for p in named]
                                 + [os.path.dirname(os.path.abspath(ptx_path))]))
    out = []
    for folder in folders:
        try:
            entries = sorted(e for e in os.listdir(folder) if e.endswith(".cu"))[:MAX_INCLUDER_CANDIDATES]
        except OSError:
            continue
        for entry in entries:
            path = os.path.join(folder, entry)
            if entry in names or not is_trusted(path):
                continue
            text = read(path)
            if text and any(os.path.basename(inc) in names for inc in _INCLUDE.findall(text)):
                out.append(path)
    return out


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
