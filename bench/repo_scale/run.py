"""Repository-scale speed: cold vs warm `ptxlint check` over a directory of >= 100 files.

Builds a throwaway tree of generated `.cu` kernels (when nvcc is available) and copies of the
committed sample PTX, then times, each as a fresh process:
  serial cold   -j 1, empty cache        (the baseline)
  parallel cold one job per CPU, empty cache
  warm          the same command again   (every file served from the cache)
and prints the ratios. Usage: python bench/repo_scale/run.py [--files N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

KERNEL = """\
#define TILE {tile}
__global__ void transpose_{i}(float *out, const float *in, int n) {{
    __shared__ float tile[TILE][TILE + {pad}];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y] * {scale}.0f;
}}
"""


def build_tree(root: Path, count: int) -> tuple:
    samples = sorted((REPO / "samples").glob("*.ptx"))
    have_nvcc = shutil.which("nvcc") is not None
    n_cu = count // 2 if have_nvcc else 0
    for i in range(n_cu):
        (root / f"kernel_{i:03}.cu").write_text(KERNEL.format(i=i, tile=(16, 32)[i % 2], pad=int(i % 3 == 0), scale=i + 1))
    n_ptx = count - n_cu
    for i in range(n_ptx):
        src = samples[i % len(samples)]
        # A comment makes each copy distinct content, so the cache cannot share entries.
        (root / f"{src.stem}_{i:03}.ptx").write_text(f"// copy {i}\n" + src.read_text())
    return n_cu, n_ptx


def timed(args, cwd) -> float:
    start = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "ptxlint", "check", "--format", "concise", *args],
                       cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode not in (0, 1) or "Traceback" in r.stderr:
        sys.exit(f"ptxlint failed ({r.returncode}):\n{r.stdout[:2000]}{r.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=120)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ptxlint-bench-") as tmp:
        root = Path(tmp)
        tree = root / "tree"
        tree.mkdir()
        n_cu, n_ptx = build_tree(tree, ns.files)
        print(f"{n_cu} .cu + {n_ptx} .ptx files, {os.cpu_count()} CPUs"
              + ("" if n_cu else " (no nvcc on PATH: .ptx only)"))
        serial = timed(["-j", "1", "--no-cache", "tree"], root)
        cold = timed(["--cache-dir", str(root / "cache"), "tree"], root)
        warm = timed(["--cache-dir", str(root / "cache"), "tree"], root)
        print(f"serial cold   {serial:7.2f} s")
        print(f"parallel cold {cold:7.2f} s   {serial / cold:5.1f}x faster than serial")
        print(f"warm (cached) {warm:7.2f} s   {cold / warm:5.1f}x faster than cold")


if __name__ == "__main__":
    main()
