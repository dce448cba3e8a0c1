"""A file's result as the results cache (cache.py) stores it and as it is replayed.

Stored, every path is relative to the checked file and the digests of the sources the result depends
on come along; replayed, the paths are made local again and the entry is used only while those
sources are unchanged. Separate from cache.py (the store and its keys) and from file_check.py (which
produces the entries) so that the entry's format can change on its own.
"""

from __future__ import annotations

import os
from typing import Optional

from .file_plan import _FilePlan
from .places import user_path



def _optional(value, kind) -> bool:
    return value is None or (isinstance(value, kind) and not isinstance(value, bool))


def _strings(value) -> bool:
    return isinstance(value, list) and all(_optional(v, str) for v in value)


def _valid_diagnostic(d) -> bool:
    from dataclasses import fields

    from .diagnostics import SEVERITIES, Diagnostic

    return (isinstance(d, dict) and isinstance(d.get("code"), str) and d.get("severity") in SEVERITIES
            and isinstance(d.get("message"), str) and _optional(d.get("path"), str)
            and all(_optional(d.get(k), int) for k in ("line", "column", "ptx_line"))
            and all(_optional(d.get(k), str) for k in ("kernel", "ptx_path", "fix"))
            and isinstance(d.get("notes", []), list) and all(isinstance(n, str) for n in d.get("notes", []))
            and isinstance(d.get("data", {}), dict) and set(d) <= {f.name for f in fields(Diagnostic)})


def valid_entry(entry) -> bool:
    """Is `entry` (as read back from the cache) of the shape `_portable_entry` writes? Anything
    else is a miss: a corrupt, foreign-version or crafted entry never reaches the reporters."""
    if not isinstance(entry, dict):
        return False
    deps, files = entry.get("deps", {}), entry.get("files")
    not_checked = entry.get("not_checked", {})
    kernels_of = entry.get("not_checked_kernels", {})
    return (isinstance(entry.get("diagnostics"), list) and all(map(_valid_diagnostic, entry["diagnostics"]))
            and entry.get("errors") == [] and _strings(entry.get("sources")) and bool(entry["sources"])
            and _strings(entry.get("kernels", []))
            and isinstance(not_checked, dict) and all(isinstance(v, int) for v in not_checked.values())
            and isinstance(kernels_of, dict) and all(_strings(v) for v in kernels_of.values())
            and isinstance(deps, dict) and all(_optional(v, str) for v in deps.values())
            and (files is None or (isinstance(files, dict) and all(_optional(v, str) for v in files.values()))))


def _portable_entry(entry: dict, plan: _FilePlan, deps: dict) -> dict:
    """`entry` as cached: every path relative to the checked file (cache.portable_path), with the
    digests of the sources it depends on and, for PTX, the `.file` table as resolved here."""
    from .cache import portable_path, safe_digest, source_files

    def portable(p):
        return portable_path(p, plan.path)

    stored = dict(entry, path=None, cached=False, incomplete=[])
    stored["diagnostics"] = [dict(d, path=portable(d["path"]), ptx_path=portable(d.get("ptx_path")))
                             for d in entry["diagnostics"]]
    stored["sources"] = [portable(p) for p in entry["sources"]]
    checked = os.path.abspath(plan.path)
    stored["deps"] = {portable(dep): safe_digest(dep) for dep in deps if dep != checked}
    if plan.compile is None:
        stored["files"] = source_files(plan.path)
    return stored


def _replay_cached(stored: dict, plan: _FilePlan) -> Optional[dict]:
    """A cached entry for the file checked now, under its current path; None when it does not
    apply here (a source it depends on differs, or the PTX's `.file` sources resolve elsewhere)."""
    from .cache import local_path, safe_digest, source_files

    def local(p):
        return local_path(p, plan.path)

    for dep, digest in stored.get("deps", {}).items():
        if safe_digest(local(dep)) != digest:
            return None
    if plan.compile is None and stored.get("files") != source_files(plan.path):
        return None

    def shown(p):
        p = local(p)
        return user_path(p, plan.path) if p is not None and os.path.isabs(p) else p

    entry = dict(stored, path=plan.path, cached=True, incomplete=[])
    entry.pop("deps", None)
    entry.pop("files", None)
    entry["diagnostics"] = [dict(d, path=shown(d["path"]), ptx_path=shown(d.get("ptx_path")))
                            for d in stored["diagnostics"]]
    entry["sources"] = [shown(p) for p in stored["sources"]]
    return entry
