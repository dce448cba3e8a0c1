// RACE003 across blocks under the grid each kernel is launched with. main() below launches every
// kernel but the last, so launch discovery gives its block and its grid. Blocks are compared only
// along grid dimensions the launch may span: a one-block launch has no race across blocks, and an
// integer grid has one block along y and z.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 race_grid.cu -o race_grid.sm_90.ptx
#include <cstdlib>

// The last step of a reduction, launched <<<1, 512>>>: each thread reads its right neighbour's
// element, then writes its own after the barrier. One block: the barrier orders every pair.
extern "C" __global__ void ok_one_block_shifts_left(float *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i + 1];
  __syncthreads();
  a[i] = v;
}

// The same body launched with many blocks: the last thread of block b reads the element that the
// first thread of block b + 1 writes, and nothing orders the two blocks.
extern "C" __global__ void bad_many_blocks_shift_left(float *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i + 1];
  __syncthreads();
  a[i] = v;  // EXPECT RACE003
}

// Reads blockIdx.y but writes an address that depends on blockIdx.x only; launched with an integer
// grid, every block has blockIdx.y == 0, so no two blocks write the same element.
extern "C" __global__ void ok_integer_grid_scales_by_row(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * (blockIdx.y + 1);
}

// The same body launched with two rows of blocks: blocks (x, 0) and (x, 1) write out[i] with
// different values.
extern "C" __global__ void bad_two_rows_scale_by_row(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * (blockIdx.y + 1);  // EXPECT RACE003
}

// Not launched here: its grid is unknown, so the finding says it holds with more than one block.
extern "C" __global__ void bad_unlaunched_shift_left(float *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i + 1];
  __syncthreads();
  a[i] = v;  // EXPECT RACE003
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  float *a, *b;
  cudaMalloc(&a, (n + 1) * sizeof(float));
  cudaMalloc(&b, (n + 1) * sizeof(float));
  ok_one_block_shifts_left<<<1, 512>>>(a);
  bad_many_blocks_shift_left<<<n / 256, 256>>>(a);
  ok_integer_grid_scales_by_row<<<n / 256, 256>>>(b, a);
  dim3 rows(n / 256, 2);
  bad_two_rows_scale_by_row<<<rows, 256>>>(b, a);
  cudaDeviceSynchronize();
  return 0;
}
