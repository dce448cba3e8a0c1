"""Reading a compile_commands.json (CMake's `command`, Bear's `arguments`) into the nvcc flags of
each file: only the flags that shape the compilation, paths resolved against the entry's directory;
the entry of the file itself, else the first of its directory (said). No nvcc needed."""

import json

import pytest

from ptxlint.check_options import CheckOptions
from ptxlint.compile_commands import load_database, shaping_flags
from ptxlint.errors import InputError
from ptxlint.file_plan import _plan


def test_only_the_flags_that_shape_the_compilation_are_kept():
    words = ["-DA=1", "-D", "B", "-I../inc", "--include-path", "/abs", "-isystem", "sys", "-isystem/opt/x", "-UC", "--std", "gnu++17",
             "--expt-relaxed-constexpr", "-include", "pre.h", "-dc", "--use_fast_math", "--ftz=true",
             "-o", "out.o", "-c", "-arch=sm_80", "-gencode", "arch=compute_80,code=sm_80", "-ccbin", "/bin/evil",
             "-Xcompiler", "-DHOST_ONLY", "-O3", "-G", "-x", "cu", "-MF", "-DNOT_A_DEFINE", "../src/a.cu"]
    assert shaping_flags(words, "/p/build") == (
        "-DA=1", "-DB", "-I/p/inc", "-I/abs", "-UC", "-std=c++17", "--expt-relaxed-constexpr", "-include",
        "/p/build/pre.h", "-rdc=true", "--use_fast_math", "--ftz=true", "-I/p/build/sys", "-I/opt/x")


def test_a_repeated_std_keeps_the_last_and_duplicates_go():
    assert shaping_flags(["-std=c++14", "-DX", "-DX", "-std=c++17"], "/") == ("-DX", "-std=c++17")


def _database(tmp_path, entries):
    (tmp_path / ".git").mkdir(exist_ok=True)
    path = tmp_path / "build" / "compile_commands.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(entries))
    return path


def test_each_file_takes_its_own_entry_else_a_neighbours(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    path = _database(tmp_path, [
        {"directory": str(tmp_path / "build"), "file": "../src/a.cu", "arguments": ["nvcc", "-DA", "-c", "../src/a.cu"]},
        {"directory": str(tmp_path / "build"), "file": str(src / "b.cu"), "command": "nvcc -DB -I../inc -c ../src/b.cu"},
        {"directory": str(tmp_path), "file": "other/c.cu", "command": "nvcc -DC -c other/c.cu"},
    ])
    database = load_database(str(path))
    assert database.flags_for(str(src / "a.cu")) == (("-DA",), None)
    assert database.flags_for(str(src / "b.cu")) == (("-DB", f"-I{tmp_path}/inc"), None)
    flags, how = database.flags_for(str(src / "new.cu"))
    assert flags == ("-DA",) and "the first entry of its directory" in how
    flags, how = database.flags_for(str(tmp_path / "other" / "deeper" / "d.cu"))
    assert flags == ("-DC",) and "the nearest entry" in how


@pytest.mark.parametrize("bad", ['{"a": 1}', "[1]", '[{"directory": ".", "file": "a.cu"}]', "not json",
                                 '[{"directory": ".", "file": "a.cu", "arguments": "nvcc -c a.cu"}]'])
def test_a_malformed_database_is_an_input_error(tmp_path, bad):
    path = tmp_path / "compile_commands.json"
    path.write_text(bad)
    with pytest.raises(InputError):
        load_database(str(path))


def test_a_flag_beyond_the_safe_ones_needs_trust(tmp_path):
    # a define whose value holds a space: not among the options a repository may give nvcc
    path = _database(tmp_path, [{"directory": str(tmp_path), "file": "a.cu",
                                 "arguments": ["nvcc", "-DGREETING=hello world", "-c", "a.cu"]}])
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    options = CheckOptions(use_config=False, compile_commands=str(path))
    refused = _plan(str(tmp_path / "a.cu"), options)
    assert isinstance(refused, InputError) and "--trust-config" in refused.message
    trusted = _plan(str(tmp_path / "a.cu"), CheckOptions(use_config=False, compile_commands=str(path),
                                                         trust_config=True))
    assert "-DGREETING=hello world" in trusted.compile.extra_args
    assert "GREETING=hello world" in trusted.host[1]  # the host code's launches see the define too
