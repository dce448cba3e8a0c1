"""Helpers for the SASS tests (imported as `sass_support`)."""

import gzip

import pytest

from support import REPO, VALIDATION
from ptxlint.frontend.sass.tools import find_tool

SASS_DUMPS = REPO / "tests" / "frontend" / "data" / "sass"

needs_tools = pytest.mark.skipif(
    find_tool("ptxas") is None or find_tool("nvdisasm") is None,
    reason="ptxas/nvdisasm not found (CUDA toolkit, or NVIDIA's sass wheels)")


def committed_listings():
    """(name, text) of every SASS listing committed in the repository."""
    out = [(p.name, p.read_text()) for p in sorted(SASS_DUMPS.glob("*.sass"))]
    for p in sorted(REPO.glob("validation/**/*.sass.gz")) + sorted(REPO.glob("validation/**/sass_lines.txt.gz")):
        out.append((p.name, gzip.decompress(p.read_bytes()).decode()))
    return out


def reference_sass_text():
    return gzip.decompress((VALIDATION / "reference" / "smem_patterns_h100.sm_90.sass.gz").read_bytes()).decode()
