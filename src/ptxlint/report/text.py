"""Human-readable output: `path:line:col: CODE message`, the source line, and the notes.

By default a finding shows its headline, the assumption (block shape, where it came from,
architectures), one line of evidence and the fix, in source terms (wording.py); `--verbose`
shows every note and where in the PTX.
"""

from __future__ import annotations

import os

from ..gate import read_lines
from . import incomplete_lines, summary_line
from .wording import readable


def _source_lines(path: str) -> list:
    """The file's lines, or none when it may not be read (gate.py: only sources inside the checked repository)."""
    return read_lines(path) or []


def _colour(text: str, code: str, enabled: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if enabled else text


def location(r) -> str:
    """`path:line:col` of a readable finding, or the path alone when no source line is known."""
    return f"{r.path}:{r.line}:{r.column or 0}" if r.line else r.path


def format_diagnostic(d, colour: bool = False, show_source: bool = True, verbose: bool = False,
                      link: str = None) -> str:
    """The finding, its source line with a caret, its notes and fix; `link`: where the HTML report
    shows its kernel (`check --report`)."""
    r = readable(d)
    sev_colour = {"error": "1;31", "warning": "1;33", "info": "1;36"}.get(d.severity, "1")
    lines = [f"{_colour(location(r), '1', colour)}: {_colour(d.code, sev_colour, colour)} {r.headline}"]
    if show_source and r.line:
        src = _source_lines(r.path)
        if 0 < r.line <= len(src):
            text = src[r.line - 1].rstrip()
            lines.append(f"  {r.line:>5} | {text}")
            caret_at = max((r.column or 1) - 1, 0)
            lines.append("        | " + " " * caret_at + _colour("^", sev_colour, colour))
    for note in r.notes(verbose):
        lines.append(f"        = {note}")
    if r.fix:
        lines.append(f"        = {_colour('fix', '1;32', colour)}: {r.fix}")
    if verbose:
        lines += [f"        = ptx: {p}" for p in r.ptx_places]
    if link:
        lines.append(f"        = report: {link}")
    return "\n".join(lines)


def render(results, colour: bool = False, verbose: bool = False, with_errors: bool = False, report=None) -> str:
    """The findings of a run, the incomplete kernels and the summary; the input errors too with
    `with_errors` (a report written to a file; on a terminal they go to stderr: cli.py). `report`:
    (path of the HTML report, {(ptx path, kernel): its link}) when `check --report` wrote one."""
    links = report[1] if report else {}
    out = []
    hidden = 0
    for result in results:
        if with_errors:
            out += [_colour(f"{err}", "1;31", colour) if colour else f"{err}" for err in result.errors]
        for d in result.diagnostics:
            out.append(format_diagnostic(d, colour, verbose=verbose, link=links.get((d.ptx_path, d.kernel))))
            hidden += 0 if verbose else readable(d).hidden_notes()
    out.extend(incomplete_lines(results))
    if hidden:  # before the summary, which stays the last thing said
        out.append(f"-v shows {hidden} more note{'s' if hidden != 1 else ''}.")
    out.append(summary_line(results))
    if report:
        out.append(f"Report: {report[0]}")
    return "\n".join(out) + "\n"


def use_colour(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ
