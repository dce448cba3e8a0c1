"""`-p build` reads a CMake `compile_commands.json`: a project whose `.cu` files need its headers'
`-I`, a `-D` and `-std=c++17` checks clean of input errors, with the findings hand-written flags
give; the database never names the program to run; a `.cu` that another `.cu` `#include`s is checked
through it. The project is tests/shell/data/cmake_project (its README says what it holds)."""

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from conftest import needs_nvcc, user_dirs
from support import run_cli

PROJECT = Path(__file__).with_name("data") / "cmake_project"
HAND_WRITTEN = ("--nvcc-arg=-Iinclude", "--nvcc-arg=-DTILE_DIM=32", "--nvcc-arg=-std=c++17")


@pytest.fixture
def cmake_project(tmp_path):
    """The project copied into a repository of its own, its database written as CMake writes it
    (absolute paths of where the project is)."""
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    (root / ".git").mkdir()
    template = root / "build" / "compile_commands.json.in"
    (root / "build" / "compile_commands.json").write_text(template.read_text().replace("@ROOT@", str(root)))
    template.unlink()
    return root


def _check(root, *args):
    env = dict(os.environ, **user_dirs(root))
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "ptxlint", "check", "--no-cache", *map(str, args)],
                          capture_output=True, text=True, cwd=root, env=env)


def _findings(result) -> list:
    doc = json.loads(result.stdout)
    assert doc["errors"] == [], doc["errors"]
    return sorted((d["code"], d["path"], d["line"], d["message"], d["notes"][0]) for d in doc["diagnostics"])


@needs_nvcc
def test_the_build_flags_come_from_compile_commands(cmake_project):
    without = _check(cmake_project, "--format", "json", "src")
    assert without.returncode == 2 and "does not compile" in without.stdout  # the flags are needed
    from_database = _check(cmake_project, "-p", "build", "--format", "json", "src")
    assert from_database.returncode == 1, from_database.stdout + from_database.stderr
    by_hand = _check(cmake_project, *HAND_WRITTEN, "--format", "json", "src")
    assert by_hand.returncode == 1, by_hand.stdout + by_hand.stderr
    found = _findings(from_database)
    assert found == _findings(by_hand)
    codes = {(code, path) for code, path, *_ in found}
    # the column read inside the project header, and the race of the unity-built .cu, both found
    assert ("BANK001", "include/tiles/config.cuh") in codes and ("RACE001", "src/reduce_impl.cu") in codes
    # the block of the launch in the host code, read with the database's -DTILE_DIM
    assert any("32x32x1 (from the launch at src/transpose.cu:11)" in notes for *_, notes in found)


@needs_nvcc
def test_a_cu_included_by_another_is_checked_through_it(cmake_project):
    result = _check(cmake_project, *HAND_WRITTEN, "--format", "concise", "src")
    assert "does not compile" not in result.stdout
    assert ("src/reduce_impl.cu is #included by src/unity.cu (not a translation unit): checked through it"
            in result.stderr)
    assert "src/reduce_impl.cu:" in result.stdout  # its finding, located in it


@needs_nvcc
def test_a_cu_named_alone_that_fails_names_its_includer(cmake_project):
    # pre-commit passes the changed part of a unity build alone: it does not compile on its own
    result = _check(cmake_project, "--nvcc-arg=-Iinclude", "--format", "concise", "src/reduce_impl.cu")
    assert result.returncode == 2 and "does not compile" in result.stderr
    assert "src/reduce_impl.cu is #included by src/unity.cu: it may not be a translation unit" in result.stderr


@needs_nvcc
def test_the_database_never_names_the_program_to_run(cmake_project, tmp_path):
    marker = tmp_path / "ran"
    evil = tmp_path / "evil-compiler"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\n")
    evil.chmod(evil.stat().st_mode | stat.S_IEXEC)
    database = cmake_project / "build" / "compile_commands.json"
    entries = json.loads(database.read_text())
    for entry in entries:
        entry["command"] = entry["command"].replace("/usr/local/cuda/bin/nvcc", f"{evil} -ccbin {evil}")
        entry["command"] += f" -Xcompiler -B{tmp_path} --compiler-bindir={tmp_path}"
    database.write_text(json.dumps(entries))
    result = _check(cmake_project, "-p", "build", "--format", "concise", "src")
    assert result.returncode == 1, result.stdout + result.stderr
    assert not marker.exists()


@needs_nvcc
def test_a_file_without_an_entry_borrows_a_neighbours_flags_and_says_so(cmake_project):
    (cmake_project / "src" / "extra.cu").write_text(
        '#include "tiles/config.cuh"\n__global__ void fill(float *x) { x[threadIdx.x] = kTile; }\n')
    result = _check(cmake_project, "-p", "build", "--format", "concise", "src/extra.cu")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("src/extra.cu: no entry in build/compile_commands.json; compiled with the flags of "
            "src/transpose.cu (the first entry of its directory)") in result.stderr


@needs_nvcc
def test_a_flag_a_shell_would_act_on_is_refused_as_from_the_command_line(cmake_project):
    database = cmake_project / "build" / "compile_commands.json"
    entries = json.loads(database.read_text())
    entries[0]["command"] = entries[0]["command"].replace("-DNDEBUG", '-DVERSION=\\"$(id)\\"')
    database.write_text(json.dumps(entries))
    result = _check(cmake_project, "-p", "build", "--format", "concise", "src/transpose.cu")
    assert result.returncode == 2
    assert "holds a character nvcc would hand to a shell" in result.stderr


def test_an_unreadable_database_is_one_input_error(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.cu").write_text("__global__ void k(float *x) { x[threadIdx.x] = 0; }\n")
    (tmp_path / "b.cu").write_text("__global__ void j(float *x) { x[threadIdx.x] = 1; }\n")
    (tmp_path / "compile_commands.json").write_text('{"not": "a list"}')
    result = run_cli("check", "--no-cache", "-p", ".", "a.cu", "b.cu", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("not a compilation database") == 1
