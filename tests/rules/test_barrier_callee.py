"""A `__syncthreads()` inside a `__noinline__` device function: the call is the barrier, so a call
under a thread-dependent branch or after a thread-dependent return is reported at the call."""

from pathlib import Path

from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file

DATA = Path(__file__).with_name("data")


def findings():
    module = parse_ptx_file(str(DATA / "barrier_callee.sm_90.ptx"))
    options = CheckOptions(select=["SYNC", "RACE"],
                           analysis=AnalysisOptions(block_overrides=[(None, (128, 1, 1), "test")]))
    return check_module(module, options)


def test_barrier_in_called_function_under_divergence_is_reported_at_the_call():
    found = {(d.code, d.line): d for d in findings()}
    assert set(found) == {("SYNC001", 13), ("SYNC002", 36)}  # the uniform call (line 21) is clean
    direct = found[("SYNC001", 13)]
    assert "the call of `stage`, which waits at `__syncthreads()`" in direct.message
    assert "line 12" in direct.message and "%tid.x" in direct.message
    nested = found[("SYNC002", 36)]  # stage_twice -> stage -> bar.sync
    assert "`stage_twice`" in nested.message and "early return (line 34)" in nested.message
