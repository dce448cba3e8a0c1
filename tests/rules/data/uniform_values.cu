// Values that are the same in every lane of a warp, or in every thread of a block, although they are
// computed from the thread index (issue 17, "uniformity of values"): a branch or loop on them does not
// split a warp (SHFL001 silent) or a block (SYNC001/SYNC002 silent). Each ok_ kernel has a bad_ twin
// whose value really differs, which must still be reported.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 uniform_values.cu -o uniform_values.sm_90.ptx
// main() launches every kernel, so the block shapes come from ptxlint's own launch discovery.

#include <cstdio>
#include <cuda_runtime.h>

#define FULL 0xffffffffu

__device__ float warp_sum(float v) {
    for (int d = 16; d >= 1; d >>= 1) v += __shfl_down_sync(FULL, v, d);
    return v;
}

// ---- 1. warp-uniform values

// one row per warp from a signed global index: nvcc rounds `gid / 32` toward zero with the sign of
// gid, which is 0 for an index that fits in an int, so all 32 lanes of a warp share `row`
__global__ void ok_row_per_warp_signed(const int* rowptr, const float* vals, float* y, int rows) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int row = gid / 32;
    int lane = gid & 31;
    if (row < rows) {
        float sum = 0.f;
        for (int j = rowptr[row] + lane; j < rowptr[row + 1]; j += 32) sum += vals[j];
        sum += __shfl_xor_sync(FULL, sum, 1);
        if (lane == 0) y[row] = sum;
    }
}

// sixteen lanes per row: the two halves of a warp may disagree about `row < rows`
__global__ void bad_row_per_half_warp(const int* rowptr, const float* vals, float* y, int rows) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int row = gid / 16;
    int lane = gid & 15;
    if (row < rows) {
        float sum = 0.f;
        for (int j = rowptr[row] + lane; j < rowptr[row + 1]; j += 16) sum += vals[j];
        sum += __shfl_xor_sync(FULL, sum, 1);  // EXPECT SHFL001
        if (lane == 0) y[row] = sum;
    }
}

