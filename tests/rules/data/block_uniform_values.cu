// Values that are the same in every thread of a block by construction (issue 17, value uniformity and
// trip counts): the result of `__syncthreads_or/and/count` (PTX `bar.red`), a loop whose compare has
// the same thread-dependent term on both sides, and a grid-stride bound rounded up to whole blocks
// through a 64-bit division (nvcc emits a 32-bit and a 64-bit path that every thread takes alike).
// A barrier under them is reached by every thread: SYNC001 stays silent on each ok_ kernel, and
// fires on its bad_ twin, whose value really differs between threads.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 block_uniform_values.cu -o block_uniform_values.sm_90.ptx
// main() launches every kernel, so the block shapes come from ptxlint's own launch discovery.

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

// ---- 1. block-wide votes

// label propagation until no thread of the block changes: the loop test is the block-wide OR
__global__ void ok_until_block_settles(const int* in, int* out) {
    __shared__ int labels[256];
    int mine = in[blockIdx.x * 256 + threadIdx.x];
    int changed;
    do {
        changed = 0;
        labels[threadIdx.x] = mine;
        __syncthreads();
        int next = labels[(threadIdx.x + 1) % 256];
        if (next > mine) { mine = next; changed = 1; }
        __syncthreads();
    } while (__syncthreads_or(changed));
    out[blockIdx.x * 256 + threadIdx.x] = mine;
}

// the same loop tested on the thread's own flag: threads leave at different trips
__global__ void bad_until_thread_settles(const int* in, int* out) {
    __shared__ int labels[256];
    int mine = in[blockIdx.x * 256 + threadIdx.x];
    int changed;
    do {
        changed = 0;
        labels[threadIdx.x] = mine;
        __syncthreads();  // EXPECT SYNC001
        int next = labels[(threadIdx.x + 1) % 256];
        if (next > mine) { mine = next; changed = 1; }
        __syncthreads();  // EXPECT SYNC001
    } while (changed);
    out[blockIdx.x * 256 + threadIdx.x] = mine;
}

// one vertex per block: thread 0 decides, the votes tell every thread, nested votes follow
__global__ void ok_nested_block_votes(const int* status, const int* degree, int* out) {
    int v = blockIdx.x;
    if (__syncthreads_or(threadIdx.x == 0 && status[v] != 0)) {
        if (__syncthreads_and(degree[v * 256 + threadIdx.x] > 0)) {
            int count = __syncthreads_count(status[v * 256 + threadIdx.x] == 1);
            if (threadIdx.x == 0) out[v] = count;
        }
    }
}

// the inner vote under the thread's own test: only some threads arrive
__global__ void bad_vote_under_thread_test(const int* status, const int* degree, int* out) {
    int v = blockIdx.x;
    if (__syncthreads_or(threadIdx.x == 0 && status[v] != 0)) {
        if (degree[v * 256 + threadIdx.x] > 0) {
            int count = __syncthreads_count(status[v * 256 + threadIdx.x] == 1);  // EXPECT SYNC001
            if (threadIdx.x == 0) out[v] = count;
        }
    }
}

// ---- 2. trip counts uniform by construction

// a recurrence over time steps: t and its bound both carry + tid, so `t < end + tid` is `t - tid < end`
__global__ void ok_steps_offset_by_thread(const float* in, float* out, int steps, int channels) {
    __shared__ float row[128];
    const int tid = threadIdx.x;
    const int b = blockIdx.x;
    float acc = 0.f;
    for (int t = b * steps * channels + tid; t < (b + 1) * steps * channels + tid; t += channels) {
        __syncthreads();
        row[tid] = in[t];
        __syncthreads();
        acc += row[(tid + 1) % 128];
    }
    out[b * 128 + tid] = acc;
}

// only the start carries + tid: with fewer channels than threads (96 of 128), the last threads
// make one trip fewer
__global__ void bad_steps_bound_without_thread(const float* in, float* out, int steps, int channels) {
    __shared__ float row[128];
    const int tid = threadIdx.x;
    const int b = blockIdx.x;
    float acc = 0.f;
    for (int t = b * steps * channels + tid; t < (b + 1) * steps * channels; t += channels) {
        __syncthreads();  // EXPECT SYNC001
        row[tid] = in[t];
        __syncthreads();  // EXPECT SYNC001
        acc += row[(tid + 1) % 128];
    }
    out[b * 128 + tid] = acc;
}

__host__ __device__ inline size_t blocks_for(size_t n, size_t per_block) { return (n + per_block - 1) / per_block; }

// every thread of an active block enters the grid-stride loop: the bound is whole blocks (size_t math)
__global__ void ok_grid_stride_whole_blocks(const int* work, int* out, uint32_t work_size) {
    __shared__ int slots[1024];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned threads = gridDim.x * blockDim.x;
    uint32_t rounded = blocks_for(work_size, blockDim.x) * blockDim.x;
    for (uint32_t i = 0 + gid; i < rounded; i += threads) {
        slots[threadIdx.x] = i < work_size ? work[i] : 0;
        __syncthreads();
        if (i < work_size) out[i] = slots[(threadIdx.x + 1) % blockDim.x];
        __syncthreads();
    }
}

// rounded to whole warps only: in the last block some warps stop one trip earlier
__global__ void bad_grid_stride_whole_warps(const int* work, int* out, uint32_t work_size) {
    __shared__ int slots[1024];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned threads = gridDim.x * blockDim.x;
    uint32_t rounded = blocks_for(work_size, 32) * 32;
    for (uint32_t i = 0 + gid; i < rounded; i += threads) {
        slots[threadIdx.x] = i < work_size ? work[i] : 0;
        __syncthreads();  // EXPECT SYNC001
        if (i < work_size) out[i] = slots[(threadIdx.x + 1) % blockDim.x];
        __syncthreads();  // EXPECT SYNC001
    }
}

int main() {
    int *i = nullptr, *o = nullptr;
    float *fi = nullptr, *fo = nullptr;
    ok_until_block_settles<<<64, 256>>>(i, o);
    bad_until_thread_settles<<<64, 256>>>(i, o);
    ok_nested_block_votes<<<64, 256>>>(i, i, o);
    bad_vote_under_thread_test<<<64, 256>>>(i, i, o);
    ok_steps_offset_by_thread<<<16, 128>>>(fi, fo, 64, 96);
    bad_steps_bound_without_thread<<<16, 128>>>(fi, fo, 64, 96);
    ok_grid_stride_whole_blocks<<<80, 256>>>(i, o, 100000);
    bad_grid_stride_whole_warps<<<80, 256>>>(i, o, 100000);
    return 0;
}
