// A grid that is its bound's floor division by the block (`k<<<n / 256, 256>>>(x, n)`, or a
// `blocks = n / 256` the launch names) launches at most n threads along x: no launched thread's
// global index reaches n, so `if (i >= n) return;` before a barrier, or a guard around a full-mask
// shuffle, leaves every thread in. The usual rounded-up grid ((n + 255) / 256) launches past n, a
// divisor smaller than the block (n / 64 with 256 threads) launches four times too many threads,
// and a grid-stride loop over n crosses it in a later pass: those keep their findings.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 launch_grid_cover.cu
#include <cstdlib>


extern "C" __global__ void ok_floor_grid(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void ok_floor_grid_variable(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void bad_rounded_up_grid(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();  // EXPECT SYNC002
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void bad_divisor_below_block(float *x, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = x[i];
  __syncthreads();  // EXPECT SYNC002
  x[i] = s[255 - threadIdx.x];
}

extern "C" __global__ void bad_grid_stride_past_floor(const float *in, float *out, int n) {
  __shared__ float tile[256];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    tile[threadIdx.x] = in[i];
    __syncthreads();  // EXPECT SYNC001
    out[i] = tile[255 - threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
  }
}

extern "C" __global__ void ok_warp_sums_floor_grid(const float *in, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);
    if (threadIdx.x % 32 == 0) sums[i / 32] = v;
  }
}

int main() {
  const char *env = getenv("N");
  int n = env ? atoi(env) : 0;  // a run-time value with no known factor
  float *p;
  cudaMalloc(&p, 1 << 26);
  ok_floor_grid<<<n / 256, 256>>>(p, n);
  int blocks = n / 256;
  ok_floor_grid_variable<<<blocks, 256>>>(p, n);
  bad_rounded_up_grid<<<(n + 255) / 256, 256>>>(p, n);
  bad_divisor_below_block<<<n / 64, 256>>>(p, n);
  bad_grid_stride_past_floor<<<n / 256, 256>>>(p, p + (1 << 22), n);
  ok_warp_sums_floor_grid<<<n / 128, 128>>>(p, p + (1 << 22), n);
  return 0;
}
