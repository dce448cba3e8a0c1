// A 64-bit length rounded down to a multiple of the loop's stride (`(n / stride) * stride`) gives
// every thread of the block the same trip count, so the barriers in the loop are reached by all.
// nvcc writes the 64-bit division by a run-time stride as `n - n % stride` with a fast path: where
// n and the stride fit in 32 bits it divides them as 32-bit values, and the two paths join. Both
// give the same remainder (a stride that is not a power of two: a power of two is a mask). Rounded
// to another multiple, the last trip splits the block.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 bypassed_division.cu -o bypassed_division.sm_90.ptx
#include <cstddef>

// ok: the bound is a multiple of the stride, blockDim.x * 5.
extern "C" __global__ void ok_size_t_rounded_loop(const int *in, int *out, size_t n) {
  __shared__ int s[1024];
  size_t stride = blockDim.x * 5;
  size_t limit = (n / stride) * stride;
  for (size_t i = threadIdx.x; i < limit; i += stride) {
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
  }
}

// bad: rounded to a multiple of 100, which the stride does not divide.
extern "C" __global__ void bad_size_t_other_multiple(const int *in, int *out, size_t n, size_t chunk) {
  __shared__ int s[1024];
  size_t stride = blockDim.x * 5;
  size_t limit = (n / chunk) * chunk;
  for (size_t i = threadIdx.x; i < limit; i += stride) {
    s[threadIdx.x] = in[i];
    __syncthreads();  // EXPECT SYNC001
    out[i] = s[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();  // EXPECT SYNC001
  }
}

int main() {
  int *d;
  size_t n;
  cudaMalloc(&d, 1 << 24);
  cudaMemcpy(&n, d, sizeof n, cudaMemcpyDeviceToHost);  // a length known only at run time
  ok_size_t_rounded_loop<<<64, 256>>>(d, d + (1 << 22), n);
  bad_size_t_other_multiple<<<64, 256>>>(d, d + (1 << 22), n, n / 3);
  return 0;
}
