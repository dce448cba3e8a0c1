// labelled.cu -- ground-truth kernels for ptxlint's correctness rules.
//
// Every kernel is `extern "C"` and named bad_<what> (contains a defect) or
// ok_<what> (correct, sometimes deliberately close to a bad_ twin).
// The line that ptxlint should point at carries a trailing marker
//     // EXPECT CODE
// (one per expected finding).  collect.py reads these markers, the launch
// table at the bottom (KERNEL(...) lines) and the raw sanitizer logs.
// This file is the single source of truth for the expected codes.
//
// All kernels share one signature so that one table launches them all:
//   in  : read-only input, N floats (in[i] = (i % 97) * 0.01f + 0.5f)
//   out : N floats, zeroed before each launch
//   aux : N unsigned ints (counters / flags), zeroed before each launch
//   n   : problem size, per kernel in the table
//
// Build:  nvcc -arch=sm_90 -lineinfo labelled.cu -o app
// Run:    ./app list | ./app <kernel name> | ./app all
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cooperative_groups.h>
#include <cuda/atomic>

namespace cg = cooperative_groups;

#define FULL_MASK 0xffffffffu
#define RADIUS 4

__constant__ float c_coef[2 * RADIUS + 1];
__constant__ float c_table[256];

// ---------------------------------------------------------------------------
// SYNC001  barrier in block-divergent code
// ---------------------------------------------------------------------------

// Odd and even threads take different paths, each with its "own" barrier.
extern "C" __global__ void bad_divergent_ifelse_syncthreads(const float* __restrict__ in, float* __restrict__ out,
                                                            unsigned* aux, int n) {
    __shared__ float s[128];
    int tid = threadIdx.x;
    if (tid & 1) {
        s[tid] = in[tid] * 2.0f;
        __syncthreads();  // EXPECT SYNC001
        out[tid] = s[tid - 1] + s[tid];
    } else {
        s[tid] = in[tid] + 1.0f;
        __syncthreads();
        out[tid] = s[tid + 1] - s[tid];
    }
}

// Only the first half-warp stages data, and only it reaches the barrier.
extern "C" __global__ void bad_syncthreads_lane_lt16(const float* __restrict__ in, float* __restrict__ out,
                                                     unsigned* aux, int n) {
    __shared__ float s[16];
    int tid = threadIdx.x;
    if (tid < 16) {
        s[tid] = in[tid];
        __syncthreads();  // EXPECT SYNC001
        out[tid] = s[15 - tid];
    }
}

// Same defect, but the skipped threads stay alive (common code after the if),
// so they are still running when the first half-warp waits at the barrier.
extern "C" __global__ void bad_syncthreads_lane_lt16_live(const float* __restrict__ in, float* __restrict__ out,
                                                          unsigned* aux, int n) {
    __shared__ float s[16];
    int tid = threadIdx.x;
    float v = in[tid];
    if (tid < 16) {
        s[tid] = v;
        __syncthreads();  // EXPECT SYNC001
        v += s[15 - tid];
    }
    out[tid] = v;
}

// Grid-stride style loop inside a block: the trip count depends on threadIdx
// when n is not a multiple of blockDim.x (n = 100, blockDim.x = 64).
extern "C" __global__ void bad_syncthreads_tid_loop(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned* aux, int n) {
    __shared__ float tile[64];
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        tile[threadIdx.x] = in[i];
        __syncthreads();  // EXPECT SYNC001
        out[i] = 0.5f * (tile[threadIdx.x] + tile[(threadIdx.x + 1) % blockDim.x]);
        __syncthreads();  // EXPECT SYNC001
    }
}

// Block-strided accumulation with a per-thread total stored after the loop:
// threads with fewer iterations are alive (not exited) while the others wait.
extern "C" __global__ void bad_syncthreads_tid_loop_live(const float* __restrict__ in, float* __restrict__ out,
                                                         unsigned* aux, int n) {
    __shared__ float tile[64];
    float sum = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        tile[threadIdx.x] = in[i];
        __syncthreads();  // EXPECT SYNC001
        sum += tile[(threadIdx.x + 1) % blockDim.x];
        __syncthreads();  // EXPECT SYNC001
    }
    out[threadIdx.x] = sum;
}

// Fixed version: uniform trip count, the bounds check moved inside.
extern "C" __global__ void ok_syncthreads_uniform_loop(const float* __restrict__ in, float* __restrict__ out,
                                                       unsigned* aux, int n) {
    __shared__ float tile[64];
    for (int base = 0; base < n; base += blockDim.x) {
        int i = base + threadIdx.x;
        tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
        __syncthreads();
        if (i < n) out[i] = 0.5f * (tile[threadIdx.x] + tile[(threadIdx.x + 1) % blockDim.x]);
        __syncthreads();
    }
}

// Block-uniform condition: every thread of a block takes the same path.
extern "C" __global__ void ok_syncthreads_block_uniform(const float* __restrict__ in, float* __restrict__ out,
                                                        unsigned* aux, int n) {
    __shared__ float s[64];
    int tid = threadIdx.x;
    if (blockIdx.x == 0) {
        s[tid] = in[tid];
        __syncthreads();
        out[tid] = s[blockDim.x - 1 - tid];
    } else {
        out[blockIdx.x * blockDim.x + tid] = in[tid];
    }
}

