// RACE003 on stores that several threads make to one global address, and on paths that the launch
// shape rules out. Each kernel is launched by main() below, so launch discovery gives its real block
// shape. Compiled with: nvcc -ptx -lineinfo -arch=sm_90 global_same_value.cu
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// The last lane of each of the 8 warps stores its tile's scan totals: every tile scans the same
// ranks, so all 8 writers store the same values.
extern "C" __global__ void ok_last_lane_of_each_tile_stores_totals(unsigned *totals) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned sum = cg::inclusive_scan(tile, tile.thread_rank() + 1);
  unsigned top = cg::inclusive_scan(tile, tile.thread_rank(), cg::greater<unsigned>());
  if (tile.thread_rank() == tile.size() - 1) {
    totals[0] = sum;
    totals[1] = top;
  }
}

// Every lane of the one-warp block stores the warp's reduction: one value for the warp.
extern "C" __global__ void ok_whole_warp_stores_its_reduction(const int *in, int *result, int n) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  int mine = 0;
  for (int i = warp.thread_rank(); i < n; i += warp.size())
    mine ^= in[i];
  int all = cg::reduce(warp, mine, cg::bit_xor<int>());
  result[0] = all;
  result[1] = cg::reduce(warp, mine, cg::bit_or<int>());
}

// The loop runs (blockDim.x / 2 > 0 for the launched 128 threads), so its barrier orders the
// block's `*status = 0` with thread 0's `*status = 1`: the path that skips the loop is taken only
// by a block of one thread.
extern "C" __global__ void ok_barrier_in_a_loop_the_shape_runs(int *status, int *scratch) {
  *status = 0;
  int v = 1;
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    scratch[threadIdx.x] = v;
    __syncthreads();
    v += half;
  }
  if (threadIdx.x == 0)
    *status = v;
}

// Every block fills the same table with the same values (threadIdx.x * 3) before its own work.
extern "C" __global__ void ok_blocks_fill_one_table_alike(unsigned *table, unsigned *out) {
  table[threadIdx.x] = threadIdx.x * 3u;
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

// bad: every block stores blockIdx.x + threadIdx.x into the same 64 elements: block 0's thread t
// and block 1's thread t write different values to out[t].
extern "C" __global__ void bad_blocks_store_their_index_in_one_place(unsigned *out) {
  out[threadIdx.x] = blockIdx.x + threadIdx.x;
}

// bad: threads 2k and 2k + 1 (one warp) store their own indices to out[k].
extern "C" __global__ void bad_pairs_of_threads_store_different_values(unsigned *out) {
  out[blockIdx.x * 64 + threadIdx.x / 2] = threadIdx.x;
}

// bad: all threads store 0, then thread 0 stores the input's first element, and no barrier between.
extern "C" __global__ void bad_status_reset_without_barrier(int *status, const int *in) {
  *status = 0;
  if (threadIdx.x == 0)
    *status = in[0];
}

int main() {
  unsigned *u;
  int *i, *s;
  cudaMalloc(&u, 1024 * sizeof(unsigned));
  cudaMalloc(&i, 1024 * sizeof(int));
  cudaMalloc(&s, 1024 * sizeof(int));
  ok_last_lane_of_each_tile_stores_totals<<<1, 256>>>(u);
  ok_whole_warp_stores_its_reduction<<<1, 32>>>(i, s, 1024);
  ok_barrier_in_a_loop_the_shape_runs<<<1, 128>>>(s, i);
  ok_blocks_fill_one_table_alike<<<8, 64>>>(u, u + 64);
  bad_blocks_store_their_index_in_one_place<<<2, 64>>>(u);
  bad_pairs_of_threads_store_different_values<<<4, 128>>>(u);
  bad_status_reset_without_barrier<<<1, 128>>>(s, i);
  cudaDeviceSynchronize();
  return 0;
}
