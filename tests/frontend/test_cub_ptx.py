"""A freshly generated ~5 MB CUB PTX (radix sort, reduce, scan over several types) parses with
zero errors and keeps every instruction."""

import shutil
import subprocess

import pytest

from support import REPO
from test_parser import line_level_instruction_counts
from ptxlint.frontend.parser import parse_ptx_file


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH: cannot generate the CUB PTX")
def test_fresh_cub_ptx_parses_completely(tmp_path):
    ptx = tmp_path / "cub_sm90.ptx"
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-lineinfo", str(REPO / "bench" / "cub" / "cub_instances.cu"),
                    "-o", str(ptx)], check=True, capture_output=True)
    assert ptx.stat().st_size > 4_000_000
    module = parse_ptx_file(str(ptx))
    got = {f.name: len(f.instructions) for f in module.functions if f.has_body}
    assert got == line_level_instruction_counts(ptx.read_text())
    assert len(module.kernels) >= 40
