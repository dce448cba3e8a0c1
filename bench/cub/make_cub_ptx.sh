#!/usr/bin/env bash
# Build the ~5 MB benchmark PTX for ptxlint: bench/cub/cub_sm90.ptx (git-ignored).
#   bench/cub/make_cub_ptx.sh              (nvcc from PATH; about 15-20 s on 2 cores)
#   NVCC=/path/to/nvcc bench/cub/make_cub_ptx.sh
# Optional timing of the reference assembler on the result:  TIME_PTXAS=1 bench/cub/make_cub_ptx.sh
set -euo pipefail

NVCC="${NVCC:-nvcc}"
cd "$(dirname "${BASH_SOURCE[0]}")"

"$NVCC" -ptx -arch=sm_90 -lineinfo cub_instances.cu -o cub_sm90.ptx
bytes=$(wc -c < cub_sm90.ptx)
echo "cub_sm90.ptx: $bytes bytes, $(grep -c '\.entry' cub_sm90.ptx) entries, $(wc -l < cub_sm90.ptx) lines"

if [[ "${TIME_PTXAS:-0}" == 1 ]]; then
    PTXAS="${PTXAS:-$(dirname "$(command -v "$NVCC")")/ptxas}"
    start=$(date +%s.%N)
    "$PTXAS" -arch=sm_90 cub_sm90.ptx -o /dev/null
    end=$(date +%s.%N)
    echo "ptxas -arch=sm_90: $(echo "$end - $start" | bc) s"
fi
