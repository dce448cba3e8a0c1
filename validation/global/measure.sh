#!/bin/bash
# Build global_suite.cu for sm_90 with line info, run it, profile every kernel with Nsight Compute
# and write the raw outputs to $OUT (default ./out). Run on a machine with an H100:
#   bash validation/global/measure.sh
# Then, here: python3 validation/global/convert.py <dir with the raw outputs>
set -u
cd "$(dirname "$0")"
O=${OUT:-$PWD/out}; mkdir -p "$O"
W=$(mktemp -d)
cp global_suite.cu "$W"/ && cd "$W" || exit 1
{
  echo "## nvidia-smi"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "## nvcc"; nvcc --version
  echo "## ncu"; ncu --version
  echo "## flags"; echo "-arch=sm_90 -lineinfo"
} > "$O/env.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -o app global_suite.cu > "$O/log.txt" 2>&1 || { echo "build failed"; cat "$O/log.txt"; exit 1; }
./app >> "$O/log.txt" 2>&1 || { echo "app failed"; cat "$O/log.txt"; exit 1; }
./app --list > "$O/kernel_list.tsv" 2>&1
cuobjdump -xelf all app >> "$O/log.txt" 2>&1
nvdisasm -g -c $(ls *.cubin | head -1) > sass_lines.txt 2>> "$O/log.txt"
M=""
for op in ld st atom red; do
  M="$M,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum"
done
M="${M#,},smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,smsp__sass_inst_executed_op_global_atom.sum,smsp__sass_inst_executed_op_global_red.sum"
echo "## source counters pass $(date +%s)" >> "$O/log.txt"
timeout 210 ncu --section SourceCounters -f -o rep ./app >> "$O/log.txt" 2>&1
echo "## metrics pass $(date +%s)" >> "$O/log.txt"
timeout 100 ncu --csv --print-units base --metrics "$M" ./app > totals.csv 2>> "$O/log.txt"
echo "## export $(date +%s)" >> "$O/log.txt"
ncu -i rep.ncu-rep --page source --csv --print-source sass > per_instruction_sass.csv 2>> "$O/log.txt"
gzip -9 -k sass_lines.txt totals.csv per_instruction_sass.csv
gzip -9 -c rep.ncu-rep > rep.ncu-rep.gz
cp sass_lines.txt.gz totals.csv.gz per_instruction_sass.csv.gz rep.ncu-rep.gz "$O"/
echo "## done $(date +%s)" >> "$O/log.txt"
ls -la "$O"; tail -5 "$O/log.txt"; head -3 per_instruction_sass.csv | cut -c1-300
