"""A warp's vote keeps its one value per warp through a join whose other definition no thread runs
(test11's triage, CGBN's `cgbn_equals_ui32`: nvcc tests `TPI < warpSize` at run time through
WARP_SZ, and the rotation it guards is never taken). Hand-written PTX after nvcc's code, as the
rest of the kernel around it would not compile small."""

import json
from pathlib import Path

from support import run_cli

PTX = Path(__file__).with_name("data") / "warp_vote_join.ptx"


def _shuffle_findings() -> dict:
    """kernel -> the intrinsics SHFL001 reports in it (`__shfl_xor_sync`, `__ballot_sync`)."""
    r = run_cli("check", "--no-cache", "--isolated", "--block", "128", "--select", "SHFL", "--format", "json", PTX)
    assert r.returncode in (0, 1), r.stderr
    found: dict = {}
    for d in json.loads(r.stdout)["diagnostics"]:
        found.setdefault(d["kernel"], set()).add(d["message"].split(" with ")[0])
    return found


def test_a_shuffle_under_the_warps_own_vote_is_whole():
    assert "ok_vote_through_join" not in _shuffle_findings()


def test_half_warps_that_rotate_their_votes_apart_split_the_shuffle():
    assert "__shfl_xor_sync" in _shuffle_findings()["bad_half_warp_votes_through_join"]
