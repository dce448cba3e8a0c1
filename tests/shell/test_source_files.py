"""`.file` paths are the PTX author's to choose: ptxlint reads a source (for the snippet and the
suppression comments) only when it is a regular file of bounded size inside the checked tree.
Nothing of another file may reach the text, SARIF or GitHub output, and a device file must not
hang the run."""

import re
import sys
from pathlib import Path

import pytest

from support import SAMPLES, run_cli

TRANSPOSE = (SAMPLES / "transpose.sm_90.ptx").read_text()
FORMATS = ("text", "sarif", "github", "json")


def _naming(source: str) -> str:
    """The transpose sample, its `.file 1` pointing at `source`."""
    text, n = re.subn(r'\.file\s+1\s+"[^"]*"', f'.file\t1 "{source}"', TRANSPOSE)
    assert n == 1
    return text


def _check(tmp_path, source, fmt, extra=()):
    ptx = tmp_path / "proj" / "kernel.ptx"
    ptx.parent.mkdir(exist_ok=True)
    ptx.write_text(_naming(source))
    return run_cli("check", "--no-cache", "--isolated", "--block", "32x8", "--select", "BANK", "--format", fmt,
                   *extra, ptx, cwd=ptx.parent)


def _lines_of(path: str) -> list:
    return [line.strip() for line in Path(path).read_text(errors="replace").split("\n") if len(line.strip()) > 3]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_outside_the_checked_tree_is_never_printed(tmp_path, fmt):
    secret = tmp_path / "home" / "secrets.txt"  # long enough for every line the findings point at
    secret.parent.mkdir()
    secret.write_text("".join(f"token-{n}-do-not-print\n" for n in range(200)))
    sources = [str(secret)] + (["/etc/passwd"] if Path("/etc/passwd").is_file() else [])
    for source in sources:
        result = _check(tmp_path, source, fmt)
        assert result.returncode == 1, result.stderr  # the finding is still reported, at that path
        assert "BANK001" in result.stdout and "Traceback" not in result.stderr
        assert source in result.stdout or fmt == "sarif"
        for line in _lines_of(source):
            assert line not in result.stdout, (source, fmt)


@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero"])
def test_a_device_named_as_source_neither_hangs_nor_prints(tmp_path, device):
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    for fmt in ("text", "sarif"):
        result = _check(tmp_path, device, fmt)  # run_cli has no timeout: a hang fails the suite's own
        assert result.returncode == 1 and "Traceback" not in result.stderr and "MemoryError" not in result.stdout
        assert "BANK001" in result.stdout


def test_suppressions_are_not_read_from_outside_the_checked_tree(tmp_path):
    outside = tmp_path / "elsewhere" / "transpose.cu"
    outside.parent.mkdir()
    outside.write_text("// ptxlint: ignore-file[BANK]\n")
    assert "BANK001" in _check(tmp_path, str(outside), "concise").stdout
    # the same file inside the checked tree does suppress
    inside = tmp_path / "proj" / "transpose.cu"
    inside.parent.mkdir(exist_ok=True)
    inside.write_text("// ptxlint: ignore-file[BANK]\n")
    result = _check(tmp_path, str(inside), "concise")
    assert result.returncode == 0 and "BANK001" not in result.stdout


def test_large_and_special_files_are_not_read(tmp_path):
    from ptxlint import gate

    big = tmp_path / "big.cu"
    big.write_bytes(b"x\n" * (gate.MAX_SOURCE_BYTES // 2 + 1))
    small = tmp_path / "small.cu"
    small.write_text("int x;\n")
    fifo = tmp_path / "pipe.cu"
    import os

    os.mkfifo(fifo)
    gate.trust_directory(str(tmp_path))
    assert gate.read_lines(str(small)) == ["int x;", ""]
    assert gate.read_lines(str(big)) is None
    assert gate.read_lines(str(fifo)) is None  # and does not block waiting for a writer
    link = tmp_path / "link.cu"
    link.symlink_to("/etc/hostname" if Path("/etc/hostname").exists() else sys.executable)
    assert gate.read_lines(str(link)) is None  # a link out of the tree is judged by its target