// Trip count loaded from memory at a block-uniform address: uniform.
extern "C" __global__ void ok_syncthreads_loop_uniform_load(const float* __restrict__ in, float* __restrict__ out,
                                                            unsigned* aux, int n) {
    __shared__ float acc[64];
    int passes = 1 + (int)in[blockIdx.x];  // same value for the whole block
    acc[threadIdx.x] = 0.0f;
    for (int p = 0; p < passes; ++p) {
        __syncthreads();
        acc[threadIdx.x] += in[(threadIdx.x + p) % blockDim.x];
        __syncthreads();
        if (threadIdx.x == 0) out[blockIdx.x] += acc[blockDim.x - 1];
    }
}

// The whole-warp branch on threadIdx.y (blockDim = 32x4) only does warp-level
// work: __syncwarp is enough and is legal here.
extern "C" __global__ void ok_syncwarp_branch_tidy(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned* aux, int n) {
    __shared__ float s[4][32];
    int lane = threadIdx.x, w = threadIdx.y;
    if (w < 2) {
        s[w][lane] = in[w * 32 + lane];
        __syncwarp();
        out[w * 32 + lane] = s[w][31 - lane];
    }
}

// Same branch, but with a block-wide barrier: warps 2 and 3 never arrive.
extern "C" __global__ void bad_syncthreads_branch_tidy(const float* __restrict__ in, float* __restrict__ out,
                                                       unsigned* aux, int n) {
    __shared__ float s[4][32];
    int lane = threadIdx.x, w = threadIdx.y;
    if (w < 2) {
        s[w][lane] = in[w * 32 + lane];
        __syncthreads();  // EXPECT SYNC001
        out[w * 32 + lane] = s[1 - w][31 - lane];
    }
}

// Same, with warps 2 and 3 still alive after the branch.
extern "C" __global__ void bad_syncthreads_branch_tidy_live(const float* __restrict__ in, float* __restrict__ out,
                                                            unsigned* aux, int n) {
    __shared__ float s[4][32];
    int lane = threadIdx.x, w = threadIdx.y;
    float v = in[w * 32 + lane];
    if (w < 2) {
        s[w][lane] = v;
        __syncthreads();  // EXPECT SYNC001
        v += s[1 - w][31 - lane];
    }
    out[w * 32 + lane] = v;
}

// Divergence through a runtime parameter (n = 48 < blockDim.x = 64).
extern "C" __global__ void bad_syncthreads_param_bound(const float* __restrict__ in, float* __restrict__ out,
                                                       unsigned* aux, int n) {
    __shared__ float s[64];
    if (threadIdx.x < n) {
        s[threadIdx.x] = in[threadIdx.x];
        __syncthreads();  // EXPECT SYNC001
        out[threadIdx.x] = s[(threadIdx.x + 1) % n];
    }
}

// Data-dependent while loop with a barrier inside (Newton-style refinement).
extern "C" __global__ void bad_syncthreads_data_loop(const float* __restrict__ in, float* __restrict__ out,
                                                     unsigned* aux, int n) {
    __shared__ float s[64];
    float x = in[threadIdx.x];
    int it = 0;
    while (x > 0.1f && it < 8) {
        s[threadIdx.x] = x;
        __syncthreads();  // EXPECT SYNC001
        x = 0.5f * s[threadIdx.x];
        ++it;
    }
    out[threadIdx.x] = x;
}

// Divergent write, then the barrier after re-convergence: correct.
extern "C" __global__ void ok_syncthreads_after_reconverge(const float* __restrict__ in, float* __restrict__ out,
                                                           unsigned* aux, int n) {
    __shared__ float s[16];
    int tid = threadIdx.x;
    if (tid < 16) s[tid] = in[tid];
    __syncthreads();
    out[tid] = s[tid % 16];
}

// ---------------------------------------------------------------------------
// SYNC002  barrier after a divergent early exit
// ---------------------------------------------------------------------------

