// Launch wrappers whose shapes come from another translation unit (host.cc calls them, as Kaldi's
// cu-math.cc calls the `cuda_*` wrappers of cu-kernels.cu): ptxlint reads the nearby files that
// call a wrapper to learn the block and grid it launches with.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 kernels.cu -o kernels.sm_90.ptx
#include "kernels.h"

// Column sums over threadIdx.y, stored by the first row of the block. Blocks that differ only in
// blockIdx.y would store the same column: host.cc launches a 1-D grid (dim3 grid(n_blocks(...))),
// so no two blocks do.
extern "C" __global__ void ok_column_sums_on_a_1d_grid(const float *in, float *out, int rows, int cols) {
  __shared__ float partial[8][32];
  int j = blockIdx.x * 32 + threadIdx.x;
  float sum = 0;
  for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < rows; i += blockDim.y * gridDim.y)
    if (j < cols) sum += in[i * cols + j];
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
    float total = 0;
    for (int k = 0; k < 8; k++) total += partial[k][threadIdx.x];
    out[j] = total;
  }
}

// bad: the same sums, launched by host.cc on a 2-D grid: blocks (x, 0) and (x, 1) store out[j].
extern "C" __global__ void bad_column_sums_on_a_2d_grid(const float *in, float *out, int rows, int cols) {
  __shared__ float partial[8][32];
  int j = blockIdx.x * 32 + threadIdx.x;
  float sum = 0;
  for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < rows; i += blockDim.y * gridDim.y)
    if (j < cols) sum += in[i * cols + j];
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
    float total = 0;
    for (int k = 0; k < 8; k++) total += partial[k][threadIdx.x];
    out[j] = total;  // EXPECT RACE003
  }
}

void launch_column_sums_1d(dim3 grid, dim3 block, const float *in, float *out, int rows, int cols) {
  ok_column_sums_on_a_1d_grid<<<grid, block>>>(in, out, rows, cols);
}

void launch_column_sums_2d(dim3 grid, dim3 block, const float *in, float *out, int rows, int cols) {
  bad_column_sums_on_a_2d_grid<<<grid, block>>>(in, out, rows, cols);
}
