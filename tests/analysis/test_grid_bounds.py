"""The per-lane evaluator's facts about the grid: blockIdx < gridDim on every axis, and a global thread
index that is not negative; what they decide and, where wrap-around could make them wrong, what not."""

import pytest

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx

MODULE = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u32 k_n)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    ld.param.u32 %r9, [k_n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %nctaid.x;
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, %ntid.x;
    mad.lo.s32 %r6, %r1, %r5, %r4;
    mul.lo.s32 %r7, %r2, %r5;
    {body}
    ret;
}}
"""


def truth(body: str, block=(96, 1, 1)) -> list:
    """Per thread, the value of %p1 after `body`: 0, 1, or None where it is unknown."""
    module = parse_ptx(MODULE.format(body=body), "k.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions(block_overrides=[(None, block, "test")]))
    last = next(i for i in reversed(module.functions[0].instructions) if Register("%p1") in i.destinations())
    values = ctx.lanes._definition(last.index, Register("%p1"))
    return [None if v[1] else v[0] for v in values]


@pytest.mark.parametrize("body, expected", [
    ("setp.eq.s32 %p1, %r1, %r2;", 0),  # blockIdx.x == gridDim.x
    ("setp.ge.u32 %p1, %r1, %r2;", 0),  # blockIdx.x >= gridDim.x
    ("setp.lt.s32 %p1, %r6, %r7;", 1),  # idx < gridDim.x * blockDim.x
    ("add.s32 %r3, %r1, -1; setp.lt.s32 %p1, %r3, %r2;", 1),  # signed: blockIdx.x - 1 < gridDim.x
])
def test_block_index_below_the_grid_decides(body, expected):
    assert truth(body) == [expected] * 96


@pytest.mark.parametrize("body", [
    "setp.eq.s32 %p1, %r1, %r9;",  # blockIdx.x == n: n is no grid dimension
    "add.s32 %r3, %r1, -1; setp.lt.u32 %p1, %r3, %r2;",  # unsigned: blockIdx.x - 1 wraps in block 0
    "add.s32 %r3, %r1, %r9; add.s32 %r8, %r2, %r9; setp.lt.s32 %p1, %r3, %r8;",  # + n could wrap
])
def test_what_it_does_not_decide(body):
    assert truth(body) == [None] * 96


def test_only_the_last_thread_is_undecided_one_below_the_grid():
    """idx < gridDim.x * blockDim.x - 1 holds in every thread but the last of each block (only in the
    last block is it false there)."""
    values = truth("add.s32 %r3, %r7, -1; setp.lt.u32 %p1, %r6, %r3;")
    assert values[:95] == [1] * 95 and values[95] is None


def test_the_sign_of_a_global_index_is_zero_under_the_stated_assumption():
    module = parse_ptx(MODULE.format(body="shr.s32 %r3, %r6, 31; setp.eq.s32 %p1, %r3, 0;"), "k.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions(block_overrides=[(None, (96, 1, 1), "t")]))
    ins = next(i for i in module.functions[0].instructions if i.op == "setp")
    values, notes = ctx.lanes.collect(ctx.lanes._definition, ins.index, Register("%p1"))
    assert [v[0] for v in values] == [1] * 96 and not any(v[1] for v in values)
    assert any("assumed not to overflow" in n for n in notes)
