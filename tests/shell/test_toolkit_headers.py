"""Findings located in CUDA toolkit headers (a CUB kernel instantiated by the user's code) are
counted but not shown unless asked for: the user cannot fix CUB. A kernel wholly inside toolkit
headers is not even analysed then (it is counted as not checked); one into which the user's code is
inlined (a functor) is."""

import json
import os
import subprocess

import pytest

from support import nvcc_available, run_cli
from ptxlint.frontend.parser import parse_ptx_file
from ptxlint.frontend.sourcemap import user_location
from ptxlint.kernel_check import TOOLKIT_KERNEL

# Two kernels reading a 32x32 tile column-wise (a 32-way conflict each): one written in the
# user's file, one whose code the .loc lines place in a CUB header, but for a user functor's line.
FUNCTOR = "    .loc 1 3 1\n    mov.u32 %r1, %tid.x;\n"
PTX = """
.version 9.0
.target sm_90
.address_size 64

.visible .entry {name}(.param .u64 out)
{{
    .reg .b32 %r<8>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 tile[4096];
{functor}    .loc {file} 7 5
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    shl.b32 %r3, %r1, 7;
    shl.b32 %r4, %r2, 2;
    add.s32 %r5, %r3, %r4;
    mov.u32 %r6, tile;
    add.s32 %r7, %r6, %r5;
    ld.shared.f32 %f1, [%r7];
    ld.param.u64 %rd1, [out];
    st.global.f32 [%rd1], %f1;
    ret;
}}
"""


def module(tmp_path):
    text = (PTX.format(name="userKernel", file=1, functor="") + PTX.format(name="cubKernel", file=2, functor=FUNCTOR)
            + '.file 1 "{}"\n.file 2 "/usr/local/cuda-13.0/include/cccl/cub/agent/agent_tile.cuh"\n'
            .format(tmp_path / "kernels.cu"))
    path = tmp_path / "kernels.ptx"
    path.write_text(text)
    return path


def test_toolkit_findings_are_counted_not_shown(tmp_path):
    r = run_cli("check", "--format", "concise", "--block", "32x32", "--select", "BANK", module(tmp_path))
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"{tmp_path / 'kernels.cu'}:7:5: BANK001")
    assert lines[1] == ("Found 1 finding (1 more in CUDA toolkit headers, not shown: they are not yours to fix; "
                        "--toolkit-headers shows them).")


def test_toolkit_headers_flag_shows_them(tmp_path):
    hidden = json.loads(run_cli("check", "--format", "json", "--block", "32x32", "--select", "BANK",
                                module(tmp_path)).stdout)
    assert len(hidden["diagnostics"]) == 1 and hidden["hidden_in_toolkit_headers"] == 1
    r = run_cli("check", "--format", "json", "--toolkit-headers", "--block", "32x32", "--select", "BANK",
                module(tmp_path))
    assert r.returncode == 1
    assert json.loads(r.stdout)["hidden_in_toolkit_headers"] == 0
    paths = sorted(d["path"] for d in json.loads(r.stdout)["diagnostics"])
    assert paths == sorted([str(tmp_path / "kernels.cu"), "/usr/local/cuda-13.0/include/cccl/cub/agent/agent_tile.cuh"])


def test_only_toolkit_findings_exit_clean(tmp_path):
    path = tmp_path / "cub_only.ptx"
    path.write_text(PTX.format(name="cubKernel", file=2, functor="")
                    + '.file 2 "/usr/local/cuda-13.0/include/cccl/cub/agent/agent_tile.cuh"\n')
    r = run_cli("check", "--format", "concise", "--block", "32x32", path)
    assert r.returncode == 0, r.stdout + r.stderr
    # wholly inside CUB: not analysed, and the summary says so and how to analyse it
    assert r.stdout.splitlines()[-1] == ("Not checked: 1 kernels wholly inside CUDA toolkit headers (CUB, Thrust, "
                                         "libcu++), not analysed: their findings are not yours to fix "
                                         "(--toolkit-headers analyses them); in cubKernel")
    shown = run_cli("check", "--format", "json", "--toolkit-headers", "--block", "32x32", path)
    assert shown.returncode == 1
    assert "BANK001" in [d["code"] for d in json.loads(shown.stdout)["diagnostics"]]
    assert json.loads(shown.stdout)["not_checked"] == {}


FUNCTOR_CU = r"""
#include <cub/device/device_reduce.cuh>
struct AbsMax {
    __device__ float operator()(float a, float b) const { return fabsf(a) > fabsf(b) ? a : b; }
};
void reduce_abs_max(void *tmp, size_t &bytes, const float *in, float *out, int n) {
    cub::DeviceReduce::Reduce(tmp, bytes, in, out, n, AbsMax(), 0.0f);
}
"""


@pytest.mark.skipif(not nvcc_available(), reason="nvcc not on PATH")
def test_cub_kernels_holding_a_user_functor_are_analysed(tmp_path):
    """Real nvcc PTX: of the CUB kernels that `DeviceReduce::Reduce(..., AbsMax())` instantiates, the
    ones into which the functor is inlined (a line of the user's file) are analysed; the others are
    counted as wholly inside toolkit headers."""
    source = tmp_path / "reduce.cu"
    source.write_text(FUNCTOR_CU)
    ptx = tmp_path / "reduce.ptx"
    subprocess.run([os.environ.get("NVCC", "nvcc"), "-ptx", "-lineinfo", "-arch=sm_90", str(source), "-o", str(ptx)],
                   check=True, capture_output=True)
    module = parse_ptx_file(str(ptx))
    kernels = [f for f in module.functions if f.is_kernel]
    with_functor = [f for f in kernels
                    if any(i.loc is not None and user_location(i.loc).file == str(source) for i in f.instructions)]
    assert with_functor and len(with_functor) < len(kernels)
    report = json.loads(run_cli("check", "--no-cache", "--format", "json", ptx).stdout)
    assert report["not_checked"][TOOLKIT_KERNEL] == len(kernels) - len(with_functor)
