// Labelled kernels for ptxlint's correctness rules on toolkit code: cooperative groups, CUB, libcu++.
//
// ok_*  : the toolkit used as documented; ptxlint must report no correctness finding.
// bad_* : a genuine misuse; `// EXPECT CODE` marks the finding ptxlint must report and its line.
// Every kernel is launched by main() with the shape in the KERNEL table at the end of this file
// (`./app NAME` runs one, `./app list` names them, `./app all` runs every one).
//
// Build: nvcc -arch=sm_90 -lineinfo toolkit.cu -o app
//        nvcc -arch=sm_90 -lineinfo -ptx toolkit.cu -o toolkit.sm_90.ptx
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------
// thread_block::sync
// ---------------------------------------------------------------------------

// Neighbour exchange through shared memory, ordered by the block's sync.
extern "C" __global__ void ok_block_sync(const int* in, int* out) {
    __shared__ int s[128];
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    s[t] = in[blockIdx.x * 128 + t];
    block.sync();
    out[blockIdx.x * 128 + t] = s[(t + 1) % 128];
}

// The block's sync inside a branch that only the first two warps take.
extern "C" __global__ void bad_block_sync_divergent(const int* in, int* out) {
    __shared__ int s[128];
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    s[t] = in[blockIdx.x * 128 + t];
    if (t < 64) {
        block.sync();  // EXPECT SYNC001
        out[blockIdx.x * 128 + t] = s[t + 64];
    }
}

// ---------------------------------------------------------------------------
// tiled_partition<N>, N = 4..32: sync, shfl, reduce
// ---------------------------------------------------------------------------

extern "C" __global__ void ok_tile4_shfl_down(const int* in, int* out) {
    auto tile = cg::tiled_partition<4>(cg::this_thread_block());
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int d = tile.size() / 2; d > 0; d /= 2) v += tile.shfl_down(v, d);
    if (tile.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 4] = v;
}

// Exchange inside 8-thread tiles through shared memory, ordered by tile.sync().
extern "C" __global__ void ok_tile8_sync_smem(const int* in, int* out) {
    __shared__ int s[128];
    auto tile = cg::tiled_partition<8>(cg::this_thread_block());
    s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    tile.sync();
    unsigned base = threadIdx.x - tile.thread_rank();
    out[blockIdx.x * 128 + threadIdx.x] = s[base + (tile.thread_rank() + 1) % 8];
}

// The same exchange inside 16-thread tiles with no tile.sync(): lanes of one warp read what other
// lanes wrote (racecheck: an intra-warp hazard).
extern "C" __global__ void bad_tile16_smem_no_sync(const int* in, int* out) {
    __shared__ int s[128];
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    unsigned base = threadIdx.x - tile.thread_rank();
    out[blockIdx.x * 128 + threadIdx.x] = s[base + (tile.thread_rank() + 1) % 16];  // EXPECT WARP001
}

extern "C" __global__ void ok_tile16_reduce(const int* in, int* out) {
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    int s = cg::reduce(tile, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<int>());
    if (tile.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 16] = s;
}

extern "C" __global__ void ok_tile32_reduce_shfl(const int* in, int* out) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int s = cg::reduce(tile, v, cg::greater<int>());
    int first = tile.shfl(v, 0);
    if (tile.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = s - first;
}

// A 32-thread tile's sync executed by half of the warp: the other lanes named by the full mask
// never arrive.
extern "C" __global__ void bad_tile32_sync_divergent(const int* in, int* out) {
    __shared__ int s[128];
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    if (tile.thread_rank() < 16) {
        tile.sync();  // EXPECT SHFL001
        out[blockIdx.x * 128 + threadIdx.x] = s[threadIdx.x + 16];
    }
}

// ---------------------------------------------------------------------------
// tiled_partition<64..512>: multi-warp tiles (cooperative groups' reserved shared scratch)
// ---------------------------------------------------------------------------

template <unsigned N>
__device__ void tile_reduce_to(const int* in, int* out) {
    auto tile = cg::tiled_partition<N>(cg::this_thread_block());
    int s = cg::reduce(tile, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<int>());
    if (tile.thread_rank() == 0) out[blockIdx.x * (blockDim.x / N) + tile.meta_group_rank()] = s;
}

extern "C" __global__ void ok_tile64_reduce(const int* in, int* out) { tile_reduce_to<64>(in, out); }
extern "C" __global__ void ok_tile128_reduce(const int* in, int* out) { tile_reduce_to<128>(in, out); }
extern "C" __global__ void ok_tile256_reduce(const int* in, int* out) { tile_reduce_to<256>(in, out); }
extern "C" __global__ void ok_tile512_reduce(const int* in, int* out) { tile_reduce_to<512>(in, out); }

