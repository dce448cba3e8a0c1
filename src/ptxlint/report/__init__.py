"""Output formats: one module per format; each only formats findings, never finds them."""


# what a rule-code key of the "not checked" counts stands for
NOT_CHECKED_TEXT = {
    "RACE001": "shared accesses whose addresses are known only at run time (RACE001)",
    "WARP001": "shared accesses whose addresses are known only at run time (WARP001)",
    "SHFL001": "warp intrinsics in divergent code whose mask is known only at run time (SHFL001)",
    "RACE001-undecided-reach": "pairs of shared accesses that meet only in threads whose reach depends on values "
                               "the kernel computed at run time (RACE001)",
    "WARP001-undecided-reach": "pairs of shared accesses that meet only in threads whose reach depends on values "
                               "the kernel computed at run time (WARP001)",
}


def incomplete_lines(results) -> list:
    """`path:line: note: kernel K not fully analysed: why`, one per kernel whose analysis stopped early."""
    from ..frontend.demangle import demangle

    return [f"{s['path']}:{s.get('line') or 0}: note: kernel {demangle(s['kernel'])} not fully analysed: {s['reason']}"
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
    summary += "."
    lines = not_checked_lines(results)
    if lines:
        summary += "\nNot checked: " + "\n             ".join(lines)
    return summary


NAMED_KERNELS = 4  # kernels named on a `Not checked:` line; the rest are counted

# what the user can do about a kind of thing not checked (keys as in NOT_CHECKED_TEXT, or its text)
_SHAPE_ACTION = "pass --block {kernel}=XxYxZ, or launch it with a compile-time block shape in the checked code"
NOT_CHECKED_ACTION = {
    "findings that depend on the unknown block shape": _SHAPE_ACTION,
    "kernels with no admitted block shape": _SHAPE_ACTION,
}


def not_checked_lines(results) -> list:
    """One line per kind of thing the rules could not check over the whole run: how many, in which
    kernels, and what to do about it where something can be done."""
    from ..frontend.demangle import demangle, without_parameters

    kernels: dict = {}
    for r in results:
        for what, names in getattr(r, "not_checked_kernels", {}).items():
            for name in names:
                kernels.setdefault(what, {}).setdefault(without_parameters(demangle(name)), None)
    out = []
    for what, n in sorted(not_checked_counts(results).items()):
        line = f"{n} {NOT_CHECKED_TEXT.get(what, what)}"
        names = list(kernels.get(what, ()))
        if names:
            shown = ", ".join(names[:NAMED_KERNELS]) + (f" and {len(names) - NAMED_KERNELS} more"
                                                         if len(names) > NAMED_KERNELS else "")
            line += f"; in {shown}"
        action = NOT_CHECKED_ACTION.get(what)
        if action:
            line += ": " + action.format(kernel=names[0].rsplit("::", 1)[-1] if len(names) == 1 else "KERNEL")
        out.append(line)
    return out


def not_checked_counts(results) -> dict:
    """What the rules could not check over the whole run (addresses from run-time data, findings
    that depend on an unknown block shape, ...) -> how many."""
    total: dict = {}
    for r in results:
        for what, n in getattr(r, "not_checked", {}).items():
            total[what] = total.get(what, 0) + n
    return {what: n for what, n in total.items() if n}
