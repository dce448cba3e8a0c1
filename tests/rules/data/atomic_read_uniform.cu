// An atomic that leaves memory as it was (`atomicAdd(&n, 0)`, `atomicOr(&n, 0)`) is a read. On a
// word that the kernel never writes it returns, in every thread, the value the launch started with,
// so a loop it bounds has one trip count and a barrier inside is reached by every thread. When the
// kernel also changes the word, threads may read different counts.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 atomic_read_uniform.cu
#define BLOCK 256

extern "C" __global__ void ok_bound_read_atomically_never_written(unsigned *n, float *data) {
  __shared__ float s[BLOCK];
  unsigned count = atomicAdd(n, 0u);
  for (unsigned k = 0; k < count; ++k) {
    s[threadIdx.x] = data[k * BLOCK + threadIdx.x];
    __syncthreads();
    data[k * BLOCK + threadIdx.x] = s[BLOCK - 1 - threadIdx.x];
    __syncthreads();
  }
}

extern "C" __global__ void bad_bound_read_atomically_while_counted(unsigned *n, float *data) {
  __shared__ float s[BLOCK];
  if (threadIdx.x % 32 == 0)
    atomicAdd(n, 1u);
  unsigned count = atomicOr(n, 0u);
  for (unsigned k = 0; k < count; ++k) {
    s[threadIdx.x] = data[k * BLOCK + threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
    data[k * BLOCK + threadIdx.x] = s[BLOCK - 1 - threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
  }
}

int main() {
  unsigned *n;
  float *data;
  cudaMalloc(&n, 4);
  cudaMalloc(&data, 1 << 20);
  ok_bound_read_atomically_never_written<<<4, BLOCK>>>(n, data);
  bad_bound_read_atomically_while_counted<<<4, BLOCK>>>(n, data);
  return 0;
}
