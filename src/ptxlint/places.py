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


def arches_of(d: Diagnostic) -> list:
    """The architectures a finding was found for: those merged into it, else the one its
    `architecture ...` note names (every rule states it), else none."""
    if d.data.get("arches"):
        return list(dict.fromkeys(a for a in d.data["arches"] if a))
    for note in d.notes:
        if note.startswith("architecture "):
            return [note[len("architecture "):].split(":")[0].split()[0]]
    return []


def merge_across_inputs(results: list) -> None:
    """One finding per place over the whole run: a finding at the same rule, source file, line,
    column and kernel from several inputs (a `.cu` and the `.ptx` files compiled from it, one per
    architecture) is kept once, on the first input's result, and says which inputs and
    architectures it holds for (`data["inputs"]`, `data["arches"]`, a note). As in `merge_places`,
    the n-th finding of one input at a place meets the n-th of another (a load and a store on one
    line stay two)."""
    kept: dict = {}
    for result in results:
        occurrences: dict = {}
        remaining = []
        for d in result.diagnostics:
            place = (d.code, os.path.normcase(os.path.abspath(d.path)), d.line, d.column, d.kernel)
            n = occurrences.get(place, 0)
            occurrences[place] = n + 1
            first = kept.get(place + (n,))
            if first is None:
                kept[place + (n,)] = (d, result.path)
                remaining.append(d)
                continue
            _merge_into(first[0], first[1], d, result.path)
        result.diagnostics = remaining
    for d, input_path in kept.values():
        inputs = d.data.get("inputs")
        if inputs and len(inputs) > 1:
            d.data["arches"] = sorted({a for i in inputs for a in i["arches"]}, key=_arch_order)
            d.notes.append("found in " + ", ".join(
                f"{i['input']} ({', '.join(i['arches'])})" if i["arches"] else i["input"] for i in inputs))


def _merge_into(first: Diagnostic, first_input: str, d: Diagnostic, input_path: str) -> None:
    if "inputs" not in first.data:
        first.data["inputs"] = [_input_entry(first, first_input)]
    first.data["inputs"].append(_input_entry(d, input_path))
    if d.message != first.message:
        first.notes.append(f"for {input_path}: {d.message}")


def _input_entry(d: Diagnostic, input_path: str) -> dict:
    return {"input": input_path, "arches": arches_of(d), "ptx_path": d.ptx_path, "ptx_line": d.ptx_line}


def _arch_order(arch: str) -> tuple:
    """sm_75 < sm_80 < sm_90 < sm_90a < sm_100a (by number, then suffix)."""
    digits = "".join(ch for ch in arch if ch.isdigit())
    return (int(digits) if digits else 0, arch)
