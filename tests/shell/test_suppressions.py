"""`// ptxlint: ignore[...]` comments in the source the finding points at."""

import json

from conftest import needs_nvcc
from test_config import PTX_WITH_BARRIER

KERNEL = """\
__global__ void k(float *x) {
    __syncthreads();  // ptxlint: ignore[TEST001]
    x[0] = 1;
    // ptxlint: ignore[TEST]
    __syncthreads();
    __syncthreads();
    // ptxlint: ignore[BANK001]
    __syncthreads();
}
"""


def lines(r):
    return [d["line"] for d in json.loads(r.stdout)["diagnostics"]]


@needs_nvcc
def test_ignore_on_the_line_or_the_line_above(project):
    project.write("k.cu", KERNEL)
    r = project.run("check", "--select", "TEST", "--no-cache", "--format", "json", "k.cu")
    assert lines(r) == [6, 8]


@needs_nvcc
def test_ignore_file(project):
    project.write("k.cu", "// ptxlint: ignore-file[TEST001]\n" + KERNEL)
    r = project.run("check", "--select", "TEST", "--no-cache", "k.cu")
    assert r.returncode == 0, r.stdout


@needs_nvcc
def test_unused_suppressions_are_reported_only_behind_the_flag(project):
    project.write("k.cu", KERNEL.replace("    x[0] = 1;", "    x[0] = 1;  // ptxlint: ignore[TEST001]"))
    r = project.run("check", "--select", "TEST", "--no-cache", "--format", "json", "k.cu")
    assert lines(r) == [6, 8]
    r = project.run("check", "--select", "TEST", "--no-cache", "--format", "json", "--report-unused-suppressions", "k.cu")
    diags = json.loads(r.stdout)["diagnostics"]
    assert [(d["code"], d["line"]) for d in diags] == [("SUPP001", 3), ("TEST001", 6), ("TEST001", 8)]
    # BANK001 did not run (--select TEST): its suppression on line 7 cannot be judged unused.
    assert "ignore[TEST001]" in diags[0]["message"]


def test_suppression_in_a_ptx_file_and_unused_one_in_a_clean_file(project):
    project.write("k.ptx", PTX_WITH_BARRIER.replace("bar.sync \t0;", "bar.sync \t0; // ptxlint: ignore[TEST001]"))
    project.write("clean.ptx", "// ptxlint: ignore-file[TEST001]\n" + PTX_WITH_BARRIER.replace("\tbar.sync \t0;\n", ""))
    r = project.run("check", "--select", "TEST", "--no-cache", "k.ptx")
    assert r.returncode == 0, r.stdout
    r = project.run("check", "--select", "TEST", "--no-cache", "--format", "concise", "--report-unused-suppressions", "k.ptx", "clean.ptx")
    assert r.returncode == 1
    assert r.stdout.splitlines()[0] == "clean.ptx:1:1: SUPP001 unused suppression `ptxlint: ignore-file[TEST001]`: no such finding here"
