#!/usr/bin/env python3
"""Turn the raw compute-sanitizer logs of toolkit.cu into labels.json.

Stdlib only. Sources of truth:
  * expected findings: the `// EXPECT CODE` markers in toolkit.cu (line = cu_line)
  * launch shapes:     the KERNEL(name, grid, block, cooperative) table in toolkit.cu
  * tool outcomes:     raw/toolkit_raw.tar.gz from run_device.sh on the H100
                       (<kernel>.{plain,racecheck,synccheck}.log, env.txt)
  * what decides each label: the DECIDED table below (the sanitizer, or the documented semantics
    where the sanitizer cannot see the defect or reports a hazard that is not one)

Usage: python3 collect.py [raw_dir_or_tar.gz] [-o labels.json]
"""
import json
import os
import re
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = "toolkit.cu"
PTX = "toolkit.sm_90.ptx"

RACECHECK = "racecheck"
SYNCCHECK = "synccheck"
MODEL = "programming model"  # the CUDA programming guide / PTX memory model; the sanitizer is silent
DOCUMENTED = "documented semantics"  # the toolkit's documented contract; overrides a sanitizer false alarm

CG_MULTI_WARP = ("racecheck reports hazards inside cooperative groups: tiles of more than 32 threads synchronise "
                 "through the toolkit's reserved shared scratch (`atom.or.acq_rel.cta` to arrive, `ld.acquire.cta` "
                 "spin to wait, then `bar.warp.sync`), and racecheck does not model synchronisation through "
                 "atomics and acquire/release. Correct by the CUDA programming guide (thread_block_tile::sync and "
                 "cg::reduce are collective over the tile) and the PTX memory model")
SLOTS = ("each atomicAdd hands out a slot; nothing in the kernel reads dst after observing the counter, so there "
         "is no hand-off to order (the host reads dst after the kernel). No sanitizer models cross-block ordering")
EXITED = ("sanitizers silent: the threads that skip the barrier run on to EXIT and the H100 counts exited threads "
          "as arrived (see validation/sync/README.md). Wrong by the CUDA programming guide: a block's sync must be "
          "reached by every thread of the block")

