"""A race found under the first candidate block shape is confirmed under the others by runs whose
race rules compare only the access pairs that can report at its place (kernel_check._confirming_run,
KernelContext.focus). What is reported must be what whole runs report."""

from collections import Counter

import pytest

from support import REPO
from ptxlint import kernel_check
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.launch import BlockShape, UNKNOWN_SOURCE
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.race import check_shared_race
from ptxlint.rules.race_global import check_global_race

# kernels with no launch and race findings (shared, global, one store, across blocks, warp-level)
KERNELS = ["tests/analysis/data/shapes.sm_90.ptx", "tests/analysis/data/warp_rows.sm_90.ptx",
           "tests/rules/data/same_store.sm_90.ptx", "tests/rules/data/contradictions.sm_90.ptx",
           "tests/rules/data/race_grid.sm_90.ptx", "tests/rules/data/predicates.sm_90.ptx"]


def _report(path: str, focused: bool, monkeypatch) -> tuple:
    if not focused:
        monkeypatch.setattr(kernel_check, "_race_focus", lambda findings: None)
    counts: Counter = Counter()
    found = check_module(parse_ptx_file(str(REPO / path)), CheckOptions(select=["RACE", "WARP", "SYNC"]),
                         not_checked=counts)
    return sorted((d.kernel, d.code, d.ptx_line, d.severity, d.message, tuple(d.notes)) for d in found), counts


@pytest.mark.parametrize("path", KERNELS)
def test_focused_confirmation_reports_what_whole_runs_report(path, monkeypatch):
    focused = _report(path, True, monkeypatch)
    assert focused[0], "no finding: the kernel no longer tests a confirmation"
    assert focused == _report(path, False, monkeypatch)


def _races(ctx) -> set:
    return {(d.code, d.ptx_line) for d in list(check_shared_race(ctx)) + list(check_global_race(ctx))}


@pytest.mark.parametrize("path", ["tests/rules/data/race_grid.sm_90.ptx", "tests/rules/data/same_store.sm_90.ptx"])
def test_a_focused_run_finds_exactly_the_races_at_its_places(path):
    module = parse_ptx_file(str(REPO / path))
    shape = BlockShape((128, 1, 1), UNKNOWN_SOURCE, assumed=True)
    checked = 0
    for function in module.functions:
        if not function.is_kernel:
            continue
        whole = KernelContext(module, function, AnalysisOptions(), shape)
        everywhere = _races(whole)
        lines = sorted({line for _, line in everywhere})
        for line in lines[:2]:
            place = whole.position(next(i for i in function.instructions if i.ptx_line == line))[:2]
            focused = KernelContext(module, function, AnalysisOptions(), shape, (frozenset({line}), frozenset({place})))
            at_place = {(c, l) for c, l in everywhere
                        if l == line or whole.position(next(i for i in function.instructions
                                                            if i.ptx_line == l))[:2] == place}
            assert _races(focused) == at_place
            checked += 1
    assert checked, "no race found: the kernels no longer test a focused run"
