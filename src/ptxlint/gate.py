"""The one gate for every file ptxlint reads.

ptxlint runs in pre-commit and CI on pull requests, so the checked tree is untrusted input: a file
name, a `.file` directive, an `#include`, a config or a cache entry may point anywhere. Every read
goes through this module, which decides two things:

* **Where** a file may be read from: the trust boundary. It is made of the checked paths'
  repositories (the nearest enclosing directory with `.git`, else the checked directory itself),
  the include directories the *user* names (command line, user-level configuration) and the CUDA
  toolkit's own headers. The working directory is not part of it by itself. A path is inside when
  its real path (symbolic links and `..` resolved) is, so a link in the tree that points out, an
  absolute `.file` path or `../../etc/passwd` are all outside.
* **How** it is read: regular files only, opened without blocking (a FIFO never stalls a run),
  never more than a size limit (a link to `/dev/zero` or a 2 GB header is refused, not loaded).

A refused read raises `Refused` (an `OSError`, so callers that already tolerate unreadable files
skip it); `read_lines` returns None instead, for snippets and suppression comments. Nothing read
outside the boundary is ever returned, so nothing outside it can be printed.

The boundary is per process; worker processes receive it in their plan (`boundary()` /
`set_boundary()`).
"""

from __future__ import annotations

import errno
import glob
import os
import shutil
import stat
from functools import lru_cache
from typing import Iterable, Optional

MAX_SOURCE_BYTES = 16 * 1024 * 1024  # a .cu, a header, host code, a snippet's file
MAX_PTX_BYTES = 256 * 1024 * 1024  # a checked .ptx (CUB's whole PTX is 5.5 MB)
MAX_CONFIG_BYTES = 1024 * 1024
MAX_COMPILE_DB_BYTES = 64 * 1024 * 1024  # a compile_commands.json (a large build: tens of thousands of entries)
MAX_CACHE_ENTRY_BYTES = 16 * 1024 * 1024

_roots: set = set()  # real paths of the directories inside the boundary (besides the toolkit's)
# real path -> bytes: edited contents that reads see in place of the file's (`check --fix` verifies
# an edit by checking the edited text before it writes anything; see `overlaid`)
_overlay: dict = {}


