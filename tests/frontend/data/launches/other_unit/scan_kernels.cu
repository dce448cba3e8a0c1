// Kernels only; their launch is in entry.cu, another translation unit, which includes the
// header of this file's name (include/scan/scan_kernels.h, built with -I include/scan).
#include "scan_kernels.h"

__global__ void scan_tiles(const int *in, int *out, int n) {
  __shared__ int tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0;
  __syncwarp();
  // a neighbour in warp 0's half of the tile: a race between warps in blocks of 64 threads or more
  out[i] = tile[(threadIdx.x + 1) % 32];
}
