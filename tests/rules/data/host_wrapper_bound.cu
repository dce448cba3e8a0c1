// A launch inside a host wrapper takes the values each call of the wrapper passes: here the
// bound n of a grid-stride loop holding `__syncthreads()` and a full-warp shuffle. The wrapper
// `scan_all` is called with n = 256 * 4096, a multiple of the block, so no block or warp splits in
// this program: no finding. `scan_some` is called with n = 1000: the block where n falls splits.
// The loop index is also a 64-bit offset (`out[i]`), which nvcc keeps as a widened copy of i that
// it truncates back before the increment: the same value, so the loop is still a grid-stride loop.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 host_wrapper_bound.cu
#define BLOCK 256

// Each pass: a warp's inclusive scan by shuffles, then the block's warp totals through shared
// memory between two barriers.
extern "C" __global__ void ok_scan_whole_blocks(const int *in, int *out, int n) {
  __shared__ int totals[BLOCK / 32];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int v = in[i], lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(0xffffffff, v, d);
      if (lane >= d) v += up;
    }
    if (lane == 31) totals[threadIdx.x / 32] = v;
    __syncthreads();
    for (int w = 0; w < threadIdx.x / 32; w++) v += totals[w];
    __syncthreads();
    out[i] = v;
  }
}

extern "C" __global__ void bad_scan_split_block(const int *in, int *out, int n) {
  __shared__ int totals[BLOCK / 32];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int v = in[i], lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(0xffffffff, v, d);  // EXPECT SHFL001
      if (lane >= d) v += up;
    }
    if (lane == 31) totals[threadIdx.x / 32] = v;
    __syncthreads();  // EXPECT SYNC001
    for (int w = 0; w < threadIdx.x / 32; w++) v += totals[w];
    __syncthreads();  // EXPECT SYNC001
    out[i] = v;
  }
}

static void scan_all(const int *in, int *out, int n) {
  ok_scan_whole_blocks<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}

static void scan_some(const int *in, int *out, int n) {
  bad_scan_split_block<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}

int main() {
  const int N = BLOCK * 4096;
  int *d;
  cudaMalloc(&d, 2 * N * sizeof(int));
  scan_all(d, d + N, N);
  scan_some(d, d + N, 1000);
  return 0;
}
