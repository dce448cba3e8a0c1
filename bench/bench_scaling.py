"""Does the analysis cost grow with the code, and no faster? Synthetic valid kernels of 1k to 30k
basic blocks, each checked with every rule (no budget), CPU time per instruction printed.

    python bench/bench_scaling.py [--sizes 1000,3000,10000,30000] [--kinds early_exits,chain,nested_loops]

Kinds (tests/ptx_generators.py):
  early_exits   thread-dependent early returns, each followed by a shared store (issue 12's case)
  chain         uniform branches around shared stores, one after another
  nested_loops  nests of three counted loops with a shared store and a barrier innermost
  pitched_rows  global stores one plane apart in a 16x16 block with a run-time pitch (size: stores;
                PCL's unrolled volume initialisation), checked for coalescing per warp and plane
The target: the time per instruction of the largest size within 2x of the smallest's, per kind.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))

import ptx_generators  # noqa: E402
from ptxlint.analysis.context import AnalysisOptions  # noqa: E402
from ptxlint.analysis.cfg import ControlFlowGraph  # noqa: E402
from ptxlint.api import CheckOptions, check_module  # noqa: E402
from ptxlint.frontend.parser import parse_ptx  # noqa: E402


def kernel(kind: str, blocks: int) -> str:
    """A kernel of about `blocks` basic blocks."""
    if kind == "early_exits":
        return ptx_generators.early_exits(blocks // 3)  # the exit, the store, the join
    if kind == "chain":
        return ptx_generators.chain(blocks // 2)  # two blocks a step: the test and the store
    if kind == "nested_loops":
        return ptx_generators.nested_loops(3, max(1, blocks // 6), trip=4)
    if kind == "pitched_rows":  # one block: `blocks` stores one plane apart in a 16x16 block
        return ptx_generators.pitched_rows(blocks)
    raise SystemExit(f"unknown kind {kind}")


def measure(kind: str, blocks: int) -> tuple:
    text = kernel(kind, blocks)
    start = time.process_time()
    module = parse_ptx(text, f"{kind}.ptx")
    parsed = time.process_time()
    incomplete: list = []
    # the pitched rows span two rows per warp only in a 2-D block
    blocks_2d = [(None, (16, 16, 1), "bench_scaling")] if kind == "pitched_rows" else []
    analysis = AnalysisOptions(budget=0, block_overrides=blocks_2d)
    findings = check_module(module, CheckOptions(analysis=analysis), jobs=1, incomplete=incomplete)
    checked = time.process_time()
    fn = module.functions[0]
    return (len(ControlFlowGraph(fn).blocks), len(fn.instructions), parsed - start, checked - parsed,
            len(findings))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,3000,10000,30000")
    ap.add_argument("--kinds", default="early_exits,chain,nested_loops")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'kind':<14}{'blocks':>8}{'instrs':>9}{'parse s':>9}{'check s':>9}{'us/instr':>10}{'vs first':>10}"
          f"{'findings':>10}")
    worst = 0.0
    for kind in args.kinds.split(","):
        first = None
        for size in sizes:
            blocks, instrs, parse_s, check_s, found = measure(kind, size)
            per = (parse_s + check_s) / instrs * 1e6
            first = first or per
            worst = max(worst, per / first)
            print(f"{kind:<14}{blocks:>8}{instrs:>9}{parse_s:>9.2f}{check_s:>9.2f}{per:>10.1f}{per / first:>9.2f}x"
                  f"{found:>10}", flush=True)
    print(f"largest growth of the time per instruction: {worst:.2f}x (target: within 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
