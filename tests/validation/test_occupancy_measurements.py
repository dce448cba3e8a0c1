"""The occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor on an H100
(validation/occupancy/): every (kernel, block size, dynamic shared memory) row, predicted from the
committed ptxas output and from the committed cubin; no GPU and no CUDA tools needed."""

import gzip

import pytest

from support import VALIDATION
from ptxlint.analysis.occupancy import limits_for, occupancy
from ptxlint.analysis.resources import parse_ptxas_verbose, read_cubin
from ptxlint.frontend.demangle import demangle, without_parameters

RAW = VALIDATION / "occupancy" / "raw"


def _measured():
    props, attrs, rows = {}, {}, []
    for line in (RAW / "occupancy_raw.tsv").read_text().splitlines():
        parts = line.split("\t")
        if line.startswith("# props"):
            props = {k: int(v) for k, v in (p.split() for p in parts[1:])}
        elif line.startswith("# attrs"):
            attrs[parts[1]] = {k: int(v) for k, v in (p.split() for p in parts[2:])}
        elif not line.startswith("#") and parts[0] != "kernel":
            rows.append((parts[0], int(parts[2]), int(parts[3]), int(parts[4]), int(parts[5])))
    return props, attrs, rows


PROPS, ATTRS, ROWS = _measured()


def _by_source_name(resources: dict) -> dict:
    return {without_parameters(demangle(name)): r for name, r in resources.items()}


@pytest.fixture(scope="module")
def from_ptxas():
    return _by_source_name(parse_ptxas_verbose((RAW / "ptxas_v.txt").read_text()))


def test_the_data_is_large_and_names_its_hardware():
    env = (RAW / "env.txt").read_text()
    assert "H100" in env and "580." in env and "V13.0" in env
    assert len(ATTRS) >= 15 and len(ROWS) >= 15 * 32 * 4
    regs = sorted(a["numRegs"] for a in ATTRS.values())
    assert regs[0] <= 16 and regs[-1] >= 160
    assert {r[1] for r in ROWS} == set(range(32, 1025, 32))
    assert all(status == 0 for *_, status, _ in ROWS)


def test_sm90_limits_are_the_measured_device_properties():
    limits = limits_for("sm_90")
    assert limits.registers == PROPS["regsPerMultiprocessor"]
    assert limits.smem_per_sm == PROPS["sharedMemPerMultiprocessor"]
    assert limits.smem_per_block == PROPS["sharedMemPerBlockOptin"]
    assert limits.smem_reserved_per_block == PROPS["reservedSharedMemPerBlock"]
    assert limits.max_threads == PROPS["maxThreadsPerMultiProcessor"]
    assert limits.max_blocks == PROPS["maxBlocksPerMultiProcessor"]


def test_committed_resources_are_what_the_runtime_reports(from_ptxas):
    assert set(from_ptxas) == set(ATTRS)
    for name, attrs in ATTRS.items():
        assert from_ptxas[name].registers == attrs["numRegs"], name
        assert from_ptxas[name].static_smem == attrs["sharedSizeBytes"], name
        assert from_ptxas[name].stack_frame == attrs["localSizeBytes"], name


def test_cubin_records_give_the_same_resources(from_ptxas):
    cubin = _by_source_name(read_cubin(gzip.decompress((RAW / "occupancy_suite.sm_90.cubin.gz").read_bytes())))
    for name, r in from_ptxas.items():
        c = cubin[name]
        assert (c.registers, c.static_smem, c.stack_frame) == (r.registers, r.static_smem, r.stack_frame), name
        if name.startswith("occ_lb_"):
            assert c.max_threads == ATTRS[name]["maxThreadsPerBlock"], name


def test_every_row_is_predicted_exactly(from_ptxas):
    limits = limits_for("sm_90")
    wrong = []
    for name, block, dyn, _, measured in ROWS:
        r = from_ptxas[name]
        got = occupancy(limits, r.registers, block, r.static_smem, dyn).blocks_per_sm
        if got != measured:
            wrong.append((name, block, dyn, measured, got))
    assert not wrong, f"{len(wrong)} of {len(ROWS)} rows differ, e.g. {wrong[:5]}"


def test_the_limiter_is_a_resource_that_binds():
    limits = limits_for("sm_90")
    occ = occupancy(limits, 168, 128)
    assert (occ.blocks_per_sm, occ.limiter) == (3, "registers")
    occ = occupancy(limits, 14, 256, static_smem=49152)
    assert (occ.blocks_per_sm, occ.limiter) == (4, "shared memory")
    occ = occupancy(limits, 14, 1024)
    assert (occ.blocks_per_sm, occ.limiter) == (2, "threads")
    assert occupancy(limits, 64, 288, max_threads=256).exceeds_max_threads
