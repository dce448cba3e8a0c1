// Measures the sectors of the naive transpose read/write in a 16x16 block at several run-time widths w
// (ptxlint gives a range over w for these kernels: tests/analysis/data/runtime_pitch.cu).
// Each launch is a 4x4 grid, so per-block numbers are the totals divided by 16.
#include <cstdio>
#include <cuda_runtime.h>

// the kernels ptxlint analyses in the test, so that what is measured is what is predicted
#include "../../../tests/analysis/data/runtime_pitch.cu"

int main() {
  const int widths[] = {1024, 1025, 1026, 1027, 1028, 1030, 1031, 1032};
  float *in, *out;
  cudaMalloc(&in, 1100 * 1100 * sizeof(float));
  cudaMalloc(&out, 1100 * 1100 * sizeof(float));
  for (int w : widths) {
    transpose_read_16x16<<<dim3(4, 4), dim3(16, 16)>>>(in, out, w);
    transpose_read_32x8<<<dim3(4, 4), dim3(32, 8)>>>(in, out, w);
  }
  cudaDeviceSynchronize();
  printf("widths:");
  for (int w : widths) printf(" %d", w);
  printf("\nstatus: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
