"""The results of a run, one `FileResult` per file, and what is done to the results of the whole
run before they are reported: suppression comments applied (and unused ones reported when asked),
findings in CUDA toolkit headers hidden, `--block` globs that name no checked kernel reported.

Separate from checking (file_check.py gives each file's result as plain data) because these steps
need every file's result at once, in the main process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .check_options import CheckOptions
from .diagnostics import Diagnostic
from .errors import InputError
from .file_check import _is_toolkit


@dataclass
class FileResult:
    path: str
    diagnostics: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # InputError
    sources: list = field(default_factory=list)  # user files the findings may point into
    cached: bool = False
    hidden_in_toolkit: int = 0  # findings located in CUDA toolkit headers, left out of `diagnostics`
    not_checked: dict = field(default_factory=dict)  # what the rules could not check -> how many
    kernels: list = field(default_factory=list)  # mangled names of the kernels checked
    incomplete: list = field(default_factory=list)  # kernels whose analysis stopped early (budget.py)
    notes: list = field(default_factory=list)  # what the run tells the user about its inputs (stderr)
    not_checked_kernels: dict = field(default_factory=dict)  # what was not checked -> the kernels it was in


def _result_from_dict(entry: dict) -> FileResult:
    return FileResult(
        path=entry["path"],
        diagnostics=[Diagnostic(**d) for d in entry["diagnostics"]],
        errors=[InputError(e["path"], e["message"], e.get("line"), e.get("column")) for e in entry["errors"]],
        sources=list(entry.get("sources", [])),
        cached=bool(entry.get("cached")),
        not_checked=dict(entry.get("not_checked", {})),
        kernels=list(entry.get("kernels", [])),
        incomplete=list(entry.get("incomplete", [])),
        not_checked_kernels={what: list(names) for what, names in entry.get("not_checked_kernels", {}).items()},
    )


def _unmatched_block_globs(options: CheckOptions, results: list) -> list:
    """A `--block KERNEL=...` whose glob names no kernel of the run is a mistake (a typo, a renamed
    kernel): say so rather than silently analyse with another shape."""
    checked = [k for r in results if not r.errors for k in r.kernels]
    return [FileResult(e.path, errors=[e])
            for e in unmatched_block_glob_errors(options.analysis.block_overrides, checked)]


def unmatched_block_glob_errors(block_overrides, kernels: list) -> list:
    """An InputError for each `--block KERNEL=...` of the command line whose glob names none of
    `kernels` (mangled names); none when no kernel was read at all (the files' errors say why)."""
    from .analysis.launch import name_matches

    if not kernels:
        return []
    out = []
    for glob, dims, origin, *_grid in block_overrides:
        if glob is not None and origin.startswith("command line") and not any(name_matches(k, glob) for k in kernels):
            out.append(InputError(
                "<command line>", f"--block {glob}={'x'.join(map(str, dims))} matches no kernel of the checked "
                f"files; kernels: {', '.join(sorted(set(kernels))[:8])}"))
    return out


def _hide_toolkit_findings(results: list) -> None:
    """Findings inside CUB, Thrust or libcu++ (a kernel instantiated from a toolkit template) are
    not the user's to fix: like system-header warnings in a C++ linter, they are counted, not shown."""
    for r in results:
        kept = [d for d in r.diagnostics if not _is_toolkit(d.path)]
        r.hidden_in_toolkit = len(r.diagnostics) - len(kept)
        r.diagnostics = kept


def _apply_suppressions(results: list, plans: list, options: CheckOptions) -> None:
    from .suppressions import SuppressionIndex, read_lines

    index = SuppressionIndex(read_lines)
    for r in results:
        r.diagnostics = [d for d in r.diagnostics if index.suppressing(d) is None]
    if not options.report_unused_suppressions:
        return
    selected: set = set()
    for p in plans:
        selected.update(p.rule_codes)
    for r in results:
        for source in r.sources:
            index.for_path(source)
    unused = index.unused(selected)
    by_path = {r.path: r for r in results}
    for d in unused:
        target = by_path.get(d.path) or next((r for r in results if d.path in r.sources), None)
        if target is None:
            target = FileResult(d.path)
            results.append(target)
            by_path[d.path] = target
        target.diagnostics.append(d)
    for r in results:
        r.diagnostics.sort(key=Diagnostic.sort_key)
