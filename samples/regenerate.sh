#!/usr/bin/env bash
# Regenerate every .ptx file in samples/ from the .cu sources.
#   ./regenerate.sh            (uses nvcc from PATH)
#   NVCC=/path/to/nvcc ./regenerate.sh
# Outputs, next to the sources:
#   <name>.sm_80.ptx    every sample except the sm_90-only ones listed in SM90_ONLY
#   <name>.sm_90.ptx    every sample
#   reduce_warp_tail.sm_90.G.ptx   one device-debug (-G) build
#   ptx_directives.sm_90.rdc.ptx   one -rdc=true build
#   mbarrier.sm_90a.ptx, ldmatrix_mma.sm_100a.ptx   arch-specific targets (if nvcc accepts them)
#   transpose.sm_52.ptx (or transpose.sm_75.ptx when nvcc no longer supports sm_52; CUDA 13 dropped it)
set -euo pipefail

NVCC="${NVCC:-nvcc}"
cd "$(dirname "${BASH_SOURCE[0]}")"

# Samples that use sm_90-only features (mbarrier/TMA-style bulk copies, clusters) or belong to the
# sm_90 feature group (ldmatrix/mma, cp.async): compiled for sm_90 only, never for sm_80.
SM90_ONLY=(ldmatrix_mma.cu cp_async_pipeline.cu mbarrier.cu cluster_dsmem.cu ptx_directives.cu)

is_sm90_only() {
    local f="$1" x
    for x in "${SM90_ONLY[@]}"; do [[ "$x" == "$f" ]] && return 0; done
    return 1
}

compile() { # compile <src> <arch> <out> [extra flags...]
    local src="$1" arch="$2" out="$3"; shift 3
    echo "  $NVCC -ptx -arch=$arch $* $src -o $out"
    "$NVCC" -ptx -arch="$arch" "$@" "$src" -o "$out"
}

rm -f ./*.ptx
for src in *.cu; do
    name="${src%.cu}"
    if is_sm90_only "$src"; then
        echo "skip sm_80 for $src (sm_90-only sample)"
    else
        compile "$src" sm_80 "$name.sm_80.ptx" -lineinfo
    fi
    compile "$src" sm_90 "$name.sm_90.ptx" -lineinfo
done

# One device-debug build (-G implies full debug line info; -lineinfo is not combined with it).
compile reduce_warp_tail.cu sm_90 reduce_warp_tail.sm_90.G.ptx -G

# One relocatable-device-code build: extern device functions, .visible module variables.
compile ptx_directives.cu sm_90 ptx_directives.sm_90.rdc.ptx -lineinfo -rdc=true

# Architecture-specific targets, so the parser sees `.target sm_90a` / `.target sm_100a`.
compile mbarrier.cu sm_90a mbarrier.sm_90a.ptx -lineinfo
if "$NVCC" --list-gpu-arch 2>/dev/null | grep -qx 'compute_100'; then
    compile ldmatrix_mma.cu sm_100a ldmatrix_mma.sm_100a.ptx -lineinfo
else
    echo "nvcc does not support sm_100a; skipping ldmatrix_mma.sm_100a.ptx"
fi

# An old target (.target sm_52, older .version). CUDA 13 removed sm_52..sm_72, so fall back to the
# oldest architecture this nvcc still accepts.
if "$NVCC" --list-gpu-arch 2>/dev/null | grep -qx 'compute_52'; then
    compile transpose.cu sm_52 transpose.sm_52.ptx -lineinfo
else
    old="$("$NVCC" --list-gpu-arch | sed -n 's/^compute_//p' | sort -n | head -n1)"
    echo "nvcc does not support sm_52; using sm_$old instead"
    compile transpose.cu "sm_$old" "transpose.sm_$old.ptx" -lineinfo
fi
echo "done: $(ls ./*.ptx | wc -l) PTX files"
