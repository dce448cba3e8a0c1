"""One finding per place: the same rule at the same file, line and column is reported once, however
many architectures, template instantiations or kernels show it, naming them all."""

from __future__ import annotations

import os

from .diagnostics import Diagnostic
from .frontend.demangle import demangle, without_parameters

NAMED_INSTANCES = 6  # instantiations named in the note; the rest are counted


def instance_name(kernel: str) -> str:
    return without_parameters(demangle(kernel))


def merge_places(found_per_arch: list, checked_path: str) -> list:
    """[(arch or None, diagnostics)] -> sorted diagnostics, one per place.

    Findings that share a place within one kernel of one arch (a load and a store on one line) stay
    apart: the n-th of one kernel meets the n-th of another. Another arch's different message
    becomes a note; other kernels are listed in `data.instances` and in a note."""
    merged: dict = {}
    first_arch = found_per_arch[0][0] if found_per_arch else None
    for arch, found in found_per_arch:
        occurrences: dict = {}
        for d in found:
            d.path = user_path(d.path, checked_path)
            place = (d.code, d.path, d.line, d.column)
            seen = (d.kernel,) + place
            key = place + (occurrences.get(seen, 0),)
            occurrences[seen] = key[-1] + 1
            first = merged.get(key)
            if first is None:
                merged[key] = d
                d.data.setdefault("instances", [instance_name(d.kernel)] if d.kernel else [])
                continue
            if d.kernel != first.kernel and d.kernel:
                name = instance_name(d.kernel)
                if name not in first.data["instances"]:
                    first.data["instances"].append(name)
                continue
            first.data.setdefault("arches", [first_arch]).append(arch)
            if d.message != first.message:
                first.notes.append(f"for {arch}: {d.message}")
    out = sorted(merged.values(), key=Diagnostic.sort_key)
    for d in out:
        names = d.data.get("instances", [])
        if len(names) > 1:
            shown = ", ".join(names[:NAMED_INSTANCES]) + (", ..." if len(names) > NAMED_INSTANCES else "")
            d.notes.append(f"in {len(names)} instantiations or kernels: {shown}")
    return out


def user_path(path: str, checked: str) -> str:
    """Show paths as the user wrote them: the checked file as given, others relative to cwd."""
    if not os.path.isabs(path):
        return path
    path = os.path.normpath(path)
    if os.path.abspath(checked) == path:
        return checked
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path