// Shared-memory exchange inside 128-thread tiles (four warps), ordered by the tile's sync.
extern "C" __global__ void ok_tile128_sync_smem(const int* in, int* out) {
    __shared__ int s[256];
    auto tile = cg::tiled_partition<128>(cg::this_thread_block());
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    tile.sync();
    unsigned base = threadIdx.x - tile.thread_rank();
    out[blockIdx.x * 256 + threadIdx.x] = s[base + (tile.thread_rank() + 32) % 128];
}

// ---------------------------------------------------------------------------
// coalesced_threads, binary_partition
// ---------------------------------------------------------------------------

// Warp-aggregated slot counter: the active lanes of the branch take one atomicAdd, the leader's
// result is broadcast, every lane writes its own slot. Nothing reads dst after the counter.
extern "C" __global__ void ok_coalesced_aggregated_slots(const int* in, int* dst, unsigned* count) {
    int x = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (x % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        unsigned base = 0;
        if (active.thread_rank() == 0) base = atomicAdd(count, active.size());
        base = active.shfl(base, 0);
        dst[base + active.thread_rank()] = x;
    }
}

extern "C" __global__ void ok_binary_partition_reduce(const int* in, int* out) {
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    auto part = cg::binary_partition(warp, v & 1);
    int s = cg::reduce(part, v, cg::plus<int>());
    if (part.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32 * 2 + (v & 1)] = s;
}

// ---------------------------------------------------------------------------
// grid_group::sync (cooperative launch)
// ---------------------------------------------------------------------------

// Every block writes its partial, the grid syncs, block 0 sums the partials.
extern "C" __global__ void ok_grid_sync_partials(const int* in, int* partial, int* out) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int s[128];
    s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    block.sync();
    if (threadIdx.x == 0) {
        int sum = 0;
        for (int k = 0; k < 128; ++k) sum += s[k];
        partial[blockIdx.x] = sum;
    }
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
        out[0] = total;
    }
}

// ---------------------------------------------------------------------------
// CUB block and warp primitives
// ---------------------------------------------------------------------------

extern "C" __global__ void ok_cub_block_reduce(const int* in, int* out) {
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage temp;
    int s = Reduce(temp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

extern "C" __global__ void ok_cub_block_scan(const int* in, int* out) {
    using Scan = cub::BlockScan<int, 128>;
    __shared__ typename Scan::TempStorage temp;
    int v;
    Scan(temp).ExclusiveSum(in[blockIdx.x * 128 + threadIdx.x], v);
    out[blockIdx.x * 128 + threadIdx.x] = v;
}

extern "C" __global__ void ok_cub_block_radix_sort(const int* in, int* out) {
    using Sort = cub::BlockRadixSort<int, 128, 4>;
    __shared__ typename Sort::TempStorage temp;
    int keys[4];
    for (int k = 0; k < 4; ++k) keys[k] = in[blockIdx.x * 512 + threadIdx.x * 4 + k];
    Sort(temp).Sort(keys);
    for (int k = 0; k < 4; ++k) out[blockIdx.x * 512 + threadIdx.x * 4 + k] = keys[k];
}

extern "C" __global__ void ok_cub_warp_reduce(const int* in, int* out) {
    using WarpReduce = cub::WarpReduce<int>;
    __shared__ typename WarpReduce::TempStorage temp[4];
    unsigned warp = threadIdx.x / 32;
    int s = WarpReduce(temp[warp]).Sum(in[blockIdx.x * 128 + threadIdx.x]);
    if (threadIdx.x % 32 == 0) out[blockIdx.x * 4 + warp] = s;
}

// One TempStorage used by two reductions in a row, with the __syncthreads() CUB documents between
// the two uses.
extern "C" __global__ void ok_cub_temp_storage_reuse_synced(const int* in, int* out) {
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage temp;
    int v = in[blockIdx.x * 128 + threadIdx.x];
    int sum = Reduce(temp).Sum(v);
    __syncthreads();
    int squares = Reduce(temp).Sum(v * v);
    if (threadIdx.x == 0) out[blockIdx.x * 2] = sum, out[blockIdx.x * 2 + 1] = squares;
}

// The same reuse without the __syncthreads(): the second reduction's warp leaders write their
// partials into the storage while thread 0 may still read the first reduction's partials.
extern "C" __global__ void bad_cub_temp_storage_reuse_no_sync(const int* in, int* out) {
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage temp;
    int v = in[blockIdx.x * 128 + threadIdx.x];
    int sum = Reduce(temp).Sum(v);
    int squares = Reduce(temp).Sum(v * v);  // EXPECT RACE001
    if (threadIdx.x == 0) out[blockIdx.x * 2] = sum, out[blockIdx.x * 2 + 1] = squares;
}

// ---------------------------------------------------------------------------
// Cross-block hand-offs: last-block reduction, slot counters, libcu++ atomics
//   partial[0 .. gridDim.x-1]: per-block sums; count[0]: ticket; out[0]: total
// ---------------------------------------------------------------------------

extern "C" __global__ void ok_last_block_threadfence(const int* in, int* partial, unsigned* count, int* out) {
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage temp;
    __shared__ bool am_last;
    int s = Reduce(temp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s;
        __threadfence();
        unsigned ticket = atomicAdd(count, 1u);
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (am_last && threadIdx.x == 0) {
        __threadfence();
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) total += ((volatile int*)partial)[b];
        out[0] = total;
        *count = 0;
    }
}

// The partial may become visible after the ticket: the last block can sum a stale value.
extern "C" __global__ void bad_last_block_no_threadfence(const int* in, int* partial, unsigned* count, int* out) {
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage temp;
    __shared__ bool am_last;
    int s = Reduce(temp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s;
        unsigned ticket = atomicAdd(count, 1u);  // EXPECT FENCE001
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (am_last && threadIdx.x == 0) {
        __threadfence();
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) total += ((volatile int*)partial)[b];
        out[0] = total;
        *count = 0;
    }
}

// libcu++: the ticket taken with acq_rel at device scope orders the partial before it (release)
// and the reads of the other partials after it (acquire).
extern "C" __global__ void ok_last_block_atomic_ref_acq_rel(const int* in, int* partial, unsigned* count, int* out) {
    using Reduce = cub::BlockReduce<int, 128>;
    __shared__ typename Reduce::TempStorage temp;
    int s = Reduce(temp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*count);
        if (ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1) {
            int total = 0;
            for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
            out[0] = total;
            ticket.store(0u, cuda::memory_order_relaxed);
        }
    }
}

// Stream compaction with a global slot counter in a grid-stride loop: each atomicAdd hands out a
// slot; nothing in the kernel reads dst after observing the counter.
extern "C" __global__ void ok_slot_counter_grid_stride(const int* in, int* dst, unsigned* count, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int x = in[i];
        if (x % 3 == 0) dst[atomicAdd(count, 1u)] = x;
    }
}

