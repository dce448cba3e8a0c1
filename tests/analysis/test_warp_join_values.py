"""A join whose sides each hold one value per warp, chosen by a branch that is one value per warp,
holds one value per warp (CGBN's count of significant limbs in kernel_miller_rabin: the top voting
lane's value broadcast by `shfl.sync.idx`, or 1024 when no lane votes, after whole warps left on a
run-time bound). Before, the join was a new unknown in every thread, and the full-mask shuffles
under a test of it were reported (16 places of test11's re-run)."""

from pathlib import Path

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.frontend.parser import parse_ptx_file

PTX = Path(__file__).parents[1] / "rules" / "data" / "warp_join_broadcast.ptx"


def _joined_value(kernel: str) -> list:
    """Per thread (64 threads, two warps), the joined value the kernel tests (`setp.lt ... 64`)."""
    module = parse_ptx_file(str(PTX))
    function = next(f for f in module.functions if f.name == kernel)
    ctx = KernelContext(module, function, AnalysisOptions(block_overrides=[(None, (64, 1, 1), "test")]))
    test = next(i for i in function.instructions if i.op == "setp" and i.modifiers[:1] == ("lt",))
    return list(ctx.lanes.register(test, test.operands[1]))


def test_the_broadcast_or_default_is_one_value_per_warp():
    values = _joined_value("ok_broadcast_of_the_top_voter")
    assert all(v == values[0] for v in values[:32]) and all(v == values[32] for v in values[32:])


def test_each_lanes_own_value_is_not():
    values = _joined_value("bad_each_lane_reads_its_own_lane")
    assert len(set(values[:32])) > 1
