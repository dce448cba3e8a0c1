"""Which source files hold the host code that launches a module's kernels.

A `.cu` checked directly is its own host code. A `.ptx` names its sources in `.file` directives
(nvcc writes the translation unit and the headers whose device code it inlined): the user's files
among them (never the toolkit's), that exist here, are read for the launches of its kernels.
"""

from __future__ import annotations

import os
import re
from typing import Iterable

from ..gate import MAX_SOURCE_BYTES, is_trusted
from .sourcemap import is_toolkit_header, relocated_sources

HOST_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".cuhpp", ".inl")
_FILE_DIRECTIVE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"\n\x00]*)"', re.MULTILINE)  # a NUL: the parser rejects it


def launch_sources(files: Iterable[str], checked_path: str) -> list:
    """The files among `files` (and the checked `.cu` itself) to read launches from, in order."""
    out = []
    seen: set = set()  # absolute paths already in `out`
    candidates = ([checked_path] if checked_path.endswith(".cu") else []) + list(files)
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
