// The wrappers kernels.cu defines, as host.cc sees them.
#pragma once
#include <cuda_runtime.h>
void launch_column_sums_1d(dim3 grid, dim3 block, const float *in, float *out, int rows, int cols);
void launch_column_sums_2d(dim3 grid, dim3 block, const float *in, float *out, int rows, int cols);

// an inline overload that forwards to a wrapper, as Kaldi's cu-kernels.h does
inline void column_sums(dim3 grid, dim3 block, const float *in, float *out, int rows, int cols) {
  launch_column_sums_1d(grid, block, in, out, rows, cols);
}
