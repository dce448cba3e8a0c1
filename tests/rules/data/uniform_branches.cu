// Branches and loops whose condition is the same in every lane of a warp (or in the whole block)
// for the launched block shape, although it is computed from threadIdx: SHFL001, SYNC001 and
// SYNC003 stay silent on them; the lane-dependent versions beside them still fire.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 uniform_branches.cu -o uniform_branches.sm_90.ptx
// main() launches every kernel, so that ptxlint's launch discovery gives the real block shapes.

#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__device__ float warp_sum(float v) {
    for (int d = 16; d >= 1; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

// ---- 1. conditions on the warp index

// one row per warp: whole warps leave together (blockDim.x / warpSize warps per block)
__global__ void ok_row_per_warp(const float* in, float* out, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
    if (row >= rows) return;
    float acc = 0.f;
    for (int c = threadIdx.x % warpSize; c < cols; c += warpSize) acc += in[row * cols + c];
    acc = warp_sum(acc);
    if (threadIdx.x % warpSize == 0) out[row] = acc;
}

// rows handed out to warps by a grid-stride loop (`row += gridDim.x * warps`, a mad in the PTX)
__global__ void ok_rows_grid_stride(const float* in, float* out, int rows, int cols) {
    int warps = blockDim.x / 32;
    for (int row = blockIdx.x * warps + threadIdx.x / 32; row < rows; row += gridDim.x * warps) {
        float acc = 0.f;
        for (int c = threadIdx.x & 31; c < cols; c += 32) acc += in[row * cols + c];
        acc = warp_sum(acc);
        if ((threadIdx.x & 31) == 0) out[row] = acc;
    }
}

// the same loop with a barrier inside: warps of one block may run different numbers of rows
__global__ void bad_barrier_in_rows_loop(const float* in, float* out, int rows) {
    __shared__ float part[8];
    int warps = blockDim.x / 32;
    for (int row = blockIdx.x * warps + threadIdx.x / 32; row < rows; row += gridDim.x * warps) {
        float acc = warp_sum(in[row * 32 + (threadIdx.x & 31)]);
        if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = acc;
        __syncthreads();  // EXPECT SYNC001
        if (threadIdx.x == 0) out[row] = part[0] + part[warps - 1];
        __syncthreads();  // EXPECT SYNC001
    }
}

// a triangle: warp w runs w + 1 steps (`t <= row`; nvcc tests a copy of the counter taken before
// its increment)
__global__ void ok_triangle_per_warp(const float* in, float* out, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    float best = -1e30f;
    for (int t = 0; t <= row; t++) {
        float acc = 0.f;
        for (int c = threadIdx.x & 31; c < cols; c += 32) acc += in[t * cols + c] * in[row * cols + c];
        acc = warp_sum(acc);
        best = fmaxf(best, acc);
        if ((threadIdx.x & 31) == 0) out[row * rows + t] = acc;
    }
    if ((threadIdx.x & 31) == 0) out[row] = best;
}

// a row per thread: lanes of one warp disagree about `row < rows`; with 301 rows lane 300 reads
// the value of lane 301, which returned
__global__ void bad_row_per_lane(const float* in, float* out, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float v = in[row];
    out[row] = v + __shfl_xor_sync(0xffffffffu, v, 1);  // EXPECT SHFL001
}

// ---- 2. loops whose trip count is the same in every thread

// the bound is rounded down to a multiple of the stride: every thread runs n / blockDim.x iterations
__global__ void ok_rounded_down_bound(const unsigned* in, unsigned* out, unsigned n) {
    __shared__ unsigned tile[128];
    unsigned total = 0;
    unsigned end = n / blockDim.x * blockDim.x;
    for (unsigned i = threadIdx.x; i < end; i += blockDim.x) {
        unsigned v = in[i];
        for (int d = 1; d < 32; d <<= 1) {
            unsigned up = __shfl_up_sync(0xffffffffu, v, d);
            if ((threadIdx.x & 31) >= d) v += up;
        }
        tile[threadIdx.x] = v;
        __syncthreads();
        total += tile[blockDim.x - 1];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

// a fixed bound that is a multiple of the launched block: two iterations for every thread
__global__ void ok_fixed_bound(const unsigned* in, unsigned* out) {
    __shared__ unsigned counts[256];
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) {
        unsigned v = in[blockIdx.x * 256 + i];
        counts[i] = v + __shfl_sync(0xffffffffu, v, (threadIdx.x + 31) & 31);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = counts[255 - threadIdx.x];
}

// 4 lanes per column and blockDim.z a multiple of 4: each of the 4 runs blockDim.z / 4 iterations
__global__ void ok_depth_loop(const float* in, float* out) {
    __shared__ float cube[16][8][4];
    cube[threadIdx.z][threadIdx.y][threadIdx.x] = in[(threadIdx.z * 8 + threadIdx.y) * 4 + threadIdx.x];
    __syncthreads();
    float acc = 0.f;
    for (unsigned z = threadIdx.x; z < blockDim.z; z += 4) {
        float v = cube[z][threadIdx.y][0];
        v += __shfl_down_sync(0xffffffffu, v, 1, 4);
        v += __shfl_down_sync(0xffffffffu, v, 2, 4);
        acc += v;
    }
    if (threadIdx.x == 0 && threadIdx.z == 0) out[blockIdx.x * 8 + threadIdx.y] = acc;
}

// a bound that is not a multiple of the stride: the last iteration has only some threads
__global__ void bad_ragged_bound(const float* in, float* out, unsigned n) {
    __shared__ float tile[128];
    float total = 0.f;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        tile[threadIdx.x] = in[i];
        __syncthreads();  // EXPECT SYNC001
        total += tile[(threadIdx.x + 1) % blockDim.x];
        __syncthreads();  // EXPECT SYNC001
    }
    out[threadIdx.x] = total;
}

// ---- 3. barriers on both sides of a branch that splits the block at a warp boundary

// producer and consumer halves (warps 0-3 and 4-7) wait at two barriers each, in the same order
__global__ void ok_paired_halves(const float* in, float* out, int steps) {
    __shared__ float stage[2][128];
    bool consumer = threadIdx.x >= 128;
    unsigned slot = threadIdx.x & 127;
    float acc = 0.f;
    for (int k = 0; k < steps; ++k) {
        if (!consumer) {
            stage[k & 1][slot] = in[k * 128 + slot];
            __syncthreads();
            __syncthreads();
        } else {
            __syncthreads();
            acc += stage[k & 1][127 - slot];
            __syncthreads();
        }
    }
    out[threadIdx.x] = acc;
}

// one side waits twice, the other once: the barrier counts do not match
__global__ void bad_unpaired_halves(const float* in, float* out) {
    __shared__ float stage[128];
    float v = 0.f;
    if (threadIdx.x < 128) {
        stage[threadIdx.x] = in[threadIdx.x];
        __syncthreads();  // EXPECT SYNC001
        __syncthreads();  // EXPECT SYNC001
    } else {
        __syncthreads();
        v = stage[threadIdx.x - 128];
    }
    out[threadIdx.x] = v;
}

// odd and even lanes: the two sides split every warp
__global__ void bad_paired_lanes(const float* in, float* out) {
    __shared__ float s[256];
    float v;
    if (threadIdx.x & 1) {
        s[threadIdx.x] = in[threadIdx.x];
        __syncthreads();  // EXPECT SYNC001
        v = s[threadIdx.x - 1];
    } else {
        s[threadIdx.x] = -in[threadIdx.x];
        __syncthreads();
        v = s[threadIdx.x + 1];
    }
    out[threadIdx.x] = v;
}

// ---- 4. a run-time condition and the first warp

// `ready && threadIdx.x < 32`: false for threads 32.. whatever `ready` is; the first warp is whole
__global__ void ok_unknown_and_first_warp(const int* flags, int* out) {
    __shared__ int ready;
    __shared__ int total;
    if (threadIdx.x == 0) ready = flags[blockIdx.x];
    __syncthreads();
    if (ready && threadIdx.x < 32) {
        int v = __reduce_add_sync(0xffffffffu, flags[threadIdx.x]);
        if (__all_sync(0xffffffffu, v > 0) && threadIdx.x == 0) total = v;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

// ---- 5. never launched: checked under the candidate shapes the kernel admits

// its assertion admits only blocks of 4x8xZ, and no candidate is one: nothing is reported (the depth
// loop splits warps under every candidate, where the kernel would trap at the assertion first)
__global__ void ok_unlaunched_asserted_shape(const float* in, float* out) {
    assert(blockDim.x == 4 && blockDim.y == 8);
    float acc = 0.f;
    for (unsigned z = threadIdx.x; z < blockDim.z; z += 4) {
        float v = in[(z * 8 + threadIdx.y) * 4];
        acc += v + __shfl_down_sync(0xffffffffu, v, 1, 4);
    }
    out[threadIdx.y] = acc;
}

// a flat block only: the 2-D candidates fail the assertion; under every 1-D one lanes leave early
__global__ void bad_unlaunched_flat_block(const float* in, float* out, int n) {
    assert(blockDim.y == 1);
    int i = blockIdx.x * blockDim.x + threadIdx.x + threadIdx.y;
    if (i >= n) return;
    float v = in[i];
    out[i] = v + __shfl_xor_sync(0xffffffffu, v, 1);  // EXPECT SHFL001
}

int main() {
    float *fin, *fout;
    unsigned *uin, *uout;
    int *iin, *iout;
    cudaMalloc(&fin, 1 << 20);
    cudaMalloc(&fout, 1 << 20);
    cudaMalloc(&uin, 1 << 20);
    cudaMalloc(&uout, 1 << 20);
    cudaMalloc(&iin, 1 << 20);
    cudaMalloc(&iout, 1 << 20);
    ok_row_per_warp<<<16, 256>>>(fin, fout, 100, 64);
    ok_rows_grid_stride<<<4, 128>>>(fin, fout, 100, 64);
    bad_barrier_in_rows_loop<<<4, 256>>>(fin, fout, 100);
    ok_triangle_per_warp<<<8, 128>>>(fin, fout, 32, 64);
    bad_row_per_lane<<<4, 128>>>(fin, fout, 301);
    ok_rounded_down_bound<<<8, 128>>>(uin, uout, 1000);
    ok_fixed_bound<<<8, 128>>>(uin, uout);
    ok_depth_loop<<<8, dim3(4, 8, 16)>>>(fin, fout);
    bad_ragged_bound<<<8, 128>>>(fin, fout, 1000);
    ok_paired_halves<<<1, 256>>>(fin, fout, 4);
    bad_unpaired_halves<<<1, 256>>>(fin, fout);
    bad_paired_lanes<<<1, 256>>>(fin, fout);
    ok_unknown_and_first_warp<<<4, 256>>>(iin, iout);
    printf("%d\n", (int)cudaDeviceSynchronize());
    return 0;
}
