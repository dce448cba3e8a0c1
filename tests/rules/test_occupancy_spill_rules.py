"""OCC001 and SPILL001: documented like every rule, firing on the measured occupancy suite's
resources (committed ptxas output: no tools needed), and end to end with ptxas."""

import shutil

import pytest

from sass_support import needs_tools
from support import VALIDATION, run_cli
from ptxlint.analysis.occupancy import limits_for
from ptxlint.analysis.resources import parse_ptxas_verbose
from ptxlint.frontend.demangle import demangle, without_parameters
from ptxlint.rules.occupancy import occupancy_finding
from ptxlint.rules.spill import spill_finding

RESOURCES = {without_parameters(demangle(k)): v for k, v in
             parse_ptxas_verbose((VALIDATION / "occupancy" / "raw" / "ptxas_v.txt").read_text()).items()}
H100 = limits_for("sm_90")


@pytest.mark.parametrize("code", ["OCC001", "SPILL001"])
def test_rule_docs(code):
    proc = run_cli("rule", code)
    assert proc.returncode == 0
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in proc.stdout
    assert "--level sass" in proc.stdout


def test_occ001_registers_say_how_many_fewer_fit_one_more_block():
    message, notes, fix, data = occupancy_finding(RESOURCES["occ_regs<120>"], H100, 256)
    assert "limited by registers: 128 registers per thread" in message
    assert "80 or fewer (48 less) would fit 3 blocks" in message
    assert data["blocks_per_sm"] == 2 and data["occupancy"] == 0.25
    assert fix.startswith("__launch_bounds__(256, 3)")


def test_occ001_shared_memory_names_the_bytes():
    message, notes, fix, data = occupancy_finding(RESOURCES["occ_smem<49152>"], H100, 128)
    assert "limited by shared memory: 49152 bytes per block" in message and data["blocks_per_sm"] == 4
    assert "45568 bytes or fewer (3584 less) would fit 5 blocks" in message
    message, *_ = occupancy_finding(RESOURCES["occ_dynamic"], H100, 256, dynamic_smem=100000)
    assert "limited by shared memory" in message and "(0 static, 100000 dynamic)" in message


def test_occ001_quiet_when_threads_limit_and_loud_when_a_block_cannot_launch():
    assert occupancy_finding(RESOURCES["occ_regs<16>"], H100, 256) is None  # 31 registers: 8 blocks, threads
    message, notes, fix, data = occupancy_finding(RESOURCES["occ_regs<140>"], H100, 512)
    assert message.startswith("a block of 512 threads cannot be launched") and data["launchable"] is False
    message, *_ = occupancy_finding(RESOURCES["occ_lb_256x4"], H100, 512, max_threads=256)
    assert "__launch_bounds__" in message


def test_occ001_lists_block_sizes_that_do_better():
    message, notes, fix, data = occupancy_finding(RESOURCES["occ_regs<60>"], H100, 256)  # 72 registers
    assert data["better_block_sizes"] and all(t % 32 == 0 for t in data["better_block_sizes"])
    assert any(n.startswith("block sizes with higher occupancy: ") for n in notes)


def test_spill001_fires_on_spills_only():
    message, notes, data = spill_finding(RESOURCES["occ_lb_256x4"])
    assert message == "ptxas spills registers: 644 bytes stored and 644 bytes loaded per thread, with 64 registers"
    assert data["local_bytes"] == 424
    assert spill_finding(RESOURCES["occ_regs<156>"]) is None


SPILLING = """
__global__ void __launch_bounds__(256, 4) spills(const float *__restrict__ in, float *out, int iters) {
    float acc[96];
#pragma unroll
    for (int i = 0; i < 96; ++i) acc[i] = in[i] * (float)threadIdx.x;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
        float x = in[it];
#pragma unroll
        for (int i = 0; i < 96; ++i) acc[i] = fmaf(acc[i], x, acc[(i + 1) % 96]);
    }
#pragma unroll
    for (int i = 0; i < 96; ++i) out[threadIdx.x + i * 1024] = acc[i];
}
"""


@needs_tools
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_check_level_sass_reports_spills_and_occupancy(tmp_path):
    (tmp_path / "spills.cu").write_text(SPILLING)
    proc = run_cli("check", "--no-cache", "--isolated", "--level", "sass", "--select", "SPILL,OCC", "--block", "256",
                   "--format", "concise", "spills.cu", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "spills.cu:2:1: SPILL001 ptxas spills registers" in proc.stdout
    assert "OCC001" in proc.stdout and "limited by registers: 64 registers per thread" in proc.stdout
    plain = run_cli("check", "--no-cache", "--isolated", "--select", "SPILL,OCC", "spills.cu", cwd=tmp_path)
    assert plain.returncode == 0  # without --level sass these rules say nothing
