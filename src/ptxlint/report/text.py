"""Human-readable output: `path:line:col: CODE message`, the source line, and the notes."""

from __future__ import annotations

import os

from ..gate import read_lines
from . import incomplete_lines, summary_line


def _source_lines(path: str) -> list:
    """The file's lines, or none when it may not be read (gate.py: only sources inside the checked repository)."""
    return read_lines(path) or []


def _colour(text: str, code: str, enabled: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if enabled else text


def format_diagnostic(d, colour: bool = False, show_source: bool = True, link: str = None) -> str:
    """The finding, its source line with a caret, its notes and fix; `link`: where the HTML report
    shows its kernel (`check --report`)."""
    where = f"{d.path}:{d.line or 0}:{d.column or 0}"
    sev_colour = {"error": "1;31", "warning": "1;33", "info": "1;36"}.get(d.severity, "1")
    lines = [f"{_colour(where, '1', colour)}: {_colour(d.code, sev_colour, colour)} {d.message}"]
    if show_source and d.line:
        src = _source_lines(d.path)
        if 0 < d.line <= len(src):
            text = src[d.line - 1].rstrip()
            lines.append(f"  {d.line:>5} | {text}")
            caret_at = max((d.column or 1) - 1, 0)
            lines.append("        | " + " " * caret_at + _colour("^", sev_colour, colour))
    for note in d.notes:
        lines.append(f"        = {note}")
    if d.fix:
        lines.append(f"        = {_colour('fix', '1;32', colour)}: {d.fix}")
    if d.ptx_path and (d.ptx_path != d.path):
        lines.append(f"        = ptx: {d.ptx_path}:{d.ptx_line}" + (f" in {d.kernel}" if d.kernel else ""))
    if link:
        lines.append(f"        = report: {link}")
    return "\n".join(lines)


def render(results, colour: bool = False, report=None) -> str:
    """`report`: (path of the HTML report, {(ptx path, kernel): its link}) when `check --report` wrote one."""
    links = report[1] if report else {}
    out = []
    for result in results:
        for err in result.errors:
            out.append(_colour(f"{err}", "1;31", colour) if colour else f"{err}")
        for d in result.diagnostics:
            out.append(format_diagnostic(d, colour, link=links.get((d.ptx_path, d.kernel))))
    out.extend(incomplete_lines(results))
    out.append(summary_line(results))
    if report:
        out.append(f"Report: {report[0]}")
    return "\n".join(out) + "\n"


def use_colour(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ
