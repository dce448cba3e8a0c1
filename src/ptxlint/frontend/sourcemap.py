"""Maps an instruction to the source line a user should look at."""

from __future__ import annotations

import re
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
