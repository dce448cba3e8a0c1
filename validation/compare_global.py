"""Compare ptxlint's global-memory sector predictions with the H100 measurements in validation/global/.

    python validation/compare_global.py            # the table, then a summary and every miss

Rows are (kernel, .cu line, kind): the SASS instructions ncu measured at that line, summed over the
grid, against ptxlint's accesses at that line (per block, times the number of blocks). Compared:
sectors, ideal sectors, warp-level requests, and 128-byte lines where the model knows the base
modulo a line. Inside a loop whose trip count is a run-time value the model predicts per request,
so the row compares sectors per request. A row whose addresses depend on run-time data is not
determinable; one whose alignment depends on blockIdx must fall inside the predicted range.
"""

from __future__ import annotations

import collections
import json
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
GLOBAL = HERE / "global"

# (kernel, line, kind) -> why the PTX-level prediction cannot equal the SASS measurement
KNOWN_DIFFERENCES: dict = {}


@dataclass
class Row:
    kernel: str
    line: int
    kind: str
    measured: dict  # sectors, ideal, requests, lines (sums over the grid)
    predicted: dict  # the same, or per request
    status: str  # exact | exact-per-request | in-range | not-determinable | known-difference | mismatch
    reason: str = ""


def load_measurements(path: Path = GLOBAL / "measurements.json") -> dict:
    return json.loads(path.read_text())


def predictions(module, kernel: dict):
    """(kernel context, accesses grouped by (line, kind))."""
    from ptxlint.analysis.context import AnalysisOptions, KernelContext

    function = next(f for f in module.kernels if f.name == kernel["name"])
    options = AnalysisOptions(block_overrides=[(None, tuple(kernel["block"]), "measured launch")])
    ctx = KernelContext(module, function, options)
    grouped = collections.defaultdict(list)
    for access in ctx.global_accesses:
        grouped[(ctx.position(access.instruction)[1], access.kind)].append(access)
    return ctx, grouped


def compare(measurements: dict | None = None, directory: Path = GLOBAL) -> list:
    from ptxlint.frontend.parser import parse_ptx_file

    measurements = measurements or load_measurements()
    module = parse_ptx_file(str(directory / measurements["ptx"]))
    rows = []
    for kernel in measurements["kernels"]:
        blocks = kernel["grid"][0] * kernel["grid"][1] * kernel["grid"][2]
        _, grouped = predictions(module, kernel)
        measured = collections.defaultdict(lambda: collections.Counter())
        for ins in kernel["instructions"]:
            m = measured[(ins["cu_line"], ins["kind"])]
            m["sectors"] += ins["sectors"]
            m["ideal"] += ins["ideal"]
            m["requests"] += ins["executed"]
            m["lines"] += ins["lines_128b"]
        for key in sorted(set(measured) | set(grouped), key=lambda k: (k[0] or 0, k[1])):
            rows.append(_row(kernel["name"], key, dict(measured.get(key, {})), grouped.get(key, []), blocks))
    return rows


def _row(name: str, key: tuple, m: dict, accesses: list, blocks: int) -> Row:
    line, kind = key
    row = Row(name, line, kind, m, {}, "exact")
    known = [a for a in accesses if a.determined]
    unknown = [a for a in accesses if not a.determined]
    if (name, line, kind) in KNOWN_DIFFERENCES:
        row.status, row.reason = "known-difference", KNOWN_DIFFERENCES[(name, line, kind)]
        return row
    ranged = [a for a in unknown if a.sectors_range is not None]
    if ranged and len(ranged) == len(unknown):
        low = sum(a.sectors_range[0] for a in ranged) + sum(a.sectors for a in known)
        high = sum(a.sectors_range[1] for a in ranged) + sum(a.sectors for a in known)
        row.predicted = {"sectors": [low * blocks, high * blocks]}
        inside = low * blocks <= m.get("sectors", 0) <= high * blocks
        row.status = "in-range" if inside else "mismatch"
        row.reason = ranged[0].unknown_reason
        return row
    per_iteration = any(a.iterations is None for a in known)
    if per_iteration:
        ratios = {(a.sectors / a.requests, a.ideal / a.requests) for a in known if a.requests}
        if len(ratios) == 1 and m.get("requests"):
            sectors, ideal = ratios.pop()
            row.predicted = {"sectors_per_request": sectors, "ideal_per_request": ideal}
            exact = (sectors == m["sectors"] / m["requests"] and ideal == m["ideal"] / m["requests"])
            row.status = "exact-per-request" if exact else "mismatch"
            if unknown:
                row.reason = f"{len(unknown)} access(es) of the loop's remainder not determinable: " + \
                    unknown[0].unknown_reason
            return row
    if unknown:
        row.status, row.reason = "not-determinable", unknown[0].unknown_reason
        return row
    row.predicted = {"sectors": blocks * sum(a.sectors for a in known), "ideal": blocks * sum(a.ideal for a in known),
                     "requests": blocks * sum(a.requests for a in known)}
    if all(a.lines is not None for a in known):
        row.predicted["lines"] = blocks * sum(a.lines for a in known)
    same = all(row.predicted[k] == m.get(k, 0) for k in row.predicted)
    row.status = "exact" if same else "mismatch"
    return row


def summary(rows: list) -> str:
    counts = collections.Counter(r.status for r in rows)
    kernels = {r.kernel for r in rows}
    determinable = [r for r in rows if r.status in ("exact", "exact-per-request", "mismatch", "known-difference")]
    return (f"rows (kernel, line, kind): {len(rows)} in {len(kernels)} kernels; determinable {len(determinable)}: "
            f"exact {counts['exact']}, exact per request (run-time trip count) {counts['exact-per-request']}, "
            f"known differences {counts['known-difference']}, mismatches {counts['mismatch']}; within the "
            f"predicted range (alignment depends on blockIdx) {counts['in-range']}; not determinable "
            f"(run-time data) {counts['not-determinable']}")


def table(rows: list) -> str:
    out = [f"{'kernel':28} {'line':>4} {'kind':6} {'measured sectors/ideal/req/lines':>34}  {'predicted':34} status"]
    for r in rows:
        m = r.measured
        ms = f"{m.get('sectors', 0)}/{m.get('ideal', 0)}/{m.get('requests', 0)}/{m.get('lines', 0)}"
        p = r.predicted
        if "sectors_per_request" in p:
            ps = f"{p['sectors_per_request']:g}/{p['ideal_per_request']:g} per request"
        elif isinstance(p.get("sectors"), list):
            ps = f"{p['sectors'][0]}..{p['sectors'][1]} sectors"
        elif p:
            ps = f"{p['sectors']}/{p['ideal']}/{p['requests']}/{p.get('lines', '?')}"
        else:
            ps = "-"
        out.append(f"{r.kernel:28} {r.line:>4} {r.kind:6} {ms:>34}  {ps:34} {r.status}")
    return "\n".join(out)


def main() -> int:
    rows = compare()
    print(table(rows))
    print()
    print(summary(rows))
    bad = [r for r in rows if r.status in ("mismatch",)]
    for r in rows:
        if r.status not in ("exact",):
            print(f"  {r.kernel} line {r.line} {r.kind}: {r.status} {r.reason}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent / "src"))
    sys.exit(main())
