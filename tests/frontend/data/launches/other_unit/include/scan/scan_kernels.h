// The public header: the block the kernels are written for, and their declarations.
#pragma once
static const int scan_block = 32;  // one warp per block: the kernels' look-back assumes it
__global__ void scan_tiles(const int *in, int *out, int n);
void scan(const int *in, int *out, int n);
