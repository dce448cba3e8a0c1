"""SARIF 2.1.0, for GitHub code scanning and other result viewers.

Rule metadata (`tool.driver.rules`) comes from the rules' own docs; locations are the `.cu` (or
header, or `.ptx`) lines the text output shows; `partialFingerprints` let a viewer follow a
finding across commits that move it to another line.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
from pathlib import Path

from .. import __version__

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/ptxlint/"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> tuple:
    """(uri, uriBaseId or None): relative to the working directory when inside it."""
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute)
    if not rel.startswith(".."):
        return urllib.parse.quote(rel.replace(os.sep, "/")), "%SRCROOT%"
    return Path(absolute).as_uri(), None


def _rule_descriptor(rule) -> dict:
    d = rule.doc
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(d.what_it_does.split())},
        "help": {"text": " ".join(d.why_is_this_bad.split()), "markdown": rule.render_doc()},
        "defaultConfiguration": {"level": _LEVEL.get(rule.severity, "warning")},
        "properties": {"tags": [rule.family], "severity": rule.severity},
    }


def _line_text(path: str, line) -> str:
    from ..gate import read_lines

    lines = read_lines(path) or []  # only trusted sources are read (gate.py)
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _fingerprint(d, seen: dict) -> str:
    """Stable across edits elsewhere in the file: code, file, kernel and the text of the line."""
    base = "\0".join([d.code, d.path, d.kernel or "", _line_text(d.path, d.line) if d.line else d.message])
    digest = hashlib.sha256(base.encode()).hexdigest()[:32]
    seen[digest] = seen.get(digest, 0) + 1
    return f"{digest}:{seen[digest]}"


def render(results, rules=(), verbose: bool = False) -> str:
    """`rules`: the Rule objects that ran (their docs become `tool.driver.rules`). Messages are in
    source terms (wording.py); `verbose`: with every note."""
    from ..rules.registry import all_rules
    from .wording import kernel_name, readable
    from ..suppressions import DRIVER_RULES

    known = {r.code: r for r in list(all_rules()) + list(DRIVER_RULES)}
    ran = {r.code: r for r in rules}
    for r in results:
        for d in r.diagnostics:
            if d.code not in ran and d.code in known:
                ran[d.code] = known[d.code]
    descriptors = [ran[c] for c in sorted(ran)]
    index = {r.code: i for i, r in enumerate(descriptors)}

    sarif_results = []
    seen: dict = {}
    for r in results:
        for d in r.diagnostics:
            shown = readable(d)
            uri, base = _uri(shown.path)
            artifact = {"uri": uri}
            if base:
                artifact["uriBaseId"] = base
            physical = {"artifactLocation": artifact}
            if shown.line:  # no region rather than a PTX line under a source file's name
                physical["region"] = {"startLine": max(shown.line, 1)}
                if shown.column:
                    physical["region"]["startColumn"] = shown.column
            text = shown.headline + "".join(f"\n{n}" for n in shown.notes(verbose))
            result = {
                "ruleId": d.code,
                "level": _LEVEL.get(d.severity, "warning"),
                "message": {"text": text},
                "locations": [{"physicalLocation": physical}],
                "partialFingerprints": {"ptxlintFingerprint/v1": _fingerprint(d, seen)},
            }
            if d.code in index:
                result["ruleIndex"] = index[d.code]
            if d.kernel:
                result["locations"][0]["logicalLocations"] = [{"name": kernel_name(d.kernel), "kind": "function",
                                                               "decoratedName": d.kernel}]
            props = {}
            if d.ptx_path and d.ptx_line:
                props["ptx"] = f"{d.ptx_path}:{d.ptx_line}"
            if d.fix:
                props["fix"] = d.fix
            if props:
                result["properties"] = props
            sarif_results.append(result)

    notifications = []
    for r in results:
        for err in r.errors:
            uri, base = _uri(err.path) if not err.path.startswith("<") else (None, None)
            n = {"level": "error", "message": {"text": err.message}}
            if uri:
                loc = {"artifactLocation": {"uri": uri, **({"uriBaseId": base} if base else {})}}
                if err.line:
                    loc["region"] = {"startLine": err.line}
                n["locations"] = [{"physicalLocation": loc}]
            notifications.append(n)
    failed = bool(notifications)
    for r in results:
        for s in getattr(r, "incomplete", ()):
            uri, base = _uri(s["path"])
            loc = {"artifactLocation": {"uri": uri, **({"uriBaseId": base} if base else {})}}
            if s.get("line"):
                loc["region"] = {"startLine": s["line"]}
            notifications.append({"level": "warning", "locations": [{"physicalLocation": loc}],
                                  "message": {"text": f"kernel {kernel_name(s['kernel'])} not fully analysed: {s['reason']}"}})

    run = {
        "tool": {"driver": {
            "name": "ptxlint",
            "version": __version__,
            "informationUri": INFORMATION_URI,
            "rules": [_rule_descriptor(r) for r in descriptors],
        }},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
        "invocations": [{"executionSuccessful": not failed, "toolExecutionNotifications": notifications}],
        "results": sarif_results,
    }
    doc = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"
