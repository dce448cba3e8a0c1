"""Reading the source files findings point at (snippets, suppression comments), safely.

A PTX file names its sources in `.file` directives, and anyone can write a PTX file: `.file 1
"/dev/urandom"` must not hang a run, and `.file 1 "/etc/passwd"` with a `.loc` must not print the
runner's files into a CI log. So a source is read only when it is a regular file of at most
MAX_BYTES whose real path lies inside a trusted directory:

* the directory of each checked file and the repository (or working tree) that contains it;
* the working directory;
* the include directories of the configuration and `-I` arguments given to nvcc;
* the CUDA toolkit's include directories (CUB, Thrust and libcu++ headers).

Any other path gets no snippet and no suppressions (its findings are still reported).
"""

from __future__ import annotations

import glob
import os
import shutil
import stat
from functools import lru_cache
from typing import Iterable, Optional

MAX_BYTES = 4 * 1024 * 1024

_trusted: set = set()  # real paths of trusted directories (besides the working directory)


def trust_directory(directory: str) -> None:
    """Allow reading sources under `directory` (and its subdirectories)."""
    if directory:
        real = os.path.realpath(directory)
        if real not in _trusted:
            _trusted.add(real)
            _read_lines.cache_clear()


def trust_tree_of(checked_path: str, include_dirs: Iterable[str] = ()) -> None:
    """Trust what checking `checked_path` may legitimately point into: its directory, the
    repository it is in, and the include directories it is compiled with."""
    folder = os.path.dirname(os.path.abspath(checked_path))
    trust_directory(folder)
    root = repository_root(folder)
    if root is not None:
        trust_directory(root)
    for d in include_dirs:
        trust_directory(d)


def include_dirs_of(args: Iterable[str]) -> list:
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


def repository_root(folder: str) -> Optional[str]:
    """The nearest enclosing directory with a `.git` (or `.hg`), or None."""
    current = folder
    while True:
        if os.path.exists(os.path.join(current, ".git")) or os.path.isdir(os.path.join(current, ".hg")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


@lru_cache(maxsize=1)
def toolkit_include_dirs() -> tuple:
    """The include directories of the CUDA toolkits on this machine (real paths)."""
    prefixes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        prefixes.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    prefixes.extend(glob.glob("/usr/local/cuda*"))
    found = []
    for prefix in filter(None, prefixes):
        for d in [os.path.join(prefix, "include")] + glob.glob(os.path.join(prefix, "targets", "*", "include")):
            if os.path.isdir(d):
                found.append(os.path.realpath(d))
    try:  # NVIDIA's PyPI wheels (`pip install ptxlint[nvcc]`)
        import nvidia  # type: ignore

        for base in getattr(nvidia, "__path__", []):
            found.extend(os.path.realpath(d) for d in glob.glob(os.path.join(base, "*", "include")))
    except ImportError:
        pass
    return tuple(dict.fromkeys(found))


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def is_trusted(path: str) -> bool:
    """May the source at `path` be read (the directory rules only; see `read_lines`)?"""
    real = os.path.realpath(path)
    roots = [os.path.realpath(os.getcwd()), *_trusted, *toolkit_include_dirs()]
    return any(_inside(real, root) for root in roots)


def read_lines(path: str) -> Optional[list]:
    """The lines of a source file, or None when it may not or cannot be read (outside the trusted
    directories, not a regular file, larger than MAX_BYTES, unreadable)."""
    if not path or path.startswith("<"):
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    # the key changes with the file and with the working directory (a trusted directory)
    found = _read_lines(path, os.getcwd(), st.st_mtime_ns, st.st_size, st.st_ino)
    return list(found) if found is not None else None


@lru_cache(maxsize=128)
def _read_lines(path: str, cwd: str, *version) -> Optional[tuple]:
    if not is_trusted(path):
        return None
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then rejects it
        fd = os.open(os.path.realpath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            return None
        data = b""
        while len(data) <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES or b"\x00" in data[:8192]:
        return None  # grew while being read, or binary
    return tuple(data.decode("utf-8", errors="replace").split("\n"))
