"""A header named on the command line (as pre-commit passes a changed one) is checked through the
`.cu` files of its project that `#include` it, found whatever the working directory, matched by the
path the include resolves to; only the findings located in the header are reported for it."""

import json

from conftest import needs_nvcc, ptxlint

# a column read through a header function: a 32-way bank conflict located in the header (line 2)
HEADER = """\
__device__ inline float column(const float (*tile)[32], int row, int col) {
    return tile[col][row];
}
"""
# a header of the same file name elsewhere, without the conflict
OTHER_HEADER = """\
__device__ inline float column(const float (*tile)[32], int row, int col) {
    return tile[row][col];
}
"""
# an includer with a conflict of its own (line 7) besides the header's
INCLUDER = """\
#include "tile.cuh"
__global__ void k(float *out) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = column(tile, threadIdx.y, threadIdx.x)
        + tile[threadIdx.x][31 - threadIdx.y];
}
"""


def _write_project(root, with_other=True):
    for name, text in {"include/tile.cuh": HEADER, "src/a.cu": INCLUDER.replace('"tile.cuh"', '"../include/tile.cuh"'),
                       **({"other/tile.cuh": OTHER_HEADER, "other/b.cu": INCLUDER} if with_other else {})}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _findings(result) -> list:
    doc = json.loads(result.stdout)
    assert doc["errors"] == [], doc["errors"]
    return sorted((d["code"], d["path"].replace("../", ""), d["line"]) for d in doc["diagnostics"])


@needs_nvcc
def test_only_the_headers_own_findings_from_its_includers(project):
    _write_project(project.root)
    result = project.run("check", "--no-cache", "--block", "32x32", "--select", "BANK", "--format", "json", "include/tile.cuh")
    assert result.returncode == 1, result.stdout + result.stderr
    # other/b.cu includes a tile.cuh too, but not this one: not an includer; a.cu's own conflict at
    # line 7 is not the header's
    assert _findings(result) == [("BANK001", "include/tile.cuh", 2)]
    assert "include/tile.cuh: checked through src/a.cu" in result.stderr
    assert "src/a.cu: 1 finding located outside the checked header not shown" in result.stderr
    # named itself, the includer reports all of its findings
    both = project.run("check", "--no-cache", "--block", "32x32", "--select", "BANK", "--format", "json", "include/tile.cuh", "src/a.cu")
    assert _findings(both) == [("BANK001", "include/tile.cuh", 2), ("BANK001", "src/a.cu", 7)]


@needs_nvcc
def test_the_working_directory_does_not_matter(tmp_path):
    # no repository: the project is where its configuration is
    root = tmp_path / "proj"
    _write_project(root, with_other=False)
    (root / ".ptxlint.toml").write_text('[block]\n"*" = [32, 32]\n')
    from_root = ptxlint("check", "--no-cache", "--format", "json", "include/tile.cuh", cwd=root)
    from_include = ptxlint("check", "--no-cache", "--format", "json", "tile.cuh", cwd=root / "include")
    assert from_root.returncode == from_include.returncode == 1, from_include.stdout + from_include.stderr
    assert _findings(from_root) == [("BANK001", "include/tile.cuh", 2)]
    assert [f[0] for f in _findings(from_include)] == ["BANK001"]


def test_a_header_nothing_includes_says_so(project):
    project.write("include/lonely.cuh", HEADER)
    project.write("src/a.cu", "__global__ void k(float *x) { x[threadIdx.x] = 0; }\n")
    result = ptxlint("check", "--no-cache", "lonely.cuh", cwd=project.root / "include")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "lonely.cuh: no .cu under" in result.stderr and "includes this header: not checked" in result.stderr
