"""Long fuzz run: mutated committed PTX and generated valid kernels through parse + every rule;
with --cli, hostile checkouts through the whole command line (tests/cli_fuzz.py).

    python bench/fuzz_long.py [-n 100000] [--seed 1] [--workers N] [--time-limit 20] [--budget 2]
                              [--save DIR] [--max-bytes N] [--wall SECONDS] [--memory-limit MB]
    python bench/fuzz_long.py --cli [--kinds names,trees,...] [--subprocess] [-n N] [--workers N] ...

--cli: each input is one input kind of tests/cli_fuzz.py (file names, directory trees, configs,
cache entries, host code, the accesses/kernels/launches commands, and `.cu` files when nvcc is
installed), drawn in turn; a failure is a broken clause of its contract (exit status, traceback,
internal error, a command run, the secret printed, a file written outside the tree, a hang over
--time-limit wall seconds). The summary gives inputs and failures per kind. --subprocess runs
`python -m ptxlint` for each input instead of a fork calling the CLI in-process.

Prints how many inputs were checked, rejected as input errors, and how many gave internal errors,
escaping exceptions or ran over the time limit (a hang), with one line per distinct signature
(exception type and the innermost ptxlint frame). With --save, each failing input is written to
DIR for minimizing (bench/fuzz_minimize.py). Exit status 1 when anything failed.

`--workers N` runs N processes, worker k with seed `--seed + k` and its share of `-n`; their
counts and signatures are added up (a worker that dies is itself a failure). Every worker stops at
`--wall` seconds. The run is reproducible from its seeds: a worker's inputs depend only on its seed.

The time limit is CPU seconds per input (SIGPROF: a loaded machine does not make hangs). The
per-kernel analysis budget (--budget, also CPU time) is on, so a slow kernel ends as an
`incomplete` note long before; only an input with many slow kernels, or time spent outside the
analyses (parsing), can run over the limit. `--memory-limit` caps each worker's address space, so
a runaway allocation is a MemoryError (a failure) rather than the machine's memory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))

import cli_fuzz  # noqa: E402
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
    """A valid kernel from one of the generators, at a random size."""
    kind = rng.randrange(7)
    if kind == 0:
        return ptx_generators.early_exits(rng.randint(1, 60))
    if kind == 1:
        return ptx_generators.nested_loops(rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 80))
    if kind == 2:
        return ptx_generators.chain(rng.randint(1, 80))
    if kind == 3:
        return ptx_generators.deep_chain(rng.randint(1, 400))
    if kind == 4:
        return ptx_generators.predicated_writes(rng.randint(1, 60))
    if kind == 5:
        return ptx_generators.inlined_chain(rng.randint(1, 200))
    return ptx_generators.call_chain(rng.randint(1, 40))


def run_worker(worker: int, seed: int, n: int, args, sources: list, state_path: Path | None) -> dict:
    """Check `n` inputs drawn with `seed` (stopping at args.wall); the counts, failure signatures
    and slowest input. With `state_path`, the state is also written there every few inputs, so a
    worker that dies still leaves what it did."""
    rng = random.Random(seed)
    signal.signal(signal.SIGPROF, _alarm)
    counts: Counter = Counter()
    failures: Counter = Counter()
    slowest = [0.0, []]
    start = time.monotonic()
    save = Path(args.save) if args.save else None
    tag = f"w{worker:02d}-" if args.workers > 1 else ""
    done = 0

    def state(final: bool) -> dict:
        return {"worker": worker, "seed": seed, "done": done, "counts": dict(counts),
                "failures": dict(failures), "slowest": slowest, "final": final,
                "elapsed": time.monotonic() - start}

    for index in range(1, n + 1):
        if args.wall and time.monotonic() - start > args.wall:
            break
        if args.cli:
            kind = args.kinds[(index + worker) % len(args.kinds)]
            t0 = time.monotonic()
            broken, case, outcome = cli_fuzz.fuzz(kind, rng, sources, args.time_limit, args.subprocess)
            done = index
            counts[f"{kind}:inputs"] += 1
            took = time.monotonic() - t0
            if took > slowest[0]:
                slowest = [took, [kind] + case.how[:2]]
            if broken:
                counts["failed"] += 1
                counts[f"{kind}:failed"] += 1
                for b in broken:
                    failures[f"{kind}: {b}"] += 1
                    if save and failures[f"{kind}: {b}"] <= 3:
                        (save / f"{tag}{index:07d}.json").write_text(cli_fuzz.describe(case, outcome))
            else:
                counts["ok"] += 1
            if state_path and index % 10 == 0:
                _write_state(state_path, state(False))
            if index % 100 == 0:
                print(f"  {tag}{index} inputs, {time.monotonic() - start:.0f} s, {counts['failed']} failed", flush=True)
            continue
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
        done = index
        took = time.monotonic() - t0
        if took > slowest[0]:
            slowest = [took, how]
        if failed:
            counts["failed"] += 1
            failures[failed] += 1
            if save and failures[failed] <= 3:
                (save / f"{tag}{index:07d}.ptx").write_text(text)
                (save / f"{tag}{index:07d}.txt").write_text(f"{failed}\nseed {seed}, input {index}\n{how}\n")
        if state_path and index % 50 == 0:
            _write_state(state_path, state(False))
        if index % 1000 == 0:
            print(f"  {tag}{index} inputs, {time.monotonic() - start:.0f} s, {counts['failed']} failed", flush=True)
    result = state(True)
    if state_path:
        _write_state(state_path, result)
    return result


def _write_state(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state))
    tmp.replace(path)


def _limit_memory(megabytes: int) -> None:
    if megabytes:
        import resource
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_workers(args, sources: list) -> list:
    """Fork args.workers processes (seeds args.seed + k) and collect their states; a worker that
    died is reported with what it had written and its exit status."""
    per, extra = divmod(args.n, args.workers)
    states = []
    with tempfile.TemporaryDirectory() as tmp:
        children = {}
        for k in range(args.workers):
            path = Path(tmp) / f"w{k}.json"
            pid = os.fork()
            if pid == 0:  # the worker: its own loop, then out without the parent's cleanup
                status = 0
                try:
                    _limit_memory(args.memory_limit)
                    run_worker(k, args.seed + k, per + (k < extra), args, sources, path)
                except BaseException:  # noqa: BLE001 - reported by the parent as a dead worker
                    traceback.print_exc()
                    status = 3
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(status)
            children[pid] = (k, path)
        for pid, (k, path) in children.items():
            _, status = os.waitpid(pid, 0)
            state = json.loads(path.read_text()) if path.exists() else \
                {"worker": k, "seed": args.seed + k, "done": 0, "counts": {}, "failures": {}, "slowest": [0.0, []]}
            code = os.waitstatus_to_exitcode(status)
            if code != 0 or not state.get("final"):
                # the inputs since its last state are not counted; the death itself is one failure
                state["failures"][f"worker died (exit status {code})"] = 1
                state["counts"]["failed"] = state["counts"].get("failed", 0) + 1
            states.append(state)
    return states


def machine() -> str:
    """CPU model and count, OS and Python: where the numbers were taken."""
    model = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=100_000, help="inputs in all (shared among the workers)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first worker; worker k has seed + k")
    ap.add_argument("--workers", type=int, default=1, help="processes (0: one per CPU)")
    ap.add_argument("--time-limit", type=float, default=20.0, help="CPU seconds per input before it counts as a hang")
    ap.add_argument("--save", default=None, help="write failing inputs here")
    ap.add_argument("--max-bytes", type=int, default=120_000, help="largest committed PTX to mutate")
    ap.add_argument("--wall", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--budget", type=float, default=2.0, help="analysis budget per kernel, CPU seconds")
    ap.add_argument("--memory-limit", type=int, default=4096, help="MB of address space per worker (0: none; --workers > 1 only)")
    ap.add_argument("--cli", action="store_true", help="fuzz the command line on hostile checkouts (cli_fuzz.py)")
    ap.add_argument("--kinds", default=None, help="--cli: comma-separated input kinds (default: all; `cu` needs nvcc)")
    ap.add_argument("--subprocess", action="store_true", help="--cli: run `python -m ptxlint` per input")
    args = ap.parse_args()
    if args.workers <= 0:
        args.workers = os.cpu_count() or 1
    if args.cli:
        kinds = args.kinds.split(",") if args.kinds else [
            k for k in cli_fuzz.KINDS if k != "cu" or cli_fuzz.nvcc_available()]
        unknown = set(kinds) - set(cli_fuzz.KINDS)
        if unknown:
            ap.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(cli_fuzz.KINDS)}")
        args.kinds = kinds
        args.memory_limit = 0  # each input's process has its own cap (cli_fuzz.MEMORY_LIMIT)
        args.max_bytes = min(args.max_bytes, 40_000)  # small checkouts: many inputs

    sources = [p.read_text() for p in ptx_fuzz.committed_inputs(REPO, args.max_bytes)]
    if args.save:
        Path(args.save).mkdir(parents=True, exist_ok=True)
    print(f"fuzz_long: {len(sources)} committed PTX files (<= {args.max_bytes} bytes), {args.workers} worker(s), "
          f"seeds {args.seed}..{args.seed + args.workers - 1}, time limit {args.time_limit:g} s, "
          f"budget {args.budget:g} s; {machine()}", flush=True)
    start = time.monotonic()
    if args.workers == 1:
        states = [run_worker(0, args.seed, args.n, args, sources, None)]
    else:
        states = run_workers(args, sources)
    elapsed = time.monotonic() - start

    counts: Counter = Counter()
    failures: Counter = Counter()
    slowest = (0.0, [])
    for s in states:
        counts.update(s["counts"])
        failures.update(s["failures"])
        if s["slowest"][0] > slowest[0]:
            slowest = (s["slowest"][0], s["slowest"][1])
    done = sum(s["done"] for s in states)
    def bare(sig: str) -> str:  # --cli signatures start with their input kind
        return sig.split(": ", 1)[1] if args.cli and not sig.startswith("worker died") else sig

    hangs = sum(n for sig, n in failures.items() if bare(sig).startswith("hang"))
    escaped = sum(n for sig, n in failures.items() if bare(sig).startswith(("escaped", "exception")))
    died = sum(n for sig, n in failures.items() if sig.startswith("worker died"))
    print(f"{done} inputs in {elapsed:.0f} s ({done / max(elapsed, 1e-9):.1f}/s, {args.workers} worker(s)): "
          f"{counts['ok']} checked, {counts['input-error']} input errors, {counts['failed']} failures")
    print(f"internal errors: {counts['failed'] - hangs - escaped - died}, escaping exceptions: {escaped}, "
          f"hangs: {hangs}, dead workers: {died}")
    print(f"slowest input: {slowest[0]:.2f} s ({', '.join(slowest[1] or [])})")
    if args.workers > 1:
        print("per worker (seed: inputs): " + ", ".join(f"{s['seed']}: {s['done']}" for s in states))
    if args.cli:
        print("per input kind (inputs, failed):")
        for kind in args.kinds:
            print(f"  {kind:9} {counts[kind + ':inputs']:7d} {counts[kind + ':failed']:7d}")
    for sig, n in failures.most_common():
        print(f"  {n:6d}  {sig}")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
