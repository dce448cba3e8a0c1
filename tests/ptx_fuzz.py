"""Mutations of PTX text and the oracle the fuzz tests share with bench/fuzz_long.py (imported as
`ptx_fuzz`).

An input passes when ptxlint either checks it or rejects it with an InputError that names a
line: anything else (an exception, an "internal error" result) is a bug in ptxlint, whatever the
input was.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Optional

_NUMBER = re.compile(r"(?<![%\w$])-?\d+(?![\w$])")
_REGISTER = re.compile(r"%[a-z]+\d+")
_TYPE = re.compile(r"\.(?:[usb](?:8|16|32|64)|f(?:16|32|64)|pred)\b")
NUMBERS = ["0", "1", "-1", "2", "3", "31", "32", "33", "64", "255", "1024", "1025", "4096", "65535",
           "2147483647", "-2147483648", "4294967295", "18446744073709551615", "99999999999999999999999"]
TYPES = [".u8", ".s16", ".u32", ".s32", ".b32", ".u64", ".s64", ".b64", ".f16", ".f32", ".f64", ".pred", ".b128"]
MUTATIONS = ("move-line", "dup-line", "drop-line", "number", "register", "type", "byte", "splice", "dup-block")


def mutate(text: str, rng: random.Random, donors: list = (), count: int = 1) -> tuple:
    """(mutated text, [mutation names]) after `count` random edits of `text`."""
    names = []
    for _ in range(count):
        kind = rng.choice(MUTATIONS)
        text = _apply(kind, text, rng, donors)
        names.append(kind)
    return text, names


def _apply(kind: str, text: str, rng: random.Random, donors) -> str:
    lines = text.split("\n")
    if not lines:
        return text
    i = rng.randrange(len(lines))
    if kind == "move-line":
        line = lines.pop(i)
        lines.insert(rng.randrange(len(lines) + 1), line)
    elif kind == "dup-line":
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    elif kind == "drop-line":
        del lines[i]
    elif kind == "dup-block":
        j = min(len(lines), i + rng.randint(1, 12))
        lines[j:j] = lines[i:j]
    elif kind in ("number", "register", "type"):
        pattern = {"number": _NUMBER, "register": _REGISTER, "type": _TYPE}[kind]
        found = list(pattern.finditer(text))
        if not found:
            return text
        m = rng.choice(found)
        if kind == "number":
            new = rng.choice(NUMBERS)
        elif kind == "register":
            new = rng.choice(found).group(0) if rng.random() < 0.8 else f"%r{rng.randint(0, 99999)}"
        else:
            new = rng.choice(TYPES)
        return text[:m.start()] + new + text[m.end():]
    elif kind == "byte":
        if not text:
            return text
        k = rng.randrange(len(text))
        ch = chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 32), rng.randrange(128, 0x2FF)]))
        return text[:k] + ch + text[k + 1:]
    elif kind == "splice":
        other = rng.choice(donors).split("\n") if donors else lines
        a = rng.randrange(len(other))
        b = min(len(other), a + rng.randint(1, 40))
        lines[i:i] = other[a:b]
    return "\n".join(lines)


def committed_inputs(repo: Path, limit_bytes: int = 200_000) -> list:
    """Committed nvcc PTX small enough to mutate quickly, by path."""
    files = sorted(repo.glob("samples/*.ptx")) + sorted(repo.glob("tests/**/*.ptx")) \
        + sorted(repo.glob("validation/**/*.ptx"))
    return [f for f in files if 0 < f.stat().st_size <= limit_bytes]


class InternalError(AssertionError):
    """ptxlint failed on an input in a way no input may make it fail."""


def check_text(text: str, path: str = "fuzz.ptx", budget: Optional[float] = None) -> str:
    """Parse and check PTX text with every rule (each kernel within `budget` CPU seconds, None: the
    default); returns "ok" or "input-error", raises InternalError for anything else."""
    from ptxlint.analysis.context import AnalysisOptions
    from ptxlint.api import CheckOptions, check_module
    from ptxlint.errors import InputError
    from ptxlint.frontend.parser import parse_ptx

    try:
        module = parse_ptx(text, path)
    except InputError as err:
        if err.path != path or err.line is None or err.line < 1:
            raise InternalError(f"input error without a line: {err}") from None
        return "input-error"
    except Exception as err:  # noqa: BLE001 - the oracle: nothing else may escape
        raise InternalError(f"parse: {type(err).__name__}: {err}") from err
    try:
        options = CheckOptions(analysis=AnalysisOptions(budget=budget)) if budget is not None else None
        check_module(module, options, jobs=1)
    except InputError as err:  # e.g. a directive the analysis rejects, at its line
        if err.line is None:
            raise InternalError(f"input error without a line: {err}") from None
        return "input-error"
    except Exception as err:  # noqa: BLE001
        raise InternalError(f"check: {type(err).__name__}: {err}") from err
    return "ok"


def failure_signature(text: str, time_limit: float = 10.0) -> Optional[str]:
    """How ptxlint fails on `text` ("RecursionError in lanes.py:block_active", "hang"), or None
    when it does not. `time_limit` is CPU seconds (SIGPROF; main thread only)."""
    import signal
    import traceback

    class _Late(BaseException):
        pass

    def late(signum, frame):
        raise _Late()

    previous = signal.signal(signal.SIGPROF, late)
    signal.setitimer(signal.ITIMER_PROF, time_limit)
    try:
        check_text(text)
        return None
    except _Late:
        return "hang"
    except InternalError as err:
        cause = err.__cause__
        if cause is None:
            return str(err)[:80]
        if isinstance(cause, RecursionError):
            return "RecursionError"  # where the limit strikes varies with the input
        frames = [f for f in traceback.extract_tb(cause.__traceback__) if "ptxlint" in f.filename]
        return f"{type(cause).__name__} in {Path(frames[-1].filename).name}:{frames[-1].name}" if frames else \
            type(cause).__name__
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def minimize(text: str, still_fails, max_tests: int = 2000) -> str:
    """The smallest set of `text`'s lines (delta debugging, then one line at a time) for which
    `still_fails(candidate)` is true."""
    lines = text.split("\n")
    tests = 0
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and tests < max_tests:
        k = 0
        removed = False
        while k < len(lines) and tests < max_tests:
            candidate = lines[:k] + lines[k + chunk:]
            tests += 1
            if candidate and still_fails("\n".join(candidate)):
                lines = candidate
                removed = True
            else:
                k += chunk
        if not removed:
            chunk //= 2
    return "\n".join(lines)
