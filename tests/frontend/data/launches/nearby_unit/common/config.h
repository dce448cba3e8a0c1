#pragma once
#define TPB 32  // one warp per block: the kernels exchange data through __syncwarp only