// a per-warp count, rounded up to whole warps: every lane runs the same number of iterations
__global__ void ok_rounded_warp_count(const int* counts, const float* in, float* out) {
    int lane = threadIdx.x & 31;
    int n = counts[blockIdx.x * 8 + threadIdx.x / 32];
    float acc = 0.f;
#pragma unroll 1
    for (int c = lane; c < ((n + 31) & ~31); c += 32) {
        acc += c < n ? in[c] : 0.f;
        acc += __shfl_xor_sync(FULL, acc, 16);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// the same count rounded to 16: the last lanes of a warp stop one iteration earlier
__global__ void bad_rounded_half_warp_count(const int* counts, const float* in, float* out) {
    int lane = threadIdx.x & 31;
    int n = counts[blockIdx.x * 8 + threadIdx.x / 32];
    float acc = 0.f;
#pragma unroll 1
    for (int c = lane; c < ((n + 15) & ~15); c += 32) {
        acc += c < n ? in[c] : 0.f;
        acc += __shfl_xor_sync(FULL, acc, 16);  // EXPECT SHFL001
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// the same loop unrolled by nvcc: a remainder loop first, then four steps at a time from where the
// remainder left each lane (one trip count per warp, so one starting point per warp)
__global__ void ok_rounded_warp_count_unrolled(const int* counts, const float* in, float* out) {
    int lane = threadIdx.x & 31;
    int n = counts[blockIdx.x * 8 + threadIdx.x / 32];
    float acc = 0.f;
    for (int c = lane; c < ((n + 31) & ~31); c += 32) {
        acc += c < n ? in[c] : 0.f;
        acc += __shfl_xor_sync(FULL, acc, 16);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// unrolled, rounded to 16: the lanes still disagree
__global__ void bad_rounded_half_warp_count_unrolled(const int* counts, const float* in, float* out) {
    int lane = threadIdx.x & 31;
    int n = counts[blockIdx.x * 8 + threadIdx.x / 32];
    float acc = 0.f;
    for (int c = lane; c < ((n + 15) & ~15); c += 32) {
        acc += c < n ? in[c] : 0.f;
        acc += __shfl_xor_sync(FULL, acc, 16);  // EXPECT SHFL001
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// warp-aggregated atomic: the leader is `__ffs(ballot) - 1`, its result is broadcast from it, and
// `__popc(ballot)` counts the warp: all three are one value per warp
__global__ void ok_aggregated_leader(const int* in, int* out, int* counter) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    unsigned votes = __ballot_sync(FULL, v > 0);
    int leader = __ffs(votes) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(counter, __popc(votes));
    base = __shfl_sync(FULL, base, leader);
    if (base < 1000) v += __shfl_xor_sync(FULL, v, 1);
    if (__popc(votes) > 4) v += __shfl_xor_sync(FULL, v, 2);
    out[i] = v;
}

// the neighbour's value (`lane ^ 1`) is no broadcast: lanes disagree about it
__global__ void bad_neighbour_not_broadcast(const int* in, int* out, int* counter) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int other = __shfl_sync(FULL, v, (threadIdx.x & 31) ^ 1);
    if (other < 1000) v += __shfl_xor_sync(FULL, v, 1);  // EXPECT SHFL001
    out[i] = v;
}

// a count read at one address per warp (threadIdx.y with 32x8 blocks: a warp is one row)
__global__ void ok_count_per_row_32x8(const int* counts, const float* in, float* out) {
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    int n = counts[threadIdx.y];
    float acc = in[t];
    for (int k = 0; k < n; ++k) acc += __shfl_xor_sync(FULL, acc, 1);
    out[t] = acc;
}

// the same kernel with 16x16 blocks: a warp holds two rows, whose counts may differ
__global__ void bad_count_per_row_16x16(const int* counts, const float* in, float* out) {
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    int n = counts[threadIdx.y];
    float acc = in[t];
    for (int k = 0; k < n; ++k) acc += __shfl_xor_sync(FULL, acc, 1);  // EXPECT SHFL001
    out[t] = acc;
}

// ---- 2. trip counts uniform by construction

// a grid-stride loop over a bound rounded up to a multiple of the grid's stride: every thread of
// the grid runs the same number of iterations (`rem.s32` by gridDim.x * blockDim.x)
__global__ void ok_grid_stride_rounded(const float* in, float* out, int n) {
    __shared__ float s[256];
    int stride = gridDim.x * blockDim.x;
    int end = (n + stride - 1) / stride * stride;
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride) {
        s[threadIdx.x] = i < n ? in[i] : 0.f;
        __syncthreads();
        acc += s[255 - threadIdx.x];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// the same loop over the bound itself: the last iteration has only some threads
__global__ void bad_grid_stride_ragged(const float* in, float* out, int n) {
    __shared__ float s[256];
    int stride = gridDim.x * blockDim.x;
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        s[threadIdx.x] = in[i];
        __syncthreads();  // EXPECT SYNC001
        acc += s[255 - threadIdx.x];
        __syncthreads();  // EXPECT SYNC001
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// an int bound rounded down to a multiple of the block (`rem.s32`): n / blockDim.x iterations each
__global__ void ok_signed_rounded_down(const float* in, float* out, int n) {
    __shared__ float s[128];
    int end = n - n % (int)blockDim.x;
    float acc = 0.f;
    for (int i = threadIdx.x; i < end; i += blockDim.x) {
        s[threadIdx.x] = in[i];
        __syncthreads();
        acc += s[127 - threadIdx.x];
        __syncthreads();
    }
    out[threadIdx.x] = acc;
}

// ---- 3. blockIdx < gridDim

// every thread's global index is below gridDim.x * blockDim.x: nobody returns (96 threads per block,
// so warps would otherwise disagree)
__global__ void ok_index_below_grid(const float* in, float* out) {
    __shared__ float s[96];
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= gridDim.x * blockDim.x) return;
    s[threadIdx.x] = in[idx];
    __syncthreads();
    out[idx] = s[95 - threadIdx.x];
}

// the last thread of the grid returns
__global__ void bad_last_thread_returns(const float* in, float* out) {
    __shared__ float s[96];
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= gridDim.x * blockDim.x - 1) return;
    s[threadIdx.x] = in[idx];
    __syncthreads();  // EXPECT SYNC002
    out[idx] = s[95 - threadIdx.x];
}

// no block has blockIdx.x == gridDim.x: the upper half-warps never leave
__global__ void ok_no_block_past_the_grid(const float* in, float* out) {
    int lane = threadIdx.x & 31;
    if (blockIdx.x == gridDim.x && lane >= 16) return;
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    v += __shfl_xor_sync(FULL, v, 16);
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// the last block's upper half-warps leave
__global__ void bad_last_block_half_warps(const float* in, float* out) {
    int lane = threadIdx.x & 31;
    if (blockIdx.x == gridDim.x - 1 && lane >= 16) return;
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    v += __shfl_xor_sync(FULL, v, 16);  // EXPECT SHFL001
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int main() {
    int *iin, *iout;
    float *fin, *fout;
    cudaMalloc(&iin, 1 << 20);
    cudaMalloc(&iout, 1 << 20);
    cudaMalloc(&fin, 1 << 20);
    cudaMalloc(&fout, 1 << 20);
    ok_row_per_warp_signed<<<16, 256>>>(iin, fin, fout, 100);
    bad_row_per_half_warp<<<16, 256>>>(iin, fin, fout, 101);
    ok_rounded_warp_count<<<16, 256>>>(iin, fin, fout);
    bad_rounded_half_warp_count<<<16, 256>>>(iin, fin, fout);
    ok_rounded_warp_count_unrolled<<<16, 256>>>(iin, fin, fout);
    bad_rounded_half_warp_count_unrolled<<<16, 256>>>(iin, fin, fout);
    ok_aggregated_leader<<<16, 256>>>(iin, iout, iout);
    bad_neighbour_not_broadcast<<<16, 256>>>(iin, iout, iout);
    ok_count_per_row_32x8<<<16, dim3(32, 8)>>>(iin, fin, fout);
    bad_count_per_row_16x16<<<16, dim3(16, 16)>>>(iin, fin, fout);
    ok_grid_stride_rounded<<<16, 256>>>(fin, fout, 1000);
    bad_grid_stride_ragged<<<16, 256>>>(fin, fout, 1000);
    ok_signed_rounded_down<<<16, 128>>>(fin, fout, 1000);
    ok_index_below_grid<<<16, 96>>>(fin, fout);
    bad_last_thread_returns<<<16, 96>>>(fin, fout);
    ok_no_block_past_the_grid<<<16, 256>>>(fin, fout);
    bad_last_block_half_warps<<<16, 256>>>(fin, fout);
    printf("%d\n", (int)cudaDeviceSynchronize());
    return 0;
}
