"""`ptxlint check --fix / --diff / --unsafe-fixes`: fixes applied to the `.cu` only once the edited
text compiles and checks without the finding and without a new one (they need nvcc)."""

import difflib
import shutil
from pathlib import Path

import pytest

from support import SAMPLES, nvcc_available, run_cli

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is needed to verify a fix")

WARP_EXCHANGE = """__global__ void exchange(float *out, const float *in) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    float other = s[t ^ 1];
    out[t] = other;
}
"""


def _repo(root: Path, *files) -> Path:
    """A fresh repository holding copies of `files` (samples or (name, text) pairs)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir()
    for f in files:
        if isinstance(f, tuple):
            (root / f[0]).write_text(f[1])
        else:
            shutil.copy(f, root / Path(f).name)
    return root


def _changed_lines(before: str, after: str) -> list:
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_fix_pads_the_transpose_tile_and_the_file_then_checks_without_bank001(tmp_path):
    repo = _repo(tmp_path / "repo", SAMPLES / "transpose.cu")
    original = (repo / "transpose.cu").read_text()
    r = run_cli("check", "--no-cache", "--isolated", "--fix", "transpose.cu", cwd=repo)
    assert r.returncode == 1, r.stderr  # the naive kernel's COAL001 remains: exit status says so
    assert "Fixed 1 finding (BANK001 at transpose.cu:30)." in r.stdout
    assert "COAL001" in r.stdout and "BANK001" not in r.stdout.split("Fixed")[0]
    fixed = (repo / "transpose.cu").read_text()
    assert _changed_lines(original, fixed) == ["-    __shared__ float tile[TILE_DIM][TILE_DIM];",
                                               "+    __shared__ float tile[TILE_DIM][TILE_DIM + 1];"]
    again = run_cli("check", "--no-cache", "--isolated", "--select", "BANK001", "transpose.cu", cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr


def test_diff_prints_the_change_that_fix_writes_and_writes_nothing(tmp_path):
    shown = _repo(tmp_path / "shown", SAMPLES / "transpose.cu")
    written = _repo(tmp_path / "written", SAMPLES / "transpose.cu")
    original = (shown / "transpose.cu").read_text()
    r = run_cli("check", "--no-cache", "--isolated", "--diff", "transpose.cu", cwd=shown)
    assert r.returncode == 1 and "Would fix 1 finding (BANK001 at transpose.cu:30)." in r.stderr
    assert (shown / "transpose.cu").read_text() == original
    run_cli("check", "--no-cache", "--isolated", "--fix", "transpose.cu", cwd=written)
    expected = "".join(difflib.unified_diff(original.splitlines(keepends=True),
                                            (written / "transpose.cu").read_text().splitlines(keepends=True),
                                            fromfile="a/transpose.cu", tofile="b/transpose.cu"))
    assert r.stdout == expected and expected


def test_fix_on_the_committed_samples_changes_only_bank001_declarations(tmp_path):
    repo = _repo(tmp_path / "repo")
    shutil.copytree(SAMPLES, repo / "samples")
    before = {p.name: p.read_text() for p in (repo / "samples").glob("*.cu")}
    r = run_cli("check", "--no-cache", "--fix", "samples", cwd=repo)
    assert r.returncode == 1, r.stderr
    fixed = r.stdout.split("Fixed ", 1)[1].split("(", 1)[1].split(")", 1)[0].replace("BANK001 at ", "").split(", ")
    changed = {}
    for name, text in before.items():
        now = (repo / "samples" / name).read_text()
        if now != text:
            changed[name] = _changed_lines(text, now)
    assert set(changed) == {place.split(":")[0] for place in fixed} and "transpose.cu" in changed
    for lines in changed.values():
        assert all("__shared__" in line for line in lines), lines
    # every changed file still compiles, and no BANK001 is left where a fix was kept
    after = run_cli("check", "--no-cache", "--select", "BANK001", "--format", "concise",
                    *[f"samples/{n}" for n in sorted(changed)], cwd=repo)
    assert after.returncode in (0, 1), after.stdout + after.stderr
    left = {f"{Path(line.split(':')[0]).name}:{line.split(':')[1]}" for line in after.stdout.splitlines()
            if ": BANK001 " in line}
    assert not left & set(fixed), left


def test_an_unsafe_fix_is_applied_only_with_unsafe_fixes(tmp_path):
    repo = _repo(tmp_path / "repo", ("warp.cu", WARP_EXCHANGE))
    r = run_cli("check", "--no-cache", "--isolated", "--block", "64", "--fix", "warp.cu", cwd=repo)
    assert r.returncode == 1 and "1 unsafe fix not applied (WARP001 at warp.cu:5)" in r.stdout
    assert (repo / "warp.cu").read_text() == WARP_EXCHANGE
    r = run_cli("check", "--no-cache", "--isolated", "--block", "64", "--fix", "--unsafe-fixes", "warp.cu", cwd=repo)
    assert r.returncode == 0 and "Fixed 1 finding (WARP001 at warp.cu:5)." in r.stdout, r.stdout + r.stderr
    assert _changed_lines(WARP_EXCHANGE, (repo / "warp.cu").read_text()) == ["+    __syncwarp();"]


def _transpose_finding(repo: Path):
    from ptxlint.api import CheckOptions, check_paths

    options = CheckOptions(select=["BANK001"], use_config=False, cache_dir=None)
    results = check_paths([str(repo / "transpose.cu")], options)
    (finding,) = [d for r in results for d in r.diagnostics]
    return results, finding, options


def test_a_file_outside_the_repository_is_never_edited(tmp_path):
    from ptxlint.fixes import fix_results

    repo = _repo(tmp_path / "repo", SAMPLES / "transpose.cu")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(SAMPLES / "transpose.cu", outside / "transpose.cu")
    results, finding, options = _transpose_finding(repo)
    (edit,) = finding.fix_edits["edits"]
    edit["path"] = str(outside / "transpose.cu")
    report = fix_results(results, options)
    assert report.fixed == [] and report.outcomes[0].reason == "outside the checked repository"
    assert (outside / "transpose.cu").read_text() == (SAMPLES / "transpose.cu").read_text()
    assert (repo / "transpose.cu").read_text() == (SAMPLES / "transpose.cu").read_text()


def test_a_fix_that_fails_verification_is_left_as_text(tmp_path):
    from ptxlint.fixes import fix_results

    repo = _repo(tmp_path / "repo", SAMPLES / "transpose.cu")
    results, finding, options = _transpose_finding(repo)
    (edit,) = finding.fix_edits["edits"]
    edit["new"] = "TILE_DIM + 32"  # rows of 64 words: every column still on one bank
    report = fix_results(results, options)
    assert report.fixed == [] and report.outcomes[0].reason.startswith("not verified: the BANK001 finding is still")
    assert "fix left as text" in report.summary()
    assert (repo / "transpose.cu").read_text() == (SAMPLES / "transpose.cu").read_text()


TILE_HEADER = """__device__ inline float transpose_tile(const float *in) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    return tile[threadIdx.x][threadIdx.y];
}
"""


def test_a_declaration_in_an_included_header_is_fixed_there(tmp_path):
    """The header's edit is verified by compiling the .cu with the edited header staged beside it."""
    repo = _repo(tmp_path / "repo", ("k.cu", '#include "inc/tile.cuh"\n__global__ void k(float *out, const float *in) '
                                             '{ out[threadIdx.y * 32 + threadIdx.x] = transpose_tile(in); }\n'))
    (repo / "inc").mkdir()
    (repo / "inc" / "tile.cuh").write_text(TILE_HEADER)
    r = run_cli("check", "--no-cache", "--isolated", "--block", "32x32", "--diff", "k.cu", cwd=repo)
    assert r.returncode == 1 and "Would fix 1 finding (BANK001 at tile.cuh:5)." in r.stderr, r.stdout + r.stderr
    assert "-    __shared__ float tile[32][32];\n+    __shared__ float tile[32][33];" in r.stdout
    assert r.stdout.startswith("--- a/inc/tile.cuh") and (repo / "inc" / "tile.cuh").read_text() == TILE_HEADER
