"""SYNC001 on values that every thread of a block shares by construction: the result of
`__syncthreads_or/and/count` (`bar.red`, nested votes under it and a `do ... while (__syncthreads_or(x))`
loop), a loop compare whose two sides carry the same `+ tid`, and a grid-stride bound rounded up to
whole blocks through nvcc's two division paths. Each ok_ kernel has a bad_ twin whose value differs
between threads, which must still be reported.

tests/rules/data/block_uniform_values.cu (PTX beside it, `nvcc -ptx -lineinfo -arch=sm_90 -std=c++17`)
launches every kernel from its main(); each `// EXPECT CODE` marker is a finding the user must see.
"""

import re
from functools import lru_cache
from pathlib import Path

from support import expected_markers

from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.analysis.uniformity import CTA
from ptxlint.api import CheckOptions, check_file
from ptxlint.frontend.parser import parse_ptx_file

DATA = Path(__file__).parent / "data"
PTX = DATA / "block_uniform_values.sm_90.ptx"


@lru_cache(maxsize=1)
def checked():
    result = check_file(str(PTX), CheckOptions(select=["RACE", "WARP", "SYNC", "SHFL"], use_config=False))
    assert not result.errors
    return result.diagnostics


def kernel_of(d) -> str:
    return re.sub(r"^_Z\d+", "", d.kernel)


def test_findings_under_the_launched_shapes_are_exactly_the_markers():
    found = checked()
    assert {(d.code, d.line) for d in found} == expected_markers(DATA / "block_uniform_values.cu")
    assert not [d for d in found if kernel_of(d).startswith("ok_")]


def test_the_twins_say_which_thread_dependent_value_splits_the_block():
    by_kernel = {}
    for d in checked():
        by_kernel.setdefault(kernel_of(d).split("P")[0], []).append(d)
    assert "inside a loop whose trip count differs" in by_kernel["bad_steps_bound_without_thread"][0].message
    assert "%tid.x" in by_kernel["bad_steps_bound_without_thread"][0].message
    assert "reached by only some threads" in by_kernel["bad_vote_under_thread_test"][0].message


def test_a_barrier_reduction_result_is_one_value_per_block():
    """`bar.red.or.pred` writes its first operand, and that value is the same in every thread of the
    block (it may differ between blocks), whatever the thread-dependent predicate it reduces."""
    module = parse_ptx_file(str(PTX))
    function = next(f for f in module.functions if "ok_until_block_settles" in f.name)
    ctx = KernelContext(module, function, AnalysisOptions(block_overrides=[(None, (256, 1, 1), "test")]))
    reduction = next(i for i in function.instructions if i.op == "bar" and "red" in i.modifiers)
    (result,) = reduction.destinations()
    operand = reduction.operands[-1]
    assert operand in reduction.sources() and result not in reduction.sources()
    later = function.instructions[reduction.index + 1]
    assert ctx.uniformity.level(later, result) == CTA
    assert ctx.uniformity.level(reduction, operand) > CTA
