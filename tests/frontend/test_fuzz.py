"""Fuzzing: no input makes ptxlint fail. Mutated nvcc PTX (lines moved, duplicated, dropped;
numbers, registers and types swapped; bytes flipped; other files spliced in) is either checked or
rejected as an input error at a line, never an internal error or an escaping exception; generated
valid PTX (thread-dependent early exits before shared stores, nested loops, long chains) is always
checked. Bounded for CI (a fixed set of examples; bench/fuzz_long.py runs as many as wanted), and
every input a fuzz run found a crash with is kept, minimized, in data/fuzz/.
"""

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptx_fuzz
import ptx_generators
from support import REPO, run_cli
from ptxlint.api import check_module
from ptxlint.frontend.parser import parse_ptx

SOURCES = [p.read_text() for p in ptx_fuzz.committed_inputs(REPO, limit_bytes=40_000)]
FOUND = sorted((Path(__file__).with_name("data") / "fuzz").glob("*.ptx"))
CI = settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

edits = st.lists(st.tuples(st.sampled_from(ptx_fuzz.MUTATIONS), st.integers(0, 2**32 - 1)), min_size=1, max_size=4)


def _mutated(source: int, steps: list) -> str:
    text = SOURCES[source % len(SOURCES)]
    for kind, seed in steps:
        text = ptx_fuzz._apply(kind, text, random.Random(seed), SOURCES)
    return text


@CI
@given(st.integers(0, 10_000), edits)
def test_mutated_ptx_is_checked_or_rejected_at_a_line(source, steps):
    assert ptx_fuzz.check_text(_mutated(source, steps)) in ("ok", "input-error")


valid_kernels = st.one_of(
    st.builds(ptx_generators.early_exits, st.integers(1, 40)),
    st.builds(ptx_generators.nested_loops, st.integers(1, 4), st.integers(1, 3), st.integers(1, 70)),
    st.builds(ptx_generators.chain, st.integers(1, 60)),
    st.builds(ptx_generators.deep_chain, st.integers(1, 400)),
    st.builds(ptx_generators.predicated_writes, st.integers(1, 60)),
)


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(valid_kernels)
def test_generated_valid_ptx_is_checked_completely(text):
    module = parse_ptx(text, "generated.ptx")  # valid PTX: never an input error
    incomplete = []
    check_module(module, jobs=1, incomplete=incomplete)
    assert incomplete == []


@pytest.mark.parametrize("path", FOUND, ids=[p.stem for p in FOUND])
def test_inputs_that_once_crashed(path):
    """Minimized inputs of crashes earlier fuzz runs found (the file's first line says which)."""
    assert ptx_fuzz.check_text(path.read_text(), path.name) in ("ok", "input-error")


def test_the_cli_never_prints_a_traceback_or_an_internal_error(tmp_path):
    rng = random.Random(12)
    for k in range(10):
        text, _ = ptx_fuzz.mutate(rng.choice(SOURCES), rng, SOURCES, rng.randint(1, 3))
        (tmp_path / f"m{k:02}.ptx").write_text(text)
    (tmp_path / "deep.ptx").write_text(ptx_generators.deep_chain(3000))
    proc = run_cli("check", "--no-cache", "--isolated", "-j", "1", tmp_path)
    assert proc.returncode in (0, 1, 2)
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "internal error" not in proc.stdout


def test_the_long_run_adds_up_its_workers(tmp_path):
    """bench/fuzz_long.py with --workers: every worker's inputs are counted in the one summary."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "fuzz_long.py"), "-n", "6", "--workers", "2",
                           "--seed", "5", "--max-bytes", "8000", "--save", str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 inputs in" in proc.stdout
    assert "internal errors: 0, escaping exceptions: 0, hangs: 0, dead workers: 0" in proc.stdout
    assert "per worker (seed: inputs): 5: 3, 6: 3" in proc.stdout