// The same with a capacity check on the slot (the counter's value decides a branch, but dst is
// still never read after it).
extern "C" __global__ void ok_slot_counter_bounded(const int* in, int* dst, unsigned* count, int n, unsigned cap) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int x = in[i];
        if (x % 3 == 0) {
            unsigned slot = atomicAdd(count, 1u);
            if (slot < cap) dst[slot] = x;
        }
    }
}

// Block-scope libcu++ atomics on a per-block counter in global memory: observers are the block's
// own threads, nothing is published to other blocks.
extern "C" __global__ void ok_block_scope_atomic_ref(const int* in, int* dst, unsigned* count) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_block> slots(count[blockIdx.x]);
    int x = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (x % 3 == 0) {
        unsigned slot = slots.fetch_add(1u, cuda::memory_order_acq_rel);
        dst[blockIdx.x * blockDim.x + slot] = x;
    }
    __syncthreads();
    if (threadIdx.x == 0 && slots.load(cuda::memory_order_acquire) > 0) dst[blockIdx.x * blockDim.x] += 1;
}

// ---------------------------------------------------------------------------
// Host: the launch table and a tiny driver
// ---------------------------------------------------------------------------

struct Launch {
    const char* name;
    dim3 grid, block;
    bool cooperative;
};

#define KERNEL(name, gx, bx, coop) {#name, dim3(gx), dim3(bx), coop}
static const Launch LAUNCHES[] = {
    KERNEL(ok_block_sync,                         4, 128, false),
    KERNEL(bad_block_sync_divergent,              4, 128, false),
    KERNEL(ok_tile4_shfl_down,                    4, 128, false),
    KERNEL(ok_tile8_sync_smem,                    4, 128, false),
    KERNEL(bad_tile16_smem_no_sync,               4, 128, false),
    KERNEL(ok_tile16_reduce,                      4, 128, false),
    KERNEL(ok_tile32_reduce_shfl,                 4, 256, false),
    KERNEL(bad_tile32_sync_divergent,             4, 128, false),
    KERNEL(ok_tile64_reduce,                      4, 256, false),
    KERNEL(ok_tile128_reduce,                     4, 256, false),
    KERNEL(ok_tile256_reduce,                     4, 512, false),
    KERNEL(ok_tile512_reduce,                     4, 512, false),
    KERNEL(ok_tile128_sync_smem,                  4, 256, false),
    KERNEL(ok_coalesced_aggregated_slots,         4, 128, false),
    KERNEL(ok_binary_partition_reduce,            4, 128, false),
    KERNEL(ok_grid_sync_partials,                 8, 128, true),
    KERNEL(ok_cub_block_reduce,                   4, 128, false),
    KERNEL(ok_cub_block_scan,                     4, 128, false),
    KERNEL(ok_cub_block_radix_sort,               4, 128, false),
    KERNEL(ok_cub_warp_reduce,                    4, 128, false),
    KERNEL(ok_cub_temp_storage_reuse_synced,      4, 128, false),
    KERNEL(bad_cub_temp_storage_reuse_no_sync,    4, 128, false),
    KERNEL(ok_last_block_threadfence,            16, 128, false),
    KERNEL(bad_last_block_no_threadfence,        16, 128, false),
    KERNEL(ok_last_block_atomic_ref_acq_rel,     16, 128, false),
    KERNEL(ok_slot_counter_grid_stride,           8, 128, false),
    KERNEL(ok_slot_counter_bounded,               8, 128, false),
    KERNEL(ok_block_scope_atomic_ref,             4, 128, false),
};

