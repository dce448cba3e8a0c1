// Device code, named in the PTX; the launch is in host.cu, which no .file directive names.
#pragma once
namespace tree {
__global__ void init_root(unsigned *root) {
  if (threadIdx.x % 32 == 0) *root = blockIdx.x;
}
}
