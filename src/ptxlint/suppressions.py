"""Suppression comments in the source a finding points at (`.cu`, headers, or `.ptx`).

    x = tile[threadIdx.x][0];  // ptxlint: ignore[BANK001]
    // ptxlint: ignore[BANK001, SYNC]     <- a comment-only line covers the next line
    // ptxlint: ignore-file[FENCE001]     <- anywhere in the file: the whole file

Codes may be prefixes (`BANK`); with no `[...]` every code is suppressed. With
`--report-unused-suppressions` a suppression that silenced nothing is itself reported as
SUPP001, so stale comments do not pile up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .diagnostics import Diagnostic
from .rules.registry import Rule, RuleDoc

_COMMENT = re.compile(r"//\s*ptxlint\s*:\s*(?P<kind>ignore-file|ignore)\b\s*(?:\[(?P<codes>[^\]]*)\])?")

UNUSED_SUPPRESSION = Rule(
    code="SUPP001",
    name="unused-suppression",
    family="SUPP",
    severity="warning",
    summary="A `// ptxlint: ignore[...]` comment that suppresses nothing.",
    doc=RuleDoc(
        what_it_does="""
            Reports `// ptxlint: ignore[CODE]` and `// ptxlint: ignore-file[CODE]` comments that
            did not suppress any finding of a rule that ran. Only reported with
            `--report-unused-suppressions` or `--select SUPP001`.
            """,
        why_is_this_bad="""
            A suppression outlives the problem it hid: once the kernel is fixed, the stale
            comment would silently hide the next, real finding on that line.
            """,
        example="""
            tile[threadIdx.x][threadIdx.y] = v;  // ptxlint: ignore[BANK001]  (tile is padded now)
            """,
        use_instead="""
            tile[threadIdx.x][threadIdx.y] = v;
            """,
    ),
    check=lambda context: (),
)

DRIVER_RULES = (UNUSED_SUPPRESSION,)


def split_driver_selectors(selectors: Iterable[str]) -> tuple:
    """(the selectors for analysis rules, whether SUPP001 is named): `--select SUPP001` (or its
    family `SUPP`, or its name) turns on the unused-suppression report, `--ignore SUPP001` turns it
    off; these name no analysis rule, so they are taken out before rules are resolved."""
    rules, driver = [], False
    for selector in selectors:
        sel = selector.strip()
        if sel.upper().startswith("SUPP") and UNUSED_SUPPRESSION.code.startswith(sel.upper()) \
                or sel == UNUSED_SUPPRESSION.name:
            driver = True
        else:
            rules.append(selector)
    return rules, driver


@dataclass
class Suppression:
    path: str
    line: int  # the line of the comment
    column: int
    file_wide: bool
    codes: tuple  # upper-case codes or prefixes; () = every code
    covers: tuple  # lines it applies to (empty for file-wide)
    used: set = field(default_factory=set)

    def matches(self, code: str) -> bool:
        return not self.codes or any(code.startswith(c) for c in self.codes)


def parse_suppressions(path: str, lines: Iterable[str]) -> list:
    """Every suppression comment in a file's lines."""
    out = []
    for number, text in enumerate(lines, 1):
        if "ptxlint" not in text:
            continue
        for m in _COMMENT.finditer(text):
            raw = m.group("codes")
            codes = tuple(c.strip().upper() for c in raw.split(",") if c.strip()) if raw is not None else ()
            file_wide = m.group("kind") == "ignore-file"
            comment_only = text[: m.start()].strip() == ""
            covers = () if file_wide else ((number, number + 1) if comment_only else (number,))
            out.append(Suppression(path, number, m.start() + 1, file_wide, codes, covers))
    return out


def read_lines(path: str) -> list:
    """A file's lines, or none if it cannot be read (a finding may point at a vanished file) or may
    not be: a PTX file can name any path in `.file`, and only trusted sources are read
    (gate.py)."""
    from .gate import read_lines as read_source

    return read_source(path) or []


class SuppressionIndex:
    """Suppressions of every file findings point at, read once per run."""

    def __init__(self, read_lines) -> None:
        self._read_lines = read_lines  # path -> list of lines (empty if unreadable)
        self._by_path: dict = {}

    def for_path(self, path: str) -> list:
        if path not in self._by_path:
            self._by_path[path] = parse_suppressions(path, self._read_lines(path))
        return self._by_path[path]

    def suppressing(self, d: Diagnostic) -> Optional[Suppression]:
        """The suppression that hides `d`, marking it used; None if `d` stays."""
        for s in self.for_path(d.path):
            if s.matches(d.code) and (s.file_wide or (d.line or 0) in s.covers):
                s.used.add(d.code)
                return s
        return None

    def unused(self, selected_codes: Iterable[str]) -> list:
        """SUPP001 findings for suppressions that hid nothing, among codes that actually ran."""
        selected = set(selected_codes)
        out = []
        for path in sorted(self._by_path):
            for s in self._by_path[path]:
                if s.used:
                    continue
                relevant = [c for c in s.codes if any(code.startswith(c) for code in selected)]
                if s.codes and not relevant:
                    continue  # its rules did not run: we cannot tell whether it is needed
                what = "ignore-file" if s.file_wide else "ignore"
                named = f"[{', '.join(s.codes)}]" if s.codes else ""
                out.append(Diagnostic(
                    code=UNUSED_SUPPRESSION.code, severity=UNUSED_SUPPRESSION.severity,
                    message=f"unused suppression `ptxlint: {what}{named}`: no such finding here",
                    path=s.path, line=s.line, column=s.column,
                ))
        return out
