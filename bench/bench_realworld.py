#!/usr/bin/env python3
"""ptxlint against the compiler it runs, file by file, on the real-world corpus (issue 19).

For every `.cu` of validation/realworld/corpus.json present here, in the same run:
  nvcc      `nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 ...` of the file (wall seconds);
  ptxlint   `ptxlint check --no-cache --isolated --format json` of the same file (wall seconds),
            which runs that same nvcc once;
  own       ptxlint minus nvcc: what the analysis adds to the compile a user pays anyway.
Prints each file's ratio own/nvcc, their distribution (median, 90th percentile, worst), how many
files cost more to analyse than to compile, and the kernels that ran out of the analysis budget.
The goal (issue 19): own <= nvcc on every file, no kernel incomplete at the default budget.

    python bench/bench_realworld.py                       # every file of the corpus present here
    python bench/bench_realworld.py --corpus DIR --limit 20 --half dev
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(cmd: list, cwd: Path) -> tuple:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    return time.perf_counter() - start, proc


def _flags(source: dict, corpus: Path) -> list:
    flags = list(source.get("nvcc_args") or ["-std=c++17"])
    stubs = corpus / "stubs"
    if stubs.is_dir():
        flags.append(f"-I{stubs}")
    return flags


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "validation" / "realworld")
    parser.add_argument("--limit", type=int, default=None, help="only the first N files")
    parser.add_argument("--half", choices=("dev", "test"), default=None, help="only that half of the corpus")
    parser.add_argument("--json", type=Path, default=None, help="also write the per-file numbers here")
    args = parser.parse_args()
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("nvcc not on PATH: nothing to compare with", file=sys.stderr)
        return 2
    listing = json.loads((args.corpus / "corpus.json").read_text())
    half = set(listing.get("halves", {}).get("repositories", {}).get(args.half, [])) if args.half else None
    sources = [s for s in listing["sources"] if (args.corpus / s["corpus_path"]).is_file()
               and (half is None or s["repo"] in half)]
    sources = sources[: args.limit] if args.limit else sources
    if not sources:
        print(f"no corpus files under {args.corpus} (the corpus is fetched, not committed: see its README)")
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env_cache = os.path.join(tmp, "cache")
        for s in sources:
            cu = args.corpus / s["corpus_path"]
            flags = _flags(s, args.corpus)
            t_nvcc, p = _timed([nvcc, "-ptx", "-lineinfo", "-arch=sm_90", *flags, "-o", os.path.join(tmp, "k.ptx"),
                                str(cu)], cu.parent)
            if p.returncode != 0:
                continue
            cmd = [sys.executable, "-m", "ptxlint", "check", "--no-cache", "--isolated", "--format", "json",
                   "--cache-dir", env_cache, *(f"--nvcc-arg={f}" for f in flags), str(cu)]
            t_lint, p = _timed(cmd, cu.parent)
            try:
                doc = json.loads(p.stdout)
            except ValueError:
                doc = {}
            incomplete = len(doc.get("incomplete", []) or [])
            own = max(t_lint - t_nvcc, 0.0)
            rows.append({"file": s["corpus_path"], "nvcc_s": round(t_nvcc, 3), "ptxlint_s": round(t_lint, 3),
                         "own_s": round(own, 3), "ratio": round(own / t_nvcc, 3), "incomplete": incomplete})
            print(f"{own / t_nvcc:7.2f}x  own {own:6.2f} s  nvcc {t_nvcc:6.2f} s  {s['corpus_path']}"
                  + (f"  ({incomplete} kernels incomplete)" if incomplete else ""), flush=True)
    if not rows:
        print("no file compiled")
        return 2
    ratios = sorted(r["ratio"] for r in rows)
    p90 = ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))]
    over = sum(r > 1.0 for r in ratios)
    print(f"\n{len(rows)} files: ptxlint's own time / nvcc's: median {statistics.median(ratios):.2f}x, "
          f"90th percentile {p90:.2f}x, worst {ratios[-1]:.2f}x; {over} files over 1.0x; "
          f"{sum(r['incomplete'] for r in rows)} kernels incomplete at the default budget")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
