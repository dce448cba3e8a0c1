"""The rule registry: every rule has a stable code, a kebab-case name, a severity, and its docs.

Rules register themselves with `@register(...)` at import time; `all_rules()` imports the rule
modules. Docs feed `ptxlint rule CODE`, the README table and SARIF metadata from one place.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ..errors import InputError


@dataclass(frozen=True)
class RuleDoc:
    what_it_does: str
    why_is_this_bad: str
    example: str
    use_instead: str


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    family: str
    severity: str
    summary: str
    doc: RuleDoc
    check: Callable  # (KernelContext) -> Iterable[Diagnostic]

    def render_doc(self) -> str:
        """The rule's documentation as Markdown."""
        d = self.doc
        parts = [
            f"# {self.code} {self.name} ({self.severity})",
            "",
            self.summary,
            "",
            "## What it does",
            textwrap.dedent(d.what_it_does).strip(),
            "",
            "## Why is this bad?",
            textwrap.dedent(d.why_is_this_bad).strip(),
            "",
            "## Example",
            "```cuda",
            textwrap.dedent(d.example).strip(),
            "```",
            "",
            "## Use instead",
            "```cuda",
            textwrap.dedent(d.use_instead).strip(),
            "```",
        ]
        if self.family in CORRECTNESS_FAMILIES:
            parts += ["", "## Block shape", SHAPE_POLICY]
        return "\n".join(parts) + "\n"


CORRECTNESS_FAMILIES = ("RACE", "SYNC", "WARP", "SHFL", "FENCE")
SHAPE_POLICY = """\
The kernel is checked under the block shape(s) it is really launched with: `--block`, the config's
`block` table, the launches in the host code (`k<<<grid, block>>>`, `cudaLaunchKernel`, ...: every
compile-time block shape, each checked), or `.reqntid`. When none is known, this rule reports a
finding only if it holds under every candidate block of 64 threads or more that the kernel admits,
and says so ("no launch found"): the candidates are a list of common shapes, not every shape (1-D
blocks of 32 to 1024 threads; 8x8, 16x16, 32x4, 32x8 and 32x32 when it reads `threadIdx.y`;
8x8x4 and 4x4x4 when it reads `threadIdx.z`), bounded by `.maxntid` (`__launch_bounds__`: the
number of threads, whatever the dimensions) and by its shared arrays: a shape under which a thread
would index an array out of bounds, or under which every thread fails a device-side `assert` such
as `assert(blockDim.x == 4)`, is not admitted. A finding that appears only under some candidates is
not reported: the summary counts it under "Not checked", and
`--block` checks the kernel under the shape you launch it with."""

_RULES: dict = {}


def register(code: str, name: str, severity: str, summary: str, doc: RuleDoc):
    """Decorator for a rule's check function."""

    def wrap(fn: Callable) -> Callable:
        family = code.rstrip("0123456789")
        _RULES[code] = Rule(code, name, family, severity, summary, doc, fn)
        return fn

    return wrap


def all_rules() -> list:
    """Every registered rule, ordered by code."""
    from . import load_rule_modules

    load_rule_modules()
    return [_RULES[c] for c in sorted(_RULES)]


def get_rule(code_or_name: str) -> Rule:
    for rule in all_rules():
        if code_or_name.upper() == rule.code or code_or_name == rule.name:
            return rule
    raise InputError("<command line>", f"unknown rule {code_or_name!r}; `ptxlint rule --all` lists the rules")


def resolve_selection(select: Iterable[str], ignore: Iterable[str], origin: str = "<command line>") -> list:
    """Rules chosen by codes or prefixes (`BANK`, `SYNC001`, `ALL`); unknown selectors are errors."""
    rules = all_rules()

    def matches(selector: str) -> list:
        sel = selector.strip().upper()
        if sel == "ALL":
            return rules
        found = [r for r in rules if r.code.startswith(sel) or r.name == selector.strip()]
        if not found:
            raise InputError(origin, f"unknown rule code or prefix {selector!r}")
        return found

    chosen: dict = {}
    for selector in select or ["ALL"]:
        for r in matches(selector):
            chosen[r.code] = r
    for selector in ignore or []:
        for r in matches(selector):
            chosen.pop(r.code, None)
    return [chosen[c] for c in sorted(chosen)]


def iter_rules(codes: Iterable[str]) -> Iterator[Rule]:
    for code in codes:
        yield _RULES[code]
