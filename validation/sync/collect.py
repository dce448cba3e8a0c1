#!/usr/bin/env python3
"""Turn the raw compute-sanitizer logs of labelled.cu into labels.json.

Stdlib only.  Sources of truth:
  * expected findings: the `// EXPECT CODE` markers in labelled.cu (line = cu_line)
  * launch geometry:   the KERNEL(name, gx,gy,gz, bx,by,bz, n) table in labelled.cu
  * tool outcomes:     raw/<kernel>.{plain,synccheck,synccheck_seq,racecheck,racecheck_info}.log
                       (from run_device.sh on the H100; raw/ may also be given as a .tar.gz)
  * notes:             the NOTES table below (human explanation of each outcome)

Usage: python3 collect.py [raw_dir_or_tar.gz] [-o labels.json]
"""
import io
import json
import os
import re
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = "labelled.cu"
PTX = "labelled.sm_90.ptx"

# Why a sanitizer is (or is not) expected to see each defect.  Keyed by kernel name.
EXITED = ("silent on the H100: ptxas puts WARPSYNC.ALL (no BSSY/BSYNC reconvergence) right before the "
          "BAR.SYNC inside the divergent region, so the threads that skip the barrier run on to EXIT, and the "
          "barrier completes once they have exited (sm_70+ hardware counts exited threads as arrived); synccheck "
          "only reports warps whose live threads sit at different barriers. Still wrong by the CUDA programming model")
FENCE = ("global-memory ordering between blocks: racecheck checks shared memory only and synccheck "
         "checks barriers/warp-sync masks only, so no sanitizer tool models this; real by the PTX memory model")
