// A grid-stride loop holding `__syncthreads()` splits a block only where n falls, when n is not a
// multiple of the block. When the host code's launch passes an n whose value it gives (here from
// an argv default, the program's run with no arguments) that is a multiple of the block, no block
// splits in this program: no finding. A launch with an n that is not a multiple keeps it.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 launch_argument_bound.cu
#include <cstdlib>
#define BLOCK 256

extern "C" __global__ void ok_bound_a_multiple_of_the_block(const float *in, float *out, int n) {
  __shared__ float tile[BLOCK];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = tile[BLOCK - 1 - threadIdx.x];
    __syncthreads();
  }
}

extern "C" __global__ void bad_bound_not_a_multiple(const float *in, float *out, int n) {
  __shared__ float tile[BLOCK];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    tile[threadIdx.x] = in[i];
    __syncthreads();  // EXPECT SYNC001
    out[i] = tile[BLOCK - 1 - threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
  }
}

int main(int argc, char **argv) {
  int kilo = argc > 1 ? atoi(argv[1]) : 4;
  int n = kilo * 1024;
  float *p;
  cudaMalloc(&p, 1 << 24);
  ok_bound_a_multiple_of_the_block<<<30, BLOCK>>>(p, p + (1 << 20), n);
  bad_bound_not_a_multiple<<<30, BLOCK>>>(p, p + (1 << 20), n + 100);
  return 0;
}
