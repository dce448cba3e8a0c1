"""A `__syncthreads()` inside a `__noinline__` device function: the call is the barrier, so a call
under a thread-dependent branch or after a thread-dependent return is reported at the call.
Ground truth: validation/sync/callee/ (compute-sanitizer on an H100)."""

import json
from pathlib import Path

from support import VALIDATION
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file

DATA = Path(__file__).with_name("data")
RESULTS = json.loads((VALIDATION / "sync" / "callee" / "results.json").read_text())


def findings():
    module = parse_ptx_file(str(DATA / "barrier_callee.sm_90.ptx"))
    options = CheckOptions(select=["SYNC", "RACE", "WARP"],
                           analysis=AnalysisOptions(block_overrides=[(None, (128, 1, 1), "test")]))
    return check_module(module, options)


def test_each_kernel_gets_the_labelled_findings():
    found = findings()
    for kernel, result in RESULTS["kernels"].items():
        codes = sorted(d.code for d in found if kernel in d.kernel)
        assert codes == result["expected"], kernel
    # the sanitizer saw the divergent call only through the race it causes
    assert RESULTS["kernels"]["bad_barrier_in_callee_under_divergence"]["racecheck"].startswith("1 error")


def test_barrier_in_called_function_is_reported_at_the_call():
    found = {(d.code, d.line): d for d in findings()}
    direct = found[("SYNC001", 13)]
    assert "the call of `stage`, which waits at `__syncthreads()`" in direct.message
    assert "line 12" in direct.message and "%tid.x" in direct.message
    nested = found[("SYNC002", 36)]  # stage_twice -> stage -> bar.sync
    assert "`stage_twice`" in nested.message and "early return (line 34)" in nested.message
