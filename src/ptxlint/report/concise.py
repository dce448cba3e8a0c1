"""One line per finding, `path:line:col: CODE message`, for editors and grep."""

from __future__ import annotations


def render(results) -> str:
    out = []
    count = errors = 0
    for result in results:
        for err in result.errors:
            out.append(f"{err}")
            errors += 1
        for d in result.diagnostics:
            out.append(f"{d.path}:{d.line or 0}:{d.column or 0}: {d.code} {d.message}")
            count += 1
    summary = f"Found {count} finding{'s' if count != 1 else ''}"
    if errors:
        summary += f" and {errors} input error{'s' if errors != 1 else ''}"
    out.append(summary + ".")
    return "\n".join(out) + "\n"