extern "C" __global__ void bad_early_return_syncthreads(const float* __restrict__ in, float* __restrict__ out,
                                                        unsigned* aux, int n) {
    __shared__ float s[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    s[threadIdx.x] = in[i];
    __syncthreads();  // EXPECT SYNC002
    int j = threadIdx.x + 1 < blockDim.x ? threadIdx.x + 1 : threadIdx.x;
    out[i] = s[threadIdx.x] + s[j];
}

// Fixed: keep every thread alive through the barrier.
extern "C" __global__ void ok_guarded_no_return(const float* __restrict__ in, float* __restrict__ out,
                                                unsigned* aux, int n) {
    __shared__ float s[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool active = i < n;
    s[threadIdx.x] = active ? in[i] : 0.0f;
    __syncthreads();
    int j = threadIdx.x + 1 < blockDim.x ? threadIdx.x + 1 : threadIdx.x;
    if (active) out[i] = s[threadIdx.x] + s[j];
}

// Early exit of a whole block (block-uniform condition): correct.
extern "C" __global__ void ok_early_return_block_uniform(const float* __restrict__ in, float* __restrict__ out,
                                                         unsigned* aux, int n) {
    __shared__ float s[64];
    if (blockIdx.x * blockDim.x >= n) return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[blockDim.x - 1 - threadIdx.x];
}

// ---------------------------------------------------------------------------
// SYNC003  .aligned barrier in warp-divergent code
// ---------------------------------------------------------------------------

// Half of every warp meets at named barrier 1 (32 threads = 2 x 16): the
// thread count is right, but `bar.sync` is the .aligned form, which requires
// all threads of a warp to execute it together.
extern "C" __global__ void bad_aligned_named_barrier_half_warp(const float* __restrict__ in, float* __restrict__ out,
                                                               unsigned* aux, int n) {
    __shared__ float s[64];
    int tid = threadIdx.x;
    if ((tid & 31) < 16) {
        s[tid] = in[tid];
        asm volatile("bar.sync 1, 32;" ::: "memory");  // EXPECT SYNC003
        out[tid] = s[tid ^ 32];
    }
}

// Same exchange with the non-aligned barrier (legal in divergent code, sm_70+).
extern "C" __global__ void ok_nonaligned_named_barrier_half_warp(const float* __restrict__ in, float* __restrict__ out,
                                                                 unsigned* aux, int n) {
    __shared__ float s[64];
    int tid = threadIdx.x;
    if ((tid & 31) < 16) {
        s[tid] = in[tid];
        asm volatile("barrier.sync 1, 32;" ::: "memory");
        out[tid] = s[tid ^ 32];
    }
}

// Live variants: the other half-warp continues to common code after the if.
extern "C" __global__ void bad_aligned_named_barrier_half_warp_live(const float* __restrict__ in,
                                                                    float* __restrict__ out, unsigned* aux, int n) {
    __shared__ float s[64];
    int tid = threadIdx.x;
    float v = in[tid];
    if ((tid & 31) < 16) {
        s[tid] = v;
        asm volatile("bar.sync 1, 32;" ::: "memory");  // EXPECT SYNC003
        v += s[tid ^ 32];
    }
    out[tid] = v;
}

extern "C" __global__ void ok_nonaligned_named_barrier_half_warp_live(const float* __restrict__ in,
                                                                      float* __restrict__ out, unsigned* aux, int n) {
    __shared__ float s[64];
    int tid = threadIdx.x;
    float v = in[tid];
    if ((tid & 31) < 16) {
        s[tid] = v;
        asm volatile("barrier.sync 1, 32;" ::: "memory");
        v += s[tid ^ 32];
    }
    out[tid] = v;
}

// Warp-specialised producer/consumer with named barrier 1 (128 threads):
// the branch is warp-uniform, so the .aligned forms are fine.
extern "C" __global__ void ok_named_barrier_warp_specialized(const float* __restrict__ in, float* __restrict__ out,
                                                             unsigned* aux, int n) {
    __shared__ float buf[64];
    int warp = threadIdx.x / 32;
    if (warp < 2) {  // producers: warps 0,1
        buf[threadIdx.x] = in[threadIdx.x] * 3.0f;
        asm volatile("bar.arrive 1, 128;" ::: "memory");
    } else {  // consumers: warps 2,3
        asm volatile("bar.sync 1, 128;" ::: "memory");
        out[threadIdx.x - 64] = buf[127 - threadIdx.x];
    }
}

// ---------------------------------------------------------------------------
// SYNC004  cluster barrier in divergent code (cluster of 2 CTAs)
// ---------------------------------------------------------------------------

extern "C" __global__ void __cluster_dims__(2, 1, 1)
ok_cluster_dsmem_exchange(const float* __restrict__ in, float* __restrict__ out, unsigned* aux, int n) {
    __shared__ float s[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    cluster.sync();
    float* peer = cluster.map_shared_rank(s, rank ^ 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x];
    cluster.sync();  // keep the peer's shared memory alive until all reads are done
}

// Only warp 0 of each CTA takes part in the cluster barrier.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
bad_cluster_sync_divergent(const float* __restrict__ in, float* __restrict__ out, unsigned* aux, int n) {
    __shared__ float s[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    s[threadIdx.x] = v;
    if (threadIdx.x < 32) {
        cluster.sync();  // EXPECT SYNC004
        float* peer = cluster.map_shared_rank(s, rank ^ 1);
        v += peer[threadIdx.x];
        cluster.sync();  // EXPECT SYNC004
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Only the leader CTA of the cluster arrives.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
bad_cluster_arrive_rank0_only(const float* __restrict__ in, float* __restrict__ out, unsigned* aux, int n) {
    __shared__ float s[64];
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (cg::this_cluster().block_rank() == 0) {
        asm volatile("barrier.cluster.arrive.release;" ::: "memory");  // EXPECT SYNC004
        asm volatile("barrier.cluster.wait.acquire;" ::: "memory");    // EXPECT SYNC004
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

// ---------------------------------------------------------------------------
// RACE001  shared-memory race inside a block
// ---------------------------------------------------------------------------

// RAW: neighbour's value read without a barrier (128 threads, 4 warps).
extern "C" __global__ void bad_race_raw_neighbor(const float* __restrict__ in, float* __restrict__ out,
                                                 unsigned* aux, int n) {
    __shared__ float s[129];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    if (tid == 0) s[128] = 0.0f;
    out[tid] = s[tid + 1] - s[tid];  // EXPECT RACE001
}

extern "C" __global__ void ok_raw_neighbor_synced(const float* __restrict__ in, float* __restrict__ out,
                                                  unsigned* aux, int n) {
    __shared__ float s[129];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    if (tid == 0) s[128] = 0.0f;
    __syncthreads();
    out[tid] = s[tid + 1] - s[tid];
}

// WAR: in-place smoothing, the barrier only after the write.
extern "C" __global__ void bad_race_war_inplace_smooth(const float* __restrict__ in, float* __restrict__ out,
                                                       unsigned* aux, int n) {
    __shared__ float s[130];
    int tid = threadIdx.x;
    s[tid + 1] = in[tid];
    if (tid == 0) { s[0] = 0.0f; s[129] = 0.0f; }
    __syncthreads();
    for (int it = 0; it < 4; ++it) {
        float v = 0.25f * s[tid] + 0.5f * s[tid + 1] + 0.25f * s[tid + 2];
        s[tid + 1] = v;  // EXPECT RACE001
        __syncthreads();
    }
    out[tid] = s[tid + 1];
}

extern "C" __global__ void ok_war_inplace_smooth_two_barriers(const float* __restrict__ in, float* __restrict__ out,
                                                              unsigned* aux, int n) {
    __shared__ float s[130];
    int tid = threadIdx.x;
    s[tid + 1] = in[tid];
    if (tid == 0) { s[0] = 0.0f; s[129] = 0.0f; }
    __syncthreads();
    for (int it = 0; it < 4; ++it) {
        float v = 0.25f * s[tid] + 0.5f * s[tid + 1] + 0.25f * s[tid + 2];
        __syncthreads();
        s[tid + 1] = v;
        __syncthreads();
    }
    out[tid] = s[tid + 1];
}

// WAW: "remember the last thread that saw a large value" with plain stores.
extern "C" __global__ void bad_race_waw_last_writer(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned* aux, int n) {
    __shared__ int s_who;
    if (threadIdx.x == 0) s_who = -1;
    __syncthreads();
    if (in[threadIdx.x] > 0.6f) s_who = threadIdx.x;  // EXPECT RACE001
    __syncthreads();
    if (threadIdx.x == 0) aux[blockIdx.x] = (unsigned)s_who;
}

// Fixed: a shared atomic picks a deterministic winner.
extern "C" __global__ void ok_waw_atomic_max(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned* aux, int n) {
    __shared__ int s_who;
    if (threadIdx.x == 0) s_who = -1;
    __syncthreads();
    if (in[threadIdx.x] > 0.6f) atomicMax(&s_who, (int)threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) aux[blockIdx.x] = (unsigned)s_who;
}

// Block-wide counter read by thread 0 before the other threads' atomics are done.
extern "C" __global__ void bad_race_atomic_then_read(const float* __restrict__ in, float* __restrict__ out,
                                                     unsigned* aux, int n) {
    __shared__ unsigned s_count;
    if (threadIdx.x == 0) s_count = 0;
    __syncthreads();
    if (in[threadIdx.x] > 0.6f) atomicAdd(&s_count, 1u);
    if (threadIdx.x == 0) aux[blockIdx.x] = s_count;  // EXPECT RACE001
}

// Classic shared-memory tree reduction (reduce2 of the CUDA samples).
extern "C" __global__ void ok_reduction_syncthreads(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned* aux, int n) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Same reduction, the barrier inside the loop forgotten.
extern "C" __global__ void bad_reduction_no_syncthreads(const float* __restrict__ in, float* __restrict__ out,
                                                        unsigned* aux, int n) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];  // EXPECT RACE001
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---------------------------------------------------------------------------
// WARP001  warp-synchronous shared memory without __syncwarp
// ---------------------------------------------------------------------------

// Pre-Volta "unrolled last warp" (reduce4/5 of the old CUDA samples).
__device__ void warpReduce(volatile float* sdata, unsigned tid) {
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];  // EXPECT WARP001
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

extern "C" __global__ void bad_warp_reduce_volatile_no_syncwarp(const float* __restrict__ in, float* __restrict__ out,
                                                                unsigned* aux, int n) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warpReduce(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Volta-safe tail: read, __syncwarp, write, __syncwarp.
__device__ void warpReduceSync(volatile float* sdata, unsigned tid) {
    float v = sdata[tid];
    v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 1];  __syncwarp(); sdata[tid] = v;
}

extern "C" __global__ void ok_warp_reduce_syncwarp(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned* aux, int n) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warpReduceSync(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Per-warp scratch: each lane writes its slot, then reads its mirror lane's.
extern "C" __global__ void bad_warp_scratch_reverse_no_syncwarp(const float* __restrict__ in, float* __restrict__ out,
                                                                unsigned* aux, int n) {
    __shared__ float scratch[4][32];
    unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    scratch[w][lane] = in[threadIdx.x];
    out[threadIdx.x] = scratch[w][31 - lane];  // EXPECT WARP001
}

extern "C" __global__ void ok_warp_scratch_reverse_syncwarp(const float* __restrict__ in, float* __restrict__ out,
                                                            unsigned* aux, int n) {
    __shared__ float scratch[4][32];
    unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    scratch[w][lane] = in[threadIdx.x];
    __syncwarp();
    out[threadIdx.x] = scratch[w][31 - lane];
}

// ---------------------------------------------------------------------------
// FENCE001/002/003  inter-block publication (threadFenceReduction pattern)
//   out[0 .. gridDim.x-1] : per-block partial sums, out[gridDim.x] : total
//   aux[0]                : retirement ticket counter
// ---------------------------------------------------------------------------

__device__ float blockSum(const float* in, int n) {
    __shared__ float sdata[128];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
}

// Correct: fence before the ticket (release), fence after winning it (acquire).
extern "C" __global__ void ok_last_block_threadfence(const float* __restrict__ in, float* __restrict__ out,
                                                     unsigned* aux, int n) {
    __shared__ bool amLast;
    float partial = blockSum(in, n);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial;
        __threadfence();
        unsigned ticket = atomicInc(&aux[0], gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast && threadIdx.x == 0) {
        __threadfence();
        float total = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) total += ((volatile float*)out)[b];
        out[gridDim.x] = total;
        aux[0] = 0;
    }
}

// Missing the producer-side fence: the ticket may become visible before the partial.
extern "C" __global__ void bad_last_block_no_threadfence(const float* __restrict__ in, float* __restrict__ out,
                                                         unsigned* aux, int n) {
    __shared__ bool amLast;
    float partial = blockSum(in, n);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial;
        unsigned ticket = atomicInc(&aux[0], gridDim.x);  // EXPECT FENCE001
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast && threadIdx.x == 0) {
        __threadfence();
        float total = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) total += ((volatile float*)out)[b];
        out[gridDim.x] = total;
        aux[0] = 0;
    }
}

// Block-scope fence: orders only for observers in the same block.
extern "C" __global__ void bad_last_block_threadfence_block(const float* __restrict__ in, float* __restrict__ out,
                                                            unsigned* aux, int n) {
    __shared__ bool amLast;
    float partial = blockSum(in, n);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial;
        __threadfence_block();  // EXPECT FENCE003
        unsigned ticket = atomicInc(&aux[0], gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast && threadIdx.x == 0) {
        __threadfence();
        float total = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) total += ((volatile float*)out)[b];
        out[gridDim.x] = total;
        aux[0] = 0;
    }
}

// Exactly the CUDA sample's shape: producer fence present, but the last block
// reads the partials without an acquire fence after winning the ticket.
extern "C" __global__ void bad_last_block_no_acquire(const float* __restrict__ in, float* __restrict__ out,
                                                     unsigned* aux, int n) {
    __shared__ bool amLast;
    float partial = blockSum(in, n);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial;
        __threadfence();
        unsigned ticket = atomicInc(&aux[0], gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast && threadIdx.x == 0) {
        float total = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) total += out[b];  // EXPECT FENCE002
        out[gridDim.x] = total;
        aux[0] = 0;
    }
}

// Flag handshake, block 0 produces 64 values for block 1.
//   out[0..63] : payload, aux[1] : ready flag.
// Spins are bounded so that a scheduling surprise cannot hang the validation run.
#define SPIN_LIMIT (1 << 22)

extern "C" __global__ void bad_flag_publish_no_fence(const float* __restrict__ in, float* __restrict__ out,
                                                     unsigned* aux, int n) {
    volatile unsigned* flag = &aux[1];
    if (blockIdx.x == 0) {
        if (threadIdx.x < 64) out[threadIdx.x] = in[threadIdx.x] * 2.0f;
        __syncthreads();
        if (threadIdx.x == 0) *flag = 1;  // EXPECT FENCE001
    } else if (blockIdx.x == 1) {
        if (threadIdx.x == 0) {
            for (int t = 0; t < SPIN_LIMIT && *flag == 0; ++t) {}
        }
        __syncthreads();
        __threadfence();
        if (threadIdx.x < 64) out[64 + threadIdx.x] = ((volatile float*)out)[threadIdx.x];
    }
}

extern "C" __global__ void bad_flag_consumer_no_fence(const float* __restrict__ in, float* __restrict__ out,
                                                      unsigned* aux, int n) {
    volatile unsigned* flag = &aux[1];
    if (blockIdx.x == 0) {
        if (threadIdx.x < 64) out[threadIdx.x] = in[threadIdx.x] * 2.0f;
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) atomicExch(&aux[1], 1u);
    } else if (blockIdx.x == 1) {
        if (threadIdx.x == 0) {
            for (int t = 0; t < SPIN_LIMIT && *flag == 0; ++t) {}
        }
        __syncthreads();
        if (threadIdx.x < 64) out[64 + threadIdx.x] = out[threadIdx.x];  // EXPECT FENCE002
    }
}

extern "C" __global__ void ok_flag_threadfence_both_sides(const float* __restrict__ in, float* __restrict__ out,
                                                          unsigned* aux, int n) {
    volatile unsigned* flag = &aux[1];
    if (blockIdx.x == 0) {
        if (threadIdx.x < 64) out[threadIdx.x] = in[threadIdx.x] * 2.0f;
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) atomicExch(&aux[1], 1u);
    } else if (blockIdx.x == 1) {
        if (threadIdx.x == 0) {
            for (int t = 0; t < SPIN_LIMIT && *flag == 0; ++t) {}
            __threadfence();
        }
        __syncthreads();
        if (threadIdx.x < 64) out[64 + threadIdx.x] = ((volatile float*)out)[threadIdx.x];
    }
}

// The libcu++ way: release store / acquire load at device scope.
extern "C" __global__ void ok_flag_atomic_ref_acq_rel(const float* __restrict__ in, float* __restrict__ out,
                                                      unsigned* aux, int n) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(aux[1]);
    if (blockIdx.x == 0) {
        if (threadIdx.x < 64) out[threadIdx.x] = in[threadIdx.x] * 2.0f;
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();  // cumulativity: make the other threads' payload stores part of the release
            flag.store(1u, cuda::memory_order_release);
        }
    } else if (blockIdx.x == 1) {
        if (threadIdx.x == 0) {
            for (int t = 0; t < SPIN_LIMIT && flag.load(cuda::memory_order_acquire) == 0; ++t) {}
        }
        __syncthreads();
        if (threadIdx.x < 64) out[64 + threadIdx.x] = out[threadIdx.x];
    }
}

