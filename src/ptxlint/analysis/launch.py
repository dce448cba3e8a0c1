"""The block shape a kernel is analysed with, and where that shape came from.

Order: `--block` on the command line, then the config's `block` table (both arrive in
AnalysisOptions.block_overrides, first match wins), then `.reqntid`, then an assumption that
every finding prints (`.maxntid` bounds it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from ..frontend.demangle import demangle, without_parameters
from ..frontend.ir import Function, Register

WARP_SIZE = 32
DEFAULT_1D = (256, 1, 1)
DEFAULT_2D = (32, 8, 1)
DEFAULT_3D = (8, 8, 4)


@dataclass(frozen=True)
class BlockShape:
    dims: tuple  # (x, y, z)
    source: str  # "command line (--block)", "pyproject.toml ...", ".reqntid", "assumed ..."
    assumed: bool = False

    @property
    def threads(self) -> int:
        x, y, z = self.dims
        return x * y * z

    @property
    def warps(self) -> int:
        return (self.threads + WARP_SIZE - 1) // WARP_SIZE

    def describe(self) -> str:
        x, y, z = self.dims
        return f"block {x}x{y}x{z} ({self.source})"

    def thread_ids(self) -> list:
        """(x, y, z) of each thread in linear order: x + y*Dx + z*Dx*Dy."""
        x, y, z = self.dims
        return [(i, j, k) for k in range(z) for j in range(y) for i in range(x)]


def kernel_matches(function: Function, glob: str) -> bool:
    """A glob matches the mangled name or the demangled name without its parameters."""
    if fnmatchcase(function.name, glob):
        return True
    plain = without_parameters(demangle(function.name))
    return fnmatchcase(plain, glob) or fnmatchcase(plain.rsplit("::", 1)[-1], glob)


def _uses(function: Function, name: str) -> bool:
    reg = Register(name)
    return any(reg in ins.operands for ins in function.instructions)


def resolve_block_shape(function: Function, options) -> BlockShape:
    for glob, dims, origin in options.block_overrides:
        if glob is None or kernel_matches(function, glob):
            return BlockShape(tuple(dims), origin)
    if function.reqntid:
        return BlockShape(tuple(function.reqntid), ".reqntid")
    if function.maxntid:
        return BlockShape(tuple(function.maxntid), "assumed from .maxntid, its upper bound", assumed=True)
    if _uses(function, "%tid.z"):
        dims = DEFAULT_3D
    elif _uses(function, "%tid.y"):
        dims = DEFAULT_2D
    else:
        dims = DEFAULT_1D
    return BlockShape(dims, "assumed: no --block, config or .reqntid; pass --block to change it", assumed=True)
