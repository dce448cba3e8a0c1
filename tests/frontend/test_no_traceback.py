"""Damaged PTX never escapes as an exception other than InputError (which the CLI prints as
path:line:col and exit 2)."""

import random

import pytest

from support import SAMPLES
from ptxlint.errors import InputError
from ptxlint.frontend.parser import parse_ptx

SOURCE = (SAMPLES / "reduce_warp_tail.sm_90.ptx").read_text()


def mutations(seed: int, count: int):
    rng = random.Random(seed)
    lines = SOURCE.split("\n")
    for _ in range(count):
        copy = list(lines)
        i = rng.randrange(len(copy))
        kind = rng.choice(["drop-line", "drop-char", "dup-line", "swap-char"])
        if kind == "drop-line":
            del copy[i]
        elif kind == "dup-line":
            copy.insert(i, copy[i])
        elif copy[i]:
            j = rng.randrange(len(copy[i]))
            ch = rng.choice("{}[]();,.%@!|+-x0 ") if kind == "swap-char" else ""
            copy[i] = copy[i][:j] + ch + copy[i][j + 1:]
        yield kind, i + 1, "\n".join(copy)


@pytest.mark.parametrize("seed", range(4))
def test_damaged_ptx_gives_input_errors_with_a_line(seed):
    for kind, line, text in mutations(seed, 40):
        try:
            parse_ptx(text, "damaged.ptx")
        except InputError as err:
            assert err.path == "damaged.ptx" and err.line is not None and err.line >= 1, (kind, line, err)