// ---------------------------------------------------------------------------
// CONST001  non-uniform __constant__ access
// ---------------------------------------------------------------------------

// 1-D stencil, coefficient index is the (uniform) loop counter.
extern "C" __global__ void ok_const_stencil_uniform(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned* aux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
    if (i >= n - RADIUS) return;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = -RADIUS; k <= RADIUS; ++k) acc += c_coef[k + RADIUS] * in[i + k];
    out[i] = acc;
}

// Per-lane coefficients taken from constant memory: serialised per distinct address.
extern "C" __global__ void bad_const_lane_indexed(const float* __restrict__ in, float* __restrict__ out,
                                                  unsigned* aux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = in[i] * c_table[threadIdx.x % 32];  // EXPECT CONST001
}

// Lookup table indexed by data (a quantisation LUT).
extern "C" __global__ void bad_const_data_indexed_lut(const float* __restrict__ in, float* __restrict__ out,
                                                      unsigned* aux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int q = (int)(in[i] * 100.0f) & 255;
    out[i] = c_table[q];  // EXPECT CONST001
}

// Per-block parameter: blockIdx is warp-uniform, so this is a broadcast.
extern "C" __global__ void ok_const_block_indexed(const float* __restrict__ in, float* __restrict__ out,
                                                  unsigned* aux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = in[i] * c_table[blockIdx.x & 255];
}

