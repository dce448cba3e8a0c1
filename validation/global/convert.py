#!/usr/bin/env python3
"""Turn the raw Nsight Compute outputs of measure.sh into measurements.json (stdlib only).

usage: python3 convert.py [RAW_DIR] [-o measurements.json]

RAW_DIR (default: raw/ next to this file) holds, plain or gzipped:
  per_instruction_sass.csv  ncu -i rep.ncu-rep --page source --csv --print-source sass
  sass_lines.txt            nvdisasm -g -c of the measured binary's cubin (offset -> .cu line)
  totals.csv                ncu --csv --print-units base --metrics l1tex__t_{requests,sectors}_... (per kernel)
  env.txt                   GPU name/driver, nvcc --version, ncu --version
The kernel table (grid, block, description) is read from global_suite.cu; the CSV/listing parsers
are the bank suite's (validation/bank/convert.py), and global_suite.sm_90.ptx resolves SASS lines
inside CUDA headers (inlined atomics) to the global_suite.cu line they were inlined at.
"""
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = "global_suite.cu"
PTX = "global_suite.sm_90.ptx"

_spec = importlib.util.spec_from_file_location("bank_convert", os.path.join(HERE, "..", "bank", "convert.py"))
bank = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bank)
bank.SRC = SRC  # parse_ptx_inlined keys on the suite's file name


def kernel_table(src_text):
    """KE(name, gx, gy, bx, by, bz, "desc") rows, in launch order."""
    rows = []
    for m in re.finditer(r'^\s*KE\((\w+), (\d+), (\d+), (\d+), (\d+), (\d+), "(.*)"\)\s*$', src_text, re.M):
        rows.append({"name": m.group(1), "grid": [int(m.group(2)), int(m.group(3)), 1],
                     "block": [int(m.group(i)) for i in (4, 5, 6)], "description": m.group(7)})
    return rows


def kind_of(opcode, space):
    """load | store | atomic for a global-memory SASS opcode, else None."""
    if space != "Global":
        return None
    if opcode.startswith(("LDG", "LDU", "LD.", "LD ")) or opcode == "LD":
        return "load"
    if opcode.startswith(("STG", "ST.")) or opcode == "ST":
        return "store"
    if opcode.startswith(("ATOMG", "REDG", "RED.", "ATOM.")):
        return "atomic"
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
    table = kernel_table(open(os.path.join(HERE, SRC)).read())
    sass_lines = bank.parse_sass_lines(bank.read_text(raw, "sass_lines.txt"))
    inlined = bank.parse_ptx_inlined(open(os.path.join(HERE, PTX)).read())
    page = bank.parse_source_page(bank.read_text(raw, "per_instruction_sass.csv"))
    totals = bank.parse_totals(bank.read_text(raw, "totals.csv"))
    env = bank.parse_env(bank.read_text(raw, "env.txt"))
    kernels, problems = [], []
    for k in table:
        name = k["name"]
        blocks = page.get(name, [])
        rows = blocks[0] if blocks else []
        if not rows:
            problems.append(f"{name}: no source-page rows")
        base = int(rows[0]["Address"], 16) if rows else 0
        lines = sass_lines.get(name, {})
        insts = []
        for r in rows:
            sass = " ".join(r["Source"].split())
            opcode = re.sub(r"^@!?U?P\w+\s+", "", sass).split(" ")[0]
            kind = kind_of(opcode, r.get("Address Space"))
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
            insts.append({"sass": sass, "cu_line": cu_line, "kind": kind,
                          "size_bits": bank.to_int(r.get("Access Size")),
                          "executed": bank.to_int(r.get("Instructions Executed")),
                          "lines_128b": bank.to_int(r.get("L1 Tag Requests Global")),
                          "sectors": bank.to_int(r.get("L2 Theoretical Sectors Global")),
                          "ideal": bank.to_int(r.get("L2 Theoretical Sectors Global Ideal"))})
        t = totals.get(name, {})

        def tot(op):
            return {"instructions": t.get(f"smsp__sass_inst_executed_op_global_{op}.sum"),
                    "requests": t.get(f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"),
                    "sectors": t.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum")}
        entry = dict(k)
        entry["instructions"] = insts
        entry["totals"] = {"load": tot("ld"), "store": tot("st"), "atomic": tot("atom"), "reduction": tot("red")}
        kernels.append(entry)
    doc = {"gpu": env.get("gpu"), "driver": env.get("driver"), "nvcc": env.get("nvcc"), "ncu": env.get("ncu"),
           "arch": "sm_90", "source": SRC, "ptx": PTX, "compile_flags": "-arch=sm_90 -lineinfo",
           "columns": {"lines_128b": "ncu 'L1 Tag Requests Global': distinct 128-byte lines per instruction, summed",
                       "sectors": "ncu 'L2 Theoretical Sectors Global': distinct 32-byte sectors, summed",
                       "ideal": "ncu 'L2 Theoretical Sectors Global Ideal'",
                       "executed": "warp-level instructions executed (the whole grid)"},
           "kernels": kernels}
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for p in problems:
        print("warning:", p, file=sys.stderr)
    print(f"wrote {out_path}: {len(kernels)} kernels, {sum(len(k['instructions']) for k in kernels)} "
          "global-memory SASS instructions")


if __name__ == "__main__":
    main(sys.argv[1:])
