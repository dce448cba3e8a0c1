// nvcc may unswitch a loop on a lane test it holds (`if (laneId == 0) smem[...] = sum;` after a warp
// reduction): one copy of the loop runs in lane 0 and one in lanes 1-31, each with its own
// full-mask shuffles of the one source reduction. On sm_70+ a `.sync` intrinsic waits for the lanes
// of its mask wherever they execute one with that mask (PTX ISA, shfl.sync), so the copies meet as
// the source's one shuffle would: no SHFL001. Different reductions in the two arms of a lane test
// are different source intrinsics, which the CUDA guide requires every lane to reach alike. (Two
// calls of one device function from the two arms look like copies to ptxlint: nvcc does not restate
// a copy's inlining chain, so the chain above the intrinsic's caller cannot tell them apart.)
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 unswitched_copies.cu

__device__ __forceinline__ int lane_id() {
  int id;
  asm("mov.s32 %0, %%laneid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d; d >>= 1) v += __shfl_xor_sync(0xffffffff, v, d);
  return v;
}

extern "C" __global__ void ok_unswitched_lane_zero(const float *in, float *out, long rows, long cols) {
  extern __shared__ float smem[];
  int lane = lane_id();
  int warps = (blockDim.x + 31) / 32;
  int warp = threadIdx.x / 32;
  long start = long(blockIdx.x) * 8;
  float norm[8];
  for (long row = 0; row < rows - start; ++row) {
    norm[0] = 0;
    for (long c = threadIdx.x; c < cols; c += blockDim.x) {
      float x = in[(start + row) * cols + c];
      norm[0] = norm[0] + x * x;
    }
    norm[0] = warp_sum(norm[0]);
    if (lane == 0) smem[row * warps + warp] = norm[0];
  }
  __syncthreads();
  if (threadIdx.x < 8) out[start + threadIdx.x] = smem[threadIdx.x * warps];
}

extern "C" __global__ void bad_different_reductions_by_lane(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (lane_id() == 0) {
    for (int d = 16; d; d >>= 1) v += __shfl_xor_sync(0xffffffff, v, d);  // EXPECT SHFL001
    out[i] = v;
  } else {
    for (int d = 1; d < 32; d <<= 1) v += __shfl_up_sync(0xffffffff, v * v, d);  // EXPECT SHFL001
    out[i] = v + 1.0f;
  }
}

int main() {
  float *p;
  cudaMalloc(&p, 1 << 24);
  ok_unswitched_lane_zero<<<64, 256, 8 * 8 * sizeof(float)>>>(p, p + (1 << 20), 500, 1000);
  bad_different_reductions_by_lane<<<64, 256>>>(p, p + (1 << 20));
  return 0;
}
