"""Per-kernel resources: registers, spills, local memory, static shared memory, barriers.

Three sources, best first: what `ptxas -v` printed when ptxlint assembled the PTX; the cubin's
own ELF records (`.nv.info` attributes, `.nv.shared.<kernel>` sections), for a `.cubin` input
with no ptxas output; and the SASS itself (local loads/stores for spills, BAR ids for barriers).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import Optional


@dataclass
class KernelResources:
    name: str
    registers: int
    spill_stores: int = 0  # bytes per thread
    spill_loads: int = 0
    stack_frame: int = 0  # local memory per thread (spills, local arrays)
    static_smem: int = 0  # bytes, without the system's per-block reservation
    barriers: int = 0
    max_threads: Optional[int] = None  # .maxntid / __launch_bounds__ (from the cubin)
    source: str = "ptxas -v"
    notes: list = field(default_factory=list)

    @property
    def spill_bytes(self) -> int:
        return self.spill_stores + self.spill_loads


_COMPILING = re.compile(r"Compiling entry function '(?P<name>[^']+)' for '(?P<arch>\w+)'")
_PROPERTIES = re.compile(r"Function properties for (?P<name>\S+)")
_FRAME = re.compile(r"(?P<frame>\d+) bytes stack frame, (?P<st>\d+) bytes spill stores, (?P<ld>\d+) bytes spill loads")
_USED = re.compile(r"Used (?P<regs>\d+) registers(?P<rest>.*)")
_BARRIERS = re.compile(r"used (?P<n>\d+) barriers")
_SMEM = re.compile(r"(?P<n>\d+) bytes smem")


def parse_ptxas_verbose(text: str) -> dict:
    """`ptxas -v` (or nvcc `-Xptxas -v` / `--resource-usage`) output -> {mangled name: KernelResources}
    for every entry function."""
    out: dict = {}
    current = None
    frames: dict = {}
    props = None
    for line in text.splitlines():
        m = _COMPILING.search(line)
        if m:
            current = m.group("name")
            continue
        m = _PROPERTIES.search(line)
        if m:
            props = m.group("name")
            continue
        m = _FRAME.search(line)
        if m and props:
            frames[props] = (int(m.group("frame")), int(m.group("st")), int(m.group("ld")))
            continue
        m = _USED.search(line)
        if m and current:
            rest = m.group("rest")
            frame, st, ld = frames.get(current, (0, 0, 0))
            barriers = _BARRIERS.search(rest)
            smem = _SMEM.search(rest)
            out[current] = KernelResources(
                current, int(m.group("regs")), st, ld, frame, int(smem.group("n")) if smem else 0,
                int(barriers.group("n")) if barriers else 0, source="ptxas -v",
            )
            current = None
    return out


# ---------------------------------------------------------------------------------------------
# The cubin (ELF): `.nv.info` holds EIATTR records, each {format u8, attribute u8, payload}.

_EIATTR_REGCOUNT = 0x2F  # (function symbol, registers)
_EIATTR_FRAME_SIZE = 0x11  # (function symbol, bytes)
_EIATTR_MAX_THREADS = 0x05  # per function: (x, y, z) of .maxntid
_EIFMT_SVAL, _EIFMT_HVAL, _EIFMT_BVAL, _EIFMT_NVAL = 4, 3, 2, 1


class CubinError(ValueError):
    pass


def read_cubin(data: bytes) -> dict:
    """A cubin's kernels -> {mangled name: KernelResources} from its ELF records (registers,
    frame size, static shared memory, .maxntid). Spills and barriers are not recorded there
    (`resources_from_sass` counts them)."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise CubinError("not a 64-bit ELF file (a cubin)")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = sections[shstrndx][4]

    def cstr(offset: int) -> str:
        return data[offset:data.index(b"\0", offset)].decode("utf-8", "replace")

    named = {cstr(names_at + s[0]): s for s in sections}
    symtab = next((s for s in sections if s[1] == 2), None)
    symbols = []
    if symtab is not None:
        strings = sections[symtab[6]][4]
        for k in range(symtab[5] // 24):
            name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, symtab[4] + k * 24)
            symbols.append(cstr(strings + name))
    # `.nv.shared.reserved.0`: the sections of per-kernel shared memory include the per-block
    # system reservation (1 KB from sm_80 on), which is not the kernel's static shared memory
    reserved = 1024 if ".nv.shared.reserved.0" in named else 0
    kernels: dict = {}
    for name, s in named.items():
        if name.startswith(".text.") and s[2] & 0x4:  # SHF_EXECINSTR
            fn = name[len(".text."):]
            if f".nv.info.{fn}" in named or True:
                kernels[fn] = KernelResources(fn, 0, source="cubin")
    global_info = named.get(".nv.info")
    if global_info is not None:
        for attr, payload in _attributes(data, global_info):
            if attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE) and len(payload) >= 8:
                sym, value = struct.unpack_from("<II", payload)
                fn = symbols[sym] if sym < len(symbols) else None
                if fn in kernels:
                    if attr == _EIATTR_REGCOUNT:
                        kernels[fn].registers = value
                    else:
                        kernels[fn].stack_frame = value
    for fn, res in kernels.items():
        smem = named.get(f".nv.shared.{fn}")
        if smem is not None:
            res.static_smem = max(0, smem[5] - reserved)
        info = named.get(f".nv.info.{fn}")
        if info is not None:
            for attr, payload in _attributes(data, info):
                if attr == _EIATTR_MAX_THREADS and len(payload) >= 12:
                    x, y, z = struct.unpack_from("<III", payload)
                    res.max_threads = x * max(y, 1) * max(z, 1)
    return kernels


def _attributes(data: bytes, section) -> list:
    offset, size = section[4], section[5]
    pos, end = offset, offset + size
    out = []
    while pos + 4 <= end:
        fmt, attr = data[pos], data[pos + 1]
        if fmt == _EIFMT_SVAL:
            length, = struct.unpack_from("<H", data, pos + 2)
            out.append((attr, data[pos + 4:pos + 4 + length]))
            pos += 4 + length
        else:
            out.append((attr, data[pos + 2:pos + 4]))
            pos += 4
    return out


# ---------------------------------------------------------------------------------------------
# From the SASS

_LOCAL_BITS = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}


def local_access_bytes(ins) -> int:
    """Bytes one thread moves with an LDL/STL."""
    bits = 32
    for m in ins.modifiers:
        if m in _LOCAL_BITS:
            bits = _LOCAL_BITS[m]
    return bits // 8


def resources_from_sass(function) -> dict:
    """What the SASS itself shows: local loads/stores (spills or local arrays), barrier ids."""
    stores = [i for i in function.instructions if i.base == "STL"]
    loads = [i for i in function.instructions if i.base == "LDL"]
    barrier_ids = set()
    for i in function.instructions:
        if i.base == "BAR" and i.operands and i.operands[0].kind == "imm":
            barrier_ids.add(int(i.operands[0].value))
    return {
        "local_stores": stores, "local_loads": loads,
        "local_store_bytes": sum(local_access_bytes(i) for i in stores),
        "local_load_bytes": sum(local_access_bytes(i) for i in loads),
        "barriers": (max(barrier_ids) + 1) if barrier_ids else 0,
    }
