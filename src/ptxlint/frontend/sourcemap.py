"""Maps an instruction to the source line a user should look at."""

from __future__ import annotations

import os
import re
from pathlib import PurePath
from typing import Optional

from .ir import Instruction, SourceLocation

# Headers of the CUDA toolkit: a finding inside them is reported at the user's call site.
_TOOLKIT_HEADER = re.compile(r"(/targets/[^/]+/include/|/cuda[^/]*/include/|/include/(cccl|crt|cuda)/|/cccl/)")


def is_toolkit_header(path: str) -> bool:
    return bool(_TOOLKIT_HEADER.search(path))


def user_location(loc: Optional[SourceLocation]) -> Optional[SourceLocation]:
    """The innermost location in the user's own files along the inlined-at chain."""
    current = loc
    while current is not None:
        if not is_toolkit_header(current.file):
            return current
        current = current.inlined_at
    return loc.outermost() if loc is not None else None


def source_position(ins: Instruction, ptx_path: str) -> tuple:
    """(path, line, column) for a finding on `ins`: the `.cu` line if known, else the PTX line."""
    loc = user_location(ins.loc)
    if loc is not None and loc.line > 0:
        return loc.file, loc.line, max(loc.column, 1)
    return ptx_path, ins.ptx_line, 1


def relocated_sources(files: dict, ptx_path: str) -> dict:
    """`.file` paths as they are on this machine. nvcc writes absolute paths, so a PTX file made in
    one checkout and read in another (a committed sample, a CI clone) names sources that do not
    exist here. A missing path is looked up by its trailing components in the PTX file's folder and
    its parents, nearest first (`/home/a/proj/k/t.cu` for `clone/k/t.ptx` is `clone/k/t.cu`).
    Toolkit headers are left alone: they are never the user's files."""
    if not os.path.isfile(ptx_path):
        return files
    folders = [PurePath(os.path.abspath(ptx_path)).parent]
    folders.extend(folders[0].parents)
    out = {}
    for index, path in files.items():
        out[index] = path
        if not os.path.isabs(path) or is_toolkit_header(path) or os.path.exists(path):
            continue
        parts = PurePath(path).parts[1:]
        for folder in folders:
            found = next((folder.joinpath(*parts[-k:]) for k in range(1, len(parts) + 1)
                          if os.path.isfile(folder.joinpath(*parts[-k:]))), None)
            if found is not None:
                out[index] = str(found)
                break
    return out
