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


def render(results, verbose: bool = False) -> str:
    """Annotations: the findings in source terms (all their notes with `verbose`), input errors,
    kernels not fully analysed."""
    from .wording import kernel_name, readable

    out = []
    for result in results:
        for err in result.errors:
            out.append(_command("error", err.message, file=err.path, line=err.line, col=err.column, title="ptxlint"))
        for s in getattr(result, "incomplete", ()):
            out.append(_command("warning", f"kernel {kernel_name(s['kernel'])} not fully analysed: {s['reason']}",
                                file=s["path"], line=s.get("line"), title="ptxlint"))
        for d in result.diagnostics:
            r = readable(d)
            message = "\n".join([r.headline, *r.notes(verbose)] + ([f"fix: {r.fix}"] if r.fix else [])
                                + ([f"ptx: {p}" for p in r.ptx_places] if verbose else []))
            out.append(_command(_LEVEL.get(d.severity, "warning"), message,
                                file=r.path, line=r.line, col=r.column if r.line else None, title=d.code))
    return "\n".join(out) + ("\n" if out else "")
