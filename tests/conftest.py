import shutil
import subprocess

import pytest

from support import REPO, run_cli


def pytest_configure(config):
    """ptxlint run by the tests reads no user configuration and writes no user cache of the
    person running them: both homes are a fresh temporary directory for the session."""
    import os
    import tempfile

    home = tempfile.mkdtemp(prefix="ptxlint-tests-home-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(home, "cache")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")


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
