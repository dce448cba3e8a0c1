"""The pre-commit hook, installed with the real `pre-commit` into a throwaway git repository."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GOOD_CU

REPO = Path(__file__).resolve().parents[2]

BAD_CU = """\
__global__ void transpose(float *out, const float *in) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
"""


def git(*args, cwd, env, check=True):
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the hook compiles .cu files")
def test_hook_blocks_a_bad_kernel_and_passes_a_good_one(tmp_path):
    pytest.importorskip("pre_commit", reason="pre-commit is in the test extra")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pc-home"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", GIT_CONFIG_GLOBAL=os.devnull,
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("PTXLINT_CACHE_DIR", None)
    rev = git("rev-parse", "HEAD", cwd=REPO, env=env, check=False)
    if rev.returncode != 0 or not (REPO / ".pre-commit-hooks.yaml").exists():
        pytest.skip("ptxlint is not a git checkout: pre-commit needs a repository and a revision")
    listed = subprocess.run([sys.executable, "-m", "ptxlint", "rule", "BANK001"], capture_output=True)
    if listed.returncode != 0:
        pytest.skip("BANK001 is not registered: the bad kernel has nothing to fail on")
    # pre-commit installs the hook from a committed revision; test the one checked out.
    proj = tmp_path / "proj"
    proj.mkdir()
    git("init", "-q", "-b", "main", cwd=proj, env=env)
    (proj / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {rev.stdout.strip()}\n    hooks:\n"
        "      - id: ptxlint\n        args: [--select, BANK, --block, '32x32']\n"
    )
    pc = [sys.executable, "-m", "pre_commit"]
    subprocess.run([*pc, "install"], cwd=proj, env=env, check=True, capture_output=True)

    (proj / "good.cu").write_text(GOOD_CU)
    git("add", ".", cwd=proj, env=env)
    ok = git("commit", "-q", "-m", "good", cwd=proj, env=env, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "ptxlint" in ok.stdout + ok.stderr and "Passed" in ok.stdout + ok.stderr

    (proj / "transpose.cu").write_text(BAD_CU)
    git("add", "transpose.cu", cwd=proj, env=env)
    blocked = git("commit", "-q", "-m", "bad", cwd=proj, env=env, check=False)
    out = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, out
    assert "transpose.cu:5:" in out and "BANK001" in out
    assert git("log", "--format=%s", cwd=proj, env=env).stdout.split() == ["good"]
