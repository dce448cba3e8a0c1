#!/usr/bin/env python3
"""Turn the raw Nsight Compute outputs of measure.sh into measurements.json (stdlib only).

usage: python3 validation/samples/convert.py [RAW_DIR] [-o measurements.json]

RAW_DIR (default: raw/ unpacked from raw.tar.gz next to this file, which is read directly when no
directory is given) holds what measure.sh wrote:
  rep_sass.csv, rep_risky_sass.csv  ncu -i rep.ncu-rep --page source --csv --print-source sass
  sass_lines.txt                    nvdisasm -g -c of every cubin of the app (offset -> file, line)
  kernel_list.tsv                   ./app --list: launch name, grid, block, dynamic smem
  totals.csv                        ncu --csv --metrics ... (per-kernel totals)
  env.txt                           GPU name/driver, nvcc --version, ncu --version
SASS lines that point into CUDA headers (inlined atomicAdd, cp.async helpers, ...) are traced back
through the `.loc ... inlined_at` chains of samples/<file>.sm_90.ptx to the sample line they were
inlined at. The parsing helpers are those of validation/bank/convert.py.
"""
import gzip
import importlib.util
import io
import json
import os
import re
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(REPO, "samples")

_spec = importlib.util.spec_from_file_location("bank_convert", os.path.join(REPO, "validation", "bank", "convert.py"))
bank = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bank)

# launch name (./app --list) -> (mangled entry, sample file)
KERNELS = {
    "tiledSum": ("_Z8tiledSumPKfPfi", "barriers.cu"),
    "halfBarrier": ("_Z11halfBarrierPi", "barriers.cu"),
    "earlyExitBarrier": ("_Z16earlyExitBarrierPKfPfi", "barriers.cu"),
    "clusterHistogram": ("_Z16clusterHistogramPKiPii", "cluster_dsmem.cu"),
    "clusterRing": ("_Z11clusterRingPKfPf", "cluster_dsmem.cu"),
    "pipelinedSum": ("_Z12pipelinedSumPK6float4Pfi", "cp_async_pipeline.cu"),
    "copyZfill": ("_Z9copyZfillPKfPfi", "cp_async_pipeline.cu"),
    "sumLastBlock": ("_Z12sumLastBlockPKfPVfPfi", "fence_last_block.cu"),
    "sumLastBlockNoFence": ("_Z19sumLastBlockNoFencePKfPVfPfi", "fence_last_block.cu"),
    "histogramShared": ("_Z15histogramSharedPKhPji", "histogram_atomics.cu"),
    "mmaTile<64>": ("_Z7mmaTileILi64EEvPK5uint4S2_Pf", "ldmatrix_mma.cu"),
    "mmaTile<72>": ("_Z7mmaTileILi72EEvPK5uint4S2_Pf", "ldmatrix_mma.cu"),
    "barrierCopy": ("_Z11barrierCopyPKfPf", "mbarrier.cu"),
    "rawMbarrier": ("_Z11rawMbarrierPKiPi", "mbarrier.cu"),
    "reduceInterleaved": ("_Z17reduceInterleavedPKiPij", "reduce_smem.cu"),
    "reduceSequential": ("_Z16reduceSequentialPKiPij", "reduce_smem.cu"),
    "reduceUnrollWarp<256>": ("_Z16reduceUnrollWarpILj256EEvPKfPfj", "reduce_warp_tail.cu"),
    "reduceSyncwarp<256>": ("_Z14reduceSyncwarpILj256EEvPKfPfj", "reduce_warp_tail.cu"),
    "setRowReadColDyn": ("_Z16setRowReadColDynPi", "smem_dynamic.cu"),
    "setRowReadColDynPad": ("_Z19setRowReadColDynPadPi", "smem_dynamic.cu"),
    "reverseDyn": ("_Z10reverseDynPfi", "smem_dynamic.cu"),
    "setRowReadColPad": ("_Z16setRowReadColPadPi", "smem_padding.cu"),
    "setColReadColPad": ("_Z16setColReadColPadPi", "smem_padding.cu"),
    "setRowReadColPad2": ("_Z17setRowReadColPad2Pi", "smem_padding.cu"),
    "shiftNoSync": ("_Z11shiftNoSyncPKiPi", "smem_race.cu"),
    "shiftSync": ("_Z9shiftSyncPKiPii", "smem_race.cu"),
    "setRowReadColRect": ("_Z17setRowReadColRectPi", "smem_rect.cu"),
    "setRowReadColRectPad": ("_Z20setRowReadColRectPadPi", "smem_rect.cu"),
    "setRowReadRow": ("_Z13setRowReadRowPi", "smem_row_col.cu"),
    "setRowReadCol": ("_Z13setRowReadColPi", "smem_row_col.cu"),
    "setColReadCol": ("_Z13setColReadColPi", "smem_row_col.cu"),
    "setRowReadColDouble": ("_Z19setRowReadColDoublePd", "smem_row_col.cu"),
    "stencil1d": ("_Z9stencil1dPKfPfi", "stencil_const.cu"),
    "transposeSmem": ("_Z13transposeSmemPfPKfii", "transpose.cu"),
    "transposeSmemPad": ("_Z16transposeSmemPadPfPKfii", "transpose.cu"),
}
# Shared-memory SASS that is none of load/store/atomic/ldmatrix/stmatrix; recorded with kind
# "other" (ptxlint does not model them as bank-conflict accesses)
OTHER_SHARED = ("LDGSTS", "UBLKCP", "SYNCS", "UTMALDG", "UTMASTG")


