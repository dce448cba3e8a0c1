#!/usr/bin/env python3
"""raw/metrics.csv (Nsight Compute, measure.sh) -> measurements.json: global sectors per block of each
launch of pitch_driver.cu (a 4x4 grid each, so the totals are divided by 16)."""
import csv
import io
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
WIDTHS = [int(w) for w in re.findall(r"\d+", (HERE / "pitch_driver.cu").read_text().split("widths[] = {")[1].split("}")[0])]
BLOCKS = 16


def main() -> None:
    text = (HERE / "raw" / "metrics.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(text[text.index('"ID"'):])))
    launches: dict = {}
    for r in rows:
        entry = launches.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"].split("(")[0]})
        op = r["Metric Name"].split("_op_")[1].split(".")[0]
        kind = {"ld": "load", "st": "store"}[op]
        what = "sectors" if "sectors" in r["Metric Name"] else "requests"
        entry.setdefault(kind, {})[what] = int(float(r["Metric Value"].replace(",", ""))) // BLOCKS
    kernels = sorted({e["kernel"] for e in launches.values()})
    per_kernel = {k: [e for _, e in sorted(launches.items()) if e["kernel"] == k] for k in kernels}
    env = (HERE / "raw" / "env.txt").read_text().splitlines()
    doc = {
        "gpu": env[0].split(",")[0].strip(), "driver": env[0].split(",")[1].strip(),
        "nvcc": env[1].strip(), "ncu": env[3].strip(), "arch": "sm_90", "compile_flags": "-arch=sm_90 -lineinfo",
        "source": "pitch_driver.cu", "grid": [4, 4, 1],
        "columns": "per block: l1tex__t_sectors/requests_pipe_lsu_mem_global_op_{ld,st}.sum / 16 blocks",
        "kernels": {k: [{"w": w, "load": e["load"], "store": e["store"]} for w, e in zip(WIDTHS, per_kernel[k])]
                    for k in kernels},
    }
    (HERE / "measurements.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
