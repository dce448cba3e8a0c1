"""The PTX nvcc made of a `.cu`, kept in the results cache (cache.py) so that `check`, `launches`,
`accesses` and `kernels` compile an unchanged file once between them.

An entry is keyed by the `.cu`'s content hash, its absolute path, the compile options and the nvcc
that ran (path, size, mtime); it holds each architecture's PTX text and the digests of the user
sources its `.file` directives name (the headers it includes), and is used only while all of them
are unchanged, like a result entry. Signed and validated like every entry: anything else is a miss.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import asdict
from typing import Optional

from .frontend.nvcc import CompiledPtx, CompileOptions, compile_to_ptx, find_nvcc

_FILE_DIRECTIVE = re.compile(r'^[ \t]*\.file[ \t]+\d+[ \t]+"([^"\n]*)"', re.MULTILINE)


def compiled_ptx(path: str, options: CompileOptions, cache_dir: Optional[str]) -> list:
    """[CompiledPtx] of `path` per architecture: from the cache in `cache_dir` when an entry for
    the same content, options and nvcc is there and its sources are unchanged, else from nvcc
    (and then stored). `cache_dir` None: always nvcc, nothing stored."""
    from .cache import ResultCache, make_key
    from .gate import read_checked

    if not cache_dir:
        return compile_to_ptx(path, options)
    digest = hashlib.sha256(read_checked(path)).hexdigest()  # the file as nvcc would be given it
    nvcc = find_nvcc(options.nvcc)
    try:
        st = os.stat(nvcc)
        tool = [os.path.abspath(nvcc), st.st_size, st.st_mtime_ns]
    except OSError:
        return compile_to_ptx(path, options)
    cache = ResultCache(cache_dir)
    key = make_key(digest, {"kind": "compiled-ptx", "source": os.path.abspath(path), "compile": asdict(options),
                            "nvcc": tool})
    entry = cache.get(key, valid=_valid_compile_entry)
    if entry is not None and _sources_unchanged(entry["deps"]):
        return [CompiledPtx(a["arch"], a["text"], list(a["command"]), dict(a["staged"])) for a in entry["arches"]]
    compiled = compile_to_ptx(path, options)
    cache.put(key, {"kind": "compiled-ptx", "deps": _source_digests(compiled, path),
                    "arches": [{"arch": c.arch, "text": c.text, "command": c.command, "staged": c.staged}
                               for c in compiled]})
    return compiled


def _source_digests(compiled: list, path: str) -> dict:
    """{absolute path: digest} of the user sources the PTX names (toolkit headers change only with
    the nvcc, which is part of the key)."""
    from .cache import safe_digest
    from .frontend.sourcemap import is_toolkit_header

    checked = os.path.abspath(path)
    deps = {}
    for c in compiled:
        for name in _FILE_DIRECTIVE.findall(c.text):
            user = os.path.abspath(c.source_name(name))
            if user != checked and user not in deps and not is_toolkit_header(user) and os.path.isfile(user):
                deps[user] = safe_digest(user)
    return deps


def _sources_unchanged(deps: dict) -> bool:
    from .cache import safe_digest

    return all(safe_digest(p) == d for p, d in deps.items())


def _valid_compile_entry(entry) -> bool:
    """Is `entry` of the shape `compiled_ptx` writes?"""
    if not isinstance(entry, dict) or entry.get("kind") != "compiled-ptx":
        return False
    deps, arches = entry.get("deps"), entry.get("arches")
    return (isinstance(deps, dict) and all(isinstance(k, str) and (v is None or isinstance(v, str))
                                           for k, v in deps.items())
            and isinstance(arches, list) and bool(arches)
            and all(isinstance(a, dict) and isinstance(a.get("arch"), str) and isinstance(a.get("text"), str)
                    and isinstance(a.get("command"), list) and isinstance(a.get("staged"), dict)
                    and all(isinstance(k, str) and isinstance(v, str) for k, v in a["staged"].items())
                    for a in arches))
