"""SYNC001 and SHFL001 inside a grid-stride loop say on which run-time condition the trip counts of a
block's (a warp's) threads differ, and are warnings rather than certain errors; a loop bound that
differs per thread states no condition and stays an error. Source: data/grid_stride_condition.cu."""

import json

import pytest

from support import REPO, run_cli

DATA = REPO / "tests" / "rules" / "data" / "grid_stride_condition.sm_90.ptx"


@pytest.fixture(scope="module")
def findings() -> dict:
    r = run_cli("check", "--no-cache", "--isolated", "--select", "SYNC,SHFL", "--format", "json", str(DATA))
    found: dict = {}
    for d in json.loads(r.stdout)["diagnostics"]:
        found.setdefault(d["kernel"], []).append(d)
    return found


def test_a_barrier_in_a_grid_stride_loop_names_the_multiple_and_warns(findings):
    ds = findings["barrier_in_grid_stride_loop"]
    assert {d["code"] for d in ds} == {"SYNC001"} and all(d["severity"] == "warning" for d in ds)
    param = "barrier_in_grid_stride_loop_param_2"  # `n`, as the JSON output names it
    assert all(f"only in the block where the bound `{param}` (kernel parameter 3) falls" in d["message"]
               and f"{param} % 256 != 0 for a block of 256 threads" in d["message"] for d in ds)


def test_a_shuffle_in_a_grid_stride_loop_names_the_warp_multiple(findings):
    (d,) = findings["shuffle_in_grid_stride_loop"]
    assert d["code"] == "SHFL001" and d["severity"] == "warning"
    assert "when it is not a multiple of 32 (shuffle_in_grid_stride_loop_param_2 % 32 != 0)" in d["message"]


def test_a_per_thread_trip_count_states_no_condition(findings):
    (d,) = findings["barrier_in_per_thread_loop"]
    assert d["code"] == "SYNC001" and d["severity"] == "error" and "only" not in d["message"]
