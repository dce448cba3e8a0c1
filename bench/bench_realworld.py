#!/usr/bin/env python3
"""ptxlint against the compiler it runs, file by file, on the real-world corpus (issue 19).

For every `.cu` of validation/realworld/corpus.json present here (or a fixed sample of them), in
the same run, each as a child process whose CPU time (user + system, from getrusage) is measured:
  nvcc      `nvcc -ptx -lineinfo -arch=sm_90 ...` of the `.cu` (the compile a user pays anyway);
  ptxlint   `ptxlint check --no-cache --isolated --format json -j 1` of the committed `.sm_90.ptx`
            beside it: ptxlint's own time, without the compile it would run on the `.cu`.
Prints each file's ratio ptxlint/nvcc, their distribution (median, 90th percentile, worst), how
many files cost more to analyse than to compile, and the kernels that ran out of the analysis
budget. The goal (issue 19): ratio <= 1.0 on every file, no kernel incomplete at the default budget.

CPU time, not wall: the machines this runs on are often shared, and CPU time is what a file costs
whatever else runs. `--baseline SRC` also times another ptxlint (its `src/` folder, e.g. an export
of main) on each file, interleaved with this one, so that before/after ratios come from one run.

    python bench/bench_realworld.py                           # every file present here
    python bench/bench_realworld.py --half dev --sample 20    # a fixed sample of 20 dev files
    python bench/bench_realworld.py --files 10 --baseline /tmp/main-src
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list, cwd: Path, env=None) -> tuple:
    """(CPU seconds of the child, wall seconds, CompletedProcess) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def _build_recipes(corpus: Path) -> dict:
    """The corpus' own build recipe (stubs/repos.py, kept beside the fetched code, not committed):
    {repo: {"flags": [...], "flags_by_file": {path: [...]}}}; empty when absent."""
    recipe = corpus / "stubs" / "repos.py"
    if not recipe.is_file():
        return {}
    scope: dict = {"__file__": str(recipe), "__name__": "repos"}
    exec(compile(recipe.read_text(), str(recipe), "exec"), scope)
    return scope.get("REPOS", {})


def _flags(source: dict, corpus: Path, recipes: dict) -> list:
    """nvcc's flags for one corpus file, as the corpus was built (build.py): the recipe's flags for
    its repository and file, else the flags corpus.json records."""
    recipe = recipes.get(source["repo"])
    if recipe is not None:
        flags = ["-std=c++17", *recipe.get("flags", []), *recipe.get("flags_by_file", {}).get(source["path"], [])]
    else:
        flags = list(source.get("nvcc_args") or ["-std=c++17"])
    stubs = corpus / "stubs"
    if stubs.is_dir():
        flags.append(f"-I{stubs}")
    return flags


def select_sources(corpus: Path, half, files, sample, only=()) -> list:
    """The corpus sources to time: present here, of the half, whose path contains one of `only`
    (when given), then the first `files` or a fixed (seeded) sample of `sample`, so that two runs
    time the same files."""
    listing = json.loads((corpus / "corpus.json").read_text())
    repos = set(listing.get("halves", {}).get("repositories", {}).get(half, [])) if half else None
    sources = [s for s in listing["sources"]
               if (corpus / s["corpus_path"]).is_file() and (corpus / s["ptx"]).is_file()
               and (repos is None or s["repo"] in repos) and (not only or any(o in s["corpus_path"] for o in only))]
    if sample and sample < len(sources):
        sources = sorted(random.Random(19).sample(sources, sample), key=lambda s: s["corpus_path"])
    return sources[:files] if files else sources


def ptxlint_cmd(ptx: Path, cache: str, budget) -> list:
    cmd = [sys.executable, "-m", "ptxlint", "check", "--no-cache", "--isolated", "--format", "json", "-j", "1",
           "--cache-dir", cache]
    if budget is not None:
        cmd.append(f"--analysis-budget={budget}")
    return cmd + [str(ptx)]


