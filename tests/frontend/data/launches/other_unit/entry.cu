#include "scan_kernels.h"

void scan(const int *in, int *out, int n) {
  int bsize = scan_block;
  dim3 grid((n + bsize - 1) / bsize);
  dim3 block(bsize);
  scan_tiles<<<grid, block>>>(in, out, n);
}
