"""Compare ptxlint's shared-memory predictions for samples/*.cu with the H100 measurements here.

    python validation/samples/compare_samples.py        # the whole table, then a summary

Rows are (kernel, .cu line, kind), as in validation/compare_bank.py (the reference for how a
prediction is summed: accesses at the line, a vectorised group's merged cost counted once at its
first member's line). Measurements are for the whole launch; they are divided by the number of
blocks launched, since ptxlint predicts one block. SASS instructions predicated `@!PT` (never
executed: ptxas' placeholders next to cp.async) and shared-memory SASS that is none of the five
kinds (LDGSTS, ...) are left out of the comparison; both stay in measurements.json.
"""

from __future__ import annotations

import collections
import json
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SAMPLES = REPO / "samples"

# (kernel, line, kind) -> why no PTX-level prediction can equal the per-block measurement
KNOWN_DIFFERENCES = {
    ("clusterHistogram", 23, "load"):
        "only the cluster's rank-0 block runs line 23 (`if (rank == 0)`); the 2-block launch measured 2/2 in "
        "all, i.e. 1/1 per block on average, while ptxlint analyses one block that takes the branch: 2/2, "
        "which is what the one block that ran it measured",
    ("shiftSync", 24, "store"):
        "the loop's trip count is the run-time argument `iters` (1 in the measured launch); the PTX unrolls it "
        "by 4 with a remainder loop and ptxlint counts each of the 5 static copies once (5 x 8/8); every copy "
        "is predicted at the measured 8/8 per execution",
    ("shiftSync", 26, "load"):
        "as line 24: 5 static copies of the access counted once each, the launch ran one iteration",
    ("pipelinedSum", 23, "load"):
        "as shiftSync line 24: the `tiles` loop is unrolled by 4 with a remainder loop, and ptxlint counts each "
        "of the 5 static copies once (5 x 32/32); every copy is predicted at the measured 32/32 per execution "
        "(the remainder loop's copy since ptxlint follows the value the unrolled loop leaves, issue 17)",
}


@dataclass
class Row:
    kernel: str
    entry: str
    source: str
    line: int
    kind: str
    measured_wavefronts: Fraction
    measured_ideal: Fraction
    predicted_wavefronts: int | None
    predicted_ideal: int | None
    status: str  # exact | known-difference | mismatch | not-determinable
    reason: str = ""
    via_merge: bool = False
    copies: list = field(default_factory=list)  # (wavefronts, ideal) of each determined access
    sass: list = field(default_factory=list)

    def measured(self) -> str:
        return f"{_f(self.measured_wavefronts)}/{_f(self.measured_ideal)}"

    def predicted(self) -> str:
        if self.predicted_wavefronts is None:
            return "-"
        return f"{self.predicted_wavefronts}/{self.predicted_ideal}"


def _f(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.2f}"


def load_measurements(path: Path = HERE / "measurements.json") -> dict:
    return json.loads(path.read_text())


def compared_instructions(kernel: dict) -> list:
    return [i for i in kernel["instructions"] if i["kind"] != "other" and not i["sass"].startswith("@!PT ")]


def compare(measurements: dict | None = None) -> list:
    from ptxlint.analysis.accesses import as_executed
    from ptxlint.analysis.context import AnalysisOptions, KernelContext
    from ptxlint.frontend.parser import parse_ptx_file

    measurements = measurements or load_measurements()
    modules = {}
    rows = []
    for kernel in measurements["kernels"]:
        source = kernel["source"]
        if source not in modules:
            modules[source] = parse_ptx_file(str(SAMPLES / kernel["ptx"]))
        module = modules[source]
        function = next(f for f in module.kernels if f.name == kernel["name"])
        options = AnalysisOptions(block_overrides=[(None, tuple(kernel["block"]), "measured launch")])
        ctx = KernelContext(module, function, options)
        predicted, predicted_ideal = collections.Counter(), collections.Counter()
        copies = collections.defaultdict(list)
        unknown, merged = {}, set()
        shared = [a for a in ctx.shared_accesses if a.space == "shared"]
        for access in shared:
            path, line, _ = ctx.position(access.instruction)
            assert Path(path).name == source, (kernel["name"], path)
            if not access.determined:
                unknown[(line, access.kind)] = access.unknown_reason
        for access, wavefronts, ideal, via_merge in as_executed([a for a in shared if a.determined]):
            key = (ctx.position(access.instruction)[1], access.kind)
            predicted[key] += wavefronts
            predicted_ideal[key] += ideal
            copies[key].append((wavefronts, ideal))
            if via_merge:
                merged.add(key)
        blocks = kernel["grid"][0] * kernel["grid"][1] * kernel["grid"][2]
        measured, measured_ideal = collections.Counter(), collections.Counter()
        sass = collections.defaultdict(list)
        for ins in compared_instructions(kernel):
            key = (ins["cu_line"], ins["kind"])
            measured[key] += ins["wavefronts"]
            measured_ideal[key] += ins["ideal"]
            sass[key].append(ins)
        for key in sorted(set(measured) | set(predicted) | set(unknown), key=lambda k: (k[0] or 0, k[1])):
            line, kind = key
            row = Row(kernel["launch"], kernel["name"], source, line, kind, Fraction(measured[key], blocks),
                      Fraction(measured_ideal[key], blocks), predicted.get(key), predicted_ideal.get(key), "exact",
                      via_merge=key in merged, copies=copies.get(key, []), sass=sass.get(key, []))
            name = (kernel["launch"], line, kind)
            if key in unknown:
                # a sum over the determined accesses alone is no prediction for the line
                row.status, row.reason = "not-determinable", unknown[key]
            elif (row.predicted_wavefronts or 0, row.predicted_ideal or 0) == (row.measured_wavefronts,
                                                                               row.measured_ideal):
                row.status = "exact"
            elif name in KNOWN_DIFFERENCES:
                row.status, row.reason = "known-difference", KNOWN_DIFFERENCES[name]
            else:
                row.status = "mismatch"
            rows.append(row)
    return rows


def summary(rows: list) -> str:
    counts = collections.Counter(r.status for r in rows)
    return (f"rows (kernel, line, kind): {len(rows)}; exact {counts['exact']}, known differences "
            f"{counts['known-difference']}, mismatches "
            f"{counts['mismatch']}, not determinable from the PTX {counts['not-determinable']}")


def main() -> int:
    rows = compare()
    print(f"| sample | kernel | line | kind | measured wf/ideal per block | predicted wf/ideal | status |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r.source} | {r.kernel} | {r.line} | {r.kind} | {r.measured()} | {r.predicted()} | {r.status}"
              f"{' (merged)' if r.via_merge else ''} |")
    for r in rows:
        if r.status not in ("exact",):
            print(f"{r.status}: {r.kernel} line {r.line} {r.kind}: {r.reason}")
    print(summary(rows))
    return 1 if any(r.status == "mismatch" for r in rows) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "src"))
    sys.exit(main())