static void* kernel_address(const char* name) {
#define K(f) if (!strcmp(name, #f)) return (void*)f;
    K(ok_block_sync) K(bad_block_sync_divergent) K(ok_tile4_shfl_down) K(ok_tile8_sync_smem)
    K(bad_tile16_smem_no_sync) K(ok_tile16_reduce) K(ok_tile32_reduce_shfl) K(bad_tile32_sync_divergent)
    K(ok_tile64_reduce) K(ok_tile128_reduce) K(ok_tile256_reduce) K(ok_tile512_reduce) K(ok_tile128_sync_smem)
    K(ok_coalesced_aggregated_slots) K(ok_binary_partition_reduce) K(ok_grid_sync_partials)
    K(ok_cub_block_reduce) K(ok_cub_block_scan) K(ok_cub_block_radix_sort) K(ok_cub_warp_reduce)
    K(ok_cub_temp_storage_reuse_synced) K(bad_cub_temp_storage_reuse_no_sync)
    K(ok_last_block_threadfence) K(bad_last_block_no_threadfence) K(ok_last_block_atomic_ref_acq_rel)
    K(ok_slot_counter_grid_stride) K(ok_slot_counter_bounded) K(ok_block_scope_atomic_ref)
#undef K
    return nullptr;
}

static int run(const Launch& l) {
    const size_t N = 1 << 16;
    int *in, *a, *b;
    unsigned* count;
    cudaMalloc(&in, N * sizeof(int));
    cudaMalloc(&a, N * sizeof(int));
    cudaMalloc(&b, N * sizeof(int));
    cudaMalloc(&count, 1024 * sizeof(unsigned));
    int* host = (int*)malloc(N * sizeof(int));
    for (size_t k = 0; k < N; ++k) host[k] = (int)((k * 2654435761u) % 1000);
    cudaMemcpy(in, host, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(a, 0, N * sizeof(int));
    cudaMemset(b, 0, N * sizeof(int));
    cudaMemset(count, 0, 1024 * sizeof(unsigned));
    int n = (int)(l.grid.x * l.block.x * 3);
    unsigned cap = (unsigned)n / 2;
    // every kernel takes a prefix of (in, a, b/count, ..., n, cap); extra arguments are ignored
    void* args_ptr3[] = {&in, &a, &b};
    void* args_slots[] = {&in, &a, &count, &n, &cap};
    void* args_last[] = {&in, &a, &count, &b};
    const char* name = l.name;
    void** args = args_ptr3;
    if (strstr(name, "slot") || strstr(name, "block_scope") || strstr(name, "coalesced")) args = args_slots;
    if (strstr(name, "last_block")) args = args_last;
    cudaError_t err;
    if (l.cooperative)
        err = cudaLaunchCooperativeKernel(kernel_address(name), l.grid, l.block, args, 0, 0);
    else
        err = cudaLaunchKernel(kernel_address(name), l.grid, l.block, args, 0, 0);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    int result = 0;
    cudaMemcpy(&result, a, sizeof(int), cudaMemcpyDeviceToHost);
    printf("%s grid %u block %u%s: %s, out[0] = %d\n", name, l.grid.x, l.block.x, l.cooperative ? " (cooperative)" : "",
           cudaGetErrorString(err), result);
    cudaFree(in); cudaFree(a); cudaFree(b); cudaFree(count); free(host);
    return err == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
    const char* want = argc > 1 ? argv[1] : "all";
    int failures = 0, found = 0;
    for (const Launch& l : LAUNCHES) {
        if (!strcmp(want, "list")) { printf("%s\n", l.name); continue; }
        if (strcmp(want, "all") && strcmp(want, l.name)) continue;
        ++found;
        failures += run(l);
    }
    if (strcmp(want, "list") && !found) { fprintf(stderr, "unknown kernel %s\n", want); return 2; }
    return failures ? 1 : 0;
}
