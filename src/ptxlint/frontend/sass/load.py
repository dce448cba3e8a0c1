"""The SASS of an input file, with the resources of its kernels.

`.sass` (an nvdisasm listing) is parsed as it is; a `.cubin` is disassembled; `.ptx` and `.cu`
(through nvcc) are assembled with ptxas first; any other file (an executable, a fatbin, an
object file) has its cubins extracted with cuobjdump.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Optional

from ...errors import InputError
from .ir import SassModule
from .parser import parse_sass, parse_sass_file
from .tools import assemble, disassemble, extract_cubins

SASS_SUFFIXES = (".sass",)
CUBIN_SUFFIXES = (".cubin",)


@dataclass
class SassProgram:
    """SASS modules of one input (one per cubin) and each kernel's resources."""

    path: str
    modules: list = field(default_factory=list)
    resources: dict = field(default_factory=dict)  # mangled name -> KernelResources
    how: str = ""  # how the SASS was obtained (for reports)

    @property
    def arch(self) -> Optional[str]:
        return next((m.arch for m in self.modules if m.arch), None)

    def function(self, name: str):
        for m in self.modules:
            f = m.function(name)
            if f is not None:
                return f
        return None

    @property
    def kernels(self) -> list:
        return [f for m in self.modules for f in m.kernels]


def _with_sass_resources(program: SassProgram) -> SassProgram:
    """Fill in what the listing shows and the other sources did not: registers from
    `.sectioninfo`, spills as local loads/stores, barrier ids."""
    from ...analysis.resources import KernelResources, resources_from_sass

    for f in program.kernels:
        seen = resources_from_sass(f)
        res = program.resources.get(f.name)
        if res is None:
            res = program.resources[f.name] = KernelResources(
                f.name, f.registers or 0, seen["local_store_bytes"], seen["local_load_bytes"],
                source="SASS listing")
            if f.registers is None:
                res.notes.append("registers unknown: the listing has no .sectioninfo")
        if res.source != "ptxas -v":
            res.barriers = max(res.barriers, seen["barriers"])
            res.spill_stores = res.spill_stores or seen["local_store_bytes"]
            res.spill_loads = res.spill_loads or seen["local_load_bytes"]
    return program


def sass_from_cubin(data: bytes, path: str) -> SassModule:
    return parse_sass(disassemble(data, path), path)


def load_sass(path: str, arch: Optional[str] = None, ptx_text: Optional[str] = None) -> SassProgram:
    """The SASS of `path`. For PTX input give `ptx_text` (for `.cu`, the PTX nvcc produced) and
    the architecture to assemble for (default: the PTX's `.target`)."""
    from ...analysis.resources import CubinError, parse_ptxas_verbose, read_cubin

    if path.endswith(SASS_SUFFIXES):
        return _with_sass_resources(SassProgram(path, [parse_sass_file(path)], how="nvdisasm listing"))
    if ptx_text is not None:
        target = arch or _ptx_target(ptx_text) or "sm_90"
        assembled = assemble(ptx_text, target, path)
        module = sass_from_cubin(assembled.cubin, path)
        program = SassProgram(path, [module], parse_ptxas_verbose(assembled.verbose),
                              how=f"ptxas -arch={target} -lineinfo, nvdisasm -g -c")
        return _with_sass_resources(program)
    from ...gate import MAX_PTX_BYTES, read_checked

    data = read_checked(path, MAX_PTX_BYTES)
    cubins = [(os.path.basename(path), data)] if data[:4] == b"\x7fELF" and path.endswith(CUBIN_SUFFIXES) else None
    if cubins is None:
        cubins = extract_cubins(path)
    program = SassProgram(path, how="cubin, nvdisasm -g -c" if path.endswith(CUBIN_SUFFIXES) else
                          "cuobjdump -xelf, nvdisasm -g -c")
    for name, blob in cubins:
        try:
            program.resources.update(read_cubin(blob))
        except (CubinError, struct.error, IndexError, ValueError) as err:
            raise InputError(path, f"{name}: not a readable cubin ({err})") from None
        program.modules.append(sass_from_cubin(blob, path))
    return _with_sass_resources(program)


def _ptx_target(text: str) -> Optional[str]:
    import re

    m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.MULTILINE)
    return m.group(1) if m else None


def program_for_module(path: str, module, arch: Optional[str] = None) -> SassProgram:
    """The SASS of a parsed PTX module (cached on it): its PTX text assembled by ptxas. For a
    `.cu` input the PTX is the text nvcc produced (kept on the module by `file_check._load_modules`)."""
    cached = module.sass
    if cached is not None:
        return cached
    text = module.ptx_text
    if text is None:
        from ..parser import read_ptx_file

        text = read_ptx_file(path)
    program = load_sass(path, arch or module.arch, text)
    module.sass = program
    return program
