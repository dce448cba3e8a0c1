// An xor-butterfly reduction (`v += __shfl_xor_sync(full, v, m)` for m = 16, 8, 4, 2, 1) leaves the
// same value in every lane of the warp; a second butterfly over the per-warp partials read back
// from shared memory (`sm[lane]`, the same in every warp) leaves one value for the whole block. A
// `__shfl_down_sync` reduction leaves the total in lane 0 only. So a branch on a butterfly total
// does not diverge, and every thread storing a block total to one shared word and reading it back
// writes what the others write; with a down-reduction or a per-warp total they differ.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 xor_reductions_uniform.cu
#define BLOCK 256

__device__ inline float xor_sum(float v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    v += __shfl_xor_sync(0xffffffff, v, m);
  return v;
}

__device__ inline float down_sum(float v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    v += __shfl_down_sync(0xffffffff, v, m);
  return v;
}

__device__ inline float block_sum(float v) {
  __shared__ float partial[32];
  v = xor_sum(v);
  partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < blockDim.x / 32 ? partial[threadIdx.x % 32] : 0.f;
  v = xor_sum(v);
  __syncthreads();
  return v;
}

extern "C" __global__ void ok_block_total_stored_by_every_thread(const float *in, float *out, int n) {
  __shared__ float scale;
  for (int l = 0; l < n; ++l) {
    scale = block_sum(in[l * BLOCK + threadIdx.x]);
    __syncwarp();
    out[l * BLOCK + threadIdx.x] = in[l * BLOCK + threadIdx.x] * scale;
    __syncthreads();
  }
}

extern "C" __global__ void bad_warp_total_stored_by_every_thread(const float *in, float *out, int n) {
  __shared__ float scale;
  for (int l = 0; l < n; ++l) {
    scale = xor_sum(in[l * BLOCK + threadIdx.x]);
    __syncwarp();
    out[l * BLOCK + threadIdx.x] = in[l * BLOCK + threadIdx.x] * scale;  // EXPECT RACE001
    __syncthreads();
  }
}

extern "C" __global__ void ok_barrier_under_block_total(const float *in, float *out) {
  __shared__ float tile[BLOCK];
  float total = block_sum(in[blockIdx.x * BLOCK + threadIdx.x]);
  if (total > 0.f) {
    tile[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x] / total;
    __syncthreads();
    out[blockIdx.x * BLOCK + threadIdx.x] = tile[BLOCK - 1 - threadIdx.x];
  }
}

extern "C" __global__ void bad_barrier_under_down_total(const float *in, float *out) {
  __shared__ float tile[BLOCK];
  float total = down_sum(in[blockIdx.x * BLOCK + threadIdx.x]);
  if (total > 0.f) {
    tile[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x] / total;
    __syncthreads();  // EXPECT SYNC001
    out[blockIdx.x * BLOCK + threadIdx.x] = tile[BLOCK - 1 - threadIdx.x];
  }
}

extern "C" __global__ void ok_shuffle_under_warp_total(const float *in, float *out) {
  float v = in[blockIdx.x * BLOCK + threadIdx.x];
  if (xor_sum(v) > 0.f)
    v = __shfl_sync(0xffffffff, v, 0);
  out[blockIdx.x * BLOCK + threadIdx.x] = v;
}

extern "C" __global__ void bad_shuffle_under_down_total(const float *in, float *out) {
  float v = in[blockIdx.x * BLOCK + threadIdx.x];
  if (down_sum(v) > 0.f)
    v = __shfl_sync(0xffffffff, v, 0);  // EXPECT SHFL001
  out[blockIdx.x * BLOCK + threadIdx.x] = v;
}

int main() {
  float *p;
  cudaMalloc(&p, 1 << 20);
  ok_block_total_stored_by_every_thread<<<8, BLOCK>>>(p, p + 4096, 4);
  bad_warp_total_stored_by_every_thread<<<8, BLOCK>>>(p, p + 4096, 4);
  ok_barrier_under_block_total<<<8, BLOCK>>>(p, p + 4096);
  bad_barrier_under_down_total<<<8, BLOCK>>>(p, p + 4096);
  ok_shuffle_under_warp_total<<<8, BLOCK>>>(p, p + 4096);
  bad_shuffle_under_down_total<<<8, BLOCK>>>(p, p + 4096);
  return 0;
}
