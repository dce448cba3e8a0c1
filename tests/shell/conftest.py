"""Shell tests: run `ptxlint` as a user does, on files written into a temporary directory."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("ptxlint_with_test_rules.py")

GOOD_CU = """\
__global__ void scale(float *x, float a) {
    x[threadIdx.x] *= a;
}
"""

# Two barriers: lines 4 and 6 (TEST001 flags each).
BARRIER_CU = """\
__global__ void transpose(float *out, const float *in) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.x * 32 + threadIdx.y] = tile[threadIdx.x][threadIdx.y];
    __syncthreads();
}
"""

BROKEN_CU = """\
__global__ void broken(float *x) {
    x[threadIdx.x] = undefined_name;
}
"""

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH (install the CUDA toolkit or the nvcc wheels)")


def user_dirs(cwd) -> dict:
    """The user's cache and configuration homes for a run in `cwd`: beside it, not inside (the
    cache never lives in the checked tree by default), one pair per project."""
    cwd = Path(cwd)
    return {"XDG_CACHE_HOME": str(cwd.parent / f"{cwd.name}.home" / "cache"),
            "XDG_CONFIG_HOME": str(cwd.parent / f"{cwd.name}.home" / "config")}


def ptxlint(*args, cwd, env=None, input=None):
    """Run ptxlint (with the test rule TEST001 registered) in `cwd`."""
    full_env = dict(os.environ)
    full_env.pop("PTXLINT_CACHE_DIR", None)
    full_env.update(user_dirs(cwd))
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, str(RUNNER), *map(str, args)],
        capture_output=True, text=True, cwd=cwd, env=full_env, input=input,
    )


@pytest.fixture
def project(tmp_path):
    """A temporary project directory, a repository (it has `.git`) as a checked project usually
    is: the boundary of what ptxlint reads (gate.py); `project.write(name, text)` adds files."""
    (tmp_path / ".git").mkdir()

    class Project:
        root = tmp_path
        cache = Path(user_dirs(tmp_path)["XDG_CACHE_HOME"]) / "ptxlint"  # the default cache directory
        user_config = Path(user_dirs(tmp_path)["XDG_CONFIG_HOME"]) / "ptxlint" / "config.toml"

        def write(self, name, text):
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            return path

        def run(self, *args, **kw):
            return ptxlint(*args, cwd=tmp_path, **kw)

    return Project()
