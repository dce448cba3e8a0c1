"""RACE/WARP/SHFL/SYNC on real nvcc PTX: unknown addresses never collide (and are counted), predicates
are three-valued per thread, contradicting conditions rule a pair out, one store whose lanes write
different values to one address is a race, and warp-uniform values do not split warps.

The kernels are in tests/rules/data/*.cu (PTX beside them, `nvcc -ptx -lineinfo -arch=sm_90`); each
`// EXPECT CODE` marker is a finding the user must see, and kernels named ok_* get none.
"""

import re
from pathlib import Path

import pytest

from support import expected_markers

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.registry import get_rule

DATA = Path(__file__).parent / "data"
FAMILIES = ["RACE", "WARP", "SYNC", "SHFL"]
BLOCK = (256, 1, 1)


def findings(name: str, select=FAMILIES):
    module = parse_ptx_file(str(DATA / f"{name}.sm_90.ptx"))
    options = CheckOptions(select=select, analysis=AnalysisOptions(block_overrides=[(None, BLOCK, "test")]))
    return check_module(module, options)


def short_name(mangled: str) -> str:
    return re.sub(r"^_Z\d+", "", mangled)


@pytest.mark.parametrize("name", ["predicates", "unknown_addresses", "contradictions", "same_store", "warp_uniform"])
def test_findings_are_exactly_the_markers(name):
    found = findings(name)
    assert {(d.code, d.line) for d in found} == expected_markers(DATA / f"{name}.cu")
    assert not [d for d in found if short_name(d.kernel).startswith("ok_")]


def not_checked(name: str, kernel: str, code: str) -> int:
    """What the rule leaves in `KernelContext.not_checked` after checking one kernel."""
    module = parse_ptx_file(str(DATA / f"{name}.sm_90.ptx"))
    (fn,) = [f for f in module.functions if f.is_kernel and short_name(f.name).startswith(kernel)]
    ctx = KernelContext(module, fn, AnalysisOptions(block_overrides=[(None, BLOCK, "test")]))
    list(get_rule(code).check(ctx))
    ctx.release()  # the count outlives the analyses
    return ctx.not_checked[code]


@pytest.mark.parametrize("kernel, count", [
    ("ok_merge_rank", 1),         # placed[rank]: the rank is a binary search over global data
    ("ok_compact_two_phase", 1),  # kept[slot]: the slot is an atomic's result
    ("ok_atomic_slot", 1),
    ("ok_compact_scan", 1),       # kept[base + offset]: a shuffle scan of loaded flags
    ("bad_neighbour_after_search", 0),  # s[t] and s[t + 32]: known, and a race
])
def test_accesses_with_run_time_addresses_are_counted_as_not_checked(kernel, count):
    assert not_checked("unknown_addresses", kernel, "RACE001") == count


def test_a_rank_from_a_binary_search_is_no_collision():
    """Before: `thread 0 and thread 32 both write byte 0`: the join after the search loop took the
    value from before the loop (lo = 0) for threads whose entry into the loop was unknown."""
    assert [d for d in findings("unknown_addresses") if "merge_rank" in d.kernel] == []


def test_one_store_with_lanes_writing_different_values_names_lanes_address_and_values():
    by_line = {d.line: d for d in findings("same_store")}
    pairs = by_line[11]
    assert pairs.code == "RACE001" and pairs.severity == "error"
    assert "lanes 0 and 1 of warp 0 write different values (0 and 1) to byte 0 of `s`" in pairs.message
    assert pairs.data["same_store"] and pairs.data["values"] == ["0", "1"] and pairs.data["hazard"] == "WAW"
    winner = by_line[39]
    assert "threads 0 and 32 (different warps) write different values (0 and 32) to byte 0 of `who`" in winner.message
    assert "{0, 0} and {1, 0}" in by_line[58].message


def test_conditions_on_different_threads_data_do_not_contradict():
    """`if (v < n) write; if (v >= n) read` with v loaded per thread: thread 0's v and thread 32's are
    different unknowns, so the two threads can be on the two sides together."""
    (d,) = [d for d in findings("contradictions") if "bad_data_conditions" in d.kernel]
    assert d.data["hazard"] == "RAW"


def test_writer_and_readers_on_the_two_sides_of_one_branch_race():
    """nvcc turns `if (t == 0) w; if (t != 0) r;` into one if/else: the sides run in different threads
    at the same time, so they are paired although neither follows the other."""
    (d,) = [d for d in findings("contradictions") if "bad_writer_and_readers" in d.kernel]
    assert d.line == 39 and d.data["threads"][0] == 0 and d.data["threads"][1] // 32 != 0


def test_a_barrier_under_a_broadcast_branch_is_still_block_divergent():
    (d,) = [d for d in findings("warp_uniform") if d.code == "SYNC001"]
    assert "broadcasts from one lane of each warp" in d.message
    assert any("differs between warps of the block" in n for n in d.notes)
