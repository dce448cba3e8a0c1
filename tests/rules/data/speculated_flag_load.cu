// `if (threadIdx.x == 0 && pending > 0) pending = ...;` reads `pending` in thread 0 only, but nvcc
// loads it in every thread (a shared load is safe to speculate) and tests `threadIdx.x != 0 ||
// pending < 1`: in the other threads the load reaches nothing, so thread 0's write is no race
// with it (cuBQL's builder, test11). A value the other threads do use still races.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 speculated_flag_load.cu

extern "C" __global__ void ok_thread_0_reserves_the_block_total(const int *in, int *total, int *out) {
  __shared__ int pending;
  if (threadIdx.x == 0) pending = 0;
  __syncthreads();
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[gid] > 0) atomicAdd(&pending, 1);
  __syncthreads();
  if (threadIdx.x == 0 && pending > 0) pending = atomicAdd(total, pending);
  __syncthreads();
  out[gid] = pending;
}

// bad: every thread also reads `pending` for its own output before the barrier, while thread 0
// replaces it.
extern "C" __global__ void bad_every_thread_reads_the_total_early(const int *in, int *total, int *out) {
  __shared__ int pending;
  if (threadIdx.x == 0) pending = 0;
  __syncthreads();
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[gid] > 0) atomicAdd(&pending, 1);
  __syncthreads();
  // nvcc's one load of `pending` serves the test and the output: every thread uses it
  if (threadIdx.x == 0 && pending > 0) pending = atomicAdd(total, pending);  // EXPECT RACE001
  out[gid] = pending > 4;
}

int main() {
  int *p;
  cudaMalloc(&p, 1 << 20);
  ok_thread_0_reserves_the_block_total<<<16, 128>>>(p, p + 4096, p + 8192);
  bad_every_thread_reads_the_total_early<<<16, 128>>>(p, p + 4096, p + 8192);
  return 0;
}
