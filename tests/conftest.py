import shutil
import subprocess

import pytest

from support import REPO, run_cli


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def cub_ptx(tmp_path_factory):
    """A fresh ~5 MB PTX of CUB radix sort, reduce and scan kernels (bench/cub), built once per run."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not on PATH: cannot generate the CUB PTX")
    ptx = tmp_path_factory.mktemp("cub") / "cub_sm90.ptx"
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-lineinfo", str(REPO / "bench" / "cub" / "cub_instances.cu"),
                    "-o", str(ptx)], check=True, capture_output=True)
    return ptx
