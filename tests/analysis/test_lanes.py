"""The per-lane evaluator: addresses of every lane, with unknowns kept exactly where they matter."""

import pytest

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.frontend.parser import parse_ptx

MODULE = """
.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b8 table[64];

.visible .entry k(.param .u64 k_out)
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .f32 %f<4>;
    ld.param.u64 %rd1, [k_out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    shl.b32 %r5, %r4, 2;
    cvt.u64.u32 %rd2, %r5;
    and.b64 %rd3, %rd2, {mask};
    mov.u64 %rd4, table;
    add.s64 %rd5, %rd4, %rd3;
    ld.const.f32 %f1, [%rd5];
    st.global.f32 [%rd1], %f1;
    ret;
}}
"""


def constant_access(mask: int, block=(256, 1, 1)):
    module = parse_ptx(MODULE.format(mask=mask), "k.ptx")
    ctx = KernelContext(module, module.functions[0], AnalysisOptions(block_overrides=[(None, block, "test")]))
    (access,) = [a for a in ctx.shared_accesses if a.space == "const"]
    return access


@pytest.mark.parametrize("mask, distinct", [(12, 4), (60, 16), (4, 2), (0, 1)])
def test_a_mask_below_the_block_index_term_drops_it(mask, distinct):
    """`table[i & 3]` with i = blockIdx.x * 256 + threadIdx.x: the block term (a multiple of 1024
    bytes) never reaches the masked bits, so every warp reads `distinct` addresses."""
    access = constant_access(mask)
    assert access.determined
    assert [w.distinct_addresses for w in access.warps] == [distinct] * 8


def test_a_mask_that_keeps_bits_of_the_block_index_term_rotates_the_lane_pattern():
    """With 64 threads the block term is a multiple of 256 bytes; mask 0x1fc keeps bit 8 of it, which
    differs between blocks: the offsets are (lane offset + 256 * blockIdx.x) mod 512, a rotation of
    the lane pattern, so each warp reads 32 distinct addresses whatever the block (the finding says so)."""
    access = constant_access(0x1FC, block=(64, 1, 1))
    assert access.determined
    assert [w.distinct_addresses for w in access.warps] == [32, 32]
    assert any("%ctaid.x" in n and "mod 512" in n and "every value" in n for n in access.notes)
    for block in range(4):  # what the hardware sees, block by block
        for warp in range(2):
            offsets = {((warp * 32 + lane) * 4 + 256 * block) & 0x1FC for lane in range(32)}
            assert len(offsets) == 32
