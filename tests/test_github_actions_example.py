"""docs/github-actions.yml works: its `run:` steps, run as GitHub runs them (bash -eo pipefail) in a
repository holding kernels under src/, install ptxlint (pip is stood in for: no network here; the
requirement it is given must be a valid one), check the kernels, leave a SARIF file for the upload
step with the findings in it and pass the job; an input error fails the job."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO, SAMPLES

yaml = pytest.importorskip("yaml")  # PyYAML comes with pre-commit, a test dependency

WORKFLOW = REPO / "docs" / "github-actions.yml"
PIP_STAND_IN = """#!/bin/sh
# `python -m pip install ...`: record the arguments, install nothing (ptxlint is installed already)
if [ "$1" = "-m" ] && [ "$2" = "pip" ] && [ "$3" = "install" ]; then
    shift 3; printf '%s\\n' "$@" >> "{record}"; exit 0
fi
exec "{python}" "$@"
"""


def _steps() -> list:
    doc = yaml.safe_load(WORKFLOW.read_text())
    (job,) = doc["jobs"].values()
    return job["steps"]


def _run_steps(workspace: Path, tmp_path: Path) -> list:
    """Run every `run:` step in `workspace`; returns [(step, CompletedProcess)] up to the first failure."""
    shims = tmp_path / "shims"
    shims.mkdir(exist_ok=True)
    record = tmp_path / "pip-install-args"
    python = shims / "python"
    python.write_text(PIP_STAND_IN.replace("{record}", str(record)).replace("{python}", sys.executable))
    python.chmod(0o755)
    env = dict(os.environ, HOME=str(tmp_path / "home"),
               PATH=os.pathsep.join([str(shims), str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    env.pop("PTXLINT_CACHE_DIR", None)
    env.pop("XDG_CACHE_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    done = []
    for step in _steps():
        if "run" not in step:
            continue  # an action (`uses:`): GitHub's, not ours to run
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              cwd=workspace, env=env, capture_output=True, text=True)
        done.append((step, proc))
        if proc.returncode != 0:
            break
    return done


@pytest.fixture
def workspace(tmp_path):
    """A checked-out repository with kernels (committed PTX of the samples) under src/."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    for name in ("transpose.sm_90.ptx", "smem_row_col.sm_90.ptx"):
        shutil.copy(SAMPLES / name, root / "src" / name)
    return root


def test_the_workflow_checks_and_leaves_sarif_for_the_upload(workspace, tmp_path):
    if shutil.which("ptxlint", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("ptxlint is not installed as a command next to this Python")
    done = _run_steps(workspace, tmp_path)
    assert [p.returncode for _, p in done] == [0] * len(done) and len(done) >= 2, \
        [(s.get("name"), p.stdout[-500:], p.stderr[-500:]) for s, p in done]
    # the install step asked pip for ptxlint with the nvcc wheels, by a requirement pip accepts
    from pip._vendor.packaging.requirements import Requirement

    (spec,) = (tmp_path / "pip-install-args").read_text().splitlines()
    requirement = Requirement(spec)
    assert requirement.name == "ptxlint" and requirement.extras == {"nvcc"}
    assert requirement.url.startswith("git+https://")
    # the upload step finds the SARIF it names, holding the findings
    upload = next(s for s in _steps() if "upload-sarif" in s.get("uses", ""))
    sarif = json.loads((workspace / upload["with"]["sarif_file"]).read_text())
    assert sarif["version"] == "2.1.0"
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"BANK001"}


def test_an_input_error_fails_the_job(workspace, tmp_path):
    if shutil.which("ptxlint", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("ptxlint is not installed as a command next to this Python")
    (workspace / "src" / "broken.ptx").write_text(".version 9.0\n.target sm_90\nthis is not PTX\n")
    done = _run_steps(workspace, tmp_path)
    step, proc = done[-1]
    assert "ptxlint check" in step["run"] and proc.returncode != 0