NOTES = {
    "bad_divergent_ifelse_syncthreads": "two distinct bar.sync 0 instructions on the two sides of a lane-parity branch; "
                                        "both sides stay live, so synccheck reports 'Barrier error detected. Divergent "
                                        "thread(s) in warp' and racecheck a cross-branch hazard (line 45 vs 47). nvcc "
                                        "keeps both barriers in PTX (no tail merge). The only SYNC00x case synccheck sees",
    "bad_syncthreads_lane_lt16": EXITED,
    "bad_syncthreads_lane_lt16_live": "skipped threads have code after the if, but " + EXITED,
    "bad_syncthreads_tid_loop": EXITED,
    "bad_syncthreads_tid_loop_live": "threads with fewer trips store their sum after the loop, but " + EXITED,
    "bad_syncthreads_branch_tidy": "warp-uniform but block-divergent branch (threadIdx.y, blockDim.x = 32): warps 2,3 "
                                   "exit, the barrier completes with warps 0,1. " + EXITED,
    "bad_syncthreads_branch_tidy_live": "warp-uniform, block-divergent; warps 2,3 store and exit. " + EXITED,
    "bad_syncthreads_param_bound": "n = 48 < blockDim.x = 64. " + EXITED,
    "bad_syncthreads_data_loop": "data-dependent trip count (3 or 4 trips; lane 31 of warp 0 and all of warp 1 take 4). "
                                 + EXITED,
    "bad_early_return_syncthreads": "SYNC002: tolerated by sm_70+ hardware, wrong by the programming model. " + EXITED,
    "ok_syncwarp_branch_tidy": "warp-uniform branch on threadIdx.y with only __syncwarp (bar.warp.sync): correct",
    "ok_syncthreads_block_uniform": "branch on blockIdx.x: block-uniform, must not be SYNC001",
    "ok_early_return_block_uniform": "early return on a block-uniform condition: must not be SYNC002",
    "ok_named_barrier_warp_specialized": "producer warps bar.arrive 1,128 / consumer warps bar.sync 1,128: "
                                         "block-divergent but warp-uniform and count-correct; must not be SYNC001/SYNC003",
    "ok_syncthreads_loop_uniform_load": "trip count loaded from in[blockIdx.x]: uniform although data-dependent",
    "bad_aligned_named_barrier_half_warp": "bar.sync 1,32 (= barrier.sync.aligned) executed by half of each warp; ran "
                                           "to completion. " + EXITED,
    "bad_aligned_named_barrier_half_warp_live": "bar.sync 1,32 (aligned) executed by half of each warp, other half "
                                                "stores afterwards; ran to completion. " + EXITED,
    "ok_nonaligned_named_barrier_half_warp": "barrier.sync 1,32 (non-aligned) by half-warps: legal on sm_70+; SASS is "
                                             "the same BAR.SYNC.DEFER_BLOCKING as the aligned twin",
    "ok_nonaligned_named_barrier_half_warp_live": "barrier.sync 1,32 (non-aligned) by half-warps, other half alive",
    "ok_cluster_dsmem_exchange": "cg::this_cluster().sync() emits barrier.cluster.arrive + barrier.cluster.wait "
                                 "(non-aligned forms) twice; launched with __cluster_dims__(2,1,1)",
    "bad_cluster_sync_divergent": "both cluster.sync() calls reached by warp 0 only (SASS: UCGABAR_ARV/UCGABAR_WAIT "
                                  "behind a BRA.DIV check); ran to completion, no hang; synccheck does not check "
                                  "barrier.cluster",
    "bad_cluster_arrive_rank0_only": "only CTA rank 0 arrives/waits, CTA 1 exits; ran to completion (exited threads "
                                     "count as arrived); synccheck does not check barrier.cluster",
    "bad_race_raw_neighbor": "racecheck: Error, read line 390 vs write line 388",
    "bad_race_war_inplace_smooth": "racecheck: 4 Errors (WAR between the stencil reads and the in-place write)",
    "bad_race_waw_last_writer": "racecheck: Error, WAW on s_who",
    "bad_race_atomic_then_read": "shared atomicAdd by many threads vs. thread 0's plain read, no barrier: racecheck "
                                 "(also at info level) does not report hazards that involve atomics",
    "bad_reduction_no_syncthreads": "racecheck: Error (769 errors + 248 warnings at info level)",
    "bad_warp_reduce_volatile_no_syncwarp": "racecheck reports intra-warp hazards as Warnings ('Warp Level "
                                            "Programming'), not Errors: 5 warnings, one per unrolled step",
    "bad_warp_scratch_reverse_no_syncwarp": "intra-warp RAW only; racecheck reports it as a Warning",
    "bad_last_block_no_threadfence": FENCE,
    "bad_last_block_threadfence_block": FENCE + "; membar.cta instead of membar.gl",
    "bad_last_block_no_acquire": FENCE + ". This is the consumer side of the CUDA threadFenceReduction sample "
                                 "(no fence after winning the ticket); works in practice but formally lacks the "
                                 "acquire half of fence-based synchronisation",
    "bad_flag_publish_no_fence": FENCE + "; flag published with a volatile store (st.volatile.global)",
    "bad_flag_consumer_no_fence": FENCE + "; consumer reads the payload with plain loads after spinning on the flag",
    "ok_flag_atomic_ref_acq_rel": "cuda::atomic_ref release store / acquire load: PTX st.release.gpu / ld.acquire.gpu",
    "bad_const_lane_indexed": "performance rule, not a correctness bug: no sanitizer reports it. "
                              "See validation/const: cost ~ number of distinct addresses per warp",
    "bad_const_data_indexed_lut": "performance rule (data-dependent LUT index); no sanitizer reports it",
    "ok_const_block_indexed": "index blockIdx.x is warp-uniform: broadcast, must not be CONST001",
    "bad_shfl_full_mask_in_lane_branch": "full-mask shfl.sync with lanes 16..31 absent (they exit); ran to completion; "
                                         "synccheck silent",
    "bad_shfl_full_mask_in_lane_branch_live": "full mask, lanes 16..31 alive at the reconvergence point (SASS: "
                                              "BRA.DIV to a WARPSYNC.COLLECTIVE slow path); ran to completion; "
                                              "synccheck silent",
    "bad_ballot_after_early_exit": "mask names exited lanes; undefined by the CUDA programming guide, tolerated "
                                   "by the H100 (exited lanes are ignored); synccheck silent",
    "bad_shfl_width_12": "width not a power of two: undefined result, no sanitizer checks shuffle operands",
    "bad_shfl_width_64": "width > warpSize: undefined, no sanitizer checks shuffle operands",
}

