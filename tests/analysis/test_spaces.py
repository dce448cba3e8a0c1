"""Which state space a generic access reaches: the pointer's origin decides (analysis/spaces.py)."""

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.spaces import access_space, in_reserved_shared_window
from ptxlint.frontend.parser import parse_ptx

PTX = """
.version 8.0
.target sm_90
.address_size 64
.global .align 4 .b8 table[64];
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<20>;
    .shared .align 4 .b8 tile[128];
    ld.param.u64 %rd1, [k_param_0];
    ld.param.u64 %rd2, [k_param_1];
    {
     .reg .u32 start;
     .reg .u64 extended;
     mov.u32 start, %reserved_smem_offset_1;
     cvt.u64.u32 extended, start;
     cvta.shared.u64 %rd3, extended;
    }
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.u32 [%rd5+32], %r1;
    add.s64 %rd6, %rd1, %rd4;
    st.u32 [%rd6], %r1;
    cvta.to.global.u64 %rd7, %rd2;
    ld.global.u64 %rd8, [%rd7];
    ld.u32 %r2, [%rd8];
    mov.u64 %rd9, tile;
    cvta.shared.u64 %rd10, %rd9;
    add.s64 %rd11, %rd10, %rd4;
    st.u32 [%rd11], %r2;
    cvta.to.shared.u64 %rd12, %rd8;
    st.u32 [%rd12], %r2;
    setp.eq.s32 %p1, %r2, 0;
    selp.b64 %rd13, %rd10, %rd6, %p1;
    st.u32 [%rd13], %r2;
    mov.u64 %rd14, table;
    ld.global.u32 %r3, [%rd7+8];
    mul.wide.u32 %rd15, %r3, 4;
    add.s64 %rd16, %rd14, %rd15;
    ld.u32 %r4, [%rd16];
    ret;
}
"""


def _spaces():
    module = parse_ptx(PTX, "spaces.ptx")
    ctx = KernelContext(module, module.function("k"), AnalysisOptions())
    accesses = [i for i in ctx.function.instructions if i.op in ("ld", "st") and i.space != "param"]
    return ctx, accesses


def test_generic_accesses_get_the_space_their_pointer_comes_from():
    ctx, accesses = _spaces()
    assert [access_space(ctx, i) for i in accesses] == [
        "shared",   # cvta.shared of %reserved_smem_offset_1: cooperative groups' scratch
        "global",   # a kernel's pointer parameter, even without cvta.to.global
        "global",   # ld.global: the qualifier says it
        None,       # through a 64-bit pointer loaded from memory: may point anywhere
        "shared",   # cvta.shared of a shared variable
        "shared",   # cvta.to.shared names the space, whatever the pointer came from
        None,       # selp between a shared and a global pointer
        "global",   # ld.global
        "global",   # a global variable plus an index loaded from memory (32-bit: an index, not a pointer)
    ]


def test_only_the_toolkit_scratch_is_in_the_reserved_window():
    ctx, accesses = _spaces()
    assert [in_reserved_shared_window(ctx, i) for i in accesses[:5]] == [True, False, False, False, False]
