"""Apply the findings' fix edits to the `.cu` files of a run, each one verified first.

For each `.cu` file ptxlint compiled, its findings' edits are tried one finding at a time, added to
those already kept: the edited text (of the `.cu` and of headers under its folder) is compiled
through the usual nvcc path and checked with the run's options, *without writing anything*
(gate.overlaid), and an edit is kept only when that compiles, its finding is gone and no finding
appears that was not there before. Only then are the kept edits written (or shown, `--diff`).

What is never touched: a file outside the checked repository (the gate's boundary), a file that
no compiled `.cu` of the run brought in (a finding of a `.ptx` input alone, a CUDA toolkit header),
and a file whose text changed since it was checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Optional

from ..check_options import SOURCE_SUFFIXES
from .edits import apply_edits, edit_key, inserted_lines_before, overlaps, unified_diff


@dataclass
class FixOutcome:
    """One finding's fix: applied, or why not (`reason`)."""

    diagnostic: object
    applied: bool = False
    reason: Optional[str] = None  # unsafe | not verified: ... | outside: ...


@dataclass
class FixReport:
    """What `check --fix` did: the outcome of each fixable finding and the new text of each file."""

    outcomes: list = field(default_factory=list)
    files: dict = field(default_factory=dict)  # path as named -> (before, after)

    @property
    def fixed(self) -> list:
        return [o.diagnostic for o in self.outcomes if o.applied]

    def diff(self) -> str:
        """The unified diff of every changed file."""
        return "".join(unified_diff(path, before, after) for path, (before, after) in sorted(self.files.items()))

    def summary(self, verb: str = "Fixed") -> str:
        """`Fixed 1 finding (BANK001 at transpose.cu:12).` (`verb`: "Would fix" for --diff) and
        what was left as text, and why."""
        fixed = self.fixed
        lines = []
        if fixed:
            places = ", ".join(f"{d.code} at {os.path.basename(d.path)}:{d.line}" for d in fixed)
            lines.append(f"{verb} {len(fixed)} finding{'s' if len(fixed) != 1 else ''} ({places}).")
        else:
            lines.append(f"{verb} 0 findings.")
        unsafe = [o.diagnostic for o in self.outcomes if o.reason == "unsafe"]
        if unsafe:
            places = ", ".join(f"{d.code} at {os.path.basename(d.path)}:{d.line}" for d in unsafe)
            lines.append(f"{len(unsafe)} unsafe fix{'es' if len(unsafe) != 1 else ''} not applied ({places}): "
                         "--unsafe-fixes applies them.")
        for o in self.outcomes:
            if o.reason and o.reason != "unsafe":
                d = o.diagnostic
                lines.append(f"{d.code} at {os.path.basename(d.path)}:{d.line}: fix left as text ({o.reason}).")
        return "\n".join(lines) + "\n"


def _finding_key(d, edits: list = ()) -> tuple:
    """A finding's place, moved to where it is after `edits` (lines inserted above it)."""
    line = d.line or 0
    if edits and d.path and not d.path.endswith(".ptx"):
        line += inserted_lines_before([e for e in edits if os.path.realpath(e["path"]) == os.path.realpath(d.path)],
                                      line)
    return (d.code, d.kernel, os.path.realpath(d.path) if d.path else d.path, line)


def _editable(path: str, compiled: str) -> Optional[str]:
    """None when `path` may be edited for a finding of the compiled `.cu` `compiled`, else why not."""
    from ..frontend.sourcemap import is_toolkit_header
    from ..gate import is_trusted, root_of_checked_path

    real, root = os.path.realpath(path), os.path.realpath(root_of_checked_path(compiled))
    if not is_trusted(path) or not (real == root or real.startswith(root + os.sep)) or is_toolkit_header(path):
        return "outside the checked repository"
    if real != os.path.realpath(compiled):
        folder = os.path.realpath(os.path.dirname(compiled))
        if not real.startswith(folder + os.sep):
            return "a header outside the folder of the .cu that includes it cannot be verified"
    if not os.path.isfile(path):
        return "no such file"
    return None


def fix_results(results: list, options, *, unsafe: bool = False, write: bool = True) -> FixReport:
    """Try the fixes of the findings in `results` (a run's FileResults, checked with `options`);
    write the verified ones when `write`. Returns what was done."""
    from ..gate import read_text

    report = FixReport()
    verify_options = replace(options, cache_dir=None, jobs=1, shard=None)
    for result in results:
        if not result.path.endswith(SOURCE_SUFFIXES) or result.errors:
            continue  # only files ptxlint compiled: a .ptx input's sources are not its to edit
        seen: set = set()
        candidates = []
        for d in result.diagnostics:
            if not d.fix_edits or not d.fix_edits.get("edits"):
                continue
            key = tuple(sorted(edit_key(e) for e in d.fix_edits["edits"]))
            if key in seen:
                continue  # the same fix found for another architecture
            seen.add(key)
            if not d.fix_edits.get("safe") and not unsafe:
                report.outcomes.append(FixOutcome(d, reason="unsafe"))
                continue
            why = next((w for w in (_editable(e["path"], result.path) for e in d.fix_edits["edits"]) if w), None)
            if why:
                report.outcomes.append(FixOutcome(d, reason=why))
                continue
            candidates.append(d)
        if not candidates:
            continue
        originals: dict = {}
        kept: list = []  # edits kept so far
        for d in candidates:
            edits = d.fix_edits["edits"]
            if any(overlaps(e, k) for e in edits for k in kept):
                report.outcomes.append(FixOutcome(d, reason="another fix edits the same place"))
                continue
            try:
                for e in edits:
                    if e["path"] not in originals:
                        originals[e["path"]] = read_text(e["path"])
                trial = kept + list(edits)
                contents = _edited(originals, trial)
            except (OSError, ValueError) as err:
                report.outcomes.append(FixOutcome(d, reason=f"cannot edit: {getattr(err, 'strerror', None) or err}"))
                continue
            why = _verify(result, d, contents, trial, verify_options)
            if why:
                report.outcomes.append(FixOutcome(d, reason=f"not verified: {why}"))
                continue
            kept = trial
            report.outcomes.append(FixOutcome(d, applied=True))
        if kept:
            for path, after in _edited(originals, kept).items():
                before = report.files.get(path, (originals[path], None))[0]
                report.files[path] = (before, after)
    if write:
        for path, (_, after) in report.files.items():
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(after)
    return report


def _edited(originals: dict, edits: list) -> dict:
    """{path: new text} of every file `edits` touch."""
    out = {}
    for path, text in originals.items():
        mine = [e for e in edits if e["path"] == path]
        if mine:
            out[path] = apply_edits(text, mine)
    return out


def _verify(result, target, contents: dict, edits: list, options) -> Optional[str]:
    """None when the `.cu` of `result`, with `contents` in place of its files, compiles and checks
    without `target` and without any finding it did not have; else what went wrong."""
    from ..api import check_paths
    from ..gate import overlaid

    with overlaid(contents):
        after = check_paths([result.path], options)
    errors = [e for r in after for e in r.errors]
    if errors:
        return str(errors[0]).splitlines()[0]
    before = {_finding_key(d, edits) for d in result.diagnostics}
    now = [d for r in after for d in r.diagnostics]
    if _finding_key(target, edits) in {_finding_key(d) for d in now}:
        return f"the {target.code} finding is still there after the edit"
    new = [d for d in now if _finding_key(d) not in before]
    if new:
        d = new[0]
        return f"the edit brings a new finding ({d.code} at {os.path.basename(d.path)}:{d.line})"
    return None
