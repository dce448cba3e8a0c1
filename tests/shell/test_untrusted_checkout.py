"""ptxlint on a stranger's checkout (pre-commit, CI on a pull request): a file or directory name, a
`.file` directive, an `#include`, a configuration or a cache entry of the checked tree must never
run a program, read or print a file outside the repository, or hang the run (issue 18).

Each test builds the hostile tree, runs ptxlint as a user does and checks what a user would notice:
no canary file created, no secret printed, an exit code and a message."""

import json
import os
import stat
import sys

import pytest

from conftest import GOOD_CU, needs_nvcc
from test_config import PTX_WITH_BARRIER

SECRET = "TOP-SECRET-7f3a9c-do-not-print"

# PTX whose barrier is on line 2 of `.file 1` (the path is filled in by the test).
PTX_NAMING = PTX_WITH_BARRIER.replace("{\n\tbar.sync", "{\n\t.loc\t1 2 1\n\tbar.sync") + '\t.file\t1 "{path}"\n'


def secret_outside(project):
    """A file beside the repository, outside it, full of the secret (long lines, many lines)."""
    secret = project.root.parent / f"{project.root.name}-outside" / "secret.cuh"
    secret.parent.mkdir(exist_ok=True)
    secret.write_text((SECRET + " " + SECRET + "\n") * 50)
    return secret


def all_formats(project, *args):
    """Every output format of `check` over the same inputs, concatenated (stdout and stderr)."""
    out = ""
    for fmt in ("text", "json", "sarif", "github", "concise"):
        r = project.run("check", "--no-cache", "--format", fmt, *args)
        assert "Traceback" not in r.stderr, r.stderr
        out += r.stdout + r.stderr
    return out


