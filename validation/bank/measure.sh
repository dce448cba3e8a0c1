#!/bin/bash
# Build bank_suite.cu for sm_90 with line info, profile every kernel with Nsight Compute and
# write the raw outputs to $OUT (default ./out). Run on a machine with an H100:
#   bash validation/bank/measure.sh
# Then, here: python3 validation/bank/convert.py <dir with the raw outputs>
set -u
cd "$(dirname "$0")"
O=${OUT:-$PWD/out}; mkdir -p "$O"
W=$(mktemp -d)
cp bank_suite.cu "$W"/ && cd "$W" || exit 1
{
  echo "## nvidia-smi"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "## nvcc"; nvcc --version
  echo "## ncu"; ncu --version
  echo "## flags"; echo "-arch=sm_90 -lineinfo"
} > "$O/env.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -o app bank_suite.cu > "$O/log.txt" 2>&1 || { echo "build failed"; cat "$O/log.txt"; exit 1; }
./app >> "$O/log.txt" 2>&1 || { echo "app failed"; cat "$O/log.txt"; exit 1; }
./app --list > "$O/kernel_list.tsv" 2>&1
# SASS with source-line annotations (address -> .cu line), from the same binary
cuobjdump -xelf all app >> "$O/log.txt" 2>&1
nvdisasm -g -c $(ls *.cubin | head -1) > sass_lines.txt 2>> "$O/log.txt"
# per-kernel totals
ncu --csv --metrics smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_ldsm.sum ./app > totals.csv 2>> "$O/log.txt" \
  || ncu --csv --metrics smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum ./app > totals.csv 2>> "$O/log.txt"
# per-SASS-instruction source counters
ncu --section SourceCounters -f -o rep ./app >> "$O/log.txt" 2>&1
ncu -i rep.ncu-rep --page source --csv --print-source sass > per_instruction_sass.csv 2>> "$O/log.txt"
ncu -i rep.ncu-rep --page source --csv --print-source cuda,sass > per_instruction_cuda_sass.csv 2>> "$O/log.txt"
gzip -9 -k sass_lines.txt totals.csv per_instruction_sass.csv per_instruction_cuda_sass.csv
gzip -9 -c rep.ncu-rep > rep.ncu-rep.gz
cp sass_lines.txt.gz totals.csv.gz per_instruction_sass.csv.gz per_instruction_cuda_sass.csv.gz rep.ncu-rep.gz "$O"/
ls -la "$O"
