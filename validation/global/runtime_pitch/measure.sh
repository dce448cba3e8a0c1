#!/bin/bash
# On a machine with an H100: build pitch_driver.cu and count the global sectors of each launch with
# Nsight Compute; raw output to $OUT (default ./out); copy metrics.csv and env.txt into raw/ and run convert.py.
set -u
cd "$(dirname "$0")"
O=${OUT:-$PWD/out}; mkdir -p "$O"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; ncu --version | tail -1; } > "$O/env.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -o /tmp/pitch_driver pitch_driver.cu > "$O/log.txt" 2>&1 || { cat "$O/log.txt"; exit 1; }
/tmp/pitch_driver >> "$O/log.txt" 2>&1
M=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
timeout 200 ncu --csv --print-units base --metrics "$M" /tmp/pitch_driver > "$O/metrics.csv" 2>> "$O/log.txt"
tail -3 "$O/log.txt"; wc -l "$O/metrics.csv"