def fake_nvcc(project, tmp_path):
    """An nvcc that records its argv and emits PTX with one barrier on line 2 of the source it was
    given (a real nvcc names the file it compiled in `.file`)."""
    log = tmp_path / "argv.jsonl"
    fake = project.write("tools/nvcc", f"""#!{sys.executable}
import json, sys
with open({str(log)!r}, "a") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\\n")
src = sys.argv[-1]
open(sys.argv[sys.argv.index("-o") + 1], "w").write(
    '.version 8.0\\n.target sm_90\\n.address_size 64\\n.visible .entry k()\\n{{\\n'
    '\\t.loc 1 2 5\\n\\tbar.sync \\t0;\\n\\tret;\\n}}\\n\\t.file 1 "' + src + '"\\n')
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return log


HOSTILE_NAMES = ['a$(touch PWNED).cu', 'b`touch PWNED`.cu', 'c".cu', "d\\$x!.cu", "e\nf.cu", "-g.cu"]


# ---------------------------------------------------------------------------------------------
# 1. A file or directory name never reaches a shell


def test_hostile_file_and_directory_names_never_reach_nvcc_and_findings_keep_the_names(project, tmp_path):
    log = fake_nvcc(project, tmp_path)
    names = HOSTILE_NAMES + ["d$(touch PWNED)/k.cu", "plain/k.cu"]
    for name in names:
        project.write(name, GOOD_CU)
    r = project.run("check", "--select", "TEST", "--nvcc", "tools/nvcc", "--no-cache", "--format", "json", ".")
    assert r.returncode == 1, r.stdout + r.stderr
    reported = {os.path.normpath(d["path"]) for d in json.loads(r.stdout)["diagnostics"]}
    assert reported == {os.path.normpath(n) for n in names}
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == len(names)
    for argv in calls:  # nothing a shell could act on, and no path of the checked tree as the source
        assert not any(c in arg for arg in argv for c in '$`"\\!\n'), argv
        assert str(project.root) not in argv[-1]
    assert not list(project.root.rglob("PWNED")) and not (tmp_path / "PWNED").exists()


def test_an_nvcc_argument_a_shell_could_act_on_is_refused(project, tmp_path):
    log = fake_nvcc(project, tmp_path)
    project.write("k.cu", GOOD_CU)
    r = project.run("check", "--nvcc", "tools/nvcc", "--no-cache", "--nvcc-arg=-DX=$(touch PWNED)", "k.cu")
    assert r.returncode == 2 and "hand to a shell" in r.stdout + r.stderr
    assert not log.exists() and not list(tmp_path.rglob("PWNED"))


@needs_nvcc
@pytest.mark.parametrize("name", ['t/a$(touch PWNED).cu', 'd$(touch PWNED)/k.cu', 't/q".cu', 'link/k.cu'])
def test_real_nvcc_runs_nothing_named_in_the_tree(project, tmp_path, name):
    target = project.write('real$(touch PWNED)/k.cu', GOOD_CU)
    if name == "link/k.cu":  # a plain name that links to a hostile one: nvcc resolves links
        (project.root / "link").mkdir()
        (project.root / name).symlink_to(target)
    else:
        project.write(name, GOOD_CU)
    r = project.run("check", "--no-cache", "--format", "json", name)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert json.loads(r.stdout)["errors"] == []
    assert not list(tmp_path.rglob("PWNED")) and not (project.root / "PWNED").exists()


# ---------------------------------------------------------------------------------------------
# 2. Launch discovery reads nothing outside the repository


def test_launch_discovery_does_not_read_an_include_outside_the_repository(project):
    secret = secret_outside(project)
    host = ("__global__ void k();\nint main() {\n    k<<<1,\n#include \"" + str(secret) + "\"\n    >>>();\n}\n"
            "#include \"../" + project.root.name + "-outside/secret.cuh\"\n")
    cu = project.write("host.cu", host)
    project.write("k.ptx", PTX_NAMING.replace("{path}", str(cu)))
    launches = project.run("launches", "k.ptx")
    assert "Traceback" not in launches.stderr and SECRET not in launches.stdout + launches.stderr
    assert SECRET not in all_formats(project, "k.ptx")


def test_launch_discovery_across_files_stays_inside_the_repository(project):
    """The files a `.ptx`'s launches are looked for in beyond its `.file` directives (the `.cu` beside
    it under its name, sibling units that include its sources or their header, `include/` folders)
    are read through the gate: links out of the tree are not followed, a FIFO among the siblings does
    not block, and a launch written outside the repository is not used."""
    outside = project.root.parent / f"{project.root.name}-outside"
    (outside / "include").mkdir(parents=True, exist_ok=True)
    launch = f"// {SECRET}\n#include \"kern.h\"\nvoid r() {{ k<<<1, 32>>>(); }}\n"
    (outside / "k.cu").write_text(launch)
    (outside / "entry.cu").write_text(launch)
    (outside / "include" / "kern.h").write_text(f"// {SECRET}\n#define B 32\n__global__ void k();\n")
    kern = project.write("src/kern.cuh", "__global__ void k() {\n  __syncthreads();\n}\n")
    project.write("src/k.sm_90.ptx", PTX_NAMING.replace("{path}", str(kern)))
    (project.root / "src" / "k.sm_90.cu").symlink_to(outside / "k.cu")  # the unit beside the .ptx
    (project.root / "src" / "k.cu").symlink_to(outside / "k.cu")
    (project.root / "src" / "entry.cu").symlink_to(outside / "entry.cu")  # a sibling including kern.h
    (project.root / "src" / "include").symlink_to(outside / "include")
    os.mkfifo(project.root / "src" / "pipe.cu")
    r = project.run("launches", "src/k.sm_90.ptx")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert SECRET not in r.stdout + r.stderr
    # only the in-tree source is read; no launch from the linked files
    assert "no launch of `k` found (host code read: src/kern.cuh)" in r.stdout, r.stdout
    assert SECRET not in all_formats(project, "src/k.sm_90.ptx")


def test_launch_discovery_in_nearby_folders_stays_inside_the_repository(project):
    """Units in the folders near a `.ptx`'s source that include its header, directly or through a
    header of their own, are read for launches: one linked out of the tree, one whose own header
    links out, one whose header is a FIFO, and one that climbs out with `../` give nothing and leak
    nothing; an in-tree unit with a shell-like name gives its launch and runs nothing."""
    outside = project.root.parent / f"{project.root.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "far.cu").write_text(f'// {SECRET}\n#include "../{project.root.name}/src/kern/kern.cuh"\n'
                                    "void r() { k<<<1, 128>>>(); }\n")
    (outside / "own.cuh").write_text(f'// {SECRET}\n#include "kern.cuh"\n')
    kern = project.write("src/kern/kern.cuh", "__global__ void k() {\n  __syncthreads();\n}\n")
    project.write("src/kern/k.sm_90.ptx", PTX_NAMING.replace("{path}", str(kern)))
    (project.root / "src" / "drivers").mkdir()
    (project.root / "src" / "drivers" / "linked.cu").symlink_to(outside / "far.cu")
    (project.root / "src" / "drivers" / "own.cuh").symlink_to(outside / "own.cuh")
    project.write("src/drivers/through_link.cu", '#include "own.cuh"\nvoid r() { k<<<1, 64>>>(); }\n')
    os.mkfifo(project.root / "src" / "drivers" / "pipe.cuh")
    project.write("src/drivers/through_pipe.cu", '#include "pipe.cuh"\nvoid r() { k<<<1, 96>>>(); }\n')
    project.write("src/drivers/climbs.cu", f'#include "../../../{project.root.name}-outside/own.cuh"\n'
                                           "void r() { k<<<1, 160>>>(); }\n")
    project.write("src/drivers/a$(touch PWNED).cu", '#include "../kern/kern.cuh"\nvoid r() { k<<<1, 32>>>(); }\n')
    r = project.run("launches", "src/kern/k.sm_90.ptx")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert SECRET not in r.stdout + r.stderr
    assert "k: 32x1x1 (from the launch at src/drivers/a$(touch PWNED).cu:2)" in r.stdout, r.stdout
    assert not any(b in r.stdout for b in ("64x1x1", "96x1x1", "128x1x1", "160x1x1")), r.stdout
    assert not (project.root / "PWNED").exists() and not (project.root / "src" / "drivers" / "PWNED").exists()
    assert SECRET not in all_formats(project, "src/kern/k.sm_90.ptx")


# ---------------------------------------------------------------------------------------------
# 3. The working directory is not trusted by itself


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link"])
def test_a_file_directive_pointing_out_of_the_repository_is_not_printed_even_from_a_parent_directory(project, how):
    secret = secret_outside(project)
    if how == "absolute":
        named = str(secret)
    elif how == "dotdot":
        named = str(project.root / ".." / secret.parent.name / secret.name)
    else:
        (project.root / "inc").mkdir()
        (project.root / "inc" / "secret.cuh").symlink_to(secret)
        named = str(project.root / "inc" / "secret.cuh")
    project.write("k.ptx", PTX_NAMING.replace("{path}", named))
    from conftest import ptxlint, user_dirs

    for cwd in (project.root, project.root.parent, "/"):
        for fmt in ("text", "sarif", "json"):
            r = ptxlint("check", "--select", "TEST", "--no-cache", "--format", fmt, project.root / "k.ptx", cwd=cwd,
                        env=user_dirs(project.root))
            assert r.returncode == 1 and SECRET not in r.stdout + r.stderr, (cwd, fmt)


def test_a_checked_file_that_links_out_of_the_repository_is_not_read(project):
    secret = secret_outside(project)
    outside_ptx = secret.parent / "k.ptx"
    outside_ptx.write_text(SECRET + "\n")
    (project.root / "k.ptx").symlink_to(outside_ptx)
    r = project.run("check", "--no-cache", "k.ptx")
    assert r.returncode == 2 and "outside the checked repository" in r.stdout + r.stderr
    assert SECRET not in r.stdout + r.stderr


# ---------------------------------------------------------------------------------------------
# 4. Programs to run come from the user, not the repository


def _evil(project, tmp_path):
    canary = tmp_path / "RAN"
    evil = project.write("evil.sh", f"#!/bin/sh\ntouch {canary}\nexit 1\n")
    evil.chmod(evil.stat().st_mode | stat.S_IEXEC)
    return canary


@pytest.mark.parametrize("config", ['nvcc = "./evil.sh"\n', 'nvcc-args = ["-ccbin", "./evil.sh"]\n',
                                    'nvcc-args = ["--compiler-bindir=."]\n', 'nvcc-args = ["-Xcompiler", "-B."]\n',
                                    '[tool.ptxlint]\nnvcc = "evil.sh"\n'])
def test_a_repository_config_that_names_a_program_is_refused(project, tmp_path, config):
    canary = _evil(project, tmp_path)
    name = "pyproject.toml" if config.startswith("[tool") else ".ptxlint.toml"
    project.write(name, config)
    project.write("k.cu", GOOD_CU)
    r = project.run("check", "--no-cache", "k.cu")
    assert r.returncode == 2 and not canary.exists()
    out = r.stdout + r.stderr
    assert f"{name}:" in out and "--trust-config" in out and "Traceback" not in out


def test_compilation_options_in_a_repository_config_are_accepted(project, tmp_path):
    log = fake_nvcc(project, tmp_path)
    project.write(".ptxlint.toml", 'nvcc-args = ["-std=c++17", "--expt-extended-lambda", "-DTILE=32", '
                                   '"-I", "include", "-O3"]\n')
    project.write("k.cu", GOOD_CU)
    r = project.run("check", "--select", "TEST", "--nvcc", "tools/nvcc", "--no-cache", "k.cu")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "-std=c++17" in log.read_text()


def test_trust_config_and_the_user_config_may_name_nvcc(project, tmp_path):
    log = fake_nvcc(project, tmp_path)
    project.write(".ptxlint.toml", 'nvcc = "tools/nvcc"\n')
    project.write("k.cu", GOOD_CU)
    assert project.run("check", "--select", "TEST", "--no-cache", "k.cu").returncode == 2
    assert not log.exists()
    assert project.run("check", "--select", "TEST", "--no-cache", "--trust-config", "k.cu").returncode == 1
    assert log.exists()
    log.unlink()
    (project.root / ".ptxlint.toml").unlink()
    project.user_config.parent.mkdir(parents=True)
    project.user_config.write_text(f'nvcc = "{project.root / "tools" / "nvcc"}"\n')
    assert project.run("check", "--select", "TEST", "--no-cache", "k.cu").returncode == 1
    assert log.exists()


# ---------------------------------------------------------------------------------------------
# 5. Special and huge files do not hang or exhaust the run


def test_fifo_and_device_files_in_the_tree_neither_block_nor_load(project):
    project.write("inc/h.cuh", "__device__ void f() {}\n")
    os.mkfifo(project.root / "inc" / "pipe.cu")  # the header's includers are searched: a FIFO must not block
    os.mkfifo(project.root / "pipe.ptx")
    (project.root / "zero.ptx").symlink_to("/dev/zero")
    r = project.run("check", "--no-cache", "inc/h.cuh", "pipe.ptx", "zero.ptx")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "pipe.ptx: cannot read: not a regular file" in r.stderr  # input errors: on stderr
    assert "zero.ptx: cannot read: outside the checked repository" in r.stderr


def test_a_huge_file_is_refused_not_loaded(project):
    from ptxlint.gate import MAX_PTX_BYTES

    big = project.root / "big.ptx"
    with open(big, "wb") as fh:  # sparse: costs no disk
        fh.truncate(MAX_PTX_BYTES + 1)
    project.write("k.ptx", PTX_WITH_BARRIER)
    r = project.run("check", "--select", "TEST", "--no-cache", "big.ptx", "k.ptx")
    assert r.returncode == 2 and "larger than" in r.stdout + r.stderr
    assert "k.ptx:7:1: TEST001" in r.stdout  # the other file is still checked


# ---------------------------------------------------------------------------------------------
# 6. The cache: outside the tree by default, and no entry is replayed unless this user wrote it


def test_the_default_cache_is_outside_the_checked_tree(project):
    project.write("k.ptx", PTX_WITH_BARRIER)
    assert project.run("check", "--select", "TEST", "k.ptx").returncode == 1
    assert not (project.root / ".ptxlint_cache").exists() and any(project.cache.rglob("*.json"))


@pytest.mark.parametrize("forged", [
    "null", "[]", '{"mac": "00", "entry": "{}"}', "[" * 5000 + "]" * 5000, '{"mac": 1, "entry": []}',
    "not json", "SIGNED-EMPTY", "SIGNED-WRONG-SHAPE", "SIGNED-DEEP",
])
def test_a_forged_or_malformed_cache_entry_is_a_miss(project, forged):
    project.write("k.ptx", PTX_WITH_BARRIER)
    first = project.run("check", "--select", "TEST", "--format", "concise", "k.ptx")
    assert first.returncode == 1
    [entry] = list(project.cache.rglob("*.json"))
    if forged.startswith("SIGNED"):  # an entry signed by someone else's key: no findings, well formed
        import hashlib
        import hmac

        body = {"SIGNED-EMPTY": json.dumps({"diagnostics": [], "errors": [], "sources": ["@checked"]}),
                "SIGNED-WRONG-SHAPE": json.dumps({"diagnostics": [1, 2], "errors": "x", "sources": 3}),
                "SIGNED-DEEP": "[" * 5000 + "]" * 5000}[forged]
        mac = hmac.new(b"another key" * 4, (entry.stem + body).encode(), hashlib.sha256).hexdigest()
        entry.write_text(json.dumps({"mac": mac, "entry": body}))
    else:
        entry.write_text(forged)
    again = project.run("check", "--select", "TEST", "--format", "concise", "k.ptx")
    assert again.returncode == 1 and again.stdout == first.stdout and "Traceback" not in again.stderr


def test_a_malformed_entry_signed_with_the_users_key_is_a_miss(project):
    """Corruption or another version's shape: even a correctly signed entry is checked."""
    import hashlib
    import hmac

    project.write("k.ptx", PTX_WITH_BARRIER)
    first = project.run("check", "--select", "TEST", "--format", "concise", "k.ptx")
    [entry] = list(project.cache.rglob("*.json"))
    key = (project.cache / "signing.key").read_bytes()
    for body in ({"diagnostics": [{"code": 1}], "errors": [], "sources": ["@checked"]},
                 {"diagnostics": [], "errors": [], "sources": ["@checked"], "not_checked": {"x": "y"}}):
        text = json.dumps(body)
        entry.write_text(json.dumps({"mac": hmac.new(key, (entry.stem + text).encode(), hashlib.sha256).hexdigest(),
                                     "entry": text}))
        again = project.run("check", "--select", "TEST", "--format", "concise", "k.ptx")
        assert again.stdout == first.stdout and "Traceback" not in again.stderr


def test_a_cache_directory_brought_by_the_tree_is_not_replayed(project):
    """A checked-in `.ptxlint_cache/` with a forged clean result: pointing the cache at it (a CI
    that restores its cache into the checkout) does not hide the finding."""
    project.write("k.ptx", PTX_WITH_BARRIER)
    inside = project.root / ".ptxlint_cache"
    first = project.run("check", "--select", "TEST", "--cache-dir", str(inside), "k.ptx")
    assert first.returncode == 1
    assert not (inside / "signing.key").exists()  # the key of a cache inside the tree is the user's
    for entry in inside.rglob("*.json"):
        stored = json.loads(entry.read_text())
        stored["entry"] = json.dumps(dict(json.loads(stored["entry"]), diagnostics=[]))
        entry.write_text(json.dumps(stored))  # forged: findings removed, old signature kept
    assert project.run("check", "--select", "TEST", "--cache-dir", str(inside), "k.ptx").returncode == 1
