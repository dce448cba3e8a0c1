// Host code in its own translation unit (compiled by the host compiler, not nvcc): it calls the
// wrappers of kernels.cu. HAVE_CUDA is the build's switch for its CUDA code (on when the kernels
// are compiled at all); the HIP branch is for another toolchain.
#include "kernels.h"

static int n_blocks(int size, int block) { return (size + block - 1) / block; }

#ifdef __IS_HIP_COMPILE__
#define WARP 64
#else
#define WARP 32
#endif

void sums(const float *in, float *out, int rows, int cols) {
#if HAVE_CUDA == 1
  dim3 block(WARP, 256 / WARP);
  dim3 grid(n_blocks(cols, WARP));
  column_sums(grid, block, in, out, rows, cols);
  dim3 grid2(n_blocks(cols, WARP), 4);
  launch_column_sums_2d(grid2, block, in, out, rows, cols);
#endif
}
