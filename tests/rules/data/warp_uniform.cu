// Values that are the same in every lane of a warp although computed from lane-dependent inputs:
// a shuffle from one lane, votes, reductions, match.all. A branch on them does not split a warp
// (SHFL001, SYNC003, WARP001 stay silent) but may split the block (SYNC001 still fires).
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 warp_uniform.cu -o warp_uniform.sm_90.ptx
// Launch: 256 threads per block.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// lane 0's value, broadcast: every lane of the warp takes the same side, so the full-mask shuffle
// inside is executed by whole warps
__global__ void ok_shuffle_under_broadcast(const int* in, int* out) {
    int v = in[blockIdx.x * 256 + threadIdx.x];
    int first = __shfl_sync(0xffffffffu, v, 0);
    if (first > 0) v += __shfl_down_sync(0xffffffffu, v, 1);
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

// the same under a vote and a reduction
__global__ void ok_shuffle_under_votes(const int* in, int* out) {
    int v = in[blockIdx.x * 256 + threadIdx.x];
    if (__all_sync(0xffffffffu, v > 0)) v += __shfl_xor_sync(0xffffffffu, v, 1);
    if (__reduce_add_sync(0xffffffffu, v) > 100) v += __shfl_xor_sync(0xffffffffu, v, 2);
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

// match.all: its mask is the same in every lane
__global__ void ok_shuffle_under_match_all(const int* in, int* out) {
    int v = in[blockIdx.x * 256 + threadIdx.x];
    int pred;
    unsigned same = __match_all_sync(0xffffffffu, v >> 4, &pred);
    if (same) v += __shfl_xor_sync(0xffffffffu, v, 4);
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

// a broadcast within 16-lane segments differs between the halves of a warp: still divergence
__global__ void bad_shuffle_under_half_broadcast(const int* in, int* out) {
    int v = in[blockIdx.x * 256 + threadIdx.x];
    int first = __shfl_sync(0xffffffffu, v, 0, 16);
    if (first > 0) v += __shfl_down_sync(0xffffffffu, v, 1);  // EXPECT SHFL001
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

// warps may disagree about lane 0's value: a block barrier under the branch is divergent
__global__ void bad_barrier_under_broadcast(const int* in, int* out) {
    __shared__ int s[256];
    int v = in[blockIdx.x * 256 + threadIdx.x];
    int first = __shfl_sync(0xffffffffu, v, 0);
    s[threadIdx.x] = v;
    if (first > 0) {
        __syncthreads();  // EXPECT SYNC001
        v += s[threadIdx.x ^ 32];
    }
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

// a named barrier with a count (producer/consumer warps) under a warp-uniform branch: `.aligned`
// only needs whole warps
__global__ void ok_named_barrier_under_broadcast(const int* in, int* out) {
    int v = in[blockIdx.x * 256 + threadIdx.x];
    int first = __shfl_sync(0xffffffffu, v, 0);
    if (first > 0) asm volatile("bar.sync 1, 64;");
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

// cooperative groups' reduce over a two-warp tile: its tile barrier broadcasts an atomic's result from
// lane 0 and branches on it together with the warp's own bit: whole warps take each side
__global__ void ok_cg_reduce_two_warp_tile(const float* in, float* out) {
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    float r = cg::reduce(tile, in[blockIdx.x * 256 + threadIdx.x], cg::plus<float>());
    if (tile.thread_rank() == 0) out[blockIdx.x * 4 + tile.meta_group_rank()] = r;
}
