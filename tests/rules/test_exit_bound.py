"""SYNC002 says when an early return splits a block only for some values of a run-time input:
`if (i >= n) return;` before a barrier splits only the block where n falls, when n is not a
multiple of the block's thread count; a test on threadIdx alone splits every block, whatever the input."""

import json

import pytest

from support import REPO, run_cli

DATA = REPO / "tests" / "rules" / "data" / "exit_bound.sm_90.ptx"


@pytest.fixture(scope="module")
def sync002() -> dict:
    r = run_cli("check", "--no-cache", "--isolated", "--select", "SYNC002", "--format", "json", str(DATA))
    return {d["kernel"]: d["message"] for d in json.loads(r.stdout)["diagnostics"]}


def test_a_global_index_against_a_parameter_names_the_multiple(sync002):
    message = sync002["bad_exit_past_n"]
    assert "this happens only in the block where the bound `bad_exit_past_n_param_1` (kernel parameter 2)" in message
    assert "bad_exit_past_n_param_1 % 256 != 0 for a block of 256 threads" in message


def test_a_constant_bound_splits_every_block_and_says_no_condition(sync002):
    assert "this happens only" not in sync002["bad_exit_past_constant"]


def test_a_thread_index_against_a_parameter_names_the_range(sync002):
    message = sync002["bad_exit_past_m_in_block"]
    assert "0 < bad_exit_past_m_in_block_param_1 < 256" in message and "multiple" not in message
