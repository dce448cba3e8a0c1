"""One line per finding, `path:line:col: CODE message`, for editors and grep."""

from __future__ import annotations


def render(results) -> str:
    out = []
    count = 0
    for result in results:
        for err in result.errors:
            out.append(f"{err}")
        for d in result.diagnostics:
            out.append(f"{d.path}:{d.line or 0}:{d.column or 0}: {d.code} {d.message}")
            count += 1
    out.append(f"Found {count} finding{'s' if count != 1 else ''}.")
    return "\n".join(out) + "\n"
