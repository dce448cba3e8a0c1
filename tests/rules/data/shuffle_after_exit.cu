// A full-mask shuffle after a thread-dependent early return (issue 17): when the return tests the global
// index against a kernel parameter, lanes leave only in the warp where the bound falls and only when it
// is not a multiple of 32 (a host may keep it one): SHFL001 says so and is a warning, not a certain
// error. A return on loaded data splits warps on any input: SHFL001 stays an error.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 shuffle_after_exit.cu -o shuffle_after_exit.sm_90.ptx

#include <cuda_runtime.h>

extern "C" __global__ void bad_exit_on_bound(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  v += __shfl_xor_sync(0xffffffffu, v, 1);  // EXPECT SHFL001
  out[i] = v;
}

extern "C" __global__ void bad_exit_on_data(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (v < 0.f) return;
  v += __shfl_xor_sync(0xffffffffu, v, 1);  // EXPECT SHFL001
  out[i] = v;
}

int main() {
  float *f = nullptr;
  int n;  // a run-time value (read back from the device): the bound exit's condition is all that is known
  cudaMemcpy(&n, f, sizeof n, cudaMemcpyDeviceToHost);
  bad_exit_on_bound<<<64, 256>>>(f, f, n);
  bad_exit_on_data<<<64, 256>>>(f, f, n);
  cudaDeviceSynchronize();
  return 0;
}
