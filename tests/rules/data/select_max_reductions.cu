// A butterfly reduction with a maximum written as compare and select (`a < b ? b : a`: cooperative
// groups' `greater`, a hand-written float max that nvcc keeps as setp + selp because fmaxf treats NaN
// otherwise) gives lanes l and l ^ m the same pair of values, so its result is one value per warp,
// and over per-warp partials read back from shared memory one value per block, as an add is.
// A select whose compare tests other values than the two it picks, or a shfl_down step, is not.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 select_max_reductions.cu -o select_max_reductions.sm_90.ptx
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#define BLOCK 256

__device__ float warp_max(float v) {
  for (int m = 16; m > 0; m /= 2) {
    float o = __shfl_xor_sync(0xffffffffu, v, m);
    v = v < o ? o : v;
  }
  return v;
}

// ok: every lane of warp 0 stores the warp's maximum (mlx's attention: `maxs[0] = new_max`).
extern "C" __global__ void ok_cg_max_stored_by_warp(const float *in, float *maxs) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float m = cg::reduce(warp, v, cg::greater<float>());
  if (threadIdx.x / 32 == 0)
    maxs[blockIdx.x] = m;
}

// ok: a block maximum (warp maxima to shared memory, read back per lane, reduced again) decides
// whether the block takes a barrier: every thread holds the same maximum.
extern "C" __global__ void ok_barrier_under_block_max(const float *in, float *out) {
  __shared__ float partial[BLOCK / 32];
  __shared__ float stage[BLOCK];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float m = warp_max(v);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = m;
  __syncthreads();
  m = warp_max(threadIdx.x % 32 < BLOCK / 32 ? partial[threadIdx.x % 32] : -1e30f);
  if (m > 1.0f) {
    stage[threadIdx.x] = v / m;
    __syncthreads();
    v = stage[(threadIdx.x + 1) % BLOCK];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// bad: the select compares with the lane's own threshold, not with the shuffled value it picks: lanes
// keep different values, and all of warp 0 store them to one word.
extern "C" __global__ void bad_select_other_compare(const float *in, float *maxs) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float t = (float)(threadIdx.x % 7);
  for (int m = 16; m > 0; m /= 2) {
    float o = __shfl_xor_sync(0xffffffffu, v, m);
    v = t < o ? o : v;
  }
  if (threadIdx.x / 32 == 0)
    maxs[blockIdx.x] = v;  // EXPECT RACE003
}

// bad: a shfl_down maximum is complete in lane 0 only; a barrier under it splits the block.
extern "C" __global__ void bad_barrier_under_down_max(const float *in, float *out) {
  __shared__ float stage[BLOCK];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float m = v;
  for (int k = 16; k > 0; k /= 2) {
    float o = __shfl_down_sync(0xffffffffu, m, k);
    m = m < o ? o : m;
  }
  if (m > 1.0f) {
    stage[threadIdx.x] = v / m;
    __syncthreads();  // EXPECT SYNC001
    v = stage[(threadIdx.x + 1) % BLOCK];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int main() {
  float *p;
  cudaMalloc(&p, 1 << 20);
  ok_cg_max_stored_by_warp<<<8, BLOCK>>>(p, p + 4096);
  ok_barrier_under_block_max<<<8, BLOCK>>>(p, p + 4096);
  bad_select_other_compare<<<8, BLOCK>>>(p, p + 4096);
  bad_barrier_under_down_max<<<8, BLOCK>>>(p, p + 4096);
  cudaDeviceSynchronize();
  return 0;
}
