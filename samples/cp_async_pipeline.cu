// Double-buffered global->shared staging with cp.async (__pipeline_memcpy_async).
// Meant for 1D blocks of 256 threads; each block sums `tiles` consecutive tiles of 256 float4.
#include <cuda_pipeline.h>
#define BLOCK 256

// ptxlint-block: 256x1
// Copy of tile k+1 overlaps the compute on tile k; wait_prior + __syncthreads before reading a
// neighbour's element, __syncthreads before the buffer is refilled (correct).
__global__ void pipelinedSum(const float4 *in, float *out, int tiles)
{
    __shared__ float4 buf[2][BLOCK];
    int t = threadIdx.x;
    const float4 *base = in + (size_t)blockIdx.x * tiles * BLOCK;
    __pipeline_memcpy_async(&buf[0][t], &base[t], sizeof(float4));
    __pipeline_commit();
    float acc = 0.0f;
    for (int k = 0; k < tiles; k++) {
        if (k + 1 < tiles)
            __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &base[(k + 1) * BLOCK + t], sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 v = buf[k & 1][(t + 1) % BLOCK];
        acc += v.x + v.y + v.z + v.w;
        __syncthreads();
    }
    out[blockIdx.x * BLOCK + t] = acc;
}

// ptxlint-block: 128x1
// 4-byte cp.async with zero-fill tail handling (src-size < cp-size), single stage (correct).
__global__ void copyZfill(const float *in, float *out, int n)
{
    __shared__ float s[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    const float *src = in + (i < n ? i : 0);
    __pipeline_memcpy_async(&s[threadIdx.x], src, sizeof(float), i < n ? 0 : sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (i < n)
        out[i] = s[127 - threadIdx.x];
}