class Refused(OSError):
    """A read the gate does not allow; `reason` says why in words a user understands."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(errno.EACCES, reason, path)
        self.path = path
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# The boundary


def repository_root(folder: str) -> Optional[str]:
    """The nearest enclosing directory of `folder` with a `.git` (or `.hg`), or None."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")) or os.path.isdir(os.path.join(current, ".hg")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def root_of_checked_path(path: str) -> str:
    """The directory that bounds what checking `path` (a file or a directory named by the user or
    found under one) may read: its repository, else the directory itself (a file's directory)."""
    folder = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
    return repository_root(folder) or folder


def trust_directory(directory: str) -> None:
    """Put `directory` (and everything under it) inside the boundary."""
    if directory:
        real = os.path.realpath(directory)
        if real not in _roots:
            _roots.add(real)
            _read_lines.cache_clear()


def trust_checked_path(path: str) -> str:
    """Put the repository (else the directory) of a checked path inside the boundary; returns it."""
    root = root_of_checked_path(path)
    trust_directory(root)
    return root


def boundary() -> tuple:
    """The boundary's directories, to hand to a worker process (`set_boundary`)."""
    return tuple(sorted(_roots))


def set_boundary(roots: Iterable[str]) -> None:
    """Add the directories of `boundary()` taken in another process."""
    for root in roots:
        trust_directory(root)


def reset_boundary() -> None:
    """Empty the boundary (a new run in the same process, tests)."""
    _roots.clear()
    _read_lines.cache_clear()


@lru_cache(maxsize=1)
def toolkit_include_dirs() -> tuple:
    """The include directories of the CUDA toolkits on this machine (real paths): CUB, Thrust and
    libcu++ headers may be read for snippets and launch discovery."""
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
    try:  # NVIDIA's PyPI wheels (the `nvcc` extra): site-packages/nvidia/*/include
        import nvidia  # type: ignore

        for base in getattr(nvidia, "__path__", []):
            found.extend(os.path.realpath(d) for d in glob.glob(os.path.join(base, "*", "include")))
    except ImportError:
        pass
    return tuple(dict.fromkeys(found))


def inside(path: str, directory: str) -> bool:
    """Is `path` `directory` or below it (both as given: no resolution)?"""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def is_trusted(path: str) -> bool:
    """Is the real path of `path` inside the boundary?"""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    return any(inside(real, root) for root in (*_roots, *toolkit_include_dirs()))


# ---------------------------------------------------------------------------------------------
# Edited contents (check --fix)


class overlaid:
    """`with overlaid({path: text}):` every read through the gate of one of these (trusted) files
    sees `text` instead of the file, which is not written: `check --fix` compiles and checks an
    edit this way before it keeps it. nvcc reads headers itself: frontend/nvcc.py stages the
    overlaid ones (`overlay_files`)."""

    def __init__(self, contents: dict) -> None:
        self._contents = {os.path.realpath(p): (t.encode() if isinstance(t, str) else t) for p, t in contents.items()}

    def __enter__(self):
        _overlay.update(self._contents)
        _read_lines.cache_clear()
        return self

    def __exit__(self, *exc) -> None:
        for path in self._contents:
            _overlay.pop(path, None)
        _read_lines.cache_clear()


def overlay_files() -> dict:
    """{real path: bytes} of the files read with edited contents now (empty outside `overlaid`)."""
    return dict(_overlay)


# ---------------------------------------------------------------------------------------------
# Reading


def read_bytes(path: str, limit: int = MAX_SOURCE_BYTES, *, bounded: bool = True) -> bytes:
    """The bytes of `path`. Raises `Refused` when it is outside the boundary (unless
    `bounded=False`: a file the user named outside any repository, the user's own config or
    cache), not a regular file, or larger than `limit`; `OSError` when it cannot be read."""
    if not path or "\x00" in path:
        raise Refused(str(path), "not a file name")
    if bounded and not is_trusted(path):
        raise Refused(path, "outside the checked repository")
    if _overlay:
        edited = _overlay.get(os.path.realpath(path))
        if edited is not None:
            if len(edited) > limit:
                raise Refused(path, f"larger than {_size(limit)}")
            return edited
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then rejects it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except IsADirectoryError:
        raise Refused(path, "is a directory") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise Refused(path, "is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise Refused(path, "not a regular file (a FIFO, socket or device)")
        if st.st_size > limit:
            raise Refused(path, f"larger than {_size(limit)}")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(limit + 1 - total, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        raise Refused(path, f"larger than {_size(limit)}")  # grew while being read
    return b"".join(chunks)


def read_checked(path: str, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of a file to check (a `.ptx`, `.cu`, `.sass`, cubin): inside the repository (else
    the directory) it is named in, so a link in the tree to a file outside is not read. Every
    failure is an InputError naming the file."""
    from .errors import InputError

    trust_checked_path(path)
    try:
        return read_bytes(path, limit)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror}") from None


def read_text(path: str, limit: int = MAX_SOURCE_BYTES, *, bounded: bool = True) -> str:
    """`read_bytes` decoded as UTF-8 (undecodable bytes replaced)."""
    return read_bytes(path, limit, bounded=bounded).decode("utf-8", errors="replace")


def read_lines(path: str) -> Optional[list]:
    """The lines of a source file for a snippet or a suppression comment, or None when the gate
    refuses it or it cannot be read (or looks binary)."""
    if not path or path.startswith("<"):
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    found = _read_lines(path, st.st_mtime_ns, st.st_size, st.st_ino, len(_overlay))
    return list(found) if found is not None else None


@lru_cache(maxsize=128)
def _read_lines(path: str, *version) -> Optional[tuple]:
    try:
        data = read_bytes(path)
    except (OSError, ValueError):
        return None
    if b"\x00" in data[:8192]:
        return None  # binary
    return tuple(data.decode("utf-8", errors="replace").split("\n"))


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
