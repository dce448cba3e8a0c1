"""Maps an instruction to the source line a user should look at."""

from __future__ import annotations

import os
import re
from pathlib import PurePath
from typing import Optional

from .ir import Instruction, SourceLocation

# Headers of the CUDA toolkit: a finding inside them is reported at the user's call site. NVIDIA's
# PyPI wheels (the `nvcc` extra) put them under site-packages/nvidia/<wheel or cu13>/include/.
_TOOLKIT_HEADER = re.compile(r"(/targets/[^/]+/include/|/cuda[^/]*/include/|/include/(cccl|crt|cuda)/|/cccl/"
                             r"|/(site|dist)-packages/nvidia/([^/]+/)*include/)")


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


def user_line(ins: Instruction) -> str:
    """`line N` of the instruction's place in the user's own files, or `PTX line N` where it has none."""
    loc = user_location(ins.loc)
    return f"line {loc.line}" if loc is not None and loc.line > 0 else f"PTX line {ins.ptx_line}"


def wholly_in_toolkit(function) -> bool:
    """Every source line of `function`, along each inlined-at chain, is in a CUDA toolkit header: a
    CUB or Thrust kernel instantiated by a call in the user's code, with none of the user's code
    (a functor, a lambda) inlined into it. False for a function without line information."""
    located = [ins.loc for ins in function.instructions if ins.loc is not None]
    return bool(located) and all(is_toolkit_header(user_location(loc).file) for loc in located)


def reported_location(loc: Optional[SourceLocation]) -> Optional[SourceLocation]:
    """`user_location`, or where it has no line of its own (nvcc's line 0 inside an inlined function:
    `.loc 1 0 0, ..., inlined_at 1 1966 9`) the call it was inlined at."""
    loc = user_location(loc)
    while loc is not None and loc.line <= 0 and loc.inlined_at is not None:
        loc = user_location(loc.inlined_at)
    return loc


def source_position(ins: Instruction, ptx_path: str) -> tuple:
    """(path, line, column) for a finding on `ins`: the `.cu` line if known (`reported_location`),
    else the PTX line."""
    loc = reported_location(ins.loc)
    if loc is not None and loc.line > 0:
        return loc.file, loc.line, max(loc.column, 1)
    return ptx_path, ins.ptx_line, 1


def relocated_sources(files: dict, ptx_path: str) -> dict:
    """`.file` paths as they are on this machine. nvcc writes absolute paths, so a PTX file made in
    one checkout and read in another (a committed sample, a CI clone) names sources that do not
    exist here, or that exist in the other checkout only. A path that is missing, or that lies
    outside the repository the PTX file is in, is looked up by its trailing components (at least
    its folder and name, for one that exists) in the PTX file's folder and its parents up to that
    repository's root, nearest first (`/home/a/proj/k/t.cu`
    for `clone/k/t.ptx` is `clone/k/t.cu`); when none is found it stays as written. Toolkit headers
    are left alone: they are never the user's files."""
    from ..gate import repository_root

    if not os.path.isfile(ptx_path):
        return files
    start = PurePath(os.path.abspath(ptx_path)).parent
    root = repository_root(str(start))
    folders = [start]
    for parent in start.parents:
        if root is not None and not _inside(str(parent), root):
            break
        folders.append(parent)
    out = {}
    for index, path in files.items():
        out[index] = path
        if not os.path.isabs(path) or is_toolkit_header(path):
            continue
        exists = os.path.exists(path)
        if exists and (root is None or _inside(os.path.realpath(path), os.path.realpath(root))):
            continue
        parts = PurePath(path).parts[1:]
        # a file that exists elsewhere is replaced only by a copy under the same folder name
        # (`samples/t.cu`), not by any file of the same name
        shortest = 2 if exists else 1
        for folder in folders:
            found = next((folder.joinpath(*parts[-k:]) for k in range(shortest, len(parts) + 1)
                          if os.path.isfile(folder.joinpath(*parts[-k:]))), None)
            if found is not None:
                out[index] = str(found)
                break
    return out


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
