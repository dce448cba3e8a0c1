"""Output formats: one module per format; each only formats findings, never finds them."""


def incomplete_lines(results) -> list:
    """`path:line: note: kernel K not fully analysed: why`, one per kernel whose analysis stopped early."""
    return [f"{s['path']}:{s.get('line') or 0}: note: kernel {s['kernel']} not fully analysed: {s['reason']}"
            for r in results for s in getattr(r, "incomplete", ())]


def summary_line(results) -> str:
    """`Found N findings[ and M input errors].`, plus how many toolkit-header findings were hidden."""
    count = sum(len(r.diagnostics) for r in results)
    errors = sum(len(r.errors) for r in results)
    hidden = sum(r.hidden_in_toolkit for r in results)
    incomplete = sum(len(getattr(r, "incomplete", ())) for r in results)
    summary = f"Found {count} finding{'s' if count != 1 else ''}"
    if errors:
        summary += f" and {errors} input error{'s' if errors != 1 else ''}"
    if incomplete:
        summary += (f"; {incomplete} kernel{'s' if incomplete != 1 else ''} not fully analysed "
                    "(analysis budget; see above)")
    if hidden:
        summary += (f" ({hidden} more in CUDA toolkit headers, not shown: they are not yours to fix; "
                    "--toolkit-headers shows them)")
    return summary + "."
