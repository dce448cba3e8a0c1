"""Launch wrappers called from other translation units (issue 17, launch discovery): a `.cu` whose
launches take their block and grid from a host function's parameters (`void launch(dim3 grid, dim3
block, ...) { k<<<grid, block>>>(...); }`) is read again with the nearby files that call the
wrapper (a `.cc` compiled by the host compiler, through an inline overload in a header), so the
kernel is checked under the shapes those calls pass. test10's triage: Kaldi's cu-kernels.cu, whose
launches all sit in `cuda_*` wrappers that cu-math.cc and cu-matrix.cc call."""

import shutil
from pathlib import Path

from ptxlint.api import CheckOptions, check_file
from ptxlint.frontend.cpp_preprocess import preprocess
from support import expected_markers, findings_by_kernel

DATA = Path(__file__).parents[1] / "rules" / "data" / "wrapper_callers"
KERNELS = ["ok_column_sums_on_a_1d_grid", "bad_column_sums_on_a_2d_grid"]


def test_only_the_kernel_its_caller_launches_on_a_2d_grid_races_across_blocks():
    found = findings_by_kernel(DATA / "kernels.sm_90.ptx", ["RACE", "WARP", "SYNC"])
    for kernel in KERNELS:
        expected = expected_markers(DATA / "kernels.cu", kernel)
        assert {(d.code, d.line) for d in found.get(kernel, [])} == expected
    assert expected_markers(DATA / "kernels.cu", "bad_column_sums_on_a_2d_grid")


def test_the_finding_says_which_files_gave_the_shape():
    found = findings_by_kernel(DATA / "kernels.sm_90.ptx", ["RACE"])
    (race,) = found["bad_column_sums_on_a_2d_grid"]
    assumed = " ".join(race.notes)
    assert "32x8x1" in assumed and "host.cc" in assumed


def test_without_the_calling_file_the_shape_is_unknown_and_the_1d_kernel_is_reported(tmp_path):
    folder = tmp_path / "wrapper_callers"
    shutil.copytree(DATA, folder)
    (folder / "host.cc").unlink()
    (tmp_path / ".git").mkdir()  # the copy is its own repository: nothing above it is read
    result = check_file(str(folder / "kernels.sm_90.ptx"), CheckOptions(select=["RACE"], use_config=False))
    kernels = {d.kernel for d in result.diagnostics}
    assert "ok_column_sums_on_a_1d_grid" in kernels  # blocks along y may meet, with no launch to say not


def test_build_switches_select_the_cuda_build():
    tokens = [t.text for t in preprocess(str(DATA / "host.cc")).tokens]
    assert "launch_column_sums_2d" in tokens  # `#if HAVE_CUDA == 1`: the CUDA build's code
    text = " ".join(tokens)
    assert "dim3 block ( 32 , 256 / 32 )" in text  # `__IS_HIP_COMPILE__` selects HIP's 64: not nvcc's build


def test_a_function_the_unit_calls_itself_is_not_read_from_other_files(tmp_path):
    # Indigo-style suites: hundreds of standalone programs in one folder, each defining and calling
    # its own `run(Graph g, ...)`; a launch shape that is unknown there is not the callers' business
    from ptxlint import gate
    from ptxlint.file_check import _launches_in

    program = """struct Graph { int nodes; };
__global__ void k(int *x) { x[threadIdx.x] = 0; }
void run(Graph g, int *x) { k<<<g.nodes, g.nodes>>>(x); }
int main() { Graph g{%d}; run(g, 0); }
"""
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.cu").write_text(program % 64)
    (tmp_path / "b.cu").write_text(program % 128)
    gate.trust_checked_path(str(tmp_path / "a.cu"))
    read: list = []
    (launch,) = _launches_in([str(tmp_path / "a.cu")], (), ((), ()), None, read)
    assert launch.block is None and read == []