def run_ptxlint(ptx: Path, cache: str, budget, src) -> tuple:
    """(CPU s, wall s, kernels incomplete, JSON output) of ptxlint on one PTX; `src`: another
    ptxlint's src/ folder to import instead of this one."""
    env = None
    if src is not None:
        env = dict(os.environ, PYTHONPATH=str(src) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cpu, wall, proc = timed(ptxlint_cmd(ptx, cache, budget), ptx.parent, env)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = {}
    return cpu, wall, len(doc.get("incomplete", []) or []), proc.stdout


def distribution(label: str, rows: list, key: str) -> str:
    ratios = sorted(r[key] for r in rows)
    p90 = ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))]
    over = sum(r > 1.0 for r in ratios)
    incomplete = sum(r[key.replace("ratio", "incomplete")] for r in rows)
    return (f"{label}: {len(rows)} files, ptxlint CPU / nvcc CPU: median {statistics.median(ratios):.2f}x, "
            f"90th percentile {p90:.2f}x, worst {ratios[-1]:.2f}x; {over} files over 1.0x; "
            f"{incomplete} kernels incomplete at the budget")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "validation" / "realworld")
    parser.add_argument("--files", "--limit", type=int, default=None, help="only the first N files")
    parser.add_argument("--sample", type=int, default=None, help="a fixed sample of N files (same N, same files)")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="only files whose corpus path contains TEXT (repeatable): e.g. the worst ones")
    parser.add_argument("--half", choices=("dev", "test"), default=None, help="only that half of the corpus")
    parser.add_argument("--budget", type=float, default=None, help="--analysis-budget for ptxlint (default: its own)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="also time the ptxlint of this src/ folder (e.g. main's), interleaved")
    parser.add_argument("--same-output", action="store_true",
                        help="with --baseline: fail when the two ptxlints' JSON differ on a file")
    parser.add_argument("--json", type=Path, default=None, help="also write the per-file numbers here")
    args = parser.parse_args()
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("nvcc not on PATH: nothing to compare with", file=sys.stderr)
        return 2
    sources = select_sources(args.corpus, args.half, args.files, args.sample, args.only)
    if not sources:
        print(f"no corpus files under {args.corpus} (the corpus is fetched, not committed: see its README)")
        return 2
    recipes = _build_recipes(args.corpus)
    rows, differ, failed = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        for s in sources:
            cu, ptx = args.corpus / s["corpus_path"], args.corpus / s["ptx"]
            flags = _flags(s, args.corpus, recipes)
            t_nvcc, w_nvcc, p = timed([nvcc, "-ptx", "-lineinfo", "-arch=sm_90", *flags, "-o",
                                       os.path.join(tmp, "k.ptx"), str(cu)], cu.parent)
            if p.returncode != 0:
                failed.append(s["corpus_path"])
                print(f"  nvcc failed, skipped: {s['corpus_path']}", flush=True)
                continue
            row = {"file": s["corpus_path"], "nvcc_cpu_s": round(t_nvcc, 3), "nvcc_wall_s": round(w_nvcc, 3)}
            if args.baseline:
                cpu, wall, inc, out_base = run_ptxlint(ptx, cache, args.budget, args.baseline)
                row.update(base_cpu_s=round(cpu, 3), base_ratio=round(cpu / t_nvcc, 3), base_incomplete=inc)
            cpu, wall, inc, out = run_ptxlint(ptx, cache, args.budget, None)
            row.update(cpu_s=round(cpu, 3), wall_s=round(wall, 3), ratio=round(cpu / t_nvcc, 3), incomplete=inc)
            rows.append(row)
            line = f"{row['ratio']:7.2f}x  ptxlint {cpu:6.2f} s  nvcc {t_nvcc:6.2f} s"
            if args.baseline:
                line += f"  (baseline {row['base_ratio']:6.2f}x {row['base_cpu_s']:6.2f} s)"
                if out != out_base:
                    differ.append(s["ptx"])
                    line += "  OUTPUT DIFFERS"
            print(f"{line}  {s['corpus_path']}" + (f"  ({inc} kernels incomplete)" if inc else ""), flush=True)
    if not rows:
        print("no file compiled")
        return 2
    print()
    if args.baseline:
        print(distribution("baseline", rows, "base_ratio"))
    print(distribution("this tree", rows, "ratio"))
    if args.baseline:
        print(f"total ptxlint CPU: baseline {sum(r['base_cpu_s'] for r in rows):.1f} s, "
              f"this tree {sum(r['cpu_s'] for r in rows):.1f} s; nvcc {sum(r['nvcc_cpu_s'] for r in rows):.1f} s")
        print(f"{len(differ)} files whose JSON output differs" + (": " + ", ".join(differ) if differ else ""))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if args.same_output and differ else 0


if __name__ == "__main__":
    sys.exit(main())
