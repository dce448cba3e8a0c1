"""Where an atomic's value goes through shared memory, word by word: one `extern __shared__` array
carved into a counter, a queue, a reservation and a work-queue base (chai's BFS/SSSP) holds several
values; the reservation's value reaches the loads of its own word, not the base's, so it does not
decide the loop the base bounds. Source: rules/data/carved_shared_flow.cu."""

from pathlib import Path

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.value_flow import value_flow
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.fence import atomic_role

PTX = Path(__file__).parent.parent / "rules" / "data" / "carved_shared_flow.sm_90.ptx"


def _kernel():
    module = parse_ptx_file(str(PTX))
    fn = next(f for f in module.functions if f.name == "ok_reservation_and_queue_base_in_one_array")
    ctx = KernelContext(module, fn, AnalysisOptions(block_overrides=[(None, (256, 1, 1), "test")]))
    atomics = [i for i in fn.instructions if i.op == "atom" and i.space == "global"]
    return ctx, atomics


def test_the_reservation_is_a_slot_that_decides_no_branch():
    ctx, atomics = _kernel()
    reservation = atomics[1]  # *shift = atomicAdd(tail, count)
    flow = value_flow(ctx, reservation)
    assert flow.addresses()  # q2[*shift + i]
    assert not flow.guards()  # the loop is bounded by *base, another word
    assert atomic_role(ctx, reservation) == "slot"


def test_the_queue_base_still_decides_the_loop():
    ctx, atomics = _kernel()
    base = atomics[2]  # *base = atomicAdd(head, BLOCK) inside the loop
    assert value_flow(ctx, base).guards()