def open_raw(raw):
    """{name: text} of every file in RAW_DIR or in raw.tar.gz."""
    texts = {}
    if raw.endswith(".tar.gz"):
        with tarfile.open(raw) as tar:
            for m in tar.getmembers():
                if m.isfile() and not m.name.endswith(".ncu-rep"):
                    texts[os.path.basename(m.name)] = tar.extractfile(m).read().decode("utf-8", "replace")
        return texts
    for name in os.listdir(raw):
        p = os.path.join(raw, name)
        if name.endswith(".ncu-rep") or not os.path.isfile(p):
            continue
        opener = gzip.open if name.endswith(".gz") else open
        with opener(p, "rt", encoding="utf-8", errors="replace") as f:
            texts[name[:-3] if name.endswith(".gz") else name] = f.read()
    return texts


def parse_ptx_inlined(text, sample):
    """{kernel: {(file_basename, line): set((file, line) it is inlined at)}}, plus the sample name."""
    files, out, cur = {}, {}, None
    for line in text.splitlines():
        m = re.match(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', line)
        if m:
            files[m.group(1)] = os.path.basename(m.group(2))
    for line in text.splitlines():
        m = re.match(r"^\s*\.(?:visible\s+)?\.entry\s+(\w+)", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        m = re.match(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+,.*inlined_at\s+(\d+)\s+(\d+)", line)
        if m and cur is not None:
            cur.setdefault((files.get(m.group(1)), int(m.group(2))), set()).add(
                (files.get(m.group(3)), int(m.group(4))))
    return out


def shared_lines(text, sample, chains):
    """{kernel: set((sample line, kind))} of the lines that hold a PTX shared-memory instruction."""
    files, out, cur, here, cur_name = {}, {}, None, set(), None
    for line in text.splitlines():
        m = re.match(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', line)
        if m:
            files[m.group(1)] = os.path.basename(m.group(2))
    for line in text.splitlines():
        m = re.match(r"^\s*\.(?:visible\s+)?\.entry\s+(\w+)", line)
        if m:
            cur_name = m.group(1)
            cur, here = out.setdefault(cur_name, set()), set()
            continue
        m = re.match(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:,.*inlined_at\s+(\d+)\s+(\d+))?", line)
        if m:
            if files.get(m.group(1)) == sample:
                here = {int(m.group(2))}
            elif m.group(3):
                here = resolve(chains.get(cur_name, {}), (files.get(m.group(3)), int(m.group(4))), sample)
            else:
                here = set()
            continue
        op = re.match(r"^\s*(?:@!?%?\w+\s+)?([a-z][\w.:]*)", line)
        if cur is not None and op and ".shared" in line and not line.strip().startswith(".shared"):
            word = op.group(1).split(".")[0]
            kind = {"ld": "load", "ldu": "load", "st": "store", "atom": "atomic", "red": "atomic",
                    "ldmatrix": "ldmatrix", "stmatrix": "stmatrix"}.get(word, "other")
            cur |= {(ln, kind) for ln in here}
    return out


def resolve(chains, loc, sample, seen=None):
    """Sample lines that header location `loc` was (transitively) inlined at."""
    seen = seen or set()
    if loc in seen:
        return set()
    seen.add(loc)
    if loc[0] == sample:
        return {loc[1]}
    found = set()
    for parent in chains.get(loc, ()):
        found |= resolve(chains, parent, sample, seen)
    return found


def kind_of(opcode):
    k = bank.kind_of(opcode)
    if k is None and opcode.split(".")[0] in OTHER_SHARED:
        return "other"
    return k


def main(argv):
    raw = os.path.join(HERE, "raw.tar.gz")
    out_path = os.path.join(HERE, "measurements.json")
    args = list(argv)
    if "-o" in args:
        i = args.index("-o")
        out_path = args[i + 1]
        del args[i:i + 2]
    if args:
        raw = args[0]
    texts = open_raw(raw)
    sass_lines = bank.parse_sass_lines(texts["sass_lines.txt"])
    page = bank.parse_source_page(texts["rep_sass.csv"])
    if "rep_risky_sass.csv" in texts:
        for k, v in bank.parse_source_page(texts["rep_risky_sass.csv"]).items():
            page.setdefault(k, v)
    totals = bank.parse_totals(texts["totals.csv"])
    env = bank.parse_env(texts["env.txt"])
    launches = []
    for line in texts["kernel_list.tsv"].splitlines():
        name, grid, block, dyn = line.split("\t")
        launches.append((name, [int(x) for x in grid.split(",")], [int(x) for x in block.split(",")], int(dyn)))
    launches.append(("halfBarrier", [1, 1, 1], [256, 1, 1], 0))  # ./app --risky

    inlined, smem_lines = {}, {}
    kernels, problems = [], []
    for launch_name, grid, block, dyn in launches:
        name, source = KERNELS[launch_name]
        if source not in inlined:
            with open(os.path.join(SAMPLES, source.replace(".cu", ".sm_90.ptx"))) as f:
                ptx_text = f.read()
            inlined[source] = parse_ptx_inlined(ptx_text, source)
            smem_lines[source] = shared_lines(ptx_text, source, inlined[source])
        blocks = page.get(name, [])
        rows = blocks[0] if blocks else []
        if not rows:
            problems.append(f"{name}: no source-page rows")
        for other in blocks[1:]:
            if [(r["Source"], r.get("L1 Wavefronts Shared")) for r in other] != \
                    [(r["Source"], r.get("L1 Wavefronts Shared")) for r in rows]:
                problems.append(f"{name}: repeated listing differs from the first")
        base = int(rows[0]["Address"], 16) if rows else 0
        lines = sass_lines.get(name, {})
        insts = []
        for r in rows:
            sass = " ".join(r["Source"].split())
            opcode = re.sub(r"^@!?U?P\w+\s+", "", sass).split(" ")[0]
            kind = kind_of(opcode)
            wf = bank.to_int(r.get("L1 Wavefronts Shared"))
            if kind is None:
                if wf:
                    problems.append(f"{name}: {sass} has {wf} shared wavefronts but no kind")
                continue
            off = int(r["Address"], 16) - base
            f, ln, text = lines.get(off, (None, None, None))
            if text is not None and text.split(" ")[0] != sass.split(" ")[0]:
                problems.append(f"{name}+{off:#x}: ncu '{sass}' != nvdisasm '{text}'")
            cu_line, via = None, None
            if f == source:
                cu_line = ln
            elif f is not None:
                cands = resolve(inlined[source].get(name, {}), (f, ln), source)
                if len(cands) > 1:  # keep the call sites that issue a shared-memory instruction
                    cands = {c for c in cands if (c, kind) in smem_lines[source].get(name, set())} or cands
                via = f"{f}:{ln}"
                if len(cands) == 1:
                    cu_line = next(iter(cands))
                else:
                    problems.append(f"{name}+{off:#x} {sass}: {f}:{ln} inlined at {sorted(cands)}")
            ins = {"sass": sass, "offset": off, "file": source, "cu_line": cu_line, "kind": kind,
                   "size_bits": bank.to_int(r.get("Access Size")),
                   "executed": bank.to_int(r.get("Instructions Executed")), "wavefronts": wf,
                   "ideal": bank.to_int(r.get("L1 Wavefronts Shared Ideal")),
                   "nway": bank.to_int(r.get("L1 Conflicts Shared N-Way"))}
            if via:
                ins["inlined_from"] = via
            insts.append(ins)
        t = totals.get(name, {})

        def tot(op):
            return {"instructions": t.get(f"smsp__sass_inst_executed_op_shared_{op}.sum"),
                    "wavefronts": t.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")}
        kernels.append({
            "name": name, "launch": launch_name, "source": source, "ptx": source.replace(".cu", ".sm_90.ptx"),
            "block": block, "grid": grid, "dynamic_smem": dyn, "instructions": insts,
            "totals": {"load": tot("ld"), "store": tot("st"), "atomic": tot("atom")} if t else None,
            "totals_extra": {"ldsm_instructions": t.get("smsp__inst_executed_op_ldsm.sum"),
                             "all_shared_wavefronts": t.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")}
            if t else None,
        })
    ptx_check = texts.get("ptx_check.txt", "")
    doc = {"gpu": env.get("gpu"), "driver": env.get("driver"), "nvcc": env.get("nvcc"), "ncu": env.get("ncu"),
           "arch": "sm_90", "compile_flags": "-arch=sm_90 -lineinfo",
           "ptx_matches_committed": bool(ptx_check) and "DIFFERS" not in ptx_check,
           "kernels": kernels}
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for p in problems:
        print("warning:", p, file=sys.stderr)
    n_inst = sum(len(k["instructions"]) for k in kernels)
    print(f"wrote {out_path}: {len(kernels)} kernels, {n_inst} shared-memory SASS instructions")


if __name__ == "__main__":
    main(sys.argv[1:])