# kernel -> (what decides the label, why)
DECIDED = {
    "ok_block_sync": (RACECHECK, "racecheck and synccheck clean; block.sync() is bar.sync 0"),
    "bad_block_sync_divergent": (MODEL, EXITED),
    "ok_tile4_shfl_down": (RACECHECK, "no shared memory; synccheck clean (shfl.sync with the tile's 4-lane mask)"),
    "ok_tile8_sync_smem": (RACECHECK, "racecheck clean: tile.sync() orders the exchange inside the 8-thread tile"),
    "bad_tile16_smem_no_sync": (RACECHECK, "racecheck: intra-warp hazard (Warning), write line 75 / read line 77: "
                                           "lanes read what other lanes of the tile wrote with no tile.sync()"),
    "ok_tile16_reduce": (RACECHECK, "racecheck and synccheck clean (cg::reduce over 16 lanes: redux/shfl)"),
    "ok_tile32_reduce_shfl": (RACECHECK, "racecheck and synccheck clean (redux.sync max, shfl.sync.idx from lane 0)"),
    "bad_tile32_sync_divergent": (RACECHECK, "racecheck: intra-warp hazard (Warning), write line 99 / read line "
                                             "102: lanes 0..15 read what lanes 16..31 wrote, and lanes 16..31 never "
                                             "reach the full-mask __syncwarp (tile.sync()); synccheck silent. By the "
                                             "programming guide the mask may name only lanes that execute it"),
    "ok_tile64_reduce": (DOCUMENTED, CG_MULTI_WARP),
    "ok_tile128_reduce": (DOCUMENTED, CG_MULTI_WARP),
    "ok_tile256_reduce": (DOCUMENTED, CG_MULTI_WARP),
    "ok_tile512_reduce": (DOCUMENTED, CG_MULTI_WARP),
    "ok_tile128_sync_smem": (DOCUMENTED, CG_MULTI_WARP + "; here between the user's write (line 126) and read "
                                                         "(line 129) across the 128-thread tile's sync()"),
    "ok_coalesced_aggregated_slots": (MODEL, "racecheck and synccheck clean; warp-aggregated slot counter: " + SLOTS),
    "ok_binary_partition_reduce": (RACECHECK, "racecheck and synccheck clean (cg::reduce over each half of a "
                                              "binary_partition: match.any + redux/shfl with the partition's mask)"),
    "ok_grid_sync_partials": (DOCUMENTED, "racecheck and synccheck clean; launched with cudaLaunchCooperativeKernel: "
                                          "grid.sync() is a grid-wide barrier with the fences the programming guide "
                                          "documents, so block 0 may read every block's partial after it"),
    "ok_cub_block_reduce": (RACECHECK, "racecheck and synccheck clean"),
    "ok_cub_block_scan": (RACECHECK, "racecheck and synccheck clean"),
    "ok_cub_block_radix_sort": (RACECHECK, "racecheck and synccheck clean"),
    "ok_cub_warp_reduce": (RACECHECK, "racecheck and synccheck clean (one TempStorage per warp)"),
    "ok_cub_temp_storage_reuse_synced": (RACECHECK, "racecheck clean: the __syncthreads() CUB documents between two "
                                                    "uses of one TempStorage"),
    "bad_cub_temp_storage_reuse_no_sync": (RACECHECK, "racecheck: Error, the second BlockReduce's write "
                                                      "(uninitialized_copy.cuh:60) races with the first one's reads "
                                                      "(block_reduce_warp_reductions.cuh:143); both inlined into "
                                                      "the user's lines 235-236, reported on line 236"),
    "ok_last_block_threadfence": (MODEL, "sanitizers clean (they do not model cross-block ordering); "
                                         "__threadfence() before the ticket and after winning it: correct by the PTX "
                                         "memory model"),
    "bad_last_block_no_threadfence": (MODEL, "sanitizers clean (they do not model cross-block ordering); the ticket "
                                             "may become visible before the partial, and the last block reads the "
                                             "partials after observing it: wrong by the PTX memory model"),
    "ok_last_block_atomic_ref_acq_rel": (MODEL, "sanitizers clean; cuda::atomic_ref fetch_add(acq_rel) at device "
                                                "scope: the release orders the partial before the ticket, the "
                                                "acquire orders the reads after it (PTX atom.acq_rel.gpu)"),
    "ok_slot_counter_grid_stride": (MODEL, "sanitizers clean; " + SLOTS),
    "ok_slot_counter_bounded": (MODEL, "sanitizers clean; " + SLOTS + "; the capacity check branches on the slot "
                                       "but still reads nothing the kernel wrote"),
    "ok_block_scope_atomic_ref": (MODEL, "sanitizers clean; cuda::atomic_ref<thread_scope_block> on a per-block "
                                         "counter: CTA-scope atomics (atom.acq_rel.cta) only order the block's own "
                                         "threads, nothing is published to other blocks"),
}

# ok kernels on which ptxlint's SHFL001 waits for warp-uniform broadcast values (shfl.sync.idx from a
# uniform lane): issue 9, "Unknown means unknown", not this suite's rules
NEEDS_UNIFORM_BROADCAST = {"ok_tile64_reduce", "ok_tile128_reduce", "ok_tile256_reduce", "ok_tile512_reduce"}

KERNEL_RE = re.compile(r'^extern\s+"C"\s+__global__\s+void\s+(\w+)\s*\(')
EXPECT_RE = re.compile(r'//\s*EXPECT\s+([A-Z]+\d{3})\b')
TABLE_RE = re.compile(r'^\s*KERNEL\((\w+),\s*(\d+),\s*(\d+),\s*(true|false)\)', re.M)


def parse_source(path):
    """({kernel: [{code, cu_line}]}, [(name, grid, block, cooperative)])."""
    lines = open(path).read().split("\n")
    expected, current = {}, None
    for no, line in enumerate(lines, 1):
        m = KERNEL_RE.match(line)
        if m:
            current = m.group(1)
        elif line.startswith(("//", "template", "__device__", "struct", "static", "#")):
            current = None
        e = EXPECT_RE.search(line)
        if e and current:
            expected.setdefault(current, []).append({"code": e.group(1), "cu_line": no})
    table = [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4) == "true")
             for m in TABLE_RE.finditer("\n".join(lines))]
    return expected, table


