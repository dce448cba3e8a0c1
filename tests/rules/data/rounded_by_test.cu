// A bound rounded up to a multiple of the block by a test of its low bits (`(n & (w - 1)) ?
// (n & ~(w - 1)) + w : n`, w a power of two) is a multiple of w on both sides: where the test says
// the low bits are zero, n itself is one. A loop `for (x = tid; x < end; x += w)` then runs the same
// number of times in every thread of the block, and a barrier inside it is reached by all. Rounded to
// half the block, or with the low bits of another value tested, the bound can split the block.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 rounded_by_test.cu -o rounded_by_test.sm_90.ptx

// ok: PopSift's block prefix sum over a 32x32 block.
extern "C" __global__ void ok_rounded_up_to_block(const int *in, int *out, int n) {
  __shared__ int stage[1024];
  const int start = threadIdx.y * blockDim.x + threadIdx.x;
  const int wrap = blockDim.x * blockDim.y;
  const int end = (n & (wrap - 1)) ? (n & ~(wrap - 1)) + wrap : n;
  for (int x = start; x < end; x += wrap) {
    stage[start] = x < n ? in[x] : 0;
    __syncthreads();
    if (x < n) out[x] = stage[(start + 1) % wrap];
    __syncthreads();
  }
}

// ok: the same with a constant block and the test written as a remainder.
extern "C" __global__ void ok_remainder_test(const int *in, int *out, unsigned n) {
  __shared__ int stage[256];
  const unsigned end = (n % 256 == 0) ? n : (n / 256 + 1) * 256;
  for (unsigned x = threadIdx.x; x < end; x += 256) {
    stage[threadIdx.x] = x < n ? in[x] : 0;
    __syncthreads();
    if (x < n) out[x] = stage[(threadIdx.x + 1) % 256];
    __syncthreads();
  }
}

// bad: rounded to 128 in a block of 256: the last pass may leave half the block out.
extern "C" __global__ void bad_rounded_to_half_block(const int *in, int *out, int n) {
  __shared__ int stage[256];
  const int end = (n & 127) ? (n & ~127) + 128 : n;
  for (int x = threadIdx.x; x < end; x += 256) {
    stage[threadIdx.x] = in[x];
    __syncthreads();  // EXPECT SYNC001
    out[x] = stage[(threadIdx.x + 1) % 256];
    __syncthreads();  // EXPECT SYNC001
  }
}

// bad: the low bits tested are another value's: n itself may be anything.
extern "C" __global__ void bad_other_value_tested(const int *in, int *out, int n, int m) {
  __shared__ int stage[256];
  const int end = (m & 255) ? (n & ~255) + 256 : n;
  for (int x = threadIdx.x; x < end; x += 256) {
    stage[threadIdx.x] = in[x];
    __syncthreads();  // EXPECT SYNC001
    out[x] = stage[(threadIdx.x + 1) % 256];
    __syncthreads();  // EXPECT SYNC001
  }
}

#include <cstdlib>

int main(int argc, char **argv) {
  int *p;
  cudaMalloc(&p, 1 << 20);
  int n = atoi(argv[1]);  // a run-time count
  ok_rounded_up_to_block<<<1, dim3(32, 32)>>>(p, p + 4096, n);
  ok_remainder_test<<<1, 256>>>(p, p + 4096, n);
  bad_rounded_to_half_block<<<1, 256>>>(p, p + 4096, n);
  bad_other_value_tested<<<1, 256>>>(p, p + 4096, n, n / 3);
  cudaDeviceSynchronize();
  return 0;
}
