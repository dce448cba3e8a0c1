"""Machine-readable output: {"diagnostics": [...], "errors": [...]}."""

from __future__ import annotations

import json

from . import not_checked_counts

DIAGNOSTIC_FIELDS = ("code", "severity", "message", "path", "line", "column", "kernel", "ptx_path", "ptx_line")


def diagnostic_dict(d) -> dict:
    out = {k: getattr(d, k) for k in DIAGNOSTIC_FIELDS}
    out["notes"] = list(d.notes)
    out["fix"] = d.fix
    out["data"] = d.data
    return out


def render(results) -> str:
    doc = {
        "diagnostics": [diagnostic_dict(d) for r in results for d in r.diagnostics],
        "errors": [e.to_dict() for r in results for e in r.errors],
        # findings located in CUDA toolkit headers, left out (`--toolkit-headers` includes them)
        "hidden_in_toolkit_headers": sum(r.hidden_in_toolkit for r in results),
        # what the rules could not check (run-time addresses, shape-dependent findings) -> how many
        "not_checked": not_checked_counts(results),
        # kernels whose analysis stopped early (the per-kernel budget): their findings may be partial
        "incomplete": [dict(s) for r in results for s in getattr(r, "incomplete", ())],
    }
    return json.dumps(doc, indent=2) + "\n"
