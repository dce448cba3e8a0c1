// A thread's local array is its own: it reads back what it stored. Where every store to the array
// writes a value alike in the block's threads, at an index alike in them, under branches that take
// them alike, every thread holds the same array, and a loop whose test reads it runs alike in every
// thread: the barriers inside are reached by all. Another local array holding per-thread values,
// or the argument buffer of a printf of threadIdx.x, does not change that. A store of a per-thread
// value to the array does.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 private_arrays_alike.cu -o private_arrays_alike.sm_90.ptx
#include <cstdio>

#define THREADS 128

// ok: L and U start from constants and move by values read from shared memory after a barrier.
extern "C" __global__ void ok_band_bounds(const int *steps, int *out, int rounds) {
  __shared__ int step[2];
  int L[3], U[3];
  int mine[4];
  int tx = threadIdx.x;
  for (int s = 0; s < 3; s++) { L[s] = s; U[s] = 8 - s; }
  for (int s = 0; s < 4; s++) mine[s] = tx * s;
  for (int k = 0; k < rounds; k++) {
    if (tx < 2) step[tx] = steps[k * 2 + tx];
    __syncthreads();
    if (L[k % 3] >= U[k % 3]) break;
    L[(k + 1) % 3] = L[k % 3] + step[0];
    U[(k + 1) % 3] = U[k % 3] - step[1];
    if (U[k % 3] < 0) printf("thread %d: negative bound\n", tx);
    out[k * THREADS + tx] = mine[k % 4];
    __syncthreads();
  }
}

// bad: every thread starts its bounds from its own lane's parity.
extern "C" __global__ void bad_lane_bounds(const int *steps, int *out, int rounds) {
  __shared__ int step[2];
  int L[3], U[3];
  int tx = threadIdx.x;
  for (int s = 0; s < 3; s++) { L[s] = s + (tx & 1); U[s] = 8 - s; }
  for (int k = 0; k < rounds; k++) {
    if (tx < 2) step[tx] = steps[k * 2 + tx];
    __syncthreads();  // EXPECT SYNC001
    if (L[k % 3] >= U[k % 3]) break;
    L[(k + 1) % 3] = L[k % 3] + step[0];
    U[(k + 1) % 3] = U[k % 3] - step[1];
    out[k * THREADS + tx] = L[k % 3];
    __syncthreads();  // EXPECT SYNC001
  }
}

int main() {
  int *steps, *out;
  cudaMalloc(&steps, 1 << 16);
  cudaMalloc(&out, 1 << 20);
  ok_band_bounds<<<4, THREADS>>>(steps, out, 64);
  bad_lane_bounds<<<4, THREADS>>>(steps, out, 64);
  return 0;
}