def read_raw(where):
    files = {}
    if os.path.isdir(where):
        for name in os.listdir(where):
            with open(os.path.join(where, name), errors="replace") as f:
                files[name] = f.read()
    else:
        with tarfile.open(where) as tf:
            for member in tf.getmembers():
                if member.isfile():
                    files[os.path.basename(member.name)] = tf.extractfile(member).read().decode(errors="replace")
    return files


def exit_code(log):
    found = re.findall(r'^EXIT (\d+)', log, re.M)
    return int(found[-1]) if found else None


def racecheck(log):
    m = re.search(r'RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)', log)
    if not m:
        return {"hazards": None, "exit": exit_code(log)}
    _, errors, warnings = (int(x) for x in m.groups())
    places = sorted(set(re.findall(r' in ([\w.]+:\d+)', log)))
    return {"errors": errors, "warnings": warnings, "places": places, "exit": exit_code(log)}


def synccheck(log):
    m = re.search(r'ERROR SUMMARY: (\d+) error', log)
    return {"errors": int(m.group(1)) if m else None, "exit": exit_code(log)}


def plain(log):
    m = re.search(r': ([^,\n]+), out\[0\]', log)
    return {"cuda": m.group(1) if m else None, "exit": exit_code(log)}


def collect(raw_where):
    expected, table = parse_source(os.path.join(HERE, SOURCE))
    raw = read_raw(raw_where)
    env = raw.get("env.txt", "").strip().split("\n")
    kernels = []
    for name, grid, block, cooperative in table:
        bad = name.startswith("bad_")
        rc = racecheck(raw.get(f"{name}.racecheck.log", ""))
        sc = synccheck(raw.get(f"{name}.synccheck.log", ""))
        decided_by, why = DECIDED[name]
        sanitizer_reports = bool(rc.get("errors") or rc.get("warnings") or sc.get("errors"))
        # the label and the evidence must agree: a sanitizer verdict is only overridden by a documented contract
        if decided_by == RACECHECK:
            assert sanitizer_reports == bad, (name, rc, sc)
        if not bad and sanitizer_reports:
            assert decided_by == DOCUMENTED, name
        if bad and decided_by == MODEL:
            assert not sanitizer_reports, name
        assert bool(expected.get(name)) == bad, name
        kernels.append({
            "name": name, "label": "bad" if bad else "ok", "grid": [grid, 1, 1], "block": [block, 1, 1],
            "cooperative": cooperative, "expected": expected.get(name, []),
            "decided_by": decided_by, "why": why,
            "sanitizer_sees_it": bad and sanitizer_reports,
            "sanitizer_false_alarm": (not bad) and sanitizer_reports,
            "needs_uniform_broadcast": name in NEEDS_UNIFORM_BROADCAST,
            "racecheck": rc, "synccheck": sc, "run": plain(raw.get(f"{name}.plain.log", "")),
        })
    assert set(DECIDED) == {k["name"] for k in kernels}, "DECIDED and the KERNEL table disagree"
    return {
        "gpu": env[0] if env else None,
        "nvcc": env[1] if len(env) > 1 else None,
        "compute_sanitizer": env[2] if len(env) > 2 else None,
        "arch": "sm_90", "source": SOURCE, "ptx": PTX,
        "build": "nvcc -arch=sm_90 -lineinfo toolkit.cu -o app; nvcc -arch=sm_90 -lineinfo -ptx toolkit.cu -o "
                 "toolkit.sm_90.ptx",
        "labelling_policy": "bad_* kernels are genuine misuses, ok_* kernels use the toolkit as documented. A label "
                            "is decided by racecheck/synccheck where they see the defect ('racecheck'); by the CUDA "
                            "programming guide / PTX memory model where no sanitizer models it ('programming "
                            "model': cross-block ordering, barriers skipped by exited threads); by the toolkit's "
                            "documented contract where racecheck reports a hazard inside a synchronisation it does "
                            "not model ('documented semantics', sanitizer_false_alarm: true)",
        "kernels": kernels,
    }


def main(argv):
    out = os.path.join(HERE, "labels.json")
    raw = os.path.join(HERE, "raw", "toolkit_raw.tar.gz")
    args = list(argv)
    if "-o" in args:
        i = args.index("-o")
        out = args[i + 1]
        del args[i:i + 2]
    if args:
        raw = args[0]
    with open(out, "w") as f:
        json.dump(collect(raw), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
