"""Results cache (content hash + options + ptxlint version) and parallel checking."""

import json
import os
import stat
import sys

from conftest import GOOD_CU
from ptxlint.cache import FORMAT
from test_config import PTX_WITH_BARRIER


def fake_nvcc(project, tmp_path):
    """An nvcc that counts its calls and emits PTX with one barrier on the .cu's line 2, naming the
    `inc.cuh` found in the first include directory (the .cu's own, as nvcc is given it)."""
    calls = tmp_path / "calls"
    fake = project.write("tools/nvcc", f"""#!{sys.executable}
import sys
with open({str(calls)!r}, "a") as fh:
    fh.write("x")
src = sys.argv[-1]
open(sys.argv[sys.argv.index("-o") + 1], "w").write(
    '.version 8.0\\n.target sm_90\\n.address_size 64\\n.visible .entry k()\\n{{\\n'
    '\\t.loc 1 2 5\\n\\tbar.sync \\t0;\\n\\tret;\\n}}\\n\\t.file 1 "' + src + '"\\n'
    '\\t.file 2 "' + next(a[2:] for a in sys.argv if a.startswith("-I")) + '/inc.cuh"\\n')
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return calls


def test_unchanged_files_are_not_recompiled_and_changes_invalidate(project, tmp_path):
    calls = fake_nvcc(project, tmp_path)
    project.write("k.cu", GOOD_CU)
    project.write("inc.cuh", "// v1\n")
    run = lambda *a: project.run("check", "--select", "TEST", "--nvcc", "tools/nvcc", "--format", "concise", *a, "k.cu")
    first = run()
    assert first.returncode == 1 and "k.cu:2:5: TEST001" in first.stdout
    assert calls.read_text() == "x"
    assert run().stdout == first.stdout and calls.read_text() == "x"  # warm: no nvcc
    project.write("inc.cuh", "// v2\n")  # a header named in .file changed
    run()
    assert calls.read_text() == "xx"
    blocked = run("--block", "64")  # other analysis options: analysed again, on the compile kept
    assert "block 64x1x1" in blocked.stdout and calls.read_text() == "xx"
    run("--nvcc-arg=-DTILE=8")  # other compile options: compiled again
    assert calls.read_text() == "xxx"
    run("--no-cache")
    assert calls.read_text() == "xxxx"
    assert (project.cache / ".gitignore").exists() and not (project.root / ".ptxlint_cache").exists()


def test_launches_accesses_and_kernels_reuse_the_compile_check_made(project, tmp_path):
    calls = fake_nvcc(project, tmp_path)
    cuda = tmp_path / "cuda"  # where ptxlint finds the nvcc the commands without --nvcc run
    (cuda / "bin").mkdir(parents=True)
    (cuda / "bin" / "nvcc").symlink_to(project.root / "tools" / "nvcc")
    env = {"CUDA_HOME": str(cuda)}
    project.write("k.cu", GOOD_CU)
    project.write("inc.cuh", "// v1\n")
    project.run("check", "--select", "TEST", "k.cu", env=env)
    assert calls.read_text() == "x"
    for command in ("launches", "accesses", "kernels"):
        r = project.run(command, "k.cu", env=env)
        assert r.returncode == 0 and "k.cu" in r.stdout, (command, r.stdout, r.stderr)
    assert calls.read_text() == "x"  # one compile for the four commands
    project.write("inc.cuh", "// v2\n")  # a header the PTX names changed: compiled again
    project.run("launches", "k.cu", env=env)
    assert calls.read_text() == "xx"
    project.run("check", "--select", "TEST", "--no-cache", "k.cu", env=env)  # --no-cache: always nvcc
    assert calls.read_text() == "xxx"


def test_cache_dir_option_and_env(project, tmp_path):
    project.write("k.ptx", PTX_WITH_BARRIER)
    project.run("check", "--cache-dir", "elsewhere", "k.ptx")
    assert (project.root / "elsewhere" / f"v{FORMAT}").is_dir()
    project.run("check", "k.ptx", env={"PTXLINT_CACHE_DIR": str(tmp_path / "envcache")})
    assert (tmp_path / "envcache" / f"v{FORMAT}").is_dir()


def test_many_files_in_parallel_give_the_same_report_as_one_process(project):
    for i in range(12):
        project.write(f"d/k{i:02}.ptx", PTX_WITH_BARRIER)
    serial = project.run("check", "--select", "TEST", "--no-cache", "-j", "1", "--format", "json", "d")
    parallel = project.run("check", "--select", "TEST", "--no-cache", "-j", "4", "--format", "json", "d")
    assert serial.stdout == parallel.stdout
    assert len(json.loads(parallel.stdout)["diagnostics"]) == 12


def test_missing_file_and_empty_directory_are_errors_but_others_are_checked(project):
    project.write("k.ptx", PTX_WITH_BARRIER)
    os.mkdir(project.root / "empty")
    r = project.run("check", "--select", "TEST", "--no-cache", "nope.ptx", "empty", "k.ptx")
    assert r.returncode == 2
    # input errors go to stderr, the findings and the summary to stdout
    assert "nope.ptx: no such file or directory" in r.stderr
    assert "empty: directory holds no .ptx or .cu files" in r.stderr
    assert "k.ptx:7:1: TEST001" in r.stdout
    assert r.stdout.splitlines()[-1] == "Found 1 finding and 2 input errors."
    concise = project.run("check", "--select", "TEST", "--no-cache", "--format", "concise", "nope.ptx", "k.ptx")
    assert concise.stderr == "nope.ptx: no such file or directory\n"
    assert concise.stdout.splitlines() == ["k.ptx:7:1: TEST001 barrier in k for sm_80; block 256x1x1 "
                                           "(assumed: no --block, config, launch in the code or .reqntid; pass --block to change it)",
                                           "Found 1 finding and 1 input error."]


def test_shards_split_the_files_between_ci_jobs_stably_and_completely(project):
    for i in range(20):
        project.write(f"d/k{i:02}.ptx", PTX_WITH_BARRIER)
    whole = project.run("check", "--select", "TEST", "--no-cache", "--format", "json", "d")
    everything = sorted(d["path"] for d in json.loads(whole.stdout)["diagnostics"])
    parts = []
    for i in (1, 2, 3):
        r = project.run("check", "--select", "TEST", "--no-cache", "--format", "json", "--shard", f"{i}/3", "d")
        parts.append(sorted(d["path"] for d in json.loads(r.stdout)["diagnostics"]))
    assert sorted(p for part in parts for p in part) == everything  # every file in exactly one shard
    assert all(parts)  # 20 files over 3 shards: none is empty
    # the same split from another working directory (paths relative to the repository)
    from conftest import ptxlint, user_dirs

    sub = ptxlint("check", "--select", "TEST", "--no-cache", "--format", "json", "--shard", "2/3", ".",
                  cwd=project.root / "d", env=user_dirs(project.root))
    assert sorted("d/" + os.path.normpath(d["path"]) for d in json.loads(sub.stdout)["diagnostics"]) == parts[1]
    bad = project.run("check", "--shard", "4/3", "d")
    assert bad.returncode == 2 and "--shard" in bad.stderr
