"""A run-time pitch between the lanes of one warp (`in[x * w + y]` in a 16x16 block: two columns in
each of 16 rows of w floats) gives a range of sectors from the best to the worst w, not "unknown", and
COAL001 reports the best case when even it is over twice the ideal (issue 17, item 8)."""

import json
from pathlib import Path

from support import run_cli

DATA = Path(__file__).with_name("data")
PTX = DATA / "runtime_pitch.sm_90.ptx"


def _global_accesses() -> dict:
    proc = run_cli("accesses", "--format", "json", PTX)
    assert proc.returncode == 0, proc.stderr
    return {(k["name"], a["op"]): a for k in json.loads(proc.stdout)["kernels"]
            for a in k["accesses"] if a["space"] == "global"}


def test_two_rows_per_warp_at_a_run_time_pitch_give_a_range():
    found = _global_accesses()
    load = found[("_Z20transpose_read_16x16PKfPfi", "load")]
    assert load["sectors_range"] == [128, 144]
    assert "depend on the value of" in load["unknown"] and "between 128 and 144 sectors" in load["unknown"]
    store = found[("_Z20transpose_read_16x16PKfPfi", "store")]
    assert store["sectors_range"][0] == 32  # at best each row's 64 bytes are two sectors: the ideal
    # one row per lane: the pitch cannot change the count
    assert found[("_Z19transpose_read_32x8PKfPfi", "load")]["sectors"] == 256


def test_coal001_reports_the_best_case_of_the_range():
    proc = run_cli("check", "--select", "COAL", PTX)
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if "COAL001" in line]
    assert any("runtime_pitch.cu:10:" in line and "at least 128 sectors per block where 32 would do" in line
               for line in lines), lines
    assert not any("runtime_pitch.cu:9:" in line or ":10:" in line and "store" in line for line in lines)


def test_the_range_is_what_the_gpu_measures_over_widths():
    """validation/global/runtime_pitch: the same kernels on an H200 (sm_90) at eight widths w, 1024 to
    1032: the smallest and largest sectors per block measured are the range's ends, and the 32x8
    read (one row per lane) is the one count ptxlint gives."""
    measured = json.loads((Path(__file__).parents[2] / "validation" / "global" / "runtime_pitch"
                           / "measurements.json").read_text())["kernels"]
    found = _global_accesses()
    for op in ("load", "store"):
        counts = [m[op]["sectors"] for m in measured["transpose_read_16x16"]]
        assert found[("_Z20transpose_read_16x16PKfPfi", op)]["sectors_range"] == [min(counts), max(counts)]
    assert {m["load"]["sectors"] for m in measured["transpose_read_32x8"]} == \
        {found[("_Z19transpose_read_32x8PKfPfi", "load")]["sectors"]}
