#!/bin/bash
# On the GPU machine, from the repository root: every kernel of barrier_callee.cu plain, under
# synccheck and under racecheck; the logs go to $OUT (or validation/sync/callee/out).
set -u
OUT=${OUT:-validation/sync/callee/out}; mkdir -p "$OUT"
cd validation/sync/callee
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2 | head -1
  compute-sanitizer --version | tail -1; } > "$OUT/env.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -o /tmp/callee_app launch_callee.cu || exit 1
for k in $(/tmp/callee_app); do
  for tool in plain synccheck racecheck; do
    if [ $tool = plain ]; then timeout 30 /tmp/callee_app $k; else timeout 60 compute-sanitizer --tool $tool /tmp/callee_app $k; fi \
      > "$OUT/$k.$tool.log" 2>&1
    echo "EXIT $?" >> "$OUT/$k.$tool.log"
  done
done
cat "$OUT/env.txt"; grep -H "ERROR SUMMARY\|EXIT\|: no error\|: " "$OUT"/*.log | grep -v "^$" | head -40
