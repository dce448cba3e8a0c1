"""RACE001 details: witnesses, loop iterations, and what an assumed block shape changes."""

from support import SAMPLES
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file


def race_findings(block=None):
    module = parse_ptx_file(str(SAMPLES / "smem_race.sm_90.ptx"))
    overrides = [(None, block, "test")] if block else []
    return check_module(module, CheckOptions(select=["RACE001"], analysis=AnalysisOptions(block_overrides=overrides)))


def test_declared_shape_gives_an_error_with_a_cross_warp_witness():
    (d,) = race_findings((256, 1, 1))
    assert d.severity == "error" and d.data["hazard"] == "RAW" and d.line == 13
    t1, t2 = d.data["threads"]
    assert t1 // 32 != t2 // 32
    assert any("writes byte" in n and "`buf`" in n and "reads it at line 13" in n for n in d.notes)


def test_assumed_shape_gives_a_warning_that_says_so():
    (d,) = race_findings()
    assert d.severity == "warning"
    assert any("block shape is assumed" in n for n in d.notes)


def test_barrier_in_the_loop_separates_iterations():
    # shiftSync: store, barrier, load, barrier in a loop: no pair of accesses without a barrier between
    assert [d for d in race_findings((256, 1, 1)) if d.kernel == "_Z9shiftSyncPKiPii"] == []


def test_single_warp_block_has_no_cross_warp_race():
    assert race_findings((32, 1, 1)) == []
