"""CONST001 quotes the H100 measurement committed in validation/const/, not a copy that drifted from it."""

import json

from support import SAMPLES, VALIDATION
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.api import CheckOptions, check_module
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.rules import const

MEASURED = json.loads((VALIDATION / "const" / "measurements.json").read_text())


def test_the_rules_data_is_the_committed_measurement():
    for key in ("gpu", "arch", "driver", "nvcc", "baseline_uniform_cycles",
                "baseline_uniform_throughput_sm_cycles_per_warp_load"):
        assert const.COST[key] == MEASURED[key], key
    measured = {(r["distinct_addresses"], r["layout"]): r for r in MEASURED["rows"]}
    assert len(const.COST["rows"]) == len(measured)
    for row in const.COST["rows"]:
        source = measured[(row["distinct_addresses"], row["layout"])]
        assert {k: source[k] for k in row} == row


def test_a_lane_indexed_constant_read_quotes_the_32_address_row():
    module = parse_ptx_file(str(SAMPLES / "const_nonuniform.sm_90.ptx"))
    found = check_module(module, CheckOptions(select=["CONST001"], analysis=AnalysisOptions()))
    (lane,) = [d for d in found if d.kernel == "_Z11laneOffsetsPKiPii"]
    row = next(r for r in MEASURED["rows"] if r["distinct_addresses"] == 32 and r["layout"] == "same_line")
    quoted = next(n for n in lane.notes if n.startswith("measured on an "))
    assert MEASURED["gpu"] in quoted and MEASURED["arch"] in quoted
    assert f"{row['cycles_per_load']:.0f} cycles latency vs {MEASURED['baseline_uniform_cycles']:.0f} uniform" in quoted
    assert f"{row['throughput_sm_cycles_per_warp_load']:.0f} vs 2 SM cycles" in quoted
