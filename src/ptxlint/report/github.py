"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

`::warning file=src/k.cu,line=12,col=5,title=BANK001::message`
"""

from __future__ import annotations

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, message: str, **props) -> str:
    fields = ",".join(f"{k}={_escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{level} {fields}::{_escape_data(message)}" if fields else f"::{level}::{_escape_data(message)}"


def render(results) -> str:
    out = []
    for result in results:
        for err in result.errors:
            out.append(_command("error", err.message, file=err.path, line=err.line, col=err.column, title="ptxlint"))
        for s in getattr(result, "incomplete", ()):
            out.append(_command("warning", f"kernel {s['kernel']} not fully analysed: {s['reason']}",
                                file=s["path"], line=s.get("line"), title="ptxlint"))
        for d in result.diagnostics:
            message = "\n".join([d.message, *d.notes] + ([f"fix: {d.fix}"] if d.fix else []))
            out.append(_command(_LEVEL.get(d.severity, "warning"), message,
                                file=d.path, line=d.line, col=d.column, title=d.code))
    return "\n".join(out) + ("\n" if out else "")
