// A kernel parameter that every launch of a block shape passes as the same constant is that
// constant in this program, and a grid of one block along an axis makes blockIdx 0 there. A
// precompute kernel launched <<<1, 256>>>(8, ...) runs threads 0..7 only, so writes at t and t + 16
// never meet; launched with 20 they do (threads 0..3 and 16..19). A first-warp scan guarded by
// `threadIdx.x / width == 0` is the whole warp 0 when every launch passes width = 32, also when a
// launch leaves the trailing parameters to their default arguments; with width = 16 half the warp
// skips the full-mask shuffle.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 launch_constant_arguments.cu

extern "C" __global__ void ok_precompute_eight(unsigned threads, unsigned long long *out) {
  unsigned thread = blockDim.x * blockIdx.x + threadIdx.x;
  if (thread < threads) {
    out[threadIdx.x] = thread * 3ull;
    out[threadIdx.x + 16] = thread * 5ull;
  }
}

extern "C" __global__ void bad_precompute_twenty(unsigned threads, unsigned long long *out) {
  unsigned thread = blockDim.x * blockIdx.x + threadIdx.x;
  if (thread < threads) {
    out[threadIdx.x] = thread * 3ull;
    out[threadIdx.x + 16] = thread * 5ull;  // EXPECT WARP001
  }
}

extern "C" __global__ void ok_first_warp_scan(int *data, int width, int *sums = nullptr) {
  int v = data[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x / width == 0) {
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(0xffffffff, v, d);
      if (threadIdx.x % 32 >= d) v += up;
    }
    data[blockIdx.x * blockDim.x + threadIdx.x] = v;
    if (sums && threadIdx.x == 31) sums[blockIdx.x] = v;
  }
}

extern "C" __global__ void bad_half_warp_scan(int *data, int width, int *sums = nullptr) {
  int v = data[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x / width == 0) {
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(0xffffffff, v, d);  // EXPECT SHFL001
      if (threadIdx.x % 32 >= d) v += up;
    }
    data[blockIdx.x * blockDim.x + threadIdx.x] = v;
    if (sums && threadIdx.x == 31) sums[blockIdx.x] = v;
  }
}

int main() {
  unsigned long long *table;
  int *data, *sums;
  cudaMalloc(&table, 64 * sizeof(unsigned long long));
  cudaMalloc(&data, 4096 * sizeof(int));
  cudaMalloc(&sums, 16 * sizeof(int));
  ok_precompute_eight<<<1, 256>>>(8, table);
  bad_precompute_twenty<<<1, 256>>>(20, table);
  ok_first_warp_scan<<<16, 256>>>(data, 32, sums);
  ok_first_warp_scan<<<1, 256>>>(sums, 32);
  bad_half_warp_scan<<<16, 256>>>(data, 16, sums);
  bad_half_warp_scan<<<1, 256>>>(sums, 16);
  return 0;
}
