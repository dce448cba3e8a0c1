"""One line per finding, `path:line:col: CODE message`, for editors and grep."""

from __future__ import annotations

from . import incomplete_lines, summary_line
from .text import location
from .wording import readable


def render(results, with_errors: bool = False) -> str:
    """`path:line:col: CODE message` per finding, then the summary; the input errors too with
    `with_errors` (a report written to a file; on a terminal they go to stderr: cli.py)."""
    out = []
    for result in results:
        if with_errors:
            out += [f"{err}" for err in result.errors]
        for d in result.diagnostics:
            r = readable(d)
            out.append(f"{location(r)}: {d.code} {r.headline}")
    out.extend(incomplete_lines(results))
    out.append(summary_line(results))
    return "\n".join(out) + "\n"
