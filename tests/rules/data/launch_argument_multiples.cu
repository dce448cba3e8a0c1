// A bound the host code computes as a multiple of a constant (`nbodies * 1024`, `chunks << 5`, a
// variable assigned so, or different launches' 512 and `k * 1024`) is a multiple of that constant
// in this program, whatever the run-time factor is. `if (i >= n) return;` before a barrier then
// splits no block when every launch's n is a multiple of the block, and a guarded full-mask shuffle
// splits no warp when n is a multiple of 32. A multiple of 32 still splits a block of 256 threads
// (only where n falls, when n % 256 != 0), and a multiple of 16 still splits a warp.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 launch_argument_multiples.cu
#include <cstdlib>

extern "C" __global__ void ok_return_bound_kilo(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void bad_return_bound_warps(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();  // EXPECT SYNC002
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void ok_stride_bound_mixed(const float *in, float *out, int n) {
  __shared__ float tile[256];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = tile[255 - threadIdx.x];
    __syncthreads();
  }
}

extern "C" __global__ void ok_row_sums_whole_warps(const float *in, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);
    if (threadIdx.x % 32 == 0) sums[i / 32] = v;
  }
}

extern "C" __global__ void bad_row_sums_half_warps(const float *in, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);  // EXPECT SHFL001
    if (threadIdx.x % 32 == 0) sums[i / 32] = v;
  }
}

int main() {
  const char *env = getenv("NBODIES");
  int nbodies = env ? atoi(env) : 0;  // a run-time value: only the factors below are known
  int chunks = nbodies + 3;
  float *p;
  cudaMalloc(&p, 1 << 26);
  int n = nbodies * 1024;
  ok_return_bound_kilo<<<(n + 255) / 256, 256>>>(p, n);
  bad_return_bound_warps<<<(n + 255) / 256, 256>>>(p, chunks << 5);
  ok_stride_bound_mixed<<<30, 256>>>(p, p + (1 << 22), 512);
  ok_stride_bound_mixed<<<30, 256>>>(p, p + (1 << 22), nbodies * 1024);
  int rows = chunks;
  ok_row_sums_whole_warps<<<(rows * 32 + 127) / 128, 128>>>(p, p + (1 << 22), rows * 32);
  bad_row_sums_half_warps<<<(rows * 16 + 127) / 128, 128>>>(p, p + (1 << 22), rows * 16);
  return 0;
}
