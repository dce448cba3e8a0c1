#!/bin/bash
# Build the sample launcher for sm_90 with line info, profile every shared-memory sample kernel
# with Nsight Compute and pack the raw outputs into $OUT (default ./out). Run from the repo root
# on a machine with an H100:   bash validation/samples/measure.sh
# Then, here: copy $OUT/raw.tar.gz to validation/samples/ and run python3 validation/samples/convert.py
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
O=${OUT:-$PWD/out}; mkdir -p "$O"
W=$(mktemp -d); R=$W/raw; mkdir -p "$R"
cd "$ROOT" || exit 1
# every sample with __shared__ except those whose kernels are templates (built through
# validation/samples/template_launchers*.cu, which #include them)
SAMPLES=""
for f in $(grep -l __shared__ samples/*.cu); do
  case $f in samples/ldmatrix_mma.cu|samples/reduce_warp_tail.cu) ;; *) SAMPLES="$SAMPLES $f";; esac
done
{
  echo "## nvidia-smi"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "## nvcc"; nvcc --version
  echo "## ncu"; ncu --version
  echo "## flags"; echo "-arch=sm_90 -lineinfo"
  echo "## sources"; echo validation/samples/launch_samples.cu validation/samples/template_launchers.cu validation/samples/template_launchers_reduce.cu $SAMPLES
} > "$R/env.txt" 2>&1
cat "$R/env.txt"
nvcc -arch=sm_90 -lineinfo -o "$W/app" validation/samples/launch_samples.cu validation/samples/template_launchers.cu \
  validation/samples/template_launchers_reduce.cu $SAMPLES > "$R/build.txt" 2>&1 || { echo "build failed"; cat "$R/build.txt"; }
# the device code must be that of the committed PTX: regenerate each PTX and compare (the .file
# paths and the debug-string bytes that embed them are left out of the comparison)
for f in $(grep -l __shared__ samples/*.cu); do
  nvcc -ptx -lineinfo -arch=sm_90 "$f" -o "$W/$(basename "$f" .cu).ptx" 2>>"$R/build.txt" &
done; wait
for f in $(grep -l __shared__ samples/*.cu); do
  b=$(basename "$f" .cu)
  if diff -q <(grep -v -e '^\s*\.file' -e '^\.b8' -e '^//' "$W/$b.ptx") <(grep -v -e '^\s*\.file' -e '^\.b8' -e '^//' samples/$b.sm_90.ptx) >/dev/null; then
    echo "ptx-same $b"; else echo "ptx-DIFFERS $b"; fi
done > "$R/ptx_check.txt"
cat "$R/ptx_check.txt"
cd "$W" || exit 1
./app > "$R/run.txt" 2>&1; echo "app rc=$?" >> "$R/run.txt"
./app --list > "$R/kernel_list.tsv" 2>&1
cat "$R/run.txt"
# SASS with source-line annotations (offset -> file, line), one listing per cubin
mkdir -p cub && (cd cub && cuobjdump -xelf all ../app) > "$R/cuobjdump.txt" 2>&1
for c in cub/*.cubin; do echo "##cubin $(basename $c)"; nvdisasm -g -c "$c"; done > "$R/sass_lines.txt" 2>&1
# per-SASS-instruction source counters
timeout 180 ncu --section SourceCounters -f -o rep ./app > "$R/ncu_log.txt" 2>&1; echo "ncu rc=$?" >> "$R/ncu_log.txt"
# halfBarrier (a barrier under threadIdx.x < 16) only after everything else is measured
timeout 30 ./app --risky >> "$R/run.txt" 2>&1; rr=$?; echo "risky rc=$rr" >> "$R/run.txt"
if [ $rr = 0 ]; then
  timeout 40 ncu --section SourceCounters -f -o rep_risky ./app --risky >> "$R/ncu_log.txt" 2>&1; echo "ncu risky rc=$?" >> "$R/ncu_log.txt"
fi
tail -5 "$R/ncu_log.txt"
for r in rep rep_risky; do
  [ -f $r.ncu-rep ] || continue
  ncu -i $r.ncu-rep --page source --csv --print-source sass --print-kernel-base mangled > "$R/${r}_sass.csv" 2>&1 \
    || ncu -i $r.ncu-rep --page source --csv --print-source sass > "$R/${r}_sass.csv" 2>&1
  ncu -i $r.ncu-rep --page source --csv --print-source cuda,sass --print-kernel-base mangled > "$R/${r}_cuda_sass.csv" 2>&1
  ncu -i $r.ncu-rep --page raw --csv --print-kernel-base mangled > "$R/${r}_raw.csv" 2>&1
  cp $r.ncu-rep "$R/"
done
tar -C "$W" -czf "$O/raw.tar.gz" raw
# per-kernel totals (a second, independent count)
M=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_ldsm.sum
timeout 60 ncu --csv --print-kernel-base mangled --metrics $M ./app > "$R/totals.csv" 2>> "$R/ncu_log.txt" \
  || timeout 60 ncu --csv --print-kernel-base mangled --metrics ${M%,smsp__inst_executed_op_ldsm.sum} ./app > "$R/totals.csv" 2>> "$R/ncu_log.txt"
ls -la "$R"; head -c 1500 "$R/rep_sass.csv"; echo; grep -c . "$R/rep_sass.csv"
tar -C "$W" -czf "$O/raw.tar.gz" raw
ls -la "$O"
