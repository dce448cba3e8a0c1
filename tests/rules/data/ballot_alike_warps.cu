// Every warp of a block that reads the same entries lane by lane (`s_keys[k + lane]`, shared or
// global, read alike in every warp) and ballots on them gets the same mask: a ballot keeps the warp
// bits its predicate keeps (thread_bits.py), and a shuffle from a lane chosen by that mask
// (`__ffs(mask) - 1`) hands every warp the same key. A loop driven by the mask then runs alike in
// every warp, and a block barrier inside it is reached by all. Entries read at `k + threadIdx.x`
// differ between warps, and so do their masks.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 ballot_alike_warps.cu -o ballot_alike_warps.sm_90.ptx

#define BLOCK 128
#define EMPTY (-1)

// ok: GGNN's cache fetch: each warp walks the candidate keys 32 at a time and the whole block
// scores each key together (a block reduction with barriers).
extern "C" __global__ void ok_ballot_over_shared_keys(const int *keys, const float *points, float *out, int len) {
  __shared__ int s_keys[256];
  __shared__ float s_sum[BLOCK];
  for (int i = threadIdx.x; i < len && i < 256; i += BLOCK)
    s_keys[i] = keys[blockIdx.x * 256 + i];
  __syncthreads();
  int cached = EMPTY;
  unsigned mask = 0;
  float best = 0.0f;
  for (int k = 0; k < len || mask;) {
    if (!mask) {
      int idx = k + threadIdx.x % 32;
      cached = idx < len ? s_keys[idx] : EMPTY;
      mask = __ballot_sync(0xffffffffu, cached != EMPTY);
      k += 32;
      continue;
    }
    int first = __ffs(mask) - 1;
    mask ^= 1u << first;
    int key = __shfl_sync(0xffffffffu, cached, first);
    s_sum[threadIdx.x] = points[key * BLOCK + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
      float total = 0.0f;
      for (int j = 0; j < BLOCK; j++) total += s_sum[j];
      best = total > best ? total : best;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = best;
}

// ok: the same keys read from global memory, alike in every warp.
extern "C" __global__ void ok_ballot_over_global_keys(const int *keys, const float *points, float *out, int len) {
  __shared__ float s_sum[BLOCK];
  unsigned mask = 0;
  int cached = EMPTY;
  float best = 0.0f;
  for (int k = 0; k < len || mask;) {
    if (!mask) {
      int idx = k + threadIdx.x % 32;
      cached = idx < len ? keys[blockIdx.x * 256 + idx] : EMPTY;
      mask = __ballot_sync(0xffffffffu, cached != EMPTY);
      k += 32;
      continue;
    }
    int first = __ffs(mask) - 1;
    mask ^= 1u << first;
    int key = __shfl_sync(0xffffffffu, cached, first);
    s_sum[threadIdx.x] = points[key * BLOCK + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) best += s_sum[1];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = best;
}

// bad: each warp reads its own slice (`k + threadIdx.x`): the masks, and the loop's trip count, differ
// between warps.
extern "C" __global__ void bad_ballot_over_warp_slices(const int *keys, const float *points, float *out, int len) {
  __shared__ float s_sum[BLOCK];
  unsigned mask = 0;
  int cached = EMPTY;
  float best = 0.0f;
  for (int k = 0; k < len || mask;) {
    if (!mask) {
      int idx = k + threadIdx.x;
      cached = idx < len ? keys[idx] : EMPTY;
      mask = __ballot_sync(0xffffffffu, cached != EMPTY);
      k += BLOCK;
      continue;
    }
    int first = __ffs(mask) - 1;
    mask ^= 1u << first;
    int key = __shfl_sync(0xffffffffu, cached, first);
    s_sum[threadIdx.x] = points[key * BLOCK + threadIdx.x];
    __syncthreads();  // EXPECT SYNC001
    if (threadIdx.x == 0) best += s_sum[1];
    __syncthreads();  // EXPECT SYNC001
  }
  if (threadIdx.x == 0) out[blockIdx.x] = best;
}

#include <cstdlib>

int main(int argc, char **argv) {
  int *k;
  float *p;
  cudaMalloc(&k, 1 << 20);
  cudaMalloc(&p, 1 << 24);
  int len = atoi(argv[1]);
  ok_ballot_over_shared_keys<<<8, BLOCK>>>(k, p, p, len);
  ok_ballot_over_global_keys<<<8, BLOCK>>>(k, p, p, len);
  bad_ballot_over_warp_slices<<<8, BLOCK>>>(k, p, p, len);
  cudaDeviceSynchronize();
  return 0;
}
