"""The analysis budget bounds every phase of a kernel, also the walks that never ask for it, and the
`accesses` command; shapes that were cubic in SYNC are now fast (issue 18)."""

import json
import subprocess
import sys
import time

import pytest

import ptx_generators as gen
from support import run_cli
from ptxlint.analysis.budget import BudgetExhausted, PartExhausted, kernel_budget, part_budget, spend
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx


def test_a_loop_that_never_calls_spend_is_stopped_soon_after_the_deadline():
    start = time.process_time()
    with pytest.raises(BudgetExhausted):
        with kernel_budget(0.3):
            while time.process_time() - start < 5:  # a walk without spend(): only the timer stops it
                pass
    assert time.process_time() - start < 0.3 + 1


def test_a_tiny_budget_runs_out_even_where_the_cpu_clock_does_not_move(monkeypatch):
    # a process's CPU clock may advance only at scheduler ticks: a microsecond budget must still be
    # seen spent by a small kernel (CI once finished one of three sample kernels inside 1 us)
    import ptxlint.analysis.budget as budget

    monkeypatch.setattr(budget, "_clock", lambda: 100.0)
    with pytest.raises(BudgetExhausted):
        with kernel_budget(0.000001):
            for _ in range(20):
                spend()
    with kernel_budget(5.0):  # a real budget is not cut short by the same calls
        for _ in range(100_000):
            spend()


def test_the_timer_is_off_after_the_budget():
    with kernel_budget(0.2):
        pass
    start = time.process_time()
    while time.process_time() - start < 0.8:  # no BudgetExhausted out of a left budget
        pass


def test_a_part_of_the_analysis_stops_at_its_share_and_leaves_the_kernel_its_budget():
    # an optional refinement (the loop-state probes) given 0.2 s of a 5 s budget stops there; the
    # kernel's analysis goes on and is stopped only by its own deadline
    with kernel_budget(5.0):
        start = time.process_time()
        with pytest.raises(PartExhausted):
            with part_budget(0.2):
                while True:
                    spend()
        assert time.process_time() - start < 1.0
        spend()  # the kernel's budget is not spent
    # with no budget (0: no limit) the part runs to its end
    with kernel_budget(0):
        with part_budget(0.01):
            start = time.process_time()
            while time.process_time() - start < 0.1:
                spend()


def _check_cpu_seconds(text: str, budget: float) -> tuple:
    module = parse_ptx(text, "slow.ptx")
    incomplete: list = []
    start = time.process_time()
    found = check_module(module, CheckOptions(analysis=AnalysisOptions(budget=budget)), jobs=1, incomplete=incomplete)
    return time.process_time() - start, incomplete, found


def test_nested_divergent_barriers_end_within_the_budget():
    took, incomplete, _ = _check_cpu_seconds(gen.nested_barriers(600), 1.0)
    assert took < 1.0 + 1
    assert [s["kernel"] for s in incomplete] == ["nested_barriers"]


def test_nested_divergent_barriers_are_analysed_completely_when_fewer():
    # 200 nested ifs, a barrier after each: SYNC asked a reachability walk per (barrier, branch) pair
    took, incomplete, found = _check_cpu_seconds(gen.nested_barriers(200), 5.0)
    assert incomplete == []
    assert sum(d.code == "SYNC001" for d in found) == 199  # every barrier but the outermost one


def test_thousands_of_divergent_stores_end_within_the_budget():
    # (3,000 of them took 14 s of CPU with no budget before the branch sides became one closure, 4 s after)
    took, incomplete, _ = _check_cpu_seconds(gen.divergent_stores(8000), 2.0)
    assert took < 2.0 + 1
    assert [s["kernel"] for s in incomplete] == ["divergent_stores"]


def test_accesses_runs_each_kernel_within_the_budget(tmp_path):
    slow = tmp_path / "slow.ptx"
    slow.write_text(gen.predicated_writes(3000))  # quadratic in its writes: minutes without a budget
    try:
        done = subprocess.run([sys.executable, "-m", "ptxlint", "accesses", "--analysis-budget", "0.5",
                               "--format", "json", str(slow)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("accesses ran past the budget")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    [kernel] = json.loads(done.stdout)["kernels"]
    assert kernel["name"] == "predicated_writes" and "analysis budget of 0.5 s" in kernel["incomplete"]
    text = run_cli("accesses", "--analysis-budget", "0.5", slow)
    assert "predicated_writes (predicated_writes): incomplete: the analysis budget of 0.5 s" in text.stdout
