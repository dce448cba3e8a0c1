#!/bin/bash
# Build occupancy_suite.cu for sm_90, record ptxas's resource usage and the cubin the binary
# carries, and ask the CUDA runtime for the resident blocks per SM of every kernel at every
# block size and dynamic shared memory size. Run on a machine with the GPU:
#   OUT=out bash validation/occupancy/measure.sh
# Then, here: python3 validation/occupancy/convert.py out
set -u
cd "$(dirname "$0")"
O=${OUT:-$PWD/out}; mkdir -p "$O"
W=$(mktemp -d)
cp occupancy_suite.cu "$W"/ && cd "$W" || exit 1
{
  echo "## nvidia-smi"; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  echo "## nvcc"; nvcc --version
  echo "## flags"; echo "nvcc -arch=sm_90 -lineinfo -Xptxas -v --resource-usage"
} > "$O/env.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -Xptxas -v --resource-usage -o app occupancy_suite.cu > "$O/ptxas_v.txt" 2>&1 \
  || { echo "build failed"; cat "$O/ptxas_v.txt"; exit 1; }
./app > "$O/occupancy_raw.tsv" 2> "$O/app_stderr.txt" || { echo "app failed"; tail "$O/occupancy_raw.tsv" "$O/app_stderr.txt"; exit 1; }
cuobjdump -xelf all app > /dev/null 2>&1
cubin=$(ls *.cubin | head -1)
cp "$cubin" "$O/occupancy_suite.sm_90.cubin"
cuobjdump -res-usage "$cubin" > "$O/res_usage.txt" 2>&1
nvdisasm -g -c "$cubin" | gzip -9 > "$O/occupancy_suite.sm_90.sass.gz"
{ echo "## nvdisasm"; nvdisasm --version; echo "## cuobjdump"; cuobjdump --version; } >> "$O/env.txt" 2>&1
ls -la "$O"; wc -l "$O/occupancy_raw.tsv"; head -5 "$O/occupancy_raw.tsv"
