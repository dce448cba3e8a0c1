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
    store, load = [a for a in row_col["accesses"] if a["space"] == "shared"]
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
    tile = [line for line in lines if line.endswith("tile")]
    assert tile[-1].split()[-4:] == ["1024", "32", "32", "tile"]


def test_unknown_addresses_say_why():
    doc = accesses(SAMPLES / "histogram_atomics.sm_90.ptx")
    unknown = [a for k in doc["kernels"] for a in k["accesses"] if a["space"] != "global" and a["wavefronts"] is None]
    assert unknown and all("loaded" in a["unknown"] for a in unknown)


def test_global_accesses_list_sectors_per_block_and_per_warp():
    doc = accesses("--block", "32x8", "--kernel", "transposeNaive", SAMPLES / "transpose.sm_90.ptx")
    rows = [a for a in doc["kernels"][0]["accesses"] if a["space"] == "global"]
    loads = [a for a in rows if a["op"] == "load"]
    stores = [a for a in rows if a["op"] == "store"]
    assert len(loads) == len(stores) == 4
    for a in rows:
        assert {"bits", "requests", "sectors", "ideal_sectors", "per_warp"} <= set(a) and a["requests"] == 8
    assert [(a["sectors"], a["ideal_sectors"]) for a in stores] == [(256, 32)] * 4
    assert [(a["sectors"], a["ideal_sectors"]) for a in loads] == [(32, 32)] * 4
    warp = stores[0]["per_warp"][0]
    assert (warp["sectors"], warp["ideal_sectors"], warp["active_lanes"]) == (32, 4, 32)
    assert warp["byte_offsets"][1] == "4*kernel parameter _Z14transposeNaivePfPKfii_param_3"
    assert any("256-byte aligned" in x for x in stores[0]["assumptions"])


def test_global_gather_is_null_with_a_reason_and_constant_reads_count_addresses():
    doc = accesses(SAMPLES / "ldg_readonly.sm_90.ptx")
    rows = [a for k in doc["kernels"] for a in k["accesses"] if a["space"] == "global"]
    gathers = [a for a in rows if a["sectors"] is None]
    assert gathers and all("run-time data" in a["unknown"] and a["per_warp"] is None for a in gathers)
    doc = accesses(SAMPLES / "const_nonuniform.sm_90.ptx")
    const = [a for k in doc["kernels"] for a in k["accesses"] if a["space"] == "const"]
    assert const and all("distinct_addresses" in a for a in const)
    assert any(a["distinct_addresses"] == 32 for a in const)
