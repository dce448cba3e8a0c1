"""Results cache: an unchanged file is neither recompiled nor re-analysed.

An entry is keyed by the file's content hash, the options that shape its result (rules, arch,
block shapes, nvcc and its arguments) and a fingerprint of ptxlint itself. A `.cu` entry also
records the content hash of every file its PTX names in `.file` (the headers it includes), and is
used only while all of them are unchanged.

The cache lives in the user's cache directory (`$PTXLINT_CACHE_DIR`, else
`$XDG_CACHE_HOME/ptxlint`, else `~/.cache/ptxlint`), never by default in the checked tree. Every
entry is signed with a key that only this user's cache holds (HMAC-SHA256), so an entry that a
checked-out tree brings along (a forged `.ptxlint_cache/`) is a miss, and an entry is replayed only
when it is well formed (cache_entries.valid_entry); anything else is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import tempfile
from functools import lru_cache
from typing import Optional

from . import __version__

CACHE_DIR_NAME = ".ptxlint_cache"
FORMAT = 3  # 2: paths stored relative to the checked file; 3: signed entries
_KEY_FILE = "signing.key"


def user_cache_home() -> str:
    """`$XDG_CACHE_HOME/ptxlint`, else `~/.cache/ptxlint`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ptxlint")


def default_cache_dir() -> str:
    return os.environ.get("PTXLINT_CACHE_DIR") or user_cache_home()


def file_digest(path: str) -> Optional[str]:
    """The content hash of a file inside the boundary (gate.py), None when it may not be read."""
    from .gate import MAX_PTX_BYTES, read_bytes

    try:
        return hashlib.sha256(read_bytes(path, MAX_PTX_BYTES)).hexdigest()
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
    """One JSON file per entry under `directory`, signed; writes are atomic, reads tolerate
    garbage (a miss)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._key: Optional[bytes] = None

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, f"v{FORMAT}", key[:2], key + ".json")

    def get(self, key: str, valid=None) -> Optional[dict]:
        """The entry stored under `key` when it is signed with this cache's key and well formed
        (`valid(entry)`; by default the shape of a result entry, cache_entries.valid_entry)."""
        from .cache_entries import valid_entry
        from .gate import MAX_CACHE_ENTRY_BYTES, read_bytes

        signing = self._signing_key(create=False)
        if signing is None:
            return None
        try:
            raw = read_bytes(self._path(key), MAX_CACHE_ENTRY_BYTES, bounded=False)
            stored = json.loads(raw)
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(stored, dict) or not isinstance(stored.get("mac"), str) or not isinstance(stored.get("entry"), str):
            return None
        expected = hmac.new(signing, (key + stored["entry"]).encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, stored["mac"]):
            return None  # not written by this user's ptxlint: a forged or foreign entry
        try:
            entry = json.loads(stored["entry"])
        except (ValueError, RecursionError):
            return None
        return entry if (valid or valid_entry)(entry) else None

    def put(self, key: str, entry: dict) -> None:
        path = self._path(key)
        try:
            self._ensure_root()
            signing = self._signing_key(create=True)
            if signing is None:
                return
            body = json.dumps(entry)
            mac = hmac.new(signing, (key + body).encode(), hashlib.sha256).hexdigest()
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"mac": mac, "entry": body}, fh)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only checkout still gets its results, just not cached

    def _signing_key(self, create: bool) -> Optional[bytes]:
        """The secret entries are signed with: in the cache directory when that lies outside every
        checked tree, else in the user's cache home (a tree can bring a cache directory along,
        never the user's key). Created on first write, readable by the user alone."""
        if self._key is not None:
            return self._key
        from .gate import is_trusted, read_bytes

        home = self.directory if not is_trusted(self.directory) else user_cache_home()
        path = os.path.join(home, _KEY_FILE)
        try:
            self._key = read_bytes(path, 1024, bounded=False)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.makedirs(home, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(os.urandom(32).hex().encode())
            except FileExistsError:
                pass  # another worker made it first
            except OSError:
                return None
            try:
                self._key = read_bytes(path, 1024, bounded=False)
            except OSError:
                return None
        except OSError:
            return None
        return self._key if len(self._key) >= 32 else None

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
    from .gate import repository_root

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
    from .gate import MAX_PTX_BYTES, read_bytes

    try:
        text = read_bytes(path, MAX_PTX_BYTES)
    except OSError:
        return None
    files = {int(m.group(1)): m.group(2).decode("utf-8", errors="replace") for m in _FILE_DIRECTIVE.finditer(text)}
    resolved = relocated_sources(files, path)
    return {str(k): portable_path(v, path) for k, v in sorted(resolved.items())}


def safe_digest(path: Optional[str]) -> Optional[str]:
    """The digest of a source a cached result depends on, read only if it is a trusted regular
    file (gate.py); None otherwise (a missing file, or one that may not be read)."""
    import stat

    from .gate import is_trusted

    if not path or path.startswith("<") or not is_trusted(path):
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    return file_digest(path)
