"""Uniformity at a join whose definitions are copies of one computation: nvcc writes the same
`mov.u32 %r2, %r1` before a thread-dependent `if (tid == 0)` and again inside it (cudpp's merge
loops), so whichever side a thread came by, the value is the same and the loop it bounds has one
trip count; a definition inside the `if` that computes something else makes it differ."""

import pytest

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.uniformity import WARP
from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx

# a loop with a barrier; %r2 is carried around it and set on both sides of `if (tid == 0)`
MODULE = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u32 k_n)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    ld.param.u32 %r9, [k_n];
    mov.u32 %r4, %tid.x;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
$L_loop:
    bar.sync 0;
    add.s32 %r1, %r2, 1;
    setp.ne.s32 %p1, %r4, 0;
    mov.u32 %r2, %r1;
    @%p1 bra $L_join;
    {inside}
$L_join:
    setp.lt.s32 %p2, %r2, %r9;
    @%p2 bra $L_loop;
    ret;
}}
"""


def loop_branch_level(inside: str) -> int:
    """The dataflow level of the loop test's bound %r2 (before the per-thread refinement, which
    cannot follow every loop: cudpp's could not)."""
    module = parse_ptx(MODULE.format(inside=inside), "k.ptx")
    fn = module.functions[0]
    ctx = KernelContext(module, fn, AnalysisOptions(block_overrides=[(None, (128, 1, 1), "test")]))
    test = next(i for i in fn.instructions if i.op == "setp" and i.operands[0].name == "%p2")
    return ctx.uniformity.level(test, Register("%r2"))


def test_a_copy_of_the_same_computation_inside_the_if_keeps_the_loop_uniform():
    assert loop_branch_level("mov.u32 %r2, %r1;") < WARP


@pytest.mark.parametrize("inside", ["add.s32 %r2, %r1, 1;", "mov.u32 %r2, %r4;"])
def test_another_computation_inside_the_if_makes_the_loop_diverge(inside):
    assert loop_branch_level(inside) == WARP
