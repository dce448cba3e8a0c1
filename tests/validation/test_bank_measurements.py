"""Every shared-memory prediction against the H100 measurements (validation/bank/)."""

import importlib.util
import os
import shutil
import sys
import subprocess
from pathlib import Path

import pytest

from support import REPO
from ptxlint.analysis.accesses import as_executed
from ptxlint.analysis.context import AnalysisOptions, KernelContext
from ptxlint.frontend.parser import parse_ptx_file

spec = importlib.util.spec_from_file_location("compare_bank", REPO / "validation" / "compare_bank.py")
compare_bank = importlib.util.module_from_spec(spec)
sys.modules["compare_bank"] = compare_bank
spec.loader.exec_module(compare_bank)


@pytest.fixture(scope="module")
def rows():
    return compare_bank.compare()


def test_measured_suite_is_large_and_names_its_hardware():
    data = compare_bank.load_measurements()
    assert len(data["kernels"]) >= 60
    assert "H100" in data["gpu"] and data["ncu"] and data["nvcc"]


def test_every_prediction_matches_the_measurement(rows):
    mismatches = [r for r in rows if r.status == "mismatch"]
    assert not mismatches, "\n".join(
        f"{r.kernel} line {r.line} {r.kind}: measured {r.measured_wavefronts}/{r.measured_ideal}, "
        f"predicted {r.predicted_wavefronts}/{r.predicted_ideal}" for r in mismatches)
    exact = sum(r.status == "exact" for r in rows)
    assert exact >= 0.95 * len(rows)


def test_known_differences_still_differ(rows):
    """A model change that fixes a listed difference must take it off the list."""
    listed = set(compare_bank.KNOWN_DIFFERENCES)
    seen = {(r.kernel, r.kind) for r in rows if r.status == "known-difference"}
    assert seen == listed


def test_addresses_from_run_time_data_are_reported_as_unknown_not_guessed(rows):
    unknown = [r for r in rows if r.status == "not-determinable"]
    assert unknown and all("_rt" in r.kernel or "runtime" in r.kernel for r in unknown)
    assert all("loaded" in r.reason for r in unknown)


REFERENCE = REPO / "validation" / "reference"


def test_reference_table_square_and_rectangular_kernels():
    """The team's first H100 table: per-kernel load/store wavefront totals."""
    module = parse_ptx_file(str(REFERENCE / "smem_patterns_h100.sm_90.ptx"))
    lines = (REFERENCE / "h100_smem_kernels.tsv").read_text().splitlines()
    header = lines[1].split("\t")
    checked = 0
    for line in lines[2:]:
        row = dict(zip(header, line.split("\t")))
        name = row["kernel"]
        function = next(f for f in module.kernels if name in f.name)
        block = tuple(int(x) for x in row["block"].strip("()").split(","))
        ctx = KernelContext(module, function, AnalysisOptions(block_overrides=[(None, block, "reference")]))
        totals = {"load": 0, "store": 0, "atomic": 0}
        # as_executed: in t48_loop4 and t49_matmul_tile ptxas merges four scalar loads into one LDS.128
        determined = [a for a in ctx.shared_accesses if a.space == "shared" and a.determined]
        for access, wavefronts, _, _ in as_executed(determined):
            totals[access.kind] += wavefronts
        assert totals["load"] == int(row["ld_wavefronts"]), name
        assert totals["store"] == int(row["st_wavefronts"]), name
        assert totals["atomic"] == int(row["atom_wavefronts"] or 0), name
        checked += 1
    assert checked == len(lines) - 2 >= 50
