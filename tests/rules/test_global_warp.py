"""Global-memory races in a block under input guards, and WARP001 on global memory: lanes of one
warp ordered by __syncwarp or not, and volatile flags that are polled (a protocol, not a race)."""

import json

import pytest

from support import REPO, VALIDATION, run_cli

DATA = REPO / "tests" / "rules" / "data" / "global_warp.sm_90.ptx"
WARP_SUITE = VALIDATION / "recall" / "warp.sm_90.ptx"
GLOBAL_SUITE = VALIDATION / "recall" / "global.sm_90.ptx"


def _findings(path, *args) -> dict:
    r = run_cli("check", "--no-cache", "--isolated", "--format", "json", *args, str(path))
    assert r.returncode in (0, 1), r.stderr
    out: dict = {}
    for d in json.loads(r.stdout)["diagnostics"]:
        out.setdefault(d["kernel"], []).append(d)
    return out


@pytest.fixture(scope="module")
def data():
    return _findings(DATA)


@pytest.mark.parametrize("kernel", ["ok_block_guard_split", "bad_block_guard_overlap", "ok_volatile_poll_in_warp",
                                    "ok_volatile_flag_between_warps"])
def test_guards_and_volatile_flags_match_the_label(data, kernel):
    codes = [d["code"] for d in data.get(kernel, [])]
    assert codes == (["RACE003"] if kernel.startswith("bad_") else []), codes


def test_an_input_guard_does_not_hide_a_race_in_a_block():
    found = _findings(GLOBAL_SUITE, "--select", "RACE003")
    (d,) = found["bad_guarded_neighbour"]
    assert "in a block" in d["message"] and d["data"]["hazard"] in ("RAW", "WAR")
    t1, t2 = d["data"]["threads"]
    assert abs(t1 - t2) == 1  # thread i writes y[i], thread i - 1 reads it
    assert "ok_guarded_neighbour" not in found


def test_warp_synchronous_code_on_global_memory_is_warp001_and_syncwarp_orders_it():
    found = _findings(WARP_SUITE, "--select", "WARP001,RACE003")
    (d,) = found["bad_volatile_reduce_global"]
    assert d["code"] == "WARP001" and "global memory without __syncwarp" in d["message"]
    assert any("warp 0 lane" in n and "global byte" in n for n in d["notes"])
    for kernel in ("ok_volatile_reduce_global", "ok_lane0_broadcast_global", "ok_warp_shift_global"):
        assert kernel not in found, found[kernel][0]["message"]
    assert [d["code"] for d in found["bad_lane0_broadcast_global"]] == ["WARP001"]
