// A kernel whose work depends only on blockIdx.x is launched on a 1-D grid: blocks that would differ
// only in blockIdx.y are not compared. cooperative groups' grid barrier (`this_grid().sync()`) reads
// blockIdx.y and .z too, but only to add them into its own arrival counter (at an address from
// %envreg): that does not make the kernel 2-D. A kernel that uses blockIdx.y itself is compared
// across y. No launch in this file: the kernels are checked as a user's unlaunched kernels are.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 grid_sync_axes.cu -o grid_sync_axes.sm_90.ptx
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// ok: each block writes its own slice, the grid meets, then each reads its neighbour's slice.
extern "C" __global__ void ok_grid_sync_one_axis(float *data, float *out) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = i * 2.0f;
  grid.sync();
  out[i] = data[(i + blockDim.x) % (gridDim.x * blockDim.x)];
}

// bad: the value stored depends on blockIdx.y, but the address does not: blocks (x, 0) and (x, 1)
// write the same word.
extern "C" __global__ void bad_grid_sync_y_value(float *data, float *out) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = i * 2.0f + blockIdx.y;  // EXPECT RACE003
  grid.sync();
  out[i] = data[(i + blockDim.x) % (gridDim.x * blockDim.x)];  // EXPECT RACE003
}
