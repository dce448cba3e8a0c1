"""RACE001 details: witnesses, loop iterations, and what an assumed block shape changes."""

from collections import Counter

from support import SAMPLES
from ptxlint.kernel_check import SHAPE_DEPENDENT
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file


def race_findings(block=None, not_checked=None):
    module = parse_ptx_file(str(SAMPLES / "smem_race.sm_90.ptx"))
    overrides = [(None, block, "test")] if block else []
    return check_module(module, CheckOptions(select=["RACE001"], analysis=AnalysisOptions(block_overrides=overrides)),
                        not_checked=not_checked)


def test_declared_shape_gives_an_error_with_a_cross_warp_witness():
    (d,) = race_findings((256, 1, 1))
    assert d.severity == "error" and d.data["hazard"] == "RAW" and d.line == 13
    t1, t2 = d.data["threads"]
    assert t1 // 32 != t2 // 32
    assert any("writes byte" in n and "`buf`" in n and "reads it at line 13" in n for n in d.notes)


def test_a_race_between_warps_is_reported_when_the_shape_is_unknown():
    # the same kernel, no launch shape anywhere: every candidate block of two warps or more has the
    # race (a one-warp block would not), and the finding says which candidates it was checked under
    counts = Counter()
    (d,) = race_findings(not_checked=counts)
    assert d.code == "RACE001" and d.line == 13 and counts[SHAPE_DEPENDENT] == 0
    (note,) = [n for n in d.notes if n.startswith("holds under every candidate block of 64 threads or more")]
    assert "no launch" in note and "64x1x1" in note and "32x1x1" not in note


def test_barrier_in_the_loop_separates_iterations():
    # shiftSync: store, barrier, load, barrier in a loop: no pair of accesses without a barrier between
    assert [d for d in race_findings((256, 1, 1)) if d.kernel == "_Z9shiftSyncPKiPii"] == []


def test_single_warp_block_has_no_cross_warp_race():
    assert race_findings((32, 1, 1)) == []


def warp_findings(ptx_path, block=(256, 1, 1)):
    module = parse_ptx_file(str(ptx_path))
    options = CheckOptions(select=["RACE", "WARP"], analysis=AnalysisOptions(block_overrides=[(None, block, "test")]))
    return check_module(module, options)


def test_debug_build_syncwarp_is_a_call_that_still_orders_the_warp():
    """nvcc -G emits `__syncwarp()` as `call.uni __syncwarp, (-1)` to a `.func` holding bar.warp.sync."""
    found = warp_findings(SAMPLES / "reduce_warp_tail.sm_90.G.ptx")
    assert [(d.code, d.kernel) for d in found] == [("WARP001", "_Z16reduceUnrollWarpILj256EEvPKfPfj")]


CALL_BETWEEN = """\
.version 8.0
.target sm_90
.address_size 64

.func wrapped_syncwarp(.param .b32 mask)
{
\t.reg .b32 %r<2>;
\tld.param.u32 \t%r1, [mask];
\tbar.warp.sync \t%r1;
\tret;
}

.func no_barrier(.param .b32 mask)
{
\t.reg .b32 %r<2>;
\tld.param.u32 \t%r1, [mask];
\tret;
}

.visible .entry k(.param .u64 out)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<8>;
\t.shared .align 4 .b8 s[128];
\tmov.u32 \t%r1, %tid.x;
\tshl.b32 \t%r2, %r1, 2;
\tmov.u32 \t%r3, s;
\tadd.s32 \t%r4, %r3, %r2;
\tst.shared.u32 \t[%r4], %r1;
\tsetp.lt.u32 \t%p1, %r1, 64;
\t{
\t.param .b32 param0;
\tst.param.b32 \t[param0+0], -1;
\tCALL
\t}
\txor.b32 \t%r5, %r1, 1;
\tshl.b32 \t%r6, %r5, 2;
\tadd.s32 \t%r7, %r3, %r6;
\tld.shared.u32 \t%r5, [%r7];
\tret;
}
"""


def test_only_a_call_to_a_function_that_is_just_a_barrier_counts_as_one(tmp_path):
    codes = {}
    for name, call in {"wrapped": "call.uni \twrapped_syncwarp, (param0);", "opaque": "call.uni \tno_barrier, (param0);",
                       "guarded": "@%p1 call.uni \twrapped_syncwarp, (param0);"}.items():
        path = tmp_path / f"{name}.ptx"
        path.write_text(CALL_BETWEEN.replace("CALL", call))
        codes[name] = [d.code for d in warp_findings(path, block=(32, 1, 1))]
    assert codes == {"wrapped": [], "opaque": ["WARP001"], "guarded": ["WARP001"]}