// ---------------------------------------------------------------------------
// SHFL001  full mask with inactive lanes / SHFL002  invalid operands
// ---------------------------------------------------------------------------

__device__ __forceinline__ float warpSum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(FULL_MASK, v, off);
    return v;
}

extern "C" __global__ void ok_shfl_full_mask_reduce(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned* aux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;  // every lane stays in the reduction
    v = warpSum(v);
    if ((threadIdx.x & 31) == 0) atomicAdd(&out[0], v);
}

extern "C" __global__ void bad_shfl_full_mask_in_lane_branch(const float* __restrict__ in, float* __restrict__ out,
                                                             unsigned* aux, int n) {
    int lane = threadIdx.x & 31;
    float v = in[threadIdx.x];
    if (lane < 16) {
        for (int off = 8; off > 0; off >>= 1)
            v += __shfl_down_sync(FULL_MASK, v, off);  // EXPECT SHFL001
        if (lane == 0) out[threadIdx.x / 32] = v;
    }
}

// Same, with the upper half-warp alive (it writes its own value afterwards).
extern "C" __global__ void bad_shfl_full_mask_in_lane_branch_live(const float* __restrict__ in,
                                                                  float* __restrict__ out, unsigned* aux, int n) {
    int lane = threadIdx.x & 31;
    float v = in[threadIdx.x];
    if (lane < 16) {
        for (int off = 8; off > 0; off >>= 1)
            v += __shfl_down_sync(FULL_MASK, v, off);  // EXPECT SHFL001
    }
    out[threadIdx.x] = v;
}

