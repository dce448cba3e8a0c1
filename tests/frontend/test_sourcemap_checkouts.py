"""A committed PTX names its sources with the absolute paths of the checkout it was made in. Read in
another checkout, it is reported at that checkout's own copy of the source, even when the first
checkout still exists on the machine (two worktrees, a CI runner's cache)."""

from ptxlint.api import check_paths, CheckOptions
from ptxlint.analysis.context import AnalysisOptions
from ptxlint.frontend.sourcemap import relocated_sources

PTX = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k()
{{
\t.reg .b32 \t%r<4>;
\t.shared .align 4 .b8 tile[4096];
\t.loc\t1 3 5
\tmov.u32 \t%r1, %tid.x;
\tshl.b32 \t%r2, %r1, 7;
\tmov.u32 \t%r3, tile;
\tadd.s32 \t%r3, %r3, %r2;
\tst.shared.u32 \t[%r3], %r1;
\tret;
}}
\t.file\t1 "{source}"
"""


def _checkouts(tmp_path):
    made_in = tmp_path / "main" / "kernels" / "k.cu"  # the checkout nvcc ran in: still here
    made_in.parent.mkdir(parents=True)
    made_in.write_text("// main's copy\n\n    tile[threadIdx.x * 32] = threadIdx.x;\n")
    other = tmp_path / "worktree"
    (other / ".git").mkdir(parents=True)
    (other / "kernels").mkdir()
    (other / "kernels" / "k.cu").write_text("// the worktree's copy\n\n    tile[threadIdx.x * 32] = threadIdx.x;\n")
    ptx = other / "kernels" / "k.ptx"
    ptx.write_text(PTX.format(source=made_in))
    return made_in, other, ptx


def test_existing_source_of_another_checkout_maps_to_this_checkouts_copy(tmp_path):
    made_in, other, ptx = _checkouts(tmp_path)
    assert relocated_sources({1: str(made_in)}, str(ptx)) == {1: str(other / "kernels" / "k.cu")}
    options = CheckOptions(select=["BANK"], use_config=False,
                           analysis=AnalysisOptions(block_overrides=[(None, (32, 1, 1), "test")]))
    [result] = check_paths([str(ptx)], options)
    assert [d.code for d in result.diagnostics] == ["BANK001"]
    assert result.diagnostics[0].path.endswith("worktree/kernels/k.cu")


def test_source_inside_this_checkout_or_without_a_copy_stays(tmp_path):
    made_in, other, ptx = _checkouts(tmp_path)
    inside = other / "kernels" / "k.cu"
    assert relocated_sources({1: str(inside)}, str(ptx)) == {1: str(inside)}
    # a header elsewhere that this checkout has no copy of (only a file of the same name in
    # another folder) is left where it is
    header = tmp_path / "opt" / "include" / "util.h"
    header.parent.mkdir(parents=True)
    header.write_text("// a library's header\n")
    (other / "kernels" / "util.h").write_text("// an unrelated file of the same name\n")
    assert relocated_sources({2: str(header)}, str(ptx)) == {2: str(header)}
    # outside any repository, an existing path is kept as before
    (other / ".git").rmdir()
    assert relocated_sources({1: str(made_in)}, str(ptx)) == {1: str(made_in)}
