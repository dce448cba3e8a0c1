"""Compile `.cu` files to PTX with nvcc, so findings can point at the CUDA source.

nvcc is run as a list of arguments, never through a shell, with `-lineinfo` so the PTX carries
`.file`/`.loc` directives that map every instruction back to the `.cu` (or header) line.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from ..errors import InputError

DEFAULT_ARCH = "sm_90"

# nvcc reports `file.cu(12): error: ...`; the first such line gives the InputError its line.
_NVCC_DIAG = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?:catastrophic )?error\b", re.MULTILINE)
_ARCH = re.compile(r"^(sm|compute)_\d+[af]?$")

NVCC_MISSING = (
    "nvcc not found: ptxlint compiles .cu files to PTX with nvcc. Install the CUDA toolkit and "
    "put it on PATH or set CUDA_HOME, pass --nvcc PATH (or `nvcc = \"...\"` in the config), or "
    "`pip install 'ptxlint[nvcc]'` for NVIDIA's nvcc wheels. .ptx files need no nvcc."
)


class NvccNotFound(InputError):
    """No nvcc anywhere ptxlint looks; reported once per run."""


@dataclass(frozen=True)
class CompileOptions:
    """What nvcc is asked to do for one `.cu` file (part of the cache key)."""

    nvcc: Optional[str] = None  # explicit path (--nvcc or config); None = search
    arches: tuple = (DEFAULT_ARCH,)
    include_dirs: tuple = ()
    defines: tuple = ()
    extra_args: tuple = ()


def check_arch(arch: str) -> str:
    """`sm_90`, `90`, `compute_80` -> the sm/compute name; anything else is an error."""
    arch = arch.strip()
    if arch.isdigit():
        arch = f"sm_{arch}"
    if not _ARCH.match(arch):
        raise ValueError(f"{arch!r} is not a CUDA architecture (expected e.g. sm_80, sm_90a)")
    return arch


def wheel_bin_dirs() -> list:
    """The `bin` folders of NVIDIA's PyPI wheels in this environment (site-packages/nvidia/cu*/bin:
    nvidia-cuda-nvcc, -nvdisasm, -cuobjdump), newest first: where nvcc and the SASS tools are found
    without a toolkit."""
    roots = []
    for key in ("purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path and path not in roots:
            roots.append(path)
    roots += [p for p in sys.path if p.endswith("site-packages") and p not in roots]
    found = []
    for root in roots:
        for folder in sorted(glob.glob(os.path.join(root, "nvidia", "cu*", "bin")), reverse=True):
            if folder not in found:
                found.append(folder)
    return found


def _wheel_nvcc_candidates() -> list:
    """Where NVIDIA's PyPI wheels (nvidia-cuda-nvcc) put nvcc."""
    return [os.path.join(d, "nvcc") for d in wheel_bin_dirs() if os.path.isfile(os.path.join(d, "nvcc"))]


def find_nvcc(explicit: Optional[str] = None) -> str:
    """The nvcc to run: `explicit`, then CUDA_HOME/CUDA_PATH, PATH, the PyPI wheels.

    Raises NvccNotFound (an InputError) when there is none, or when `explicit` is not runnable.
    """
    if explicit:
        resolved = shutil.which(explicit) if os.sep not in explicit else explicit
        if resolved and os.access(resolved, os.X_OK) and os.path.isfile(resolved):
            return resolved
        raise NvccNotFound("<nvcc>", f"nvcc {explicit!r} (from --nvcc or the config) is not an executable file")
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home:
            candidate = os.path.join(home, "bin", "nvcc")
            if os.access(candidate, os.X_OK):
                return candidate
    on_path = shutil.which("nvcc")
    if on_path:
        return on_path
    for candidate in _wheel_nvcc_candidates():
        if os.access(candidate, os.X_OK):
            return candidate
    raise NvccNotFound("<nvcc>", NVCC_MISSING)


def nvcc_command(nvcc: str, source: str, output: str, arch: str, options: CompileOptions) -> list:
    """The argument list for compiling `source` to PTX for one architecture."""
    arch = arch if arch.startswith("compute_") else "compute_" + arch.split("_", 1)[1]
    cmd = [nvcc, "-ptx", "-lineinfo", f"-arch={arch}"]
    cmd += [f"-I{d}" for d in options.include_dirs]
    cmd += [f"-D{d}" for d in options.defines]
    cmd += list(options.extra_args)
    # `--` would be clearer, but nvcc does not accept it: an absolute path cannot start with '-'.
    cmd += ["-o", output, os.path.abspath(source)]
    return cmd


@dataclass
class CompiledPtx:
    arch: str
    text: str
    command: list = field(default_factory=list)


def compile_to_ptx(source: str, options: CompileOptions) -> list:
    """Compile `source` once per architecture; returns [CompiledPtx]. Raises InputError with
    nvcc's own messages when the file does not compile."""
    if not os.path.isfile(source):
        raise InputError(source, "no such file")
    nvcc = find_nvcc(options.nvcc)
    env = _nvcc_env(nvcc)
    results = []
    real = os.path.abspath(source)
    with tempfile.TemporaryDirectory(prefix="ptxlint-nvcc-") as tmp:
        compiled_name, options = _shell_safe_source(real, tmp, options)
        for i, arch in enumerate(options.arches):
            out = os.path.join(tmp, f"out{i}.ptx")
            cmd = nvcc_command(nvcc, compiled_name, out, arch, options)
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, env=env, errors="replace")
            except OSError as err:
                raise InputError(source, f"cannot run nvcc {nvcc}: {err.strerror}") from None
            if proc.returncode != 0:
                raise _compile_error(source, arch, proc)
            with open(out, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            if compiled_name != real:
                text = text.replace(f'"{compiled_name}"', f'"{real}"')
            results.append(CompiledPtx(arch, text, cmd))
    return results


# nvcc hands file names to its sub-tools through a shell inside double quotes, where these
# characters still mean something; such a file is compiled through a plainly named link.
_SHELL_ACTIVE = re.compile(r'[$`"\\!]')


def _shell_safe_source(real: str, tmp: str, options: CompileOptions) -> tuple:
    if not _SHELL_ACTIVE.search(real) or '"' in real:
        return real, options
    link = os.path.join(tmp, "source.cu")
    os.symlink(real, link)
    # `#include "x.cuh"` looks next to the including file first: keep that directory searchable.
    include = (os.path.dirname(real),) + tuple(options.include_dirs)
    from dataclasses import replace

    return link, replace(options, include_dirs=include)


def _nvcc_env(nvcc: str) -> dict:
    """nvcc from the PyPI wheels finds its cicc/ptxas by its own path; make sure the wheel's bin
    directory is also on PATH so nvcc's helper tools resolve the same way everywhere."""
    env = dict(os.environ)
    bindir = os.path.dirname(os.path.abspath(nvcc))
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def _compile_error(source: str, arch: str, proc) -> InputError:
    messages = (proc.stderr or "") + (proc.stdout or "")
    messages = messages.strip() or f"nvcc exited with status {proc.returncode} and printed nothing"
    line = None
    abs_source = os.path.abspath(source)
    for m in _NVCC_DIAG.finditer(messages):
        if os.path.abspath(m.group("file")) == abs_source or os.path.basename(m.group("file")) == os.path.basename(source):
            line = int(m.group("line"))
            break
    return InputError(source, f"does not compile for {arch}; nvcc says:\n{_indent(messages)}", line)


def _indent(text: str) -> str:
    return "\n".join("    " + ln for ln in text.splitlines())
