"""The results cache is keyed by content, but a result always names the file checked now: a copy,
a rename, the same kernel in two directories each get their own paths, snippets and suppressions,
and a cached `.cu` whose header changed is checked again."""

import shutil

from conftest import GOOD_CU
from test_cache_and_parallel import fake_nvcc
from test_config import PTX_WITH_BARRIER

# A PTX made in another checkout (nvcc writes absolute `.file` paths): its finding is on line 2 of
# the `transpose.cu` next to the PTX, wherever that is.
PTX_WITH_SOURCE = PTX_WITH_BARRIER.replace("{\n\tbar.sync", "{\n\t.loc\t1 2 5\n\tbar.sync") + \
    '\t.file\t1 "/nonexistent/checkout/kernels/transpose.cu"\n'
SOURCE = "__global__ void k() {\n    __syncthreads();\n}\n"


def concise(project, *paths):
    return project.run("check", "--select", "TEST", "--format", "concise", *paths).stdout.splitlines()


def test_a_copy_and_a_rename_report_their_own_path(project):
    project.write("a.ptx", PTX_WITH_BARRIER)
    assert concise(project, "a.ptx")[0].startswith("a.ptx:7:1: TEST001")
    shutil.copy(project.root / "a.ptx", project.root / "b.ptx")
    assert concise(project, "b.ptx")[0].startswith("b.ptx:7:1: TEST001")
    (project.root / "a.ptx").rename(project.root / "c.ptx")  # the first name is gone
    assert concise(project, "c.ptx")[0].startswith("c.ptx:7:1: TEST001")
    assert concise(project, "b.ptx")[0].startswith("b.ptx:7:1: TEST001")
    assert any(project.cache.rglob("*.json"))  # these came from the cache


def test_identical_kernels_in_two_directories_keep_their_sources_and_suppressions(project):
    for d in ("one", "two"):
        project.write(f"{d}/kernels/k.ptx", PTX_WITH_SOURCE)
    project.write("one/kernels/transpose.cu", SOURCE)
    project.write("two/kernels/transpose.cu", "// ptxlint: ignore-file[TEST]\n" + SOURCE.replace("\n", " ", 1))
    first = project.run("check", "--select", "TEST", "one/kernels/k.ptx")
    assert first.returncode == 1
    assert "one/kernels/transpose.cu:2:5: TEST001" in first.stdout and "__syncthreads();" in first.stdout
    second = project.run("check", "--select", "TEST", "--format", "concise", "two/kernels/k.ptx")
    assert second.returncode == 0, second.stdout  # suppressed by two's own source, not one's
    assert "one/" not in second.stdout
    # with the suppression gone, two's finding is at two's line
    project.write("two/kernels/transpose.cu", SOURCE)
    third = project.run("check", "--select", "TEST", "two/kernels/k.ptx")
    assert "two/kernels/transpose.cu:2:5: TEST001" in third.stdout and "one/" not in third.stdout


def test_a_ptx_whose_sources_resolve_elsewhere_is_checked_again(project):
    project.write("a/k.ptx", PTX_WITH_SOURCE)
    project.write("a/transpose.cu", SOURCE)
    assert "a/transpose.cu:2:5" in project.run("check", "--select", "TEST", "a/k.ptx").stdout
    project.write("b/k.ptx", PTX_WITH_SOURCE)  # no transpose.cu beside it: the PTX's own path stands
    out = project.run("check", "--select", "TEST", "--format", "concise", "b/k.ptx").stdout
    assert "/nonexistent/checkout/kernels/transpose.cu:2:5: TEST001" in out and "a/" not in out


def test_identical_cu_files_with_different_headers_and_a_changed_header(project, tmp_path):
    calls = fake_nvcc(project, tmp_path)  # its PTX names inc.cuh beside the .cu
    project.write("x/k.cu", GOOD_CU)
    project.write("y/k.cu", GOOD_CU)
    project.write("x/inc.cuh", "// x\n")
    project.write("y/inc.cuh", "// y\n")
    run = lambda path: project.run("check", "--select", "TEST", "--nvcc", "tools/nvcc", "--format", "concise", path)
    assert run("x/k.cu").stdout.startswith("x/k.cu:2:5: TEST001")
    assert calls.read_text() == "x"
    assert run("y/k.cu").stdout.startswith("y/k.cu:2:5: TEST001")  # another header: compiled again
    assert calls.read_text() == "xx"
    assert run("y/k.cu").stdout.startswith("y/k.cu:2:5: TEST001")
    assert calls.read_text() == "xx"  # now cached
    project.write("y/inc.cuh", "// y, changed\n")
    assert run("y/k.cu").stdout.startswith("y/k.cu:2:5: TEST001")
    assert calls.read_text() == "xxx"
    shutil.copytree(project.root / "y", project.root / "z")  # the copy of a cached pair: cached
    assert run("z/k.cu").stdout.startswith("z/k.cu:2:5: TEST001")
    assert calls.read_text() == "xxx"
