"""ptxas, nvdisasm and cuobjdump: finding them and running them to get SASS and resource usage.

Looked up like nvcc (frontend/nvcc.py): `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, `PATH`, next to the
nvcc that would be used, then NVIDIA's PyPI wheels (the `sass` extra:
nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump, and nvidia-cuda-nvcc for ptxas) in
site-packages/nvidia/cu*/bin. Every tool runs with an argument list, never through a shell.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Optional

from ...errors import InputError
from ..nvcc import SASS_WHEELS, install_hint, wheel_bin_dirs

TOOLS_MISSING = (
    "{tool} not found: SASS-level analysis (--level sass, .cubin input) needs ptxas, nvdisasm and cuobjdump. "
    "Install the CUDA toolkit and put it on PATH or set CUDA_HOME, or "
    + install_hint(SASS_WHEELS, "sass").replace("{", "{{").replace("}", "}}") + " for NVIDIA's wheels."
)


class ToolNotFound(InputError):
    """A CUDA binary tool is not installed anywhere ptxlint looks."""


def find_tool(tool: str) -> Optional[str]:
    """The path of `tool` (ptxas, nvdisasm, cuobjdump), or None."""
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home and os.access(os.path.join(home, "bin", tool), os.X_OK):
            return os.path.join(home, "bin", tool)
    on_path = shutil.which(tool)
    if on_path:
        return on_path
    nvcc = shutil.which("nvcc")
    if nvcc:
        for directory in (os.path.dirname(nvcc), os.path.dirname(os.path.realpath(nvcc))):
            if os.access(os.path.join(directory, tool), os.X_OK):
                return os.path.join(directory, tool)
    for directory in wheel_bin_dirs():
        candidate = os.path.join(directory, tool)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def require_tool(tool: str, path: str = "<sass>") -> str:
    found = find_tool(tool)
    if found is None:
        raise ToolNotFound(path, TOOLS_MISSING.format(tool=tool))
    return found


def tools_available() -> bool:
    """ptxas and nvdisasm are both found (what `--level sass` on PTX needs)."""
    return find_tool("ptxas") is not None and find_tool("nvdisasm") is not None


@dataclass
class Assembled:
    """One PTX module assembled by ptxas: the cubin and what `ptxas -v` said about each kernel."""

    cubin: bytes
    verbose: str
    arch: str
    command: list


_UNRESOLVED = re.compile(r"Unresolved extern function")


def _run(cmd: list, path: str, what: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as err:
        raise InputError(path, f"cannot run {what} {cmd[0]}: {err.strerror}") from None


def assemble(ptx_text: str, arch: str, path: str = "<ptx>") -> Assembled:
    """Run `ptxas -arch=<arch> -lineinfo -v` on PTX text. A module that calls functions defined
    elsewhere (separate compilation) is assembled with `-c`, as a relocatable object."""
    ptxas = require_tool("ptxas", path)
    with tempfile.TemporaryDirectory(prefix="ptxlint-sass-") as tmp:
        src = os.path.join(tmp, "in.ptx")
        out = os.path.join(tmp, "out.cubin")
        with open(src, "w", encoding="utf-8") as fh:
            fh.write(ptx_text)
        cmd = [ptxas, f"-arch={arch}", "-lineinfo", "-v", src, "-o", out]
        proc = _run(cmd, path, "ptxas")
        if proc.returncode != 0 and _UNRESOLVED.search(proc.stderr or ""):
            cmd = [ptxas, "-c", f"-arch={arch}", "-lineinfo", "-v", src, "-o", out]
            proc = _run(cmd, path, "ptxas")
        if proc.returncode != 0:
            messages = (proc.stderr or proc.stdout or "").strip().replace(src, path)
            raise InputError(path, f"ptxas -arch={arch} failed:\n" + "\n".join("    " + ln for ln in messages.splitlines()))
        if not os.path.isfile(out):  # ptxas succeeds without output for a virtual architecture
            raise InputError(path, f"ptxas -arch={arch} made no SASS: name a real architecture (sm_XX), "
                                   "not a virtual one (compute_XX)")
        with open(out, "rb") as fh:
            cubin = fh.read()
    return Assembled(cubin, (proc.stdout or "") + (proc.stderr or ""), arch, cmd)


def disassemble(cubin: bytes, path: str = "<cubin>") -> str:
    """`nvdisasm -g -c`: the SASS of every function, with `//## File ..., line N` markers."""
    nvdisasm = require_tool("nvdisasm", path)
    with tempfile.TemporaryDirectory(prefix="ptxlint-sass-") as tmp:
        src = os.path.join(tmp, "in.cubin")
        with open(src, "wb") as fh:
            fh.write(cubin)
        proc = _run([nvdisasm, "-g", "-c", src], path, "nvdisasm")
    if proc.returncode != 0:
        raise InputError(path, "nvdisasm failed: " + (proc.stderr or "").strip().replace(src, path))
    return proc.stdout


def extract_cubins(binary: str) -> list:
    """The cubins inside a fatbin, object file or executable (`cuobjdump -xelf all`), as
    [(name, bytes)]."""
    cuobjdump = require_tool("cuobjdump", binary)
    with tempfile.TemporaryDirectory(prefix="ptxlint-sass-") as tmp:
        proc = subprocess.run([cuobjdump, "-xelf", "all", os.path.abspath(binary)], cwd=tmp,
                              capture_output=True, text=True, errors="replace")
        if proc.returncode != 0:
            raise InputError(binary, "cuobjdump -xelf failed: " + (proc.stderr or "").strip())
        out = []
        for name in sorted(os.listdir(tmp)):
            if name.endswith(".cubin"):
                with open(os.path.join(tmp, name), "rb") as fh:
                    out.append((name, fh.read()))
    if not out:
        raise InputError(binary, "holds no cubin (SASS) for any architecture; cuobjdump -xelf found none")
    return out
