"""Indirect calls: function pointers, virtual functions, device-side `new` (nvcc PTX of
tests/frontend/data/indirect_calls.cu) and hand-written `.calltargets` tables.

A call whose target is not known waits at no barrier (no SYNC finding at it) and no race is
claimed across it; a call whose every possible target waits at a barrier is that barrier."""

from pathlib import Path

from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.ir import OperandList, Register, Symbol
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.sync import call_targets, callee_name

FRONTEND = Path(__file__).resolve().parent.parent / "frontend" / "data"
DATA = Path(__file__).with_name("data")


def _check(path, select=("SYNC", "RACE", "WARP")):
    module = parse_ptx_file(str(path))
    options = CheckOptions(select=list(select), analysis=AnalysisOptions(block_overrides=[(None, (256, 1, 1), "test")]))
    return module, check_module(module, options)


def test_nvcc_indirect_calls_parse_into_the_ir():
    module = parse_ptx_file(str(FRONTEND / "indirect_calls.sm_90.ptx"))
    indirect = [(f, i) for f in module.functions for i in f.instructions
                if i.op == "call" and isinstance(next(o for o in i.operands if not isinstance(o, OperandList)), Register)]
    # the function pointer, the pointer to the barrier helper, the virtual area() call (and the
    # virtual destructor behind `delete`)
    assert len(indirect) >= 3
    for function, call in indirect:
        prototype = call.operands[-1]
        assert isinstance(prototype, Symbol) and prototype.name in function.callprototypes
        assert callee_name(call) is None and call_targets(function, call) is None
    direct = [i for f in module.functions for i in f.instructions if i.op == "call" and callee_name(i)]
    assert {callee_name(i) for i in direct} >= {"malloc", "free"}  # device-side new and delete


def test_no_finding_across_or_at_a_call_through_a_pointer():
    # barrier_through_pointer: the pointer leads to __syncthreads(), but ptxlint cannot know it
    _, found = _check(FRONTEND / "indirect_calls.sm_90.ptx", select=("SYNC", "RACE", "WARP", "SHFL"))
    assert found == []


def test_call_table_whose_every_target_waits_is_a_barrier():
    _, found = _check(DATA / "indirect_call_targets.ptx")
    by_kernel = {}
    for d in found:
        by_kernel.setdefault(d.kernel, []).append(d)
    assert [d.code for d in by_kernel["all_targets_wait"]] == ["SYNC001"]
    assert "the indirect call (to `f_bar` or `g_bar`)" in by_kernel["all_targets_wait"][0].message
    # one of the targets has no barrier: the call is not a barrier every thread waits at
    assert "some_target_waits" not in by_kernel
