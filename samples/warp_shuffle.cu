// Warp shuffle reductions (__shfl_*_sync) and their member masks.
namespace shfl {

__device__ __forceinline__ float warpReduceSum(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// ptxlint-block: 256x1
// Full-mask butterfly/down reduction executed by all 32 lanes, then one atomic per warp (correct).
__global__ void sumShuffle(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    v = warpReduceSum(v);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}

// ptxlint-block: 256x1
// Broadcast of lane 0 with __shfl_sync and an xor-butterfly max, all lanes active (correct).
__global__ void maxBroadcast(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    for (int m = 16; m > 0; m >>= 1)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, m));
    int first = __shfl_sync(0xffffffffu, in[blockIdx.x], 0);
    if (i < n)
        out[i] = v - first;
}

// ptxlint-block: 256x1
// Full mask inside `if (lane < 16)`: lanes 16..31 named in the mask never arrive (buggy: UB/hang).
__global__ void halfWarpShuffle(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = in[i];
    if (lane < 16) {
        v += __shfl_down_sync(0xffffffffu, v, 8); // EXPECT(SHFL001): full mask but only lanes 0..15 active
        v += __shfl_down_sync(0x0000ffffu, v, 4, 16); // half-warp mask, width 16: fine
    }
    out[i] = v;
}

} // namespace shfl
