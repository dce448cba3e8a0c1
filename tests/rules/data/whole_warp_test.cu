// `__activemask()` is the set of lanes executing together. Code that branches on "all 32 lanes are
// here" (cooperative groups' coalesced_group does it in shfl, ballot and its scans: `size() == 32`)
// takes its full-mask path only when they are, so a branch that decided earlier whether a lane gets
// there split nothing on that path, and a later test of the same full mask (`size() < 2`) splits
// nothing either. A test of another count, or a lane test after the full-mask test, still splits.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 whole_warp_test.cu -o whole_warp_test.sm_90.ptx
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// ok: threads with no work return; the rest scan their counts in a coalesced group (gallatin's
// malloc: the team is the lanes still present, split by a label).
extern "C" __global__ void ok_coalesced_group_scan(const unsigned *counts, const int *labels, unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned c = counts[i];
  if (c == 0) return;
  cg::coalesced_group team = cg::labeled_partition(cg::coalesced_threads(), labels[i]);
  unsigned before = cg::exclusive_scan(team, c, cg::plus<unsigned>());
  unsigned any_big = team.ballot(c > 100);
  out[i] = before + team.shfl(c, 0) + any_big;
}

// ok: the full-mask shuffle runs only when the mask read in the branch says every lane is there.
extern "C" __global__ void ok_activemask_full(const float *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (v > 0.0f) {
    unsigned active = __activemask();
    if (active == 0xffffffffu)
      v += __shfl_down_sync(0xffffffffu, v, 1);
    else
      v += __shfl_down_sync(active, v, 1);
  }
  out[i] = v;
}

// bad: the whole warp is there at the test, but the shuffle sits under a lane test after it.
extern "C" __global__ void bad_split_after_full_test(const float *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (v > 0.0f) {
    unsigned active = __activemask();
    if (active == 0xffffffffu && (threadIdx.x & 31) < 16)
      v += __shfl_down_sync(0xffffffffu, v, 1);  // EXPECT SHFL001
  }
  out[i] = v;
}

// bad: sixteen active lanes are not the warp.
extern "C" __global__ void bad_half_warp_test(const float *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (v > 0.0f) {
    unsigned active = __activemask();
    if (__popc(active) >= 16)
      v += __shfl_down_sync(0xffffffffu, v, 1);  // EXPECT SHFL001
  }
  out[i] = v;
}
