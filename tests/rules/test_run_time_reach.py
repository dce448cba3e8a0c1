"""RACE001: a thread whose reach of an access hangs on a value the kernel computed at run time (read
back from shared memory, an atomic's result) is no race witness; such pairs are counted as not
checked. Conditions on input data still count.

The kernels are in tests/rules/data/run_time_reach.cu (PTX beside it, `nvcc -ptx -lineinfo
-arch=sm_90`); each `// EXPECT CODE` marker is a finding the user must see, and kernels named ok_*
get none. ok_segmented_scan has the shape of the one false RACE001 place the real-world corpus had
under its true launches (validation/realworld/triage.json, a segmented scan's ping-pong buffer).
"""

import json
import re
from collections import Counter
from pathlib import Path

from support import expected_markers, run_cli
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.guard_origin import ATOMIC, INPUT, SHARED_LOAD, THREAD_INDEX, guard_origins
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.race import UNDECIDED_REACH, _sites
from ptxlint.rules.registry import get_rule

DATA = Path(__file__).parent / "data"
NAME = "run_time_reach"
BLOCK = (256, 1, 1)


def module():
    return parse_ptx_file(str(DATA / f"{NAME}.sm_90.ptx"))


def options(select=("RACE", "WARP")):
    return CheckOptions(select=list(select), analysis=AnalysisOptions(block_overrides=[(None, BLOCK, "test")]))


def short_name(mangled: str) -> str:
    return re.sub(r"^_Z\d+", "", mangled)


def kernel_context(kernel: str):
    m = module()
    (fn,) = [f for f in m.functions if f.is_kernel and short_name(f.name).startswith(kernel)]
    return KernelContext(m, fn, AnalysisOptions(block_overrides=[(None, BLOCK, "test")]))


def test_findings_are_exactly_the_markers():
    found = check_module(module(), options())
    assert {(d.code, d.line) for d in found} == expected_markers(DATA / f"{NAME}.cu")
    assert not [d for d in found if short_name(d.kernel).startswith("ok_")]


def test_the_segmented_scan_pairs_are_counted_as_not_checked():
    """Before: `thread 0 reads byte 1016 of sum at line 44; thread 254 writes it at line 46`, although
    thread 0 never passes `t - head >= 2` (its head, read back from shared memory, is 0)."""
    counts = Counter()
    found = check_module(module(), options(["RACE001"]), not_checked=counts)
    assert not [d for d in found if "ok_segmented_scan" in d.kernel]
    ctx = kernel_context("ok_segmented_scan")
    list(get_rule("RACE001").check(ctx))
    ctx.release()
    assert ctx.not_checked[UNDECIDED_REACH["RACE001"]] > 0
    assert counts[UNDECIDED_REACH["RACE001"]] >= ctx.not_checked[UNDECIDED_REACH["RACE001"]]


def test_the_not_checked_pairs_are_in_the_summary_and_the_json():
    ptx = str(DATA / f"{NAME}.sm_90.ptx")
    args = ("check", "--no-cache", "--isolated", "--select", "RACE001", "--block", "256x1x1")
    r = run_cli(*args, ptx)
    assert r.returncode == 1 and "Found 2 findings" in r.stdout  # the bad_* kernels
    counted = re.search(r"(\d+) pairs of shared accesses that meet only in threads whose reach depends on values "
                        r"the kernel computed at run time \(RACE001\)", r.stdout)
    assert counted and int(counted.group(1)) > 0
    doc = json.loads(run_cli(*args, "--format", "json", ptx).stdout)
    assert doc["not_checked"][UNDECIDED_REACH["RACE001"]] == int(counted.group(1))


def test_one_thread_elected_by_an_atomic_ticket_is_no_write_write_race():
    """Before: `threads 0 and 32 write different values (0 and 32) to leader`: only the thread that
    draws ticket 0 stores."""
    found = check_module(module(), options())
    assert not [d for d in found if "ok_elected_by_ticket" in d.kernel]


def guard_sources(kernel: str, line: int, thread: int) -> tuple:
    """(what the predicates that may decide thread `thread`'s reach of the first shared read at source
    `line` are computed from, whether that thread's reach is undecided)."""
    ctx = kernel_context(kernel)
    site = [s for s in _sites(ctx) if s.instruction.loc and s.instruction.loc.line == line and s.kind == "read"][0]
    ev = site.evaluations[0]
    assert thread in ev.unsure
    origins = guard_origins(ctx)
    deciders = origins._deciding_predicates(site.instruction)
    assert deciders
    return frozenset().union(*(origins.sources(d, r) for d, r in deciders)), thread in ev.undecided


def test_a_head_read_back_from_shared_memory_leaves_the_guard_undecided():
    sources, undecided = guard_sources("ok_segmented_scan", 44, 0)
    assert SHARED_LOAD in sources and THREAD_INDEX in sources
    assert undecided


def test_a_head_from_input_data_leaves_the_guard_open_to_any_thread():
    sources, undecided = guard_sources("bad_segmented_scan_one_buffer", 65, 5)
    assert INPUT in sources and THREAD_INDEX in sources and SHARED_LOAD not in sources and ATOMIC not in sources
    assert not undecided
