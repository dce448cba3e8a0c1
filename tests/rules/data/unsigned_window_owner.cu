// A thread owns a position when the position falls in its own chunk: `(p - first) < 16u` with
// first = 16 * (its index) holds for one thread only, since the unsigned difference is below 16
// for one chunk start. Its read-modify-write of a shared counter has no second writer. A window
// wider than the chunk (`< 32u`) admits two threads, whose updates race.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 unsigned_window_owner.cu -o unsigned_window_owner.sm_90.ptx

// ok: the thread whose 16-element chunk holds `p` takes one from the block's count.
extern "C" __global__ void ok_chunk_owner(const int *in, int *out, unsigned p) {
  __shared__ int count[32];
  if (threadIdx.x < 32) count[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  unsigned first = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (p - first < 16u) count[0] -= 1;
  __syncthreads();
  if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = count[threadIdx.x];
}

// bad: a window of 32 holds two chunk starts: two threads update the count at once.
extern "C" __global__ void bad_window_two_chunks(const int *in, int *out, unsigned p) {
  __shared__ int count[32];
  if (threadIdx.x < 32) count[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  unsigned first = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (p - first < 32u) count[0] -= 1;  // EXPECT RACE001
  __syncthreads();
  if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = count[threadIdx.x];
}

int main() {
  int *d;
  cudaMalloc(&d, 1 << 20);
  unsigned p;  // a position known only at run time
  cudaMemcpy(&p, d, sizeof p, cudaMemcpyDeviceToHost);
  ok_chunk_owner<<<64, 256>>>(d, d + 1024, p);
  bad_window_two_chunks<<<64, 256>>>(d, d + 1024, p);
  return 0;
}
