"""The command line keeps its contract on hostile checkouts (tests/cli_fuzz.py): exit 0/1/2, no
traceback or internal error, no command run from a name or a configuration, nothing outside the
tree printed or written, no hang. A short run of every input kind; bench/fuzz_long.py --cli is the
long one (issue 18)."""

import os
import random
from collections import Counter

import pytest

import cli_fuzz
from support import REPO

PER_KIND = int(os.environ.get("PTXLINT_CLI_FUZZ_N", "12"))
SOURCES = cli_fuzz._sources(REPO)

# Every violation fails the test (the read gate, nvcc on a safe-named copy, the repository-config
# policy and the signed, validated cache closed the classes an earlier run found).
OPEN_ELSEWHERE: dict = {}


def _kinds():
    return [k for k in cli_fuzz.KINDS if k != "cu" or cli_fuzz.nvcc_available()]


def _run_kind(kind: str) -> Counter:
    found: Counter = Counter()
    for i in range(PER_KIND if kind != "cu" else 3):
        rng = random.Random(f"{kind}-{i}")
        broken, case, outcome = cli_fuzz.fuzz(kind, rng, SOURCES, time_limit=20)
        for b in broken:
            found[(b, cli_fuzz.describe(case, outcome))] += 1
    return found


@pytest.mark.parametrize("kind", _kinds())
def test_cli_contract(kind):
    found = _run_kind(kind)
    allowed = OPEN_ELSEWHERE.get(kind, ())
    unexpected = [what for (b, what) in found if not b.startswith(allowed)]
    assert unexpected == []


def test_a_hostile_name_reaches_the_parser_as_a_name():
    # the harness itself: a name with `$(...)` is made, checked and removed
    box = cli_fuzz.Sandbox(random.Random(1))
    try:
        (box.tree / "a$(touch PWNED).ptx").write_text(SOURCES[0])
        case = cli_fuzz.Case("names", ["check", "--no-cache", "-j", "1", "."], box.tree)
        outcome = cli_fuzz.run_case(case, box, random.Random(1), 30, False)
        assert outcome.code in (0, 1) and outcome.exception is None
        assert cli_fuzz.violations(case, box, outcome, box.snapshot_outside()) == []
    finally:
        box.remove()
    assert not box.root.exists()
