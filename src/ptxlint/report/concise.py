"""One line per finding, `path:line:col: CODE message`, for editors and grep."""

from __future__ import annotations

from . import incomplete_lines, summary_line


def render(results) -> str:
    out = []
    for result in results:
        for err in result.errors:
            out.append(f"{err}")
        for d in result.diagnostics:
            out.append(f"{d.path}:{d.line or 0}:{d.column or 0}: {d.code} {d.message}")
    out.extend(incomplete_lines(results))
    out.append(summary_line(results))
    return "\n".join(out) + "\n"
