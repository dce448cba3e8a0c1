"""`ptxlint accesses`: every shared access with its per-warp prediction, as a user reads it."""

import json

from support import SAMPLES, run_cli

ROW_COL = SAMPLES / "smem_row_col.sm_90.ptx"


def accesses(*args):
    proc = run_cli("accesses", "--format", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_json_shape_and_the_published_row_col_numbers():
    doc = accesses("--block", "32x32", ROW_COL)
    kernels = {k["demangled"]: k for k in doc["kernels"]}
    row_col = kernels["setRowReadCol"]
    assert row_col["block"] == [32, 32, 1] and row_col["block_source"] == "command line (--block)"
    store, load = row_col["accesses"]
    for access in (store, load):
        assert {"ptx_line", "path", "line", "space", "op", "bits", "per_warp", "wavefronts", "ideal", "ways"} <= set(access)
        assert access["space"] == "shared" and access["bits"] == 32 and len(access["per_warp"]) == 32
        assert access["wavefronts"] == sum(w["wavefronts"] for w in access["per_warp"])
    assert (store["op"], store["wavefronts"], store["ideal"]) == ("store", 32, 32)
    assert (load["op"], load["wavefronts"], load["ideal"], load["ways"]) == ("load", 1024, 32, 32)
    assert load["path"].endswith("smem_row_col.cu") and load["line"] == 25


def test_kernel_glob_and_text_table():
    proc = run_cli("accesses", "--block", "setRowReadCol=32x32", "--kernel", "setRowReadCol", ROW_COL)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert "block 32x32x1 (command line (--block))" in lines[0]
    assert lines[-1].split()[-4:] == ["1024", "32", "32", "tile"]


def test_unknown_addresses_say_why():
    doc = accesses(SAMPLES / "histogram_atomics.sm_90.ptx")
    unknown = [a for k in doc["kernels"] for a in k["accesses"] if a["wavefronts"] is None]
    assert unknown and all("loaded" in a["unknown"] for a in unknown)