extern "C" __global__ void ok_shfl_activemask_in_lane_branch(const float* __restrict__ in, float* __restrict__ out,
                                                             unsigned* aux, int n) {
    int lane = threadIdx.x & 31;
    float v = in[threadIdx.x];
    if (lane < 16) {
        unsigned mask = __activemask();
        for (int off = 8; off > 0; off >>= 1) v += __shfl_down_sync(mask, v, off, 16);
        if (lane == 0) out[threadIdx.x / 32] = v;
    }
}

// Out-of-range threads leave first, then the survivors vote with a full mask
// (n = 48, blockDim = 64: warp 1 has only 16 live lanes).
extern "C" __global__ void bad_ballot_after_early_exit(const float* __restrict__ in, float* __restrict__ out,
                                                       unsigned* aux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned big = __ballot_sync(FULL_MASK, in[i] > 0.6f);  // EXPECT SHFL001
    if ((threadIdx.x & 31) == 0) aux[i / 32] = __popc(big);
}

extern "C" __global__ void ok_ballot_before_exit(const float* __restrict__ in, float* __restrict__ out,
                                                 unsigned* aux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool active = i < n;
    unsigned big = __ballot_sync(FULL_MASK, active && in[i] > 0.6f);
    if (!active) return;
    if ((threadIdx.x & 31) == 0) aux[i / 32] = __popc(big);
}

