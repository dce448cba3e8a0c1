"""Paths and helpers shared by the test modules (imported as `support`)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
VALIDATION = REPO / "validation"


def committed_ptx_files():
    """Every PTX file committed in samples/ and validation/."""
    files = sorted(SAMPLES.rglob("*.ptx")) + sorted(VALIDATION.rglob("*.ptx"))
    # validation/realworld/ holds a local, git-ignored corpus of fetched code: not committed, checked by
    # tests/validation/test_realworld.py alone
    local = VALIDATION / "realworld"
    return [f for f in files if f.stat().st_size > 0 and local not in f.parents]


def run_cli(*args, cwd=None, input=None):
    """Run `python -m ptxlint ARGS` as a user would; returns CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "ptxlint", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, input=input,
    )


def nvcc_available():
    return shutil.which(os.environ.get("NVCC", "nvcc")) is not None


_MARKER = re.compile(r"//\s*EXPECT\s+(\w+)")


def expected_markers(source: Path, kernel: str = None) -> set:
    """(code, line) of every `// EXPECT CODE` marker of a labelled `.cu` file; with `kernel`, only
    those in its definition (from its `void kernel(` line to the next `extern "C"` definition)."""
    lines = Path(source).read_text().splitlines()
    start, end = 0, len(lines)
    if kernel is not None:
        start = next(n for n, line in enumerate(lines) if f"void {kernel}(" in line)
        end = next((n for n, line in enumerate(lines) if n > start and line.startswith('extern "C"')), end)
    return {(m.group(1), n + 1) for n in range(start, end) for m in [_MARKER.search(lines[n])] if m}


def findings_by_kernel(ptx: Path, select: list) -> dict:
    """kernel -> [Diagnostic] of the rule families `select` on a committed labelled PTX, checked as
    `check` runs it (no configuration); the file must have no input error."""
    from ptxlint.api import CheckOptions, check_file

    result = check_file(str(ptx), CheckOptions(select=select, use_config=False))
    assert not result.errors, result.errors
    found: dict = {}
    for d in result.diagnostics:
        found.setdefault(d.kernel, []).append(d)
    return found
