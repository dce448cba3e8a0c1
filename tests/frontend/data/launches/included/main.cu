// Host code only: nvcc's PTX names stencil.cuh (device code) but not this file.
// Compiled with: nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 main.cu -o main.sm_90.ptx
#include "config.h"
#include "stencil.cuh"

int main() {
  float *a, *b;
  cudaMalloc(&a, 1024 * 1024 * sizeof(float));
  cudaMalloc(&b, 1024 * 1024 * sizeof(float));
  run_stencil(b, a, 1024, 1024);
  scale<<<1024 * 1024 / (BX * BY), BX * BY>>>(b, 2.0f);
  cudaDeviceSynchronize();
  return 0;
}
