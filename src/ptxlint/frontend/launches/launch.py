"""What a launch is: `Launch` (one launch statement and the block shape it uses) and the ways of
launching that host code is searched for.

Separate from the finder so that its clients (analysis/launch.py, the commands) read the value
without the passes that produce it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

HOW_CHEVRONS = "<<<>>>"
LAUNCH_APIS = {
    "cudaLaunchKernel": "cudaLaunchKernel",
    "cudaLaunchCooperativeKernel": "cudaLaunchCooperativeKernel",
    "cudaLaunchKernelEx": "cudaLaunchKernelEx",
    "cudaLaunchKernelExC": "cudaLaunchKernelEx",
}
MAX_BLOCK_THREADS = 1024
MAX_BINDINGS_PER_TEMPLATE = 32
MAX_REASON_CHARS = 200  # of a note that quotes host code


@dataclass(frozen=True)
class Launch:
    """One launch statement (for a function template: under one set of its template arguments)."""

    kernel: str  # the kernel's name as written, without namespace qualification or template args
    template_args: Optional[tuple]  # explicit template arguments, evaluated where possible ("float", "256")
    block: Optional[tuple]  # (x, y, z) when the block argument is a compile-time value
    path: str  # file of the launch statement
    line: int  # its line (1-based) in that file
    how: str  # "<<<>>>", "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx"
    unknown_because: Optional[str]  # why block is None
    qualifier: str = ""  # namespace/class qualification as written (`blas` for `blas::scale<<<...>>>`)

    def __post_init__(self) -> None:
        # the reason quotes host code: a huge macro or an #include'd file must not flood the output
        why = self.unknown_because
        if why is not None and len(why) > MAX_REASON_CHARS:
            object.__setattr__(self, "unknown_because", why[:MAX_REASON_CHARS - 1] + "…")

    def describe(self) -> str:
        """`block 128x1x1 from the launch at bitonic.cu:273`"""
        if self.block is None:
            return f"unknown block at the launch at {self.path}:{self.line} ({self.unknown_because})"
        x, y, z = self.block
        return f"block {x}x{y}x{z} from the launch at {self.path}:{self.line}"
