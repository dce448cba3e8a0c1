"""What a launch is: `Launch` (one launch statement and the block shape it uses) and the ways of
launching that host code is searched for.

Separate from the finder so that its clients (analysis/launch.py, the commands) read the value
without the passes that produce it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

HOW_CHEVRONS = "<<<>>>"
LAUNCH_APIS = {
    "cudaLaunchKernel": "cudaLaunchKernel",
    "cudaLaunchCooperativeKernel": "cudaLaunchCooperativeKernel",
    "cudaLaunchKernelEx": "cudaLaunchKernelEx",
    "cudaLaunchKernelExC": "cudaLaunchKernelEx",
    # HIP's launch macro, which portable code also compiles for CUDA (a header maps it to <<<>>>):
    # hipLaunchKernelGGL(kernel, grid, block, shared bytes, stream, the kernel's arguments...)
    "hipLaunchKernelGGL": "hipLaunchKernelGGL",
}
MAX_BLOCK_THREADS = 1024
MAX_BINDINGS_PER_TEMPLATE = 32
MAX_REASON_CHARS = 200  # of a note that quotes host code
# `main`'s run with no command-line arguments: `argc > 2 ? atoi(argv[2]) : 16` is 16 there
DEFAULT_RUN = ("the program runs with no command-line arguments (`argc` is 1, so values read from argv "
               "take their defaults)")
# the same run seen through gflags: `DEFINE_int32(threads, 128, "...")` is 128 there
DEFAULT_FLAGS = "the program runs with its gflags options at their defaults (no `--flag=value` on its command line)"


@dataclass(frozen=True)
class PointerOffset:
    """A pointer argument the host code passes as an allocation plus a known number of bytes
    (`d_in + RADIUS` for a `float *d_in`: 4 * RADIUS bytes past a `cudaMalloc` pointer)."""

    bytes: int

    def __str__(self) -> str:
        return f"pointer + {self.bytes} bytes"


@dataclass(frozen=True)
class CoversGrid:
    """An argument the launch's grid is its floor division by (`k<<<n / 256, 256>>>(x, n)`, or a
    `blocks = n / 256` the grid names): the grid times the block is at most `scale` times the
    argument (the block's x extent over the divisor, 1 where the divisor is at least the block),
    so no launched thread's global x index reaches `scale * n`."""

    scale: Fraction = Fraction(1)

    def __str__(self) -> str:
        if self.scale <= 1:
            return "at least the grid's threads along x"
        return f"at least the grid's threads along x divided by {self.scale}"


@dataclass(frozen=True)
class LaunchShare:
    """An argument the launch computes from its own x extents (relations.py): with `multiple`
    False it equals `numerator / denominator * blockDim.x` (times `gridDim.x` when `grid`), as
    `k<<<blocks, threads>>>(blocks * threads)` passes the launch's thread count; with `multiple`
    True it is some integer multiple of `blockDim.x` (of `gridDim.x * blockDim.x` when `grid`), as
    a chunk offset `base += blocks * threads` is."""

    numerator: int
    denominator: int
    grid: bool
    multiple: bool

    @staticmethod
    def of(ratio, grid: bool, multiple: bool) -> "LaunchShare":
        return LaunchShare(ratio.numerator, ratio.denominator, grid, multiple)

    def __str__(self) -> str:
        extent = "gridDim.x * blockDim.x" if self.grid else "blockDim.x"
        if self.multiple:
            return f"a multiple of {extent}"
        scale = "" if self.numerator == 1 else f"{self.numerator} * "
        return f"{scale}{extent}" + ("" if self.denominator == 1 else f" / {self.denominator}")


@dataclass(frozen=True)
class Launch:
    """One launch statement (for a function template: under one set of its template arguments)."""

    kernel: str  # the kernel's name as written, without namespace qualification or template args
    template_args: Optional[tuple]  # explicit template arguments, evaluated where possible ("float", "256")
    block: Optional[tuple]  # (x, y, z) when the block argument is a compile-time value
    path: str  # file of the launch statement
    line: int  # its line (1-based) in that file
    how: str  # "<<<>>>", "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx", "hipLaunchKernelGGL"
    unknown_because: Optional[str]  # why block is None
    qualifier: str = ""  # namespace/class qualification as written (`blas` for `blas::scale<<<...>>>`)
    # the grid per dimension: an int where it is a compile-time value, None where it is not
    # (`k<<<n, 256>>>` with an integer n: (None, 1, 1), a 1-D grid); None when nothing is known
    grid: Optional[tuple] = None
    grid_unknown_because: Optional[str] = None  # why the grid (or a dimension of it) is not known
    assumes: Optional[str] = None  # what the shapes assume (the program's default run), or None
    deduced: bool = False  # template arguments deduced from the call's arguments, not written
    # names in template_args that stand for parameters of an enclosing host template whose value is
    # not known here (deduced from its callers' arguments): placeholders for any argument, one each
    open_params: tuple = ()
    # the kernel's call arguments where they are integer values the host code gives, or a
    # PointerOffset (None where not): `k<<<g, 256>>>(p + 4, N)` with `N = numbodies * 1024` ...
    call_arguments: tuple = ()
    # where the block is not a compile-time value, what is known of it per dimension (an int, or
    # None for a run-time value): `dim3 b(1, threads)` is (1, None, 1), an integer `n` is (None, 1, 1)
    # (a 1-D block); None when nothing is known or the block is known
    block_form: Optional[tuple] = None
    # the host functions whose parameters, which no call read here binds, the block or grid is
    # (`void cuda_scale(dim3 Gr, dim3 Bl, ...) { k<<<Gr, Bl>>>(...); }`): wrappers called elsewhere
    wrappers: tuple = ()

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

    @property
    def grid_text(self) -> str:
        """`64x1x1`, `?x1x1` (a 1-D grid of run-time size) or `?` (nothing known)."""
        if self.grid is None:
            return "?"
        return "x".join("?" if d is None else str(d) for d in self.grid)

    @property
    def one_block(self) -> bool:
        """Is the grid known to be a single block?"""
        return self.grid is not None and all(d == 1 for d in self.grid)