KERNEL_RE = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(?:__cluster_dims__\([^)]*\)\s*)?(\w+)\s*\(')
EXPECT_RE = re.compile(r'//\s*EXPECT\s+((?:[A-Z]+\d{3}\s*)+)')
TABLE_RE = re.compile(r'^\s*KERNEL\((\w+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\)', re.M)


def parse_source(path):
    """Return ({kernel: [ {code, cu_line} ]}, [(name, grid, block, n)])."""
    lines = open(path).read().split("\n")
    # Map every line to the function containing it (kernels and __device__ helpers).
    owner, current = {}, None
    for no, line in enumerate(lines, 1):
        if line.startswith('extern "C" __global__'):
            # the name may follow __cluster_dims__(...) on the next line
            mm = KERNEL_RE.search(line + " " + (lines[no] if no < len(lines) else ""))
            current = mm.group(1) if mm else None
        elif line.startswith("__device__") and "(" in line:
            mm = re.match(r'^__device__[^(]*?\b(\w+)\s*\(', line)
            current = mm.group(1) if mm else None
        elif line.startswith("//") or line.startswith("typedef") or line.startswith("#"):
            current = None
        if current:
            owner[no] = current
    helpers = {f for f in owner.values() if not f.startswith(("bad_", "ok_"))}
    expected, calls = {}, {}
    for no, line in enumerate(lines, 1):
        f = owner.get(no)
        if not f:
            continue
        m = EXPECT_RE.search(line)
        if m:
            for code in m.group(1).split():
                expected.setdefault(f, []).append({"code": code, "cu_line": no})
        for h in helpers:
            if h != f and re.search(r'\b%s\s*\(' % re.escape(h), line):
                calls.setdefault(f, set()).add(h)
    table = []
    for m in TABLE_RE.finditer("\n".join(lines)):
        g = [int(m.group(i)) for i in (2, 3, 4)]
        b = [int(m.group(i)) for i in (5, 6, 7)]
        table.append((m.group(1), g, b, int(m.group(8))))
    result = {}
    for name, _, _, _ in table:
        exp = list(expected.get(name, []))
        for h in sorted(calls.get(name, ())):
            exp += expected.get(h, [])
        result[name] = sorted(exp, key=lambda e: (e["cu_line"], e["code"]))
    return result, table


class Raw:
    def __init__(self, where):
        self.files = {}
        if os.path.isdir(where):
            for fn in os.listdir(where):
                p = os.path.join(where, fn)
                if os.path.isfile(p):
                    self.files[fn] = open(p, errors="replace").read()
        else:
            with tarfile.open(where) as tf:
                for mem in tf.getmembers():
                    if mem.isfile():
                        self.files[os.path.basename(mem.name)] = tf.extractfile(mem).read().decode(errors="replace")

    def get(self, name):
        return self.files.get(name, "")


def exit_code(log):
    m = re.findall(r'^EXIT (\d+)', log, re.M)
    return int(m[-1]) if m else None


def synccheck_result(log):
    if not log:
        return {"errors": None, "summary": "not run"}
    m = re.search(r'ERROR SUMMARY: (\d+) error', log)
    errors = int(m.group(1)) if m else None
    first = re.search(r'=+ (Barrier error detected\.[^\n]*|Invalid arguments[^\n]*|[A-Z][^\n]*detected[^\n]*)\n'
                      r'=+\s+at ([^\n]*)', log)
    ec = exit_code(log)
    if errors is None:
        summary = "no summary (exit %s%s)" % (ec, ", timeout" if ec in (124, 137) else "")
    elif first:
        where = re.sub(r'^.* in ', '', first.group(2))
        summary = "%s at %s; ERROR SUMMARY: %d errors" % (first.group(1).strip(), where, errors)
    else:
        summary = "ERROR SUMMARY: %d errors" % errors
    lines = sorted({int(x) for x in re.findall(r'in labelled\.cu:(\d+)', log)})
    return {"errors": errors, "summary": summary, "cu_lines": lines, "exit": ec}


def racecheck_result(log):
    if not log:
        return {"hazards": None, "summary": "not run"}
    m = re.search(r'RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)', log)
    ec = exit_code(log)
    if not m:
        return {"hazards": None, "summary": "no summary (exit %s)" % ec, "exit": ec}
    shown, errs, warns = (int(x) for x in m.groups())
    res = {"hazards": errs + warns, "errors": errs, "warnings": warns, "exit": ec}
    first = re.search(r'=+ (Error|Warning): Race reported between (\w+) access at [^\n]* in labelled\.cu:(\d+)\n'
                      r'=+\s+and (\w+) access at [^\n]* in labelled\.cu:(\d+)', log)
    other = re.search(r'=+ (Potential invalid __shared__[^\n]*)\n=+\s+at [^\n]* in labelled\.cu:(\d+)', log)
    summary = m.group(0)
    if first:
        summary = "%s: %s at labelled.cu:%s vs %s at labelled.cu:%s; %s" % (
            first.group(1), first.group(2), first.group(3), first.group(4), first.group(5), m.group(0))
    elif other:
        summary = "%s at labelled.cu:%s; %s" % (other.group(1), other.group(2), m.group(0))
    res["summary"] = summary
    res["cu_lines"] = sorted({int(x) for x in re.findall(r'in labelled\.cu:(\d+)', log)})
    if other:
        res["other_reports"] = len(re.findall(r'Potential invalid __shared__', log))
    return res


def racecheck_info_result(log):
    if not log:
        return {"hazards": None, "summary": "not run"}
    m = re.search(r'RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)', log)
    if not m:
        return {"hazards": None, "summary": "no summary (exit %s)" % exit_code(log)}
    kinds = {}
    for k in re.findall(r'Potential (\w+) hazard detected', log):
        kinds[k] = kinds.get(k, 0) + 1
    wl = len(re.findall(r'\(Warp Level Programming\)', log))
    return {"hazards": int(m.group(2)) + int(m.group(3)), "errors": int(m.group(2)), "warnings": int(m.group(3)),
            "displayed_by_kind": kinds, "displayed_warp_level": wl, "summary": m.group(0)}


def plain_result(log):
    m = re.search(r'KERNEL_DONE \S+ launch=(.*?) sync=(.*?) out\[0\.\.3\]=(.*)', log)
    ec = exit_code(log)
    if not m:
        return {"completed": False, "exit": ec, "summary": "timeout" if ec in (124, 137) else "no output"}
    return {"completed": m.group(1) == "no error" and m.group(2) == "no error", "exit": ec,
            "summary": "launch=%s sync=%s out[0..3]=%s" % m.groups()}


def main():
    args = [a for a in sys.argv[1:]]
    out_path = os.path.join(HERE, "labels.json")
    if "-o" in args:
        i = args.index("-o")
        out_path = args[i + 1]
        del args[i:i + 2]
    raw_where = args[0] if args else None
    if raw_where is None:
        cands = [os.path.join(HERE, "raw"), os.path.join(HERE, "raw", "sync_raw.tar.gz")]
        raw_where = next(c for c in reversed(cands) if os.path.exists(c))
    raw = Raw(raw_where)
    expected, table = parse_source(os.path.join(HERE, SOURCE))

    env = raw.get("env.txt").strip().split("\n")
    gpu, driver = (env[0].split(",")[:2] + ["", ""])[:2] if env and env[0] else ("", "")
    nvcc = next((l for l in env if "Cuda compilation tools" in l), "")
    csan = next((l for l in env if l.startswith("Version")), "")

    kernels = []
    for name, grid, block, n in table:
        exp = expected.get(name, [])
        if name.startswith("ok_") and exp:
            raise SystemExit("ok_ kernel %s has EXPECT markers" % name)
        if name.startswith("bad_") and not exp:
            raise SystemExit("bad_ kernel %s has no EXPECT marker" % name)
        sc = synccheck_result(raw.get(name + ".synccheck.log"))
        sc_seq = synccheck_result(raw.get(name + ".synccheck_seq.log"))
        rc = racecheck_result(raw.get(name + ".racecheck.log"))
        rci = racecheck_info_result(raw.get(name + ".racecheck_info.log"))
        pr = plain_result(raw.get(name + ".plain.log"))
        sync_err = max([x for x in (sc.get("errors"), sc_seq.get("errors")) if x is not None] or [0])
        race_err = rc.get("hazards") or 0
        race_other = rc.get("other_reports", 0)
        seen = bool(sync_err or race_err or race_other)
        entry = {
            "name": name, "grid": grid, "block": block, "n": n,
            "expected": exp,
            "synccheck": sc, "synccheck_sequential": sc_seq,
            "racecheck": rc, "racecheck_info": rci,
            "plain_run": pr,
            "sanitizer_sees_it": seen if exp else False,
            "sanitizer_false_positive": bool(seen and not exp),
            "note": NOTES.get(name, ""),
        }
        kernels.append(entry)

    doc = {
        "gpu": gpu.strip(), "driver": driver.strip(), "nvcc": nvcc.strip(),
        "compute_sanitizer": csan.strip(), "arch": "sm_90",
        "source": SOURCE, "ptx": PTX,
        "build": "nvcc -arch=sm_90 -lineinfo labelled.cu -o app; PTX: nvcc -arch=sm_90 -lineinfo -ptx labelled.cu",
        "tools": {
            "synccheck": "compute-sanitizer --tool synccheck ./app NAME (run 6-way parallel, and again one at a time: synccheck_sequential)",
            "racecheck": "compute-sanitizer --tool racecheck ./app NAME",
            "racecheck_info": "compute-sanitizer --tool racecheck --racecheck-detect-level info --racecheck-report all ./app NAME",
            "plain_run": "./app NAME under timeout 15 s (did it complete?)",
        },
        "labelling_policy": [
            "cu_line is the line ptxlint should point at: the barrier (SYNC*), the later access of the racing pair "
            "(RACE001/WARP001: the read for RAW, the write for WAR/WAW), the publishing atomic/store (FENCE001), "
            "the unfenced consumer read (FENCE002), the too-narrow fence (FENCE003), the constant load (CONST001), "
            "the shuffle/vote (SHFL*).",
            "A __syncthreads in a branch that is both block- and warp-divergent is labelled SYNC001 only; SYNC003 is "
            "reserved for .aligned named barriers (bar.sync id, count) whose thread count is satisfied but whose "
            "warps are split.",
            "Races whose two accesses are always in the same warp are labelled WARP001, not RACE001.",
            "Markers inside a __device__ helper (warpReduce) belong to every kernel that calls it.",
            "sanitizer_sees_it: synccheck (either run) reported errors, or racecheck reported >=1 hazard or a "
            "shared-memory error, for a bad_ kernel.",
        ],
        "kernels": kernels,
    }
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    w = max(len(k["name"]) for k in kernels)
    for k in kernels:
        print("%-*s %-18s sync=%-4s seq=%-4s race=%-5s info=%-5s seen=%s plain=%s" % (
            w, k["name"], ",".join(e["code"] for e in k["expected"]) or "-",
            k["synccheck"].get("errors"), k["synccheck_sequential"].get("errors"),
            k["racecheck"].get("hazards"), k["racecheck_info"].get("hazards"),
            k["sanitizer_sees_it"], "ok" if k["plain_run"].get("completed") else k["plain_run"].get("summary")))


if __name__ == "__main__":
    main()
