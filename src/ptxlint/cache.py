"""Results cache: an unchanged file is neither recompiled nor re-analysed.

An entry is keyed by the file's content hash, the options that shape its result (rules, arch,
block shapes, nvcc and its arguments) and a fingerprint of ptxlint itself. A `.cu` entry also
records the content hash of every file its PTX names in `.file` (the headers it includes), and is
used only while all of them are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from functools import lru_cache
from typing import Optional

from . import __version__

CACHE_DIR_NAME = ".ptxlint_cache"
FORMAT = 2  # 2: paths stored relative to the checked file


def default_cache_dir() -> str:
    return os.environ.get("PTXLINT_CACHE_DIR") or os.path.join(os.getcwd(), CACHE_DIR_NAME)


def file_digest(path: str) -> Optional[str]:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


@lru_cache(maxsize=1)
def ptxlint_fingerprint() -> str:
    """The version plus the size and mtime of every module, so that a development checkout whose
    rules changed without a version bump does not serve stale results."""
    h = hashlib.sha256(__version__.encode())
    package = os.path.dirname(os.path.abspath(__file__))
    for root, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".lark")):
                st = os.stat(os.path.join(root, name))
                h.update(f"{os.path.relpath(os.path.join(root, name), package)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def make_key(content_digest: str, options: dict) -> str:
    blob = json.dumps({"fmt": FORMAT, "ptxlint": ptxlint_fingerprint(), "content": content_digest, "options": options},
                      sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()


class ResultCache:
    """One JSON file per entry under `directory`; writes are atomic, reads tolerate garbage."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, f"v{FORMAT}", key[:2], key + ".json")

    def get(self, key: str) -> Optional[dict]:
        try:
            with open(self._path(key), encoding="utf-8") as fh:
                entry = json.load(fh)
        except (OSError, ValueError):
            return None
        return entry

    def put(self, key: str, entry: dict) -> None:
        path = self._path(key)
        try:
            self._ensure_root()
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only checkout still gets its results, just not cached

    def _ensure_root(self) -> None:
        if os.path.isdir(self.directory):
            return
        os.makedirs(self.directory, exist_ok=True)
        # Keep the cache out of version control and out of backups, like other tools' caches.
        with open(os.path.join(self.directory, ".gitignore"), "w", encoding="utf-8") as fh:
            fh.write("# Created by ptxlint\n*\n")
        with open(os.path.join(self.directory, "CACHEDIR.TAG"), "w", encoding="utf-8") as fh:
            fh.write("Signature: 8a477f597d28d172789f06886806bc55\n# ptxlint results cache\n")


# ---------------------------------------------------------------------------------------------
# Entries that do not depend on where the file is: the same content checked under another name,
# in another directory or after a rename reads the entry back with its own paths.

_CHECKED = "@checked"  # a stored path that begins with the checked file's path as given
_FILE_DIRECTIVE = re.compile(rb'^[ \t]*\.file[ \t]+(\d+)[ \t]+"([^"\n]*)"', re.MULTILINE)


def _anchor(checked: str) -> tuple:
    """(directory of the checked file, the tree paths are stored relative to: its repository, or
    the directory itself)."""
    from .frontend.sourcefiles import repository_root

    folder = os.path.dirname(os.path.abspath(checked))
    return folder, repository_root(folder) or folder


def portable_path(path: Optional[str], checked: str) -> Optional[str]:
    """`path` (as shown to the user, relative to the working directory or absolute) as stored:
    relative to the checked file's directory when inside its tree, else absolute."""
    if path is None or path.startswith("<"):
        return path
    if path == checked or path.startswith(checked + " ("):  # "k.cu (sm_90 PTX)"
        return _CHECKED + path[len(checked):]
    folder, tree = _anchor(checked)
    absolute = os.path.normpath(os.path.abspath(path))
    if absolute == tree or absolute.startswith(tree.rstrip(os.sep) + os.sep):
        return os.path.relpath(absolute, folder)
    return absolute


def local_path(stored: Optional[str], checked: str) -> Optional[str]:
    """A stored path for the file checked now, under the name it was given: the inverse of
    `portable_path` (its absolute form for paths relative to the checked file's directory)."""
    if stored is None or stored.startswith("<"):
        return stored
    if stored.startswith(_CHECKED):
        return checked + stored[len(_CHECKED):]
    if os.path.isabs(stored):
        return stored
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(checked)), stored))


def source_files(path: str) -> Optional[dict]:
    """The `.file` table of a PTX file as ptxlint resolves it from where the file is now (sources
    looked up in this checkout: frontend/sourcemap.py), stored form; None if unreadable."""
    from .frontend.sourcemap import relocated_sources

    try:
        with open(path, "rb") as fh:
            text = fh.read()
    except OSError:
        return None
    files = {int(m.group(1)): m.group(2).decode("utf-8", errors="replace") for m in _FILE_DIRECTIVE.finditer(text)}
    resolved = relocated_sources(files, path)
    return {str(k): portable_path(v, path) for k, v in sorted(resolved.items())}


def safe_digest(path: Optional[str]) -> Optional[str]:
    """The digest of a source a cached result depends on, read only if it is a trusted regular
    file (frontend/sourcefiles.py); None otherwise (a missing file, or one that may not be read)."""
    import stat

    from .frontend.sourcefiles import is_trusted

    if not path or path.startswith("<") or not is_trusted(path):
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    return file_digest(path)
