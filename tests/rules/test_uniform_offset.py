"""A uniform unknown added to a lane-dependent index keeps the lane pattern: CONST001 and BANK001
count distinct addresses and bank conflicts exactly, masked (`(lane + i) & 63`) or not."""

from pathlib import Path

import pytest

from ptxlint.analysis.bankmodel import MAXWELL_AND_LATER
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules.bank import check_bank_conflicts
from ptxlint.rules.const import check_nonuniform_constant

PTX = Path(__file__).parent / "data" / "uniform_offset.sm_90.ptx"


@pytest.fixture(scope="module")
def module():
    return parse_ptx_file(str(PTX))


def ctx_of(module, name):
    function = next(f for f in module.kernels if f.name == name)
    return KernelContext(module, function, AnalysisOptions(block_overrides=[(None, (256, 1, 1), "test")]))


def test_masked_table_index_plus_loop_counter_counts_32_addresses(module):
    findings = list(check_nonuniform_constant(ctx_of(module, "const_masked")))
    assert findings and findings[0].data["serialization"] == 32
    assert set(findings[0].data["distinct_addresses_per_warp"]) == {32}
    # what the source computes, for every value the counter takes
    assert {len({(lane + i) & 63 for lane in range(32)}) for i in range(64)} == {32}


def test_table_index_plus_parameter_and_counter_counts_8_addresses(module):
    findings = list(check_nonuniform_constant(ctx_of(module, "const_offset")))
    assert findings and findings[0].data["serialization"] == 8


def test_masked_shared_index_plus_parameter_is_exactly_2_way(module):
    ctx = ctx_of(module, "bank_offset")
    findings = list(check_bank_conflicts(ctx))
    assert len(findings) == 1
    assert "2-way" in findings[0].message and "16 wavefronts where 8" in findings[0].message
    assert any("the same for every value" in n for n in findings[0].notes)
    # the bank model on the source's addresses, for every offset: always 2 wavefronts per warp
    for off in range(0, 512, 7):
        words = [((2 * lane + off) % 512) * 4 for lane in range(32)]
        assert MAXWELL_AND_LATER.lanes_cost(tuple(range(32)), tuple(words), 4).wavefronts == 2
