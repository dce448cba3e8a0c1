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

# NVIDIA's wheels that give an nvcc able to compile .cu files to PTX (CUB and Thrust included), in
# the active environment: what the `nvcc` extra of pyproject.toml installs. ptxlint is not on PyPI
# (yet): `ptxlint[nvcc]` works from a checkout (`pip install '.[nvcc]'`); naming the wheels works anywhere.
NVCC_WHEELS = ("nvidia-cuda-nvcc", "nvidia-cuda-crt", "nvidia-nvvm", "nvidia-cuda-runtime", "nvidia-cuda-cccl")
SASS_WHEELS = ("nvidia-cuda-nvdisasm", "nvidia-cuda-cuobjdump", "nvidia-cuda-nvcc")


def install_hint(wheels: tuple, extra: str) -> str:
    """How to install NVIDIA's `wheels` into the environment ptxlint runs in, in words that work today."""
    return (f"`pip install {' '.join(wheels)}` in ptxlint's environment (from a ptxlint checkout: "
            f"`pip install '.[{extra}]'`)")


NVCC_MISSING = (
    "nvcc not found: ptxlint compiles .cu files to PTX with nvcc. Install the CUDA toolkit and "
    "put it on PATH or set CUDA_HOME, pass --nvcc PATH (or `nvcc = \"...\"` in the config), or "
    f"{install_hint(NVCC_WHEELS, 'nvcc')} for NVIDIA's nvcc wheels. .ptx files need no nvcc."
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
    # staged path prefix -> the user's path (the `.file` names nvcc wrote -> the files they are)
    staged: dict = field(default_factory=dict)

    def source_name(self, path: str) -> str:
        """The user's name for a `.file` path of this PTX (nvcc compiled a staged copy)."""
        return _unstage(path, self.staged)


# nvcc hands file names, include directories and -D values to its sub-tools through a shell,
# inside double quotes, where these characters still mean something.
_SHELL_ACTIVE = re.compile(r'[$`"\\!\n\r]')
_PLAIN_NAME = re.compile(r"[A-Za-z0-9._+-]{1,100}")
NVCC_TIMEOUT_S = float(os.environ.get("PTXLINT_NVCC_TIMEOUT", "300"))


def compile_to_ptx(source: str, options: CompileOptions) -> list:
    """Compile `source` once per architecture; returns [CompiledPtx]. Raises InputError with
    nvcc's own messages when the file does not compile.

    nvcc never sees a name from the checked tree: it compiles a copy with a plain name in a private
    temporary directory; the source's directory and every include directory whose path a shell
    could act on are reached through plainly named links there (nvcc passes `-I` paths on as given,
    but resolves the source's own links). Locations are mapped back to the user's paths. An nvcc
    argument a shell could act on is refused. nvcc (and its preprocessor, which may be pointed at
    a FIFO or /dev/zero by an #include) is stopped after NVCC_TIMEOUT_S seconds."""
    from ..gate import read_checked

    content = read_checked(source)
    real = os.path.abspath(source)
    for arg in (*options.defines, *options.extra_args):
        if _SHELL_ACTIVE.search(arg) and not (arg.startswith("-I") and len(arg) > 2):  # -IDIR: linked
            raise InputError(source, f"nvcc argument {arg!r} holds a character nvcc would hand to a shell "
                                     "($ ` \" \\ ! or a line break): not compiled")
    nvcc = find_nvcc(options.nvcc)
    env = _nvcc_env(nvcc)
    results = []
    with tempfile.TemporaryDirectory(prefix="ptxlint-nvcc-") as tmp:
        staged, staged_options, prefixes = _stage(real, content, tmp, options)
        for i, arch in enumerate(options.arches):
            out = os.path.join(tmp, f"out{i}.ptx")
            cmd = nvcc_command(nvcc, staged, out, arch, staged_options)
            proc = _run_nvcc(cmd, env, source, nvcc)
            if proc.returncode != 0:
                raise _compile_error(source, arch, proc, prefixes)
            with open(out, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            results.append(CompiledPtx(arch, text, cmd, prefixes))
    return results


def _stage(real: str, content: bytes, tmp: str, options: CompileOptions) -> tuple:
    """(the copy to compile, the options with safe include paths, {staged prefix: user's path})."""
    from dataclasses import replace

    name = os.path.basename(real)
    name = name if _PLAIN_NAME.fullmatch(name) and name.endswith(".cu") else "source.cu"
    os.mkdir(os.path.join(tmp, "src"))
    copy = os.path.join(tmp, "src", name)
    with open(copy, "wb") as fh:
        fh.write(content)
    prefixes = {copy: real}
    links = 0
    # headers under the source's folder with edited contents (check --fix verifying an edit): a
    # copy beside the staged source, which `#include "..."` finds before the original
    from ..gate import overlay_files

    folder = os.path.realpath(os.path.dirname(real))
    for path, edited in overlay_files().items():
        relative = os.path.relpath(path, folder)
        if path == os.path.realpath(real) or relative.startswith(os.pardir) or os.path.isabs(relative):
            continue
        staged_header = os.path.join(tmp, "src", relative)
        os.makedirs(os.path.dirname(staged_header), exist_ok=True)
        with open(staged_header, "wb") as fh:
            fh.write(edited)
        prefixes[staged_header] = os.path.join(os.path.dirname(real), relative)

    def safe_dir(directory: str) -> str:
        nonlocal links
        directory = os.path.abspath(directory)
        if not _SHELL_ACTIVE.search(directory):
            return directory
        link = os.path.join(tmp, f"dir{links}")
        links += 1
        os.symlink(directory, link)
        prefixes[link + os.sep] = directory + os.sep
        return link

    # `#include "x.cuh"` looks next to the including file first: its directory comes first.
    include = tuple(safe_dir(d) for d in (os.path.dirname(real), *options.include_dirs))
    extra = tuple("-I" + safe_dir(a[2:]) if a.startswith("-I") and len(a) > 2 else a for a in options.extra_args)
    return copy, replace(options, include_dirs=include, extra_args=extra), prefixes


def _unstage(path: str, prefixes: dict) -> str:
    for staged, user in prefixes.items():
        if path == staged:
            return user
        if staged.endswith(os.sep) and path.startswith(staged):
            return user + path[len(staged):]
    return path


def _run_nvcc(cmd: list, env: dict, source: str, nvcc: str):
    """Run nvcc in its own process group, killed whole after NVCC_TIMEOUT_S seconds and when this
    process dies."""
    import signal

    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                errors="replace", start_new_session=True, preexec_fn=_die_with_parent)
    except OSError as err:
        raise InputError(source, f"cannot run nvcc {nvcc}: {err.strerror}") from None
    try:
        out, err = proc.communicate(timeout=NVCC_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.communicate()
        raise InputError(source, f"nvcc did not finish in {NVCC_TIMEOUT_S:g} s (an #include of a FIFO or a "
                                 "device file?); not checked (PTXLINT_NVCC_TIMEOUT sets the limit)") from None
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _die_with_parent() -> None:
    """In the child, before exec: a SIGKILL when the parent dies (Linux), so that nvcc does not
    outlive a run that was stopped."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
        except (OSError, AttributeError):
            pass


def include_dirs_of(args) -> list:
    """The directories of `-I DIR` / `-IDIR` / `--include-path DIR` in nvcc arguments."""
    out = []
    args = list(args)
    for k, a in enumerate(args):
        if a in ("-I", "--include-path", "-isystem") and k + 1 < len(args):
            out.append(args[k + 1])
        elif a.startswith("-I") and len(a) > 2:
            out.append(a[2:])
        elif a.startswith("--include-path="):
            out.append(a.split("=", 1)[1])
    return out


def _nvcc_env(nvcc: str) -> dict:
    """nvcc from the PyPI wheels finds its cicc/ptxas by its own path; make sure the wheel's bin
    directory is also on PATH so nvcc's helper tools resolve the same way everywhere."""
    env = dict(os.environ)
    bindir = os.path.dirname(os.path.abspath(nvcc))
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def _compile_error(source: str, arch: str, proc, prefixes: dict) -> InputError:
    messages = (proc.stderr or "") + (proc.stdout or "")
    for staged, user in prefixes.items():
        messages = messages.replace(staged, user)
    messages = _without_outside_quotes(messages)
    messages = messages.strip() or f"nvcc exited with status {proc.returncode} and printed nothing"
    line = None
    abs_source = os.path.abspath(source)
    for m in _NVCC_DIAG.finditer(messages):
        if os.path.abspath(m.group("file")) == abs_source or os.path.basename(m.group("file")) == os.path.basename(source):
            line = int(m.group("line"))
            break
    return InputError(source, f"does not compile for {arch}; nvcc says:\n{_indent(messages)}", line)


_NVCC_DIAG_HEAD = re.compile(r"^(?P<file>.+?)\(\d+\): ")


def _without_outside_quotes(messages: str) -> str:
    """nvcc quotes the offending source line under each diagnostic; a line of a file outside the
    checked repository (an `#include "/etc/passwd"`) is not shown."""
    from ..gate import is_trusted

    out, hiding = [], False
    for line in messages.split("\n"):
        head = _NVCC_DIAG_HEAD.match(line)
        if head:
            hiding = not is_trusted(head.group("file"))
            out.append(line)
        elif hiding and line.startswith(" "):
            if line.strip() and line.strip() != "^":
                out.append("  (source line not shown: outside the checked repository)")
        else:
            hiding = False
            out.append(line)
    return "\n".join(out)


def _indent(text: str) -> str:
    return "\n".join("    " + ln for ln in text.splitlines())
