#!/usr/bin/env python3
"""Turn the raw Nsight Compute outputs of measure.sh into measurements.json (stdlib only).

usage: python3 convert.py [RAW_DIR] [-o measurements.json]

RAW_DIR (default: raw/ next to this file) holds, plain or gzipped:
  per_instruction_sass.csv  ncu -i rep.ncu-rep --page source --csv --print-source sass
  sass_lines.txt            nvdisasm -g -c of the measured binary's cubin (offset -> .cu line)
  totals.csv                ncu --csv --metrics ... (per-kernel totals)
  env.txt                   GPU name/driver, nvcc --version, ncu --version
The kernel table (block shape, dynamic smem, description) is read from bank_suite.cu, and
bank_suite.sm_90.ptx resolves SASS lines that point into CUDA headers (inlined atomics)
back to the bank_suite.cu line they were inlined at.
"""
import csv
import gzip
import io
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = "bank_suite.cu"
PTX = "bank_suite.sm_90.ptx"


def read_text(raw, name):
    for cand in (name, name + ".gz"):
        p = os.path.join(raw, cand)
        if os.path.exists(p):
            if cand.endswith(".gz"):
                with gzip.open(p, "rt", encoding="utf-8", errors="replace") as f:
                    return f.read()
            with open(p, encoding="utf-8", errors="replace") as f:
                return f.read()
    raise SystemExit(f"missing {name}(.gz) in {raw}")


def kernel_table(src_text):
    """KE(name, bx, by, bz, dyn, "desc") rows of the KERNELS table, in launch order."""
    rows = []
    for m in re.finditer(r'^\s*KE\((\w+), (\d+), (\d+), (\d+), (\d+), "(.*)"\)\s*$', src_text, re.M):
        rows.append({"name": m.group(1), "block": [int(m.group(i)) for i in (2, 3, 4)],
                     "dynamic_smem": int(m.group(5)), "description": m.group(6)})
    return rows


