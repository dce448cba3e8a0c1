"""Speed of ptxlint on a large PTX, against ptxas on the same file in the same run.

    python bench/bench_speed.py [PTX] [--repeat N]   (default: bench/cub/cub_sm90.ptx, built by
                                                     bench/cub/make_cub_ptx.sh when missing; N = 3)

Runs each command N times, interleaved (so a burst of load hits all of them alike), and prints
the median wall-clock seconds and CPU seconds (user + system of the process and its children:
ptxlint forks workers for a large file), each with its ratio to ptxas:
  ptxas -arch=sm_90 PTX -o /dev/null
  ptxlint parse + IR            (python -c: parse_ptx_file)
  ptxlint check, all rules      (python -m ptxlint check --no-cache)
  ptxlint check --toolkit-headers --select BANK, and all rules: every kernel analysed
Targets: parse+IR <= 1.0x ptxas (foundation issue); product goal: check <= 0.5x ptxas.

The benchmark file is CUB's own kernels, instantiated by a user's calls: as a user runs it
(`check`), kernels wholly inside toolkit headers are not analysed (their findings would be hidden:
not the user's to fix), so that line is mostly the parse. The `--toolkit-headers` lines analyse
every kernel, as for a user's own kernels: they measure the analysis engine.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "cub" / "cub_sm90.ptx"


def timed(cmd: list, env=None) -> tuple:
    """(wall seconds, CPU seconds) of one run of `cmd`."""
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    after = os.times()
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return elapsed, cpu


def main() -> int:
    args = sys.argv[1:]
    repeat = 3
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i:i + 2]
    ptx = Path(args[0]) if args else DEFAULT
    if not ptx.exists():
        if ptx != DEFAULT or shutil.which(os.environ.get("NVCC", "nvcc")) is None:
            sys.exit(f"{ptx}: missing; build it with bench/cub/make_cub_ptx.sh (needs nvcc)")
        subprocess.run(["bash", str(HERE / "cub" / "make_cub_ptx.sh")], check=True)
    ptxas = shutil.which("ptxas") or str(Path(shutil.which("nvcc") or "nvcc").with_name("ptxas"))
    env = dict(os.environ, PYTHONPATH=str(HERE.parent / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # as on a user's machine, where pip compiled ptxlint at install: Python reuses the bytecode
    # instead of compiling every module on every run (some sandboxes turn that off)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    size = ptx.stat().st_size / 1e6
    commands = {
        "ptxas": ([ptxas, "-arch=sm_90", str(ptx), "-o", os.devnull], None),
        "parse": ([sys.executable, "-c", f"from ptxlint.frontend.parser import parse_ptx_file; "
                                         f"parse_ptx_file({str(ptx)!r})"], env),
        "check": ([sys.executable, "-m", "ptxlint", "check", "--no-cache", "--format", "concise", str(ptx)], env),
        "bank": ([sys.executable, "-m", "ptxlint", "check", "--no-cache", "--toolkit-headers", "--select", "BANK",
                  "--format", "concise", str(ptx)], env),
        "engine": ([sys.executable, "-m", "ptxlint", "check", "--no-cache", "--toolkit-headers", "--format", "concise",
                    str(ptx)], env),
    }
    times: dict = {name: [] for name in commands}
    cpus: dict = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (cmd, cmd_env) in commands.items():
            wall, cpu = timed(cmd, cmd_env)
            times[name].append(wall)
            cpus[name].append(cpu)
    wall = {name: statistics.median(times[name]) for name in commands}
    cpu = {name: statistics.median(cpus[name]) for name in commands}
    print(f"{ptx.name}: {size:.1f} MB, {os.cpu_count()} cores, median of {repeat} runs")
    print(f"  {'':28}{'wall s':>8}{'ratio':>8}{'CPU s':>9}{'ratio':>8}")
    goals = {"parse": "(target <= 1.0x wall)", "engine": "(goal: <= 0.5x wall, <= 1.0x CPU)",
             "check": "(goal: <= 0.5x wall, <= 1.0x CPU)"}
    labels = {"ptxas": "ptxas -arch=sm_90", "parse": "ptxlint parse + IR", "bank": "  BANK, every kernel",
              "engine": "  all rules, every kernel", "check": "ptxlint check, all rules"}
    for name in commands:
        if name == "bank":
            print("  ptxlint check --toolkit-headers (the CUB kernels analysed too, as for the user's own):")
        print(f"  {labels[name]:<28}{wall[name]:8.2f}{wall[name] / wall['ptxas']:7.2f}x{cpu[name]:9.2f}"
              f"{cpu[name] / cpu['ptxas']:7.2f}x   {goals.get(name, '')}".rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
