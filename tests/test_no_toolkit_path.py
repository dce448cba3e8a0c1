"""Without a CUDA toolkit: what ptxlint tells a user to install works today (ptxlint is not on PyPI:
the wheels by name, or the extra from a checkout), the `nvcc` extra brings CCCL (CUB, Thrust), and the
headers of NVIDIA's wheels in site-packages are toolkit headers: a finding inside one is reported on
the user's line that calls it."""

import json
import re
import sys

from support import REPO, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ptxlint.frontend.nvcc import NVCC_MISSING, NVCC_WHEELS, SASS_WHEELS
from ptxlint.frontend.sourcemap import is_toolkit_header


def test_the_extras_are_the_wheels_the_messages_name():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert tuple(extras["nvcc"]) == NVCC_WHEELS and "nvidia-cuda-cccl" in extras["nvcc"]
    assert tuple(extras["sass"]) == SASS_WHEELS
    assert f"pip install {' '.join(NVCC_WHEELS)}" in NVCC_MISSING and "pip install '.[nvcc]'" in NVCC_MISSING


def test_no_message_recommends_installing_an_unpublished_package():
    unpublished = re.compile(r"pip install '?ptxlint\[")
    offenders = [str(p.relative_to(REPO)) for p in sorted((REPO / "src").rglob("*.py"))
                 if unpublished.search(p.read_text())]
    assert offenders == []


WHEEL_INCLUDE = "/home/u/venv/lib/python3.12/site-packages/nvidia/cu13/include"


def test_wheel_headers_are_toolkit_headers():
    # CUDA 13's wheels (and toolkit) keep the atomics' headers at the top of include/
    for header in ("device_atomic_functions.hpp", "sm_60_atomic_functions.hpp", "cccl/cub/block/block_reduce.cuh"):
        assert is_toolkit_header(f"{WHEEL_INCLUDE}/{header}")
    assert is_toolkit_header("/opt/conda/lib/python3.11/site-packages/nvidia/cuda_runtime/include/cuda.h")
    # a user's own package that happens to be installed is not the toolkit
    assert not is_toolkit_header("/home/u/venv/lib/python3.12/site-packages/mykernels/include/k.cuh")
    assert not is_toolkit_header("/home/u/src/nvidia/include/k.cuh")


# A 32-way conflicting shared load whose .loc is inside the wheel's atomic header, inlined at the
# user's line 11: the finding belongs on line 11 of the user's file.
PTX = """
.version 9.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 tile[4096];
    .loc 1 10 5
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    shl.b32 %r3, %r1, 7;
    shl.b32 %r4, %r2, 2;
    add.s32 %r5, %r3, %r4;
    mov.u32 %r6, tile;
    add.s32 %r7, %r6, %r5;
    .loc 2 120 3, function_name $L__info_string0, inlined_at 1 11 9
    ld.shared.f32 %f1, [%r7];
    .loc 1 12 5
    ld.param.u64 %rd1, [out];
    st.global.f32 [%rd1], %f1;
    ret;
}
.file 1 "{user}"
.file 2 "{wheel}/device_atomic_functions.hpp"
"""


def test_a_finding_inside_a_wheel_header_lands_on_the_users_line(tmp_path):
    user = tmp_path / "kernel.cu"
    ptx = tmp_path / "kernel.ptx"
    ptx.write_text(PTX.replace("{user}", str(user)).replace("{wheel}", WHEEL_INCLUDE))
    result = run_cli("check", "--no-cache", "--isolated", "--format", "json", "--block", "32x32", "--select", "BANK",
                     ptx, cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    (finding,) = json.loads(result.stdout)["diagnostics"]
    assert (finding["code"], finding["path"], finding["line"]) == ("BANK001", "kernel.cu", 11)
