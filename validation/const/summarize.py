#!/usr/bin/env python3
"""Build measurements.json from raw/const_clock.json (clock64 runs), raw/const_ncu.csv
(ncu IDC counters, one launch per configuration) and raw/env.txt.  Stdlib only."""
import csv, io, json, os, re

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = os.path.join(HERE, "raw")


def num(s):
    return float(s.replace(",", ""))


def main():
    clock = json.load(open(os.path.join(RAW, "const_clock.json")))
    env = open(os.path.join(RAW, "env.txt")).read().strip().split("\n")
    gpu, driver = [x.strip() for x in env[0].split(",")[:2]]
    nvcc = next(l for l in env if "Cuda compilation tools" in l).strip()
    ncu_ver = env[-1].strip()
    # ncu: program output (NCU_CFG lines, in launch order) then the CSV table
    lines = open(os.path.join(RAW, "const_ncu.csv")).read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    cfgs = [dict(kv.split("=") for kv in l.split()[1:]) for l in lines if l.startswith("NCU_CFG")]
    table = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    hdr, data = table[0], table[2:]
    ncu = {}
    for c, r in zip(cfgs, data):
        g = lambda m: num(r[hdr.index(m)])
        loads = 64 * 16 + 8  # warp-level ld.const per launch (iters*UNROLL + warm-up), one warp
        ncu[(int(c["k"]), int(c["stride_words"]) * 4)] = {
            "idc_requests_per_warp_load": round(g("idc__requests.sum") / loads, 3),
            "idc_hit_rate": round(g("idc__requests_lookup_hit.sum") / g("idc__requests.sum"), 4),
            "idc_divergent_replays_per_warp_load": round(g("sm__idc_divergent_instruction_replays.sum") / loads, 3),
        }
    rows, probes = [], []
    base = None
    for r in clock["rows"]:
        k, sb = r["distinct_addresses"], r["stride_bytes"]
        row = {"distinct_addresses": k, "layout": r["layout"], "stride_bytes": sb,
               "cycles_per_load": round(r["latency_cycles_per_load"], 2),
               "latency_min_max": [round(r["latency_min"], 2), round(r["latency_max"], 2)],
               "throughput_sm_cycles_per_warp_load": round(r["throughput_sm_cycles_per_warp_load"], 3)}
        row.update(ncu.get((k, sb), {}))
        if r["layout"] == "same_line" and k == 32:
            row["note"] = "32 distinct 4-byte words span 128 B, i.e. two 64-B lines"
        if r["layout"] == "same_line" and k == 1:
            base = row
        (probes if r["layout"] == "probe" else rows).append(row)
    doc = {
        "gpu": gpu, "driver": driver, "nvcc": nvcc, "ncu": ncu_ver, "arch": "sm_90",
        "sm_clock_khz": clock["clock_khz"], "sm_count": clock["sm_count"],
        "source": "const_cost.cu", "ptx": "const_cost.sm_90.ptx",
        "method": ("One warp chases a chain of dependent indexed constant loads idx = c_tab[off + idx] "
                   "(SASS: LDC Rx, c[0x3][Ry]; table all zeros so idx stays 0), off = (lane % k) * stride; "
                   "clock64() around 4096 loads after a cache warm-up, median of 7 runs -> cycles_per_load "
                   "(latency, includes ~5 cycles of address arithmetic per load). "
                   "throughput_sm_cycles_per_warp_load: one 1024-thread block per SM (32 warps, independent chains), "
                   "slowest warp's cycles / (32 * 4096), median over SMs and 5 runs. "
                   "idc_*: Nsight Compute counters idc__requests, idc__requests_lookup_hit, "
                   "sm__idc_divergent_instruction_replays for one warp, 1032 warp-level loads per launch. "
                   "Layouts: same_line = 4-B stride (k<=16 in one 64-B line), distinct_lines = 64-B stride "
                   "(every address in its own line, adjacent lines), distinct_lines_256B = 256-B stride "
                   "(every address in its own line, all lines map to the same IDC set)."),
        "baseline_uniform_cycles": base["cycles_per_load"],
        "baseline_uniform_throughput_sm_cycles_per_warp_load": base["throughput_sm_cycles_per_warp_load"],
        "rows": rows,
        "probes": probes,
    }
    with open(os.path.join(HERE, "measurements.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for r in rows + probes:
        print("%-20s k=%2d stride=%4dB lat=%8.2f thr=%8.3f idc_req=%s hit=%s" % (
            r["layout"], r["distinct_addresses"], r["stride_bytes"], r["cycles_per_load"],
            r["throughput_sm_cycles_per_warp_load"], r.get("idc_requests_per_warp_load"), r.get("idc_hit_rate")))


if __name__ == "__main__":
    main()
