// A barrier or a full-mask shuffle inside a grid-stride loop `for (i = global index; i < n; i +=
// gridDim.x * blockDim.x)`: the threads of a block take different numbers of passes only in the
// block where n falls, when n is not a multiple of the block's thread count (of 32 for a warp's
// shuffle). SYNC001 and SHFL001 say so and are warnings; a loop bound that depends on the thread
// in every block (a per-thread count read from memory) states no such condition.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 grid_stride_condition.cu
#define BLOCK 256

extern "C" __global__ void barrier_in_grid_stride_loop(const float *in, float *out, int n) {
  __shared__ float tile[BLOCK];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = tile[BLOCK - 1 - threadIdx.x];
    __syncthreads();
  }
}

extern "C" __global__ void shuffle_in_grid_stride_loop(const float *in, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = __shfl_sync(0xffffffff, in[i], 0);
}

extern "C" __global__ void barrier_in_per_thread_loop(const int *count, const float *in, float *out) {
  __shared__ float tile[BLOCK];
  int n = count[blockIdx.x * blockDim.x + threadIdx.x];
  for (int k = 0; k < n; ++k) {
    tile[threadIdx.x] = in[k];
    __syncthreads();
    out[k] = tile[BLOCK - 1 - threadIdx.x];
  }
}

// n is a run-time value here (read back from the device), so the condition is all ptxlint can say
int main() {
  float *p;
  cudaMalloc(&p, 1 << 22);
  int n;
  cudaMemcpy(&n, p, sizeof n, cudaMemcpyDeviceToHost);
  barrier_in_grid_stride_loop<<<64, BLOCK>>>(p, p + (1 << 20), n);
  shuffle_in_grid_stride_loop<<<64, BLOCK>>>(p, p + (1 << 20), n + 1);
  barrier_in_per_thread_loop<<<64, BLOCK>>>((int *)p, p, p + (1 << 20));
  return 0;
}
