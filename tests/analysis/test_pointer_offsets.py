"""A pointer the host passes past the start of an allocation (`d_in + RADIUS`) moves every warp's
bytes within a sector: the sector counts follow the offset the launch passes (issue 17, item 8),
and a kernel launched at two offsets gets the range between them."""

import json
from pathlib import Path

from support import run_cli

DATA = Path(__file__).with_name("data")


def _loads() -> dict:
    proc = run_cli("accesses", "--format", "json", DATA / "pointer_offset.sm_90.ptx")
    assert proc.returncode == 0, proc.stderr
    out = {}
    for kernel in json.loads(proc.stdout)["kernels"]:
        out[kernel["name"]] = [a for a in kernel["accesses"] if a["space"] == "global" and a["op"] == "load"][0]
    return out


def test_a_pointer_passed_three_floats_past_its_allocation_costs_five_sectors_per_warp():
    load = _loads()["copy_shifted"]
    assert (load["sectors"], load["ideal_sectors"]) == (40, 32)
    assert any("plus 12 bytes, as the launches pass it" in a for a in load["assumptions"])


def test_launches_at_two_offsets_give_the_range_between_them():
    load = _loads()["copy_two_offsets"]
    assert load["sectors_range"] == [32, 40] and "between 32 and 40 sectors" in load["unknown"]
    assert any("plus 0 or 4 bytes" in a for a in load["assumptions"])
