// A bound the host code checks before the launch is a multiple of what it checks: after
// `assert(n % 32 == 0)`, or after `if (n % 256 != 0) { ...; exit(1); }`, or inside
// `if (n % 256 == 0) { launch }`, the kernel's `i < n` guard splits no warp (no block). A check for
// 16 still lets a warp split, and a check that only prints a warning and goes on proves nothing.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 host_checked_multiples.cu
#include <cassert>
#include <cstdio>
#include <cstdlib>

extern "C" __global__ void ok_asserted_whole_warps(const float *in, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);
    if (threadIdx.x % 32 == 0) sums[i / 32] = v;
  }
}

extern "C" __global__ void bad_asserted_half_warps(const float *in, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);  // EXPECT SHFL001
    if (threadIdx.x % 32 == 0) sums[i / 32] = v;
  }
}

extern "C" __global__ void ok_checked_block_bound(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void ok_branch_block_bound(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void bad_warned_block_bound(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();  // EXPECT SYNC002
  x[i] = s[255 - threadIdx.x];
}

void row_sums(const float *in, float *sums, int n, int half) {
  assert(n % 32 == 0);
  ok_asserted_whole_warps<<<(n + 127) / 128, 128>>>(in, sums, n);
  assert(half % 16 == 0);
  bad_asserted_half_warps<<<(half + 127) / 128, 128>>>(in, sums, half);
}

void reverse_tiles(float *x, int n) {
  if (n % 256 != 0) {
    fprintf(stderr, "n must be a multiple of 256\n");
    exit(1);
  }
  ok_checked_block_bound<<<(n + 255) / 256, 256>>>(x, n);
}

void reverse_tiles_if(float *x, int n) {
  if (n % 256 == 0) {
    ok_branch_block_bound<<<(n + 255) / 256, 256>>>(x, n);
  }
}

void reverse_tiles_warned(float *x, int n) {
  if (n % 256 != 0) fprintf(stderr, "warning: n is not a multiple of 256\n");
  bad_warned_block_bound<<<(n + 255) / 256, 256>>>(x, n);
}

int main() {
  const char *env = getenv("N");
  int n = env ? atoi(env) : 0;  // a run-time value: only the host's checks say anything of it
  float *p;
  cudaMalloc(&p, 1 << 26);
  row_sums(p, p + (1 << 22), n, n / 2);
  reverse_tiles(p, n);
  reverse_tiles_if(p, n);
  reverse_tiles_warned(p, n);
  return 0;
}
