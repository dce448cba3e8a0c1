"""Long fuzz run: mutated committed PTX and generated valid kernels through parse + every rule.

    python bench/fuzz_long.py [-n 100000] [--seed 1] [--time-limit 20] [--budget 2] [--save DIR]
                              [--max-bytes N] [--wall SECONDS]

Prints how many inputs were checked, rejected as input errors, and how many gave internal errors,
escaping exceptions or ran over the time limit (a hang), with one line per distinct signature
(exception type and the innermost ptxlint frame). With --save, each failing input is written to
DIR for minimizing. Exit status 1 when anything failed.

The time limit is CPU seconds per input (SIGPROF: a loaded machine does not make hangs). The
per-kernel analysis budget (--budget, also CPU time) is on, so a slow kernel ends as an
`incomplete` note long before; only an input with many slow kernels, or time spent outside the
analyses (parsing), can run over the limit.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))

import ptx_fuzz  # noqa: E402
import ptx_generators  # noqa: E402


class Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise Hang()


def signature(err: BaseException) -> str:
    """Exception type and the innermost frame inside ptxlint."""
    cause = err.__cause__ or err
    frames = [f for f in traceback.extract_tb(cause.__traceback__) if "ptxlint" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].name}" if frames else "?"
    return f"{type(cause).__name__} in {where}"


def generated(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return ptx_generators.early_exits(rng.randint(1, 60))
    if kind == 1:
        return ptx_generators.nested_loops(rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 80))
    return ptx_generators.chain(rng.randint(1, 80))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=20.0, help="CPU seconds per input before it counts as a hang")
    ap.add_argument("--save", default=None, help="write failing inputs here")
    ap.add_argument("--max-bytes", type=int, default=120_000, help="largest committed PTX to mutate")
    ap.add_argument("--wall", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--budget", type=float, default=2.0, help="analysis budget per kernel, CPU seconds")
    args = ap.parse_args()

    sources = [p.read_text() for p in ptx_fuzz.committed_inputs(REPO, args.max_bytes)]
    rng = random.Random(args.seed)
    signal.signal(signal.SIGPROF, _alarm)
    counts: Counter = Counter()
    failures: Counter = Counter()
    slowest = (0.0, None)
    start = time.monotonic()
    save = Path(args.save) if args.save else None
    if save:
        save.mkdir(parents=True, exist_ok=True)
    done = 0
    for done in range(1, args.n + 1):
        if args.wall and time.monotonic() - start > args.wall:
            done -= 1
            break
        if rng.random() < 0.1:
            text, how = ptx_fuzz.mutate(generated(rng), rng, sources, rng.randint(0, 2))
        else:
            text, how = ptx_fuzz.mutate(rng.choice(sources), rng, sources, rng.randint(1, 4))
        t0 = time.monotonic()
        signal.setitimer(signal.ITIMER_PROF, args.time_limit)
        try:
            counts[ptx_fuzz.check_text(text, budget=args.budget)] += 1
            failed = None
        except Hang:
            failed = f"hang (over {args.time_limit:g} s)"
        except ptx_fuzz.InternalError as err:
            failed = signature(err) if err.__cause__ else str(err)[:120]
        except BaseException as err:  # noqa: BLE001 - escaping the oracle itself
            failed = f"escaped: {signature(err)}"
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        took = time.monotonic() - t0
        if took > slowest[0]:
            slowest = (took, how)
        if failed:
            counts["failed"] += 1
            failures[failed] += 1
            if save and failures[failed] <= 3:
                (save / f"{done:07d}.ptx").write_text(text)
                (save / f"{done:07d}.txt").write_text(f"{failed}\n{how}\n")
        if done % 1000 == 0:
            print(f"  {done} inputs, {time.monotonic() - start:.0f} s, {counts['failed']} failed", flush=True)
    elapsed = time.monotonic() - start
    print(f"{done} inputs in {elapsed:.0f} s ({done / max(elapsed, 1e-9):.1f}/s): "
          f"{counts['ok']} checked, {counts['input-error']} input errors, {counts['failed']} failures")
    hangs = sum(n for s, n in failures.items() if s.startswith("hang"))
    escaped = sum(n for s, n in failures.items() if s.startswith("escaped"))
    print(f"internal errors: {counts['failed'] - hangs - escaped}, escaping exceptions: {escaped}, hangs: {hangs}")
    print(f"slowest input: {slowest[0]:.2f} s ({', '.join(slowest[1] or [])})")
    for sig, n in failures.most_common():
        print(f"  {n:6d}  {sig}")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