// Segmented sum over groups of 12 elements: width must be a power of two.
extern "C" __global__ void bad_shfl_width_12(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned* aux, int n) {
    float v = in[threadIdx.x];
    for (int off = 8; off > 0; off >>= 1) v += __shfl_down_sync(FULL_MASK, v, off, 12);  // EXPECT SHFL002
    out[threadIdx.x] = v;
}

extern "C" __global__ void ok_shfl_width_16(const float* __restrict__ in, float* __restrict__ out,
                                            unsigned* aux, int n) {
    float v = in[threadIdx.x];
    for (int off = 8; off > 0; off >>= 1) v += __shfl_down_sync(FULL_MASK, v, off, 16);
    out[threadIdx.x] = v;
}

// Width larger than a warp.
extern "C" __global__ void bad_shfl_width_64(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned* aux, int n) {
    float v = in[threadIdx.x];
    v += __shfl_xor_sync(FULL_MASK, v, 1, 64);  // EXPECT SHFL002
    out[threadIdx.x] = v;
}

// ===========================================================================
// host side
// ===========================================================================
typedef void (*kfn)(const float*, float*, unsigned*, int);
struct Entry { const char* name; kfn fn; dim3 grid; dim3 block; int n; };

#define KERNEL(name, gx, gy, gz, bx, by, bz, n) {#name, name, dim3(gx, gy, gz), dim3(bx, by, bz), n},
static const Entry kTable[] = {
    // name                                   grid      block      n
    KERNEL(bad_divergent_ifelse_syncthreads,      1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_syncthreads_lane_lt16,             1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_syncthreads_tid_loop,              1, 1, 1,  64, 1, 1,  100)
    KERNEL(bad_syncthreads_lane_lt16_live,        1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_syncthreads_tid_loop_live,         1, 1, 1,  64, 1, 1,  100)
    KERNEL(ok_syncthreads_uniform_loop,           1, 1, 1,  64, 1, 1,  100)
    KERNEL(ok_syncthreads_block_uniform,          2, 1, 1,  64, 1, 1,  128)
    KERNEL(ok_syncthreads_loop_uniform_load,      2, 1, 1,  64, 1, 1,   64)
    KERNEL(ok_syncwarp_branch_tidy,               1, 1, 1,  32, 4, 1,  128)
    KERNEL(bad_syncthreads_branch_tidy,           1, 1, 1,  32, 4, 1,  128)
    KERNEL(bad_syncthreads_branch_tidy_live,      1, 1, 1,  32, 4, 1,  128)
    KERNEL(bad_syncthreads_param_bound,           1, 1, 1,  64, 1, 1,   48)
    KERNEL(bad_syncthreads_data_loop,             1, 1, 1,  64, 1, 1,   64)
    KERNEL(ok_syncthreads_after_reconverge,       1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_early_return_syncthreads,          2, 1, 1,  64, 1, 1,  100)
    KERNEL(ok_guarded_no_return,                  2, 1, 1,  64, 1, 1,  100)
    KERNEL(ok_early_return_block_uniform,         4, 1, 1,  64, 1, 1,  128)
    KERNEL(bad_aligned_named_barrier_half_warp,   1, 1, 1,  64, 1, 1,   64)
    KERNEL(ok_nonaligned_named_barrier_half_warp, 1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_aligned_named_barrier_half_warp_live, 1, 1, 1, 64, 1, 1,  64)
    KERNEL(ok_nonaligned_named_barrier_half_warp_live, 1, 1, 1, 64, 1, 1, 64)
    KERNEL(ok_named_barrier_warp_specialized,     1, 1, 1, 128, 1, 1,  128)
    KERNEL(ok_cluster_dsmem_exchange,             2, 1, 1,  64, 1, 1,  128)
    KERNEL(bad_cluster_sync_divergent,            2, 1, 1,  64, 1, 1,  128)
    KERNEL(bad_cluster_arrive_rank0_only,         2, 1, 1,  64, 1, 1,  128)
    KERNEL(bad_race_raw_neighbor,                 1, 1, 1, 128, 1, 1,  128)
    KERNEL(ok_raw_neighbor_synced,                1, 1, 1, 128, 1, 1,  128)
    KERNEL(bad_race_war_inplace_smooth,           1, 1, 1, 128, 1, 1,  128)
    KERNEL(ok_war_inplace_smooth_two_barriers,    1, 1, 1, 128, 1, 1,  128)
    KERNEL(bad_race_waw_last_writer,              1, 1, 1, 128, 1, 1,  128)
    KERNEL(ok_waw_atomic_max,                     1, 1, 1, 128, 1, 1,  128)
    KERNEL(bad_race_atomic_then_read,             1, 1, 1, 128, 1, 1,  128)
    KERNEL(ok_reduction_syncthreads,              2, 1, 1, 256, 1, 1,  512)
    KERNEL(bad_reduction_no_syncthreads,          2, 1, 1, 256, 1, 1,  512)
    KERNEL(bad_warp_reduce_volatile_no_syncwarp,  2, 1, 1, 256, 1, 1,  512)
    KERNEL(ok_warp_reduce_syncwarp,               2, 1, 1, 256, 1, 1,  512)
    KERNEL(bad_warp_scratch_reverse_no_syncwarp,  1, 1, 1, 128, 1, 1,  128)
    KERNEL(ok_warp_scratch_reverse_syncwarp,      1, 1, 1, 128, 1, 1,  128)
    KERNEL(ok_last_block_threadfence,            16, 1, 1, 128, 1, 1, 2048)
    KERNEL(bad_last_block_no_threadfence,        16, 1, 1, 128, 1, 1, 2048)
    KERNEL(bad_last_block_threadfence_block,     16, 1, 1, 128, 1, 1, 2048)
    KERNEL(bad_last_block_no_acquire,            16, 1, 1, 128, 1, 1, 2048)
    KERNEL(bad_flag_publish_no_fence,             2, 1, 1, 128, 1, 1,   64)
    KERNEL(bad_flag_consumer_no_fence,            2, 1, 1, 128, 1, 1,   64)
    KERNEL(ok_flag_threadfence_both_sides,        2, 1, 1, 128, 1, 1,   64)
    KERNEL(ok_flag_atomic_ref_acq_rel,            2, 1, 1, 128, 1, 1,   64)
    KERNEL(ok_const_stencil_uniform,              4, 1, 1, 128, 1, 1,  512)
    KERNEL(bad_const_lane_indexed,                4, 1, 1, 128, 1, 1,  512)
    KERNEL(bad_const_data_indexed_lut,            4, 1, 1, 128, 1, 1,  512)
    KERNEL(ok_const_block_indexed,                4, 1, 1, 128, 1, 1,  512)
    KERNEL(ok_shfl_full_mask_reduce,              2, 1, 1, 128, 1, 1,  200)
    KERNEL(bad_shfl_full_mask_in_lane_branch,     1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_shfl_full_mask_in_lane_branch_live, 1, 1, 1, 64, 1, 1,   64)
    KERNEL(ok_shfl_activemask_in_lane_branch,     1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_ballot_after_early_exit,           1, 1, 1,  64, 1, 1,   48)
    KERNEL(ok_ballot_before_exit,                 1, 1, 1,  64, 1, 1,   48)
    KERNEL(bad_shfl_width_12,                     1, 1, 1,  64, 1, 1,   64)
    KERNEL(ok_shfl_width_16,                      1, 1, 1,  64, 1, 1,   64)
    KERNEL(bad_shfl_width_64,                     1, 1, 1,  64, 1, 1,   64)
};
static const int kCount = sizeof(kTable) / sizeof(kTable[0]);

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            return 2;                                                                          \
        }                                                                                      \
    } while (0)

