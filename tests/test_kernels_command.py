"""`ptxlint kernels`: one row per kernel with resources, occupancy, limiter and instruction mix."""

import json

from sass_support import SASS_DUMPS, needs_tools
from support import SAMPLES, run_cli

KEYS = {"name", "demangled", "registers", "spill_bytes", "static_smem", "dynamic_smem", "block", "blocks_per_sm",
        "warps_per_sm", "occupancy", "limiter", "mix"}


def kernels(*args):
    proc = run_cli("kernels", *map(str, args))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_committed_listing_needs_no_tools():
    """Registers come from the listing's .sectioninfo, the mix from its instructions."""
    doc = json.loads(kernels("--format", "json", "--block", "32x8", SASS_DUMPS / "transpose.sm_75.sass"))
    rows = {r["demangled"]: r for r in doc["kernels"]}
    assert set(rows) == {"transposeNaive", "transposeSmem", "transposeSmemPad"}
    smem = rows["transposeSmem"]
    assert KEYS <= set(smem)
    assert smem["registers"] == 24 and smem["block"] == [32, 8, 1] and smem["level"] == "sass"
    assert smem["static_smem"] is None  # a listing does not record it: said, not guessed
    # sm_75: 1024 threads per SM -> 4 blocks of 256 threads
    assert (smem["blocks_per_sm"], smem["warps_per_sm"], smem["occupancy"], smem["limiter"]) == (4, 32, 1.0, "threads")
    assert smem["mix"]["load.shared"] == 4 and smem["mix"]["store.shared"] == 4 and smem["mix"]["barrier"] == 1
    assert rows["transposeNaive"]["mix"]["load.shared"] == 0


def test_text_table_is_aligned_and_says_where_the_shape_came_from():
    out = kernels("--block", "32x8", SASS_DUMPS / "transpose.sm_75.sass").splitlines()
    assert out[0].endswith("3 kernels, sm_75, mix from SASS")
    header, *rows = out[1:4]
    assert header.split()[:10] == ["kernel", "regs", "spill", "smem", "dyn", "block", "blocks/SM", "warps/SM",
                                   "occupancy", "limiter"]
    assert len({len(r) for r in out[1:5]}) == 1  # aligned columns
    assert "block 32x8x1: command line (--block)" in [line.strip() for line in out]


def test_dynamic_shared_memory_limits_blocks():
    doc = json.loads(kernels("--format", "json", "--block", "128", "--dynamic-smem", "transposeSmem=100000",
                             SASS_DUMPS / "transpose.sm_75.sass"))
    rows = {r["demangled"]: r for r in doc["kernels"]}
    assert rows["transposeSmem"]["dynamic_smem"] == 100000
    # sm_75 has 64 KB of shared memory per SM: a 100000-byte block does not fit
    assert rows["transposeSmem"]["blocks_per_sm"] == 0 and rows["transposeSmem"]["limiter"] == "shared memory"
    assert rows["transposeNaive"]["dynamic_smem"] == 0


def test_bad_dynamic_smem_is_a_usage_error():
    proc = run_cli("kernels", "--dynamic-smem", "lots", SASS_DUMPS / "transpose.sm_75.sass")
    assert proc.returncode == 2 and "--dynamic-smem" in proc.stderr and "Traceback" not in proc.stderr


@needs_tools
def test_ptx_input_with_ptxas_gives_registers_and_the_ptx_mix():
    doc = json.loads(kernels("--format", "json", "--block", "32x32", SAMPLES / "transpose.sm_90.ptx"))
    rows = {r["demangled"]: r for r in doc["kernels"]}
    smem = rows["transposeSmem"]
    assert smem["level"] == "ptx" and smem["resources_from"] == "ptxas -v"
    assert smem["registers"] > 0 and smem["static_smem"] == 4096 and smem["spill_bytes"] == 0
    assert smem["blocks_per_sm"] == 2 and smem["limiter"] == "threads"
    sass = json.loads(kernels("--format", "json", "--level", "sass", "--block", "32x32", SAMPLES / "transpose.sm_90.ptx"))
    assert {r["level"] for r in sass["kernels"]} == {"sass"}
