// A shared-memory stride that only the launch gives: `tile[threadIdx.x * stride]` with every launch
// passing stride = 32 puts a warp's 32 lanes on one bank (32 wavefronts where 1 would do). The
// BANK finding is computed with that value, and says it assumed it.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 bank_launch_argument.cu

extern "C" __global__ void strided_tile(const float *in, float *out, int stride) {
  __shared__ float tile[32 * 32];
  tile[(threadIdx.x * stride) % 1024] = in[blockIdx.x * 32 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 32 + threadIdx.x] = tile[threadIdx.x];
}

int main() {
  float *d;
  cudaMalloc(&d, 1 << 20);
  strided_tile<<<64, 32>>>(d, d + 4096, 32);
  return 0;
}
