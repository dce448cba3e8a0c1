// relax is written for one warp per block (TPB in common/config.h); it is launched from
// drivers/step.cu, which includes this folder's header through its own drivers/step.cuh, with HIP's
// launch macro as portable code writes it.
#include "relax_kernels.cuh"
__global__ void relax(float *x, int n) {
  __shared__ float s[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x % 32] = i < n ? x[i] : 0.0f;
  __syncwarp();
  if (i < n) x[i] = 0.5f * (s[threadIdx.x % 32] + s[(threadIdx.x + 1) % 32]);
}