static int run_one(const Entry& e, float* d_in, float* d_out, unsigned* d_aux, int N) {
    CK(cudaMemset(d_out, 0, N * sizeof(float)));
    CK(cudaMemset(d_aux, 0, N * sizeof(unsigned)));
    e.fn<<<e.grid, e.block>>>(d_in, d_out, d_aux, e.n);
    cudaError_t le = cudaGetLastError();
    cudaError_t se = cudaDeviceSynchronize();
    float h[4] = {0, 0, 0, 0};
    if (le == cudaSuccess && se == cudaSuccess) cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost);
    printf("KERNEL_DONE %s launch=%s sync=%s out[0..3]=%g %g %g %g\n", e.name, cudaGetErrorString(le),
           cudaGetErrorString(se), h[0], h[1], h[2], h[3]);
    fflush(stdout);
    return (le == cudaSuccess && se == cudaSuccess) ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc > 1 && !strcmp(argv[1], "list")) {
        for (int k = 0; k < kCount; ++k) printf("%s\n", kTable[k].name);
        return 0;
    }
    const int N = 1 << 16;
    float* h_in = (float*)malloc(N * sizeof(float));
    for (int i = 0; i < N; ++i) h_in[i] = (i % 97) * 0.01f + 0.5f;
    float h_coef[2 * RADIUS + 1], h_table[256];
    for (int k = 0; k <= 2 * RADIUS; ++k) h_coef[k] = 1.0f / (1 + (k > RADIUS ? k - RADIUS : RADIUS - k));
    for (int k = 0; k < 256; ++k) h_table[k] = 0.001f * k * k;
    CK(cudaMemcpyToSymbol(c_coef, h_coef, sizeof(h_coef)));
    CK(cudaMemcpyToSymbol(c_table, h_table, sizeof(h_table)));
    float *d_in, *d_out;
    unsigned* d_aux;
    CK(cudaMalloc(&d_in, N * sizeof(float)));
    CK(cudaMalloc(&d_out, N * sizeof(float)));
    CK(cudaMalloc(&d_aux, N * sizeof(unsigned)));
    CK(cudaMemcpy(d_in, h_in, N * sizeof(float), cudaMemcpyHostToDevice));
    const char* want = argc > 1 ? argv[1] : "all";
    int found = 0, rc = 0;
    for (int k = 0; k < kCount; ++k) {
        if (strcmp(want, "all") && strcmp(want, kTable[k].name)) continue;
        ++found;
        rc |= run_one(kTable[k], d_in, d_out, d_aux, N);
        if (rc && !strcmp(want, "all")) break;  // a sticky error poisons the context
    }
    if (!found) {
        fprintf(stderr, "unknown kernel %s (try: list)\n", want);
        return 3;
    }
    return rc;
}
