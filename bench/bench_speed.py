"""Speed of ptxlint on a large PTX, against ptxas on the same file in the same run.

    python bench/bench_speed.py [PTX]     (default: bench/cub/cub_sm90.ptx, built by
                                           bench/cub/make_cub_ptx.sh when missing)

Prints wall-clock seconds of three processes and their ratios to ptxas:
  ptxas -arch=sm_90 PTX -o /dev/null
  ptxlint parse + IR            (python -c: parse_ptx_file)
  ptxlint check --select BANK   (parse + the bank-conflict analysis)
  ptxlint check, all rules      (python -m ptxlint check --no-cache)
Targets: parse+IR <= 1.0x ptxas (foundation issue); product goal: check <= 0.5x ptxas.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "cub" / "cub_sm90.ptx"


def timed(cmd: list, env=None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return elapsed


def main() -> int:
    ptx = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not ptx.exists():
        if ptx != DEFAULT or shutil.which(os.environ.get("NVCC", "nvcc")) is None:
            sys.exit(f"{ptx}: missing; build it with bench/cub/make_cub_ptx.sh (needs nvcc)")
        subprocess.run(["bash", str(HERE / "cub" / "make_cub_ptx.sh")], check=True)
    ptxas = shutil.which("ptxas") or str(Path(shutil.which("nvcc") or "nvcc").with_name("ptxas"))
    env = dict(os.environ, PYTHONPATH=str(HERE.parent / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    size = ptx.stat().st_size / 1e6
    t_ptxas = timed([ptxas, "-arch=sm_90", str(ptx), "-o", os.devnull])
    t_parse = timed([sys.executable, "-c", f"from ptxlint.frontend.parser import parse_ptx_file; "
                                           f"parse_ptx_file({str(ptx)!r})"], env)
    t_bank = timed([sys.executable, "-m", "ptxlint", "check", "--no-cache", "--select", "BANK", "--format", "concise",
                    str(ptx)], env)
    t_check = timed([sys.executable, "-m", "ptxlint", "check", "--no-cache", "--format", "concise", str(ptx)], env)
    print(f"{ptx.name}: {size:.1f} MB, {os.cpu_count()} cores")
    print(f"  ptxas -arch=sm_90          {t_ptxas:7.2f} s   1.00x")
    print(f"  ptxlint parse + IR         {t_parse:7.2f} s   {t_parse / t_ptxas:.2f}x   (target <= 1.0x)")
    print(f"  ptxlint check --select BANK {t_bank:6.2f} s   {t_bank / t_ptxas:.2f}x")
    print(f"  ptxlint check, all rules   {t_check:7.2f} s   {t_check / t_ptxas:.2f}x   (product goal <= 0.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
