"""`.cu` files in: compiled with nvcc (never through a shell), findings on the `.cu` line."""

import json
import os
import stat
import sys

import pytest
from conftest import BARRIER_CU, BROKEN_CU, GOOD_CU, needs_nvcc


@needs_nvcc
def test_findings_point_at_cu_lines_even_with_shell_metacharacters_in_the_name(project):
    name = "my kernel; rm -rf 'x' $(echo).cu"
    project.write(name, BARRIER_CU)
    r = project.run("check", "--no-cache", "--select", "TEST", "--format", "concise", name)
    assert r.returncode == 1, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "TEST001" in ln]
    assert [ln.split(": TEST001")[0] for ln in lines] == [f"{name}:4:5", f"{name}:6:5"]


@needs_nvcc
def test_findings_in_a_header_point_at_the_header(project):
    project.write("include/sync.cuh", "__device__ inline void wait_all() {\n    __syncthreads();\n}\n")
    project.write("k.cu", '#include "sync.cuh"\n__global__ void k(float *x) {\n    wait_all();\n    x[0] = 1;\n}\n')
    r = project.run("check", "--no-cache", "--select", "TEST", "--format", "json", "--nvcc-arg=-Iinclude", "k.cu")
    assert r.returncode == 1, r.stdout + r.stderr
    [d] = json.loads(r.stdout)["diagnostics"]
    assert (d["path"], d["line"]) == (os.path.join("include", "sync.cuh"), 2)


@needs_nvcc
def test_several_arches_compile_once_each_and_report_a_finding_once(project):
    project.write("k.cu", BARRIER_CU)
    r = project.run("check", "--no-cache", "--select", "TEST", "--format", "json", "--arch", "sm_80,sm_90", "k.cu")
    diags = json.loads(r.stdout)["diagnostics"]
    assert [(d["line"], d["data"].get("arches")) for d in diags] == [(4, ["sm_80", "sm_90"]), (6, ["sm_80", "sm_90"])]
    assert "for sm_80" in diags[0]["message"]


@needs_nvcc
def test_a_cu_that_does_not_compile_shows_nvcc_messages_exit_2_and_others_still_checked(project):
    project.write("broken.cu", BROKEN_CU)
    project.write("good.cu", BARRIER_CU)
    r = project.run("check", "--no-cache", "--select", "TEST", "broken.cu", "good.cu")
    assert r.returncode == 2
    assert "broken.cu:2: does not compile for sm_90; nvcc says:" in r.stderr  # an input error: on stderr
    assert 'identifier "undefined_name" is undefined' in r.stderr
    assert "good.cu:4:5: TEST001" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_no_nvcc_anywhere_is_one_message_saying_how_to_get_it(project, tmp_path):
    from ptxlint.frontend.nvcc import _wheel_nvcc_candidates

    if _wheel_nvcc_candidates():
        pytest.skip("NVIDIA's nvcc wheels are installed in this interpreter: nvcc cannot be made missing")
    for i in range(3):
        project.write(f"k{i}.cu", GOOD_CU)
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    env = {"PATH": str(empty_bin), "CUDA_HOME": "", "CUDA_PATH": ""}
    r = project.run("check", "--no-cache", "--select", "TEST", "k0.cu", "k1.cu", "k2.cu", env=env)
    assert r.returncode == 2
    assert r.stderr.count("nvcc not found") == 1
    assert "pip install nvidia-cuda-nvcc" in r.stderr and "(3 .cu files not checked)" in r.stderr


def test_nvcc_is_called_with_an_argument_list_from_the_config_and_cli(project, tmp_path):
    """A fake nvcc records its argv: no shell, -lineinfo, the arch, include dirs, defines."""
    log = tmp_path / "argv.json"
    fake = project.write("tools/nvcc", f"""#!{sys.executable}
import json, sys
json.dump(sys.argv[1:], open({str(log)!r}, "w"))
out = sys.argv[sys.argv.index("-o") + 1]
open(out, "w").write(".version 8.0\\n.target sm_80\\n.address_size 64\\n")
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    project.write(".ptxlint.toml", 'nvcc = "tools/nvcc"\narch = "sm_80"\ninclude-dirs = ["inc"]\ndefines = ["TILE=32"]\n')
    project.write("a b.cu", GOOD_CU)
    r = project.run("check", "--no-cache", "--select", "TEST", "--nvcc-arg=-std=c++17", "--trust-config", "a b.cu")
    assert r.returncode == 0, r.stdout + r.stderr
    argv = json.loads(log.read_text())
    assert argv[:3] == ["-ptx", "-lineinfo", "-arch=compute_80"]
    assert f"-I{tmp_path / 'inc'}" in argv and "-DTILE=32" in argv and "-std=c++17" in argv
    # nvcc compiles a plainly named copy; the .cu's own directory is searched first for its headers
    assert argv[-1].endswith("/src/source.cu") and str(tmp_path) not in argv[-1]
    assert argv.index(f"-I{tmp_path}") < argv.index(f"-I{tmp_path / 'inc'}")


def test_nvcc_is_found_in_cuda_home(project, tmp_path):
    log = tmp_path / "called"
    fake = project.write("cuda/bin/nvcc", f"""#!{sys.executable}
import sys
open({str(log)!r}, "w").write("yes")
open(sys.argv[sys.argv.index("-o") + 1], "w").write(".version 8.0\\n.target sm_90\\n.address_size 64\\n")
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    project.write("k.cu", GOOD_CU)
    r = project.run("check", "--no-cache", "--select", "TEST", "k.cu", env={"CUDA_HOME": str(tmp_path / "cuda")})
    assert r.returncode == 0, r.stdout + r.stderr
    assert log.read_text() == "yes"


def test_pip_wheel_layout_is_searched(tmp_path, monkeypatch):
    from ptxlint.frontend import nvcc

    bindir = tmp_path / "site-packages" / "nvidia" / "cu13" / "bin"
    bindir.mkdir(parents=True)
    exe = bindir / "nvcc"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(nvcc.sys, "path", [str(tmp_path / "site-packages")])
    monkeypatch.setattr(nvcc.sysconfig, "get_paths", lambda: {})
    assert nvcc.find_nvcc() == str(exe)


@needs_nvcc
def test_a_header_is_checked_through_the_cu_files_that_include_it(project):
    project.write("inc/sync.cuh", "__device__ inline void wait_all() {\n    __syncthreads();\n}\n")
    project.write("a.cu", '#include "inc/sync.cuh"\n__global__ void a() { wait_all(); }\n')
    project.write("b.cu", "__global__ void b() { }\n")
    r = project.run("check", "--select", "TEST", "--no-cache", "--format", "json", "inc/sync.cuh")
    doc = json.loads(r.stdout)
    assert [(d["path"], d["line"]) for d in doc["diagnostics"]] == [(os.path.join("inc", "sync.cuh"), 2)]
    assert doc["errors"] == []
