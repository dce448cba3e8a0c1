"""UniformityAnalysis: sources of divergence, sync dependence, warp vs block levels, explanations."""

import pytest

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.uniformity import BLOCK, CTA, UNIFORM, WARP
from ptxlint.frontend.ir import Register
from ptxlint.frontend.parser import parse_ptx

HEADER = """
.version 8.0
.target sm_90
.address_size 64
"""


def kernel(body: str, block=(64, 1, 1)):
    text = HEADER + """
.visible .entry k(.param .u64 k_p0, .param .u32 k_n)
{
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 s[1024];
""" + body + "\n}\n"
    module = parse_ptx(text, "k.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions(block_overrides=[(None, block, "test")]))
    return ctx


def ins_at(ctx, text):
    """The first instruction whose PTX text starts with `text`."""
    return next(i for i in ctx.function.instructions if str(i).startswith(text))


def branch_levels(ctx):
    u = ctx.uniformity
    return [u.branch_level(b) for b in sorted(u._branches)]


def test_thread_index_branch_is_warp_divergent_and_explained():
    ctx = kernel("""
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra L1;
    bar.sync 0;
L1:
    ret;""")
    u = ctx.uniformity
    assert branch_levels(ctx) == [WARP]
    assert "%tid.x via %r1" in u.branch_divergence(0)
    setp = ins_at(ctx, "setp")
    assert u.is_divergent(setp, Register("%r1"), "warp")
    assert u.divergent_blocks("block") == {1}


def test_block_index_parameters_and_uniform_loads_are_block_uniform():
    ctx = kernel("""
    ld.param.u32 %r1, [k_n];
    mov.u32 %r2, %ctaid.x;
    ld.param.u64 %rd1, [k_p0];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r3, [%rd3];
    setp.lt.u32 %p1, %r3, %r1;
    @%p1 bra L1;
    bar.sync 0;
L1:
    ret;""")
    u = ctx.uniformity
    setp = ins_at(ctx, "setp")
    assert u.level(setp, Register("%r1")) == UNIFORM
    assert u.level(setp, Register("%r3")) == CTA  # loaded from a blockIdx-dependent address
    assert not u.is_divergent(setp, Register("%r3"), "block") and u.is_divergent(setp, Register("%r3"), "cta")
    assert u.divergent_blocks("block") == set()


def test_atomic_results_and_thread_dependent_loads_are_divergent():
    ctx = kernel("""
    ld.param.u64 %rd1, [k_p0];
    atom.global.add.u32 %r1, [%rd1], 1;
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r3, [%rd3];
    add.s32 %r4, %r1, %r3;
    ret;""")
    u = ctx.uniformity
    add = ins_at(ctx, "add.s32")
    assert u.level(add, Register("%r1")) == WARP and "atom" in u.why(add, Register("%r1"))
    assert u.level(add, Register("%r3")) == WARP and "loaded" in u.why(add, Register("%r3"))


@pytest.mark.parametrize("block, level", [((32, 4, 1), BLOCK), ((16, 8, 1), WARP), ((64, 1, 1), UNIFORM)])
def test_tid_y_is_warp_uniform_when_rows_fill_warps(block, level):
    ctx = kernel("""
    mov.u32 %r1, %tid.y;
    setp.lt.u32 %p1, %r1, 1;
    @%p1 bra L1;
    bar.sync 0;
L1:
    ret;""", block)
    assert branch_levels(ctx) == [level]


def test_warp_index_branch_is_refined_to_block_level_for_the_shape():
    ctx = kernel("""
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    setp.lt.u32 %p1, %r2, 2;
    @%p1 bra L1;
    bar.sync 0;
L1:
    ret;""", (128, 1, 1))
    u = ctx.uniformity
    # the shift drops the lane: the value itself is one per warp (thread_bits.py), not only the branch
    assert u._branch_raw[0][0] == BLOCK
    assert branch_levels(ctx) == [BLOCK]  # every warp's lanes agree


def test_value_defined_under_divergent_branch_is_divergent_at_the_join():
    ctx = kernel("""
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra L1;
    mov.u32 %r2, 1;
L1:
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra L2;
    bar.sync 0;
L2:
    ret;""")
    u = ctx.uniformity
    join = ins_at(ctx, "setp.eq")
    assert u.level(join, Register("%r2")) == WARP  # constants only, but chosen by a divergent branch
    assert "the branch at" in u.why(join, Register("%r2"))


def test_loop_with_divergent_exit_makes_its_values_divergent_after_the_loop():
    ctx = kernel("""
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
L1:
    add.s32 %r2, %r2, 1;
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r1;
    @%p1 bra L1;
    setp.eq.u32 %p2, %r2, 4;
    ret;""")
    u = ctx.uniformity
    inside = ins_at(ctx, "add.s32 %r2")
    after = ins_at(ctx, "setp.eq")
    assert u.level(inside, Register("%r2")) == UNIFORM  # the same in every thread still iterating
    assert u.level(after, Register("%r2")) == WARP  # threads left after different trip counts


def test_predicated_write_with_divergent_guard():
    ctx = kernel("""
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    mov.u32 %r2, 0;
    @%p1 mov.u32 %r2, 1;
    add.s32 %r3, %r2, 1;
    ret;""")
    assert ctx.uniformity.level(ins_at(ctx, "add.s32"), Register("%r2")) == WARP


def test_ballot_is_warp_uniform_but_block_divergent():
    ctx = kernel("""
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    vote.sync.ballot.b32 %r2, %p1, -1;
    add.s32 %r3, %r2, 1;
    ret;""")
    assert ctx.uniformity.level(ins_at(ctx, "add.s32"), Register("%r2")) == BLOCK
