"""Source edits as rules give them: apply them to a file's text, show them as a unified diff."""

from __future__ import annotations

import difflib
import os


def edit_key(edit: dict) -> tuple:
    """What makes two edits the same edit (one finding reported for several architectures)."""
    return (os.path.realpath(edit["path"]), edit["line"], edit["start"], edit["end"], edit["new"])


def overlaps(a: dict, b: dict) -> bool:
    """Do two edits of one file touch the same characters (insertions at one point do)?"""
    if os.path.realpath(a["path"]) != os.path.realpath(b["path"]) or a["line"] != b["line"]:
        return False
    return a["start"] < b["end"] and b["start"] < a["end"] or a["start"] == b["start"]


def apply_edits(text: str, edits: list) -> str:
    """`text` with `edits` (of this file; 1-based lines, 0-based columns) made. An edit whose `old`
    is not at its place (the file changed since it was checked) raises ValueError. `indent`: the
    new text starts with the indentation of the line it is inserted before."""
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e["line"], e["start"]), reverse=True):
        index = edit["line"] - 1
        if not 0 <= index < len(lines):
            raise ValueError(f"line {edit['line']} is not in the file")
        line = lines[index]
        if line[edit["start"]:edit["end"]] != edit["old"]:
            raise ValueError(f"line {edit['line']} no longer reads {edit['old']!r} where the fix expects it")
        new = edit["new"]
        if edit.get("indent"):
            new = line[:len(line) - len(line.lstrip())] + new
        lines[index] = line[:edit["start"]] + new + line[edit["end"]:]
    return "\n".join(lines)


def inserted_lines_before(edits: list, line: int) -> int:
    """How many lines the edits add above `line` (to match findings before and after an edit)."""
    return sum(e["new"].count("\n") - e["old"].count("\n") for e in edits if e["line"] < line or
               e["line"] == line and e["start"] == 0 and e["new"].endswith("\n"))


def unified_diff(path: str, before: str, after: str) -> str:
    """`diff -u` of one file, named relative to the working directory when it lies below it."""
    shown = os.path.relpath(path) if os.path.isabs(path) else path
    if shown.startswith(os.pardir):
        shown = path
    path = shown.lstrip(os.sep)
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
