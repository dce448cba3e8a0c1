"""The grammar ships inside the wheel and is found from an installed wheel and from a checkout."""

import subprocess
import sys
import zipfile

import pytest

from support import REPO, SAMPLES

PARSE = (
    "import sys; from ptxlint.frontend.grammar_file import grammar_path; "
    "from ptxlint.frontend.parser import parse_ptx_file; "
    "m = parse_ptx_file(sys.argv[1]); print(grammar_path()); print(len(m.kernels))"
)


def run_parse(pythonpath, cwd):
    env = {"PYTHONPATH": str(pythonpath), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-S", "-c", f"import site; site.main(); {PARSE}",
                           str(SAMPLES / "transpose.sm_90.ptx")],
                          capture_output=True, text=True, cwd=cwd, env=env)


def test_grammar_found_from_a_checkout(tmp_path):
    proc = run_parse(REPO / "src", tmp_path)
    assert proc.returncode == 0, proc.stderr
    path, kernels = proc.stdout.split()
    assert path == str(REPO / "grammars" / "ptx.lark") and int(kernels) == 3


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot build a wheel here (needs hatchling from PyPI): {proc.stderr[-300:]}")
    return next(out.glob("ptxlint-*.whl"))


def test_wheel_contains_the_grammar_and_finds_it_when_installed(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as zf:
        assert "ptxlint/grammars/ptx.lark" in zf.namelist()
        assert zf.read("ptxlint/grammars/ptx.lark") == (REPO / "grammars" / "ptx.lark").read_bytes()
        assert zf.read("ptxlint/grammars/launch.lark") == (REPO / "grammars" / "launch.lark").read_bytes()
        assert zf.read("ptxlint/grammars/sass.lark") == (REPO / "grammars" / "sass.lark").read_bytes()
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    proc = run_parse(target, tmp_path)
    assert proc.returncode == 0, proc.stderr
    path, kernels = proc.stdout.split()
    assert path == str(target / "ptxlint" / "grammars" / "ptx.lark") and int(kernels) == 3


def test_sass_grammar_found_by_name_beside_the_ptx_one():
    from ptxlint.frontend.grammar_file import grammar_path, grammar_text

    # the installed wheel's copy or the checkout's: either way, this checkout's grammars, by name
    sass, ptx = grammar_path("sass.lark"), grammar_path()
    assert sass.parent == ptx.parent and sass.read_bytes() == (REPO / "grammars" / "sass.lark").read_bytes()
    assert "instruction_body" in grammar_text("sass.lark") and "instruction_body" not in grammar_text()
