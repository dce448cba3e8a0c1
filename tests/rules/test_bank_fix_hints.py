"""BANK001 fixes in the declaration's own shape, verified by the bank model: the declared row is
padded (`As[16][16]` -> `As[16][17]`, `As[16][17]` -> `As[16][18]`), a 1-D array is padded in its
index, a same-word atomic is aggregated per warp, and a conflicting load that ptxas merges is a
BANK001 with the merged load's cost (tests/rules/data/bank_fix_hints.cu; the PTX is committed)."""

import pytest

from support import REPO
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file

PTX = REPO / "tests" / "rules" / "data" / "bank_fix_hints.sm_90.ptx"
BLOCKS = [("*column_16x16*", (16, 1, 1)), ("*column_16x1[78]*", (16, 16, 1)), ("*strided_1d*", (256, 1, 1)),
          ("*_atomic*", (256, 1, 1)), ("*merged_*", (32, 1, 1))]


@pytest.fixture(scope="module")
def findings():
    module = parse_ptx_file(str(PTX))
    options = CheckOptions(select=["BANK"], analysis=AnalysisOptions(
        block_overrides=[(glob, dims, "test") for glob, dims in BLOCKS]))
    by_kernel: dict = {}
    for d in check_module(module, options):
        by_kernel.setdefault(d.kernel.split("P", 1)[0].lstrip("_Z0123456789"), []).append(d)
    return by_kernel


def test_a_16x16_tile_read_down_a_column_is_padded_to_16x17(findings):
    store, load = sorted(findings["column_16x16"], key=lambda d: d.line)
    for d in (store, load):
        assert "declare `As` as [16][17] instead of [16][16]" in d.fix, d.fix
        assert "[8][" not in d.fix and "verified with the bank model" in d.fix
        (edit,) = d.fix_edits["edits"]
        assert (edit["line"], edit["old"], edit["new"]) == (6, "16", "17") and d.fix_edits["safe"]


def test_a_16x17_tile_whose_warps_span_two_rows_is_padded_to_16x18(findings):
    """With a 16x16 block each warp reads two columns: [16][17] leaves that read 2-way (as measured),
    [16][18] is conflict-free; no padding helps the row store (a warp's two rows overlap banks)."""
    store, load = sorted(findings["column_16x17"], key=lambda d: d.line)
    assert "declare `As` as [16][18] instead of [16][17]" in load.fix, load.fix
    assert load.data["fixed_wavefronts"] == load.data["ideal"]
    assert store.fix is None and store.fix_edits is None
    assert any("no padding of `As[16][17]` ([16][18] to [16][49])" in n for n in store.notes), store.notes


def test_the_near_miss_padded_to_18_has_no_column_conflict(findings):
    assert [d.line for d in findings.get("column_16x18", []) if d.data.get("kind") == "load"] == []


def test_a_1d_array_is_padded_in_its_index_not_given_a_2d_shape(findings):
    (d,) = findings["strided_1d"]
    assert "`sdata[256]`" in d.fix and "sdata[i + i / 32" in d.fix and "][" not in d.fix.split("(verified")[0]
    assert d.fix_edits is None  # the index expressions are the user's to rewrite


def test_a_same_word_shared_atomic_is_fixed_by_warp_aggregation(findings):
    (d,) = findings["same_word_atomic"]
    assert d.code == "BANK001" and "__ballot_sync" in d.fix and "__popc" in d.fix
    assert "change the index expression" not in " ".join(d.notes)
    assert d.data["fix_kind"] == "warp-aggregation" and d.data["fixed_wavefronts"] < d.data["wavefronts"]
    assert "own_word_atomic" not in findings


def test_a_conflicting_load_that_ptxas_merges_is_a_bank001_with_its_measured_cost(findings):
    """Four adjacent loads from each lane's row start become one LDS.128 on banks 0-3 in every lane:
    32 wavefronts per warp (ideal 4), the cost bank_suite's c16 measures for this pattern."""
    (d,) = findings["merged_rows"]
    assert d.code == "BANK001" and d.severity == "warning"
    assert (d.data["wavefronts"], d.data["ideal"], d.data["bits"]) == (32, 4, 128)
    assert "ptxas merges" in d.message and "declare `s` as [32][36] instead of [32][32]" in d.fix
    # the near miss: a merged load without a conflict stays the informational BANK002
    assert [x.code for x in findings["merged_adjacent"]] == ["BANK002"]


def test_the_verified_layout_api_gives_the_lanes_addresses_after_the_fix():
    """What the HTML report draws as "after the fix": every lane of the column read on its own bank."""
    from ptxlint.analysis.context import KernelContext
    from ptxlint.analysis.layout import remapped_warps, verified_layout

    module = parse_ptx_file(str(PTX))
    kernel = next(f for f in module.kernels if "column_16x16" in f.name)
    ctx = KernelContext(module, kernel, AnalysisOptions(block_overrides=[(None, (16, 1, 1), "test")]))
    load = next(a for a in ctx.shared_accesses if a.kind == "load")
    fix = verified_layout(ctx, load)
    assert (fix.kind, fix.shape_before, fix.shape_after) == ("padding", "As[16][16]", "As[16][17]")
    assert (fix.before, fix.after) == (load.wavefronts, load.ideal)
    ((warp, lanes, addresses),) = remapped_warps(load, fix)
    banks_before = {ctx.bank_model.bank(a // 4) for a in load.warps[0].addresses}
    banks_after = {ctx.bank_model.bank(a // 4) for a in addresses}
    assert (warp, len(lanes), len(banks_before), len(banks_after)) == (0, 16, 2, 16)