def parse_sass_lines(text):
    """{kernel: {offset: (file_basename, line, sass_text)}} from nvdisasm -g -c."""
    out, cur, loc = {}, None, (None, None)
    for line in text.splitlines():
        m = re.match(r"^\s*\.text\.(\S+):\s*$", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            loc = (None, None)
            continue
        m = re.match(r'^\s*//## File "([^"]+)", line (\d+)', line)
        if m:
            loc = (os.path.basename(m.group(1)), int(m.group(2)))
            continue
        m = re.match(r"^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*;", line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = (loc[0], loc[1], " ".join(m.group(2).split()))
    return out


def parse_ptx_inlined(text):
    """{kernel: {(file_basename, line): set(suite lines it was inlined at)}} from PTX .loc."""
    files, out, cur = {}, {}, None
    for line in text.splitlines():
        m = re.match(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', line)
        if m:
            files[m.group(1)] = os.path.basename(m.group(2))
    for line in text.splitlines():
        m = re.match(r"^\s*\.(?:visible\s+)?\.entry\s+(\w+)", line) or re.match(r"^\.visible \.entry (\w+)", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        m = re.match(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+,.*inlined_at\s+(\d+)\s+(\d+)", line)
        if m and cur is not None and files.get(m.group(3)) == SRC:
            cur.setdefault((files.get(m.group(1)), int(m.group(2))), set()).add(int(m.group(4)))
    return out


def parse_source_page(text):
    """{kernel: [[row dict, ...] per block]} from ncu --page source --csv --print-source sass.
    ncu prints each kernel's listing more than once (one block per view); callers use block 0."""
    out, cur, header = {}, None, None
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        if row[0] == "Kernel Name":
            cur = []
            out.setdefault(row[1], []).append(cur)
            header = None
            continue
        if row[0] == "Address":
            header = row
            continue
        if cur is not None and header is not None and len(row) >= len(header):
            cur.append(dict(zip(header, row)))
    return out


def parse_totals(text):
    out = {}
    lines = [l for l in text.splitlines() if l.startswith('"')]
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        v = row["Metric Value"].replace(",", "")
        try:
            v = int(float(v))
        except ValueError:
            v = None
        out.setdefault(row["Kernel Name"], {})[row["Metric Name"]] = v
    return out


def parse_env(text):
    env = {}
    m = re.search(r"## nvidia-smi\n(.*?), (\S+)\n", text)
    if m:
        env["gpu"], env["driver"] = m.group(1).strip(), m.group(2).strip()
    m = re.search(r"release (\S+), (V\S+)", text)
    if m:
        env["nvcc"] = f"{m.group(1)} {m.group(2)}"
    m = re.search(r"Version (\S+) \(build (\d+)\)", text)
    if m:
        env["ncu"] = f"{m.group(1)} (build {m.group(2)})"
    return env


def kind_of(opcode):
    if opcode.startswith("LDSM"):
        return "ldmatrix"
    if opcode.startswith("STSM"):
        return "stmatrix"
    if opcode.startswith("LDS"):
        return "load"
    if opcode.startswith("STS"):
        return "store"
    if opcode.startswith("ATOMS") or opcode == "RED" or opcode.startswith("RED."):
        return "atomic"  # REDUX (warp reduction, no memory access) is not included
    return None


def to_int(s):
    s = (s or "").replace(",", "").strip()
    try:
        return int(float(s))
    except ValueError:
        return None


def main(argv):
    raw = os.path.join(HERE, "raw")
    out_path = os.path.join(HERE, "measurements.json")
    args = list(argv)
    if "-o" in args:
        i = args.index("-o")
        out_path = args[i + 1]
        del args[i:i + 2]
    if args:
        raw = args[0]
    src_text = open(os.path.join(HERE, SRC)).read()
    table = kernel_table(src_text)
    sass_lines = parse_sass_lines(read_text(raw, "sass_lines.txt"))
    inlined = parse_ptx_inlined(open(os.path.join(HERE, PTX)).read())
    page = parse_source_page(read_text(raw, "per_instruction_sass.csv"))
    totals = parse_totals(read_text(raw, "totals.csv"))
    env = parse_env(read_text(raw, "env.txt"))

    kernels, problems = [], []
    for k in table:
        name = k["name"]
        blocks = page.get(name, [])
        rows = blocks[0] if blocks else []
        if not rows:
            problems.append(f"{name}: no source-page rows")
        for other in blocks[1:]:
            if [(r["Source"], r.get("L1 Wavefronts Shared")) for r in other] != [(r["Source"], r.get("L1 Wavefronts Shared")) for r in rows]:
                problems.append(f"{name}: repeated listing differs from the first")
        base = int(rows[0]["Address"], 16) if rows else 0
        lines = sass_lines.get(name, {})
        insts = []
        for r in rows:
            sass = " ".join(r["Source"].split())
            opcode = re.sub(r"^@!?U?P\w+\s+", "", sass).split(" ")[0]
            kind = kind_of(opcode)
            if kind is None:
                continue
            off = int(r["Address"], 16) - base
            f, ln, text = lines.get(off, (None, None, None))
            if text is not None and text != sass:
                problems.append(f"{name}+{off:#x}: ncu '{sass}' != nvdisasm '{text}'")
            cu_line = None
            if f == SRC:
                cu_line = ln
            elif f is not None:
                cands = inlined.get(name, {}).get((f, ln), set())
                if len(cands) == 1:
                    cu_line = next(iter(cands))
                else:
                    problems.append(f"{name}+{off:#x}: {f}:{ln} inlined at {sorted(cands)}")
            executed = to_int(r.get("Instructions Executed"))
            wf = to_int(r.get("L1 Wavefronts Shared"))
            ideal = to_int(r.get("L1 Wavefronts Shared Ideal"))
            nway = to_int(r.get("L1 Conflicts Shared N-Way"))
            insts.append({"sass": sass, "cu_line": cu_line, "kind": kind,
                          "size_bits": to_int(r.get("Access Size")),
                          "executed": executed, "wavefronts": wf, "ideal": ideal, "nway": nway})
        t = totals.get(name, {})
        def tot(op):
            return {"instructions": t.get(f"smsp__sass_inst_executed_op_shared_{op}.sum"),
                    "wavefronts": t.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")}
        entry = dict(k)
        entry["instructions"] = insts
        entry["totals"] = {"load": tot("ld"), "store": tot("st"), "atomic": tot("atom")}
        entry["totals_extra"] = {
            "ldsm_instructions": t.get("smsp__inst_executed_op_ldsm.sum"),
            "all_shared_wavefronts": t.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")}
        kernels.append(entry)

    doc = {"gpu": env.get("gpu"), "driver": env.get("driver"), "nvcc": env.get("nvcc"),
           "ncu": env.get("ncu"), "arch": "sm_90", "source": SRC, "ptx": PTX,
           "compile_flags": "-arch=sm_90 -lineinfo", "kernels": kernels}
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for p in problems:
        print("warning:", p, file=sys.stderr)
    n_inst = sum(len(k["instructions"]) for k in kernels)
    print(f"wrote {out_path}: {len(kernels)} kernels, {n_inst} shared-memory SASS instructions")


if __name__ == "__main__":
    main(sys.argv[1:])
