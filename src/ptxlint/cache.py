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
import tempfile
from functools import lru_cache
from typing import Optional

from . import __version__

CACHE_DIR_NAME = ".ptxlint_cache"
FORMAT = 1


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
        for dep, digest in entry.get("deps", {}).items():
            if file_digest(dep) != digest:
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
